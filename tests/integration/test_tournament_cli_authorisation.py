"""``opus tournament``'s organiser commands, repeated by another caller's
token, against a SQLite store: refused as not the organiser's, before the
rules are asked, and nothing recorded. The command line sends no command id
(api/cli/tournament.py), so a repeat there is a new command: the answer of
a replayed id is the service's to withhold (tests/unit/test_replay_authorisation.py)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from uuid import UUID

from click.testing import CliRunner, Result

from api.cli import main
from api.identity import token_hash
from domain.application import Opus
from domain.bots import BOTS
from domain.simulation import play_out


def env_of(tmp_path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}


def invoke(tmp_path: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["tournament", *args], env=env_of(tmp_path))


def found(pattern: str, output: str) -> str:
    match = re.search(pattern, output, re.M)
    assert match is not None, output
    return match.group(1)


def head(tmp_path: Path) -> int:
    app = Opus(env=env_of(tmp_path))
    try:
        return app.recorder.max_notification_id() or 0
    finally:
        app.close()


def test_T2_2_T7_T8_1_T9_3_an_organiser_command_repeated_with_a_players_token_is_refused(
    tmp_path: Path,
) -> None:
    created = invoke(tmp_path, "create", "--name", "Night", "--rounds", "1")
    assert created.exit_code == 0, created.output
    ids = ["--tournament", found(r"^tournament: (\S+)$", created.output)]
    organiser = found(r"^organiser token: (\S+)$", created.output)
    tokens = []
    for name in ("Ada", "Boris", "Cleo", "Dora"):
        registered = invoke(tmp_path, "register", *ids, "--name", name)
        assert registered.exit_code == 0, registered.output
        tokens.append(found(r"^token: (\S+)$", registered.output))
    ada = tokens[0]

    def both(*args: str) -> str:
        """The organiser's command, then the same with Ada's token: refused
        (exit 1, not the organiser), nothing recorded. Returns the first's output."""
        made = invoke(tmp_path, *args[:1], *ids, "--token", organiser, *args[1:])
        assert made.exit_code == 0, made.output
        before = head(tmp_path)
        repeated = invoke(tmp_path, *args[:1], *ids, "--token", ada, *args[1:])
        assert repeated.exit_code == 1, repeated.output
        assert "organiser" in repeated.output, repeated.output
        assert head(tmp_path) == before
        return made.output

    paired = both("pair")
    game = found(r"^table 1: game (\S+):", paired)
    both("penalise", "--player", "2", "--points", "1/2", "--reason", "late")
    both("drop", "--player", "4")
    both("call", "--game", game)  # T8.1: a seat has withdrawn
    app = Opus(env=env_of(tmp_path))
    try:  # the game played out by its seats' tokens, through the service
        seats = app.tournaments.get(UUID(ids[1])).state.rounds[0].tables[0].players
        hashes = [token_hash(tokens[p - 1]) for p in seats]
        play_out(app, UUID(game), hashes, BOTS["greedy"](random.Random(3)))
    finally:
        app.close()
    both("correct", "--game", game, "--places", "1,1,3,4", "--reason", "slip")
    both("finish")


def test_an_account_key_organises_and_registers_as_its_account_until_rotated(
    tmp_path: Path,
) -> None:
    app = Opus(env=env_of(tmp_path))
    try:
        organiser = app.accounts.open("Olga")
        players = [app.accounts.open(name) for name in ("Ada", "Boris", "Cleo")]
        holder = app.accounts.view(organiser.account).holder_hash
    finally:
        app.close()
    created = invoke(tmp_path, "create", "--name", "Keyed", "--key", organiser.key)
    assert created.exit_code == 0 and "organiser: your account" in created.output
    ids = ["--tournament", found(r"^tournament: (\S+)$", created.output)]
    for n, player in enumerate(players):
        registered = invoke(tmp_path, "register", *ids, "--name", f"P{n}", "--key", player.key)
        assert registered.exit_code == 0, registered.output
        assert "registered: your account" in registered.output
    assert invoke(tmp_path, "pair", *ids, "--token", players[0].key).exit_code != 0
    before = head(tmp_path)
    paired = invoke(tmp_path, "pair", *ids, "--token", organiser.key)
    assert paired.exit_code == 0, paired.output
    assert head(tmp_path) > before
    app = Opus(env=env_of(tmp_path))
    try:
        assert app.organises(UUID(ids[1]), holder)
        app.accounts.rotate_key(organiser.account)
    finally:
        app.close()
    rotated = invoke(tmp_path, "finish", *ids, "--token", organiser.key)
    assert rotated.exit_code != 0 and "rotated" in rotated.output

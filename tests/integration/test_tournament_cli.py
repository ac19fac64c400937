"""``opus tournament`` against a SQLite store in a temporary folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from api.cli import main


def invoke(tmp_path: Path, *args: str) -> Result:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    return CliRunner().invoke(main, ["tournament", *args], env=env)


def table_rows(output: str) -> list[list[str]]:
    """The standings table's rows (after its header), split into cells."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["rank", "player"])
    rows = []
    for line in lines[start + 1 :]:
        if not re.match(r"\s*[0-9]+\s", line):
            break
        rows.append(line.split())
    return rows


def test_simulate_plays_a_tournament_and_prints_the_final_standings(tmp_path: Path) -> None:
    result = invoke(tmp_path, "simulate", "--players", "9", "--rounds", "3", "--bot", "random")
    assert result.exit_code == 0, result.output
    rows = table_rows(result.output)
    assert len(rows) == 9
    assert [int(row[0]) for row in rows] == list(range(1, 10))
    assert sorted(int(row[1]) for row in rows) == list(range(1, 10))
    assert re.search(r"^tournament: [0-9a-f-]{36}$", result.output, re.M)
    assert re.search(r"^games: [1-9][0-9]*$", result.output, re.M)
    assert re.search(r"^moves: [1-9][0-9]*$", result.output, re.M)

    tournament = re.search(r"^tournament: (\S+)$", result.output, re.M)
    assert tournament is not None
    again = invoke(tmp_path, "standings", "--tournament", tournament.group(1))
    assert again.exit_code == 0, again.output
    assert table_rows(again.output) == rows  # the same store, read again


def test_an_organiser_runs_a_tournament_and_a_refusal_names_its_rule(tmp_path: Path) -> None:
    created = invoke(tmp_path, "create", "--name", "Club night", "--rounds", "2")
    assert created.exit_code == 0, created.output
    tournament = re.search(r"^tournament: (\S+)$", created.output, re.M)
    organiser = re.search(r"^organiser token: (\S+)$", created.output, re.M)
    assert tournament is not None and organiser is not None
    ids = ["--tournament", tournament.group(1)]
    for name in ("Ada", "Boris", "Cleo"):
        registered = invoke(tmp_path, "register", *ids, "--name", name)
        assert registered.exit_code == 0 and "token: " in registered.output
    taken = invoke(tmp_path, "register", *ids, "--name", "ada ")
    assert taken.exit_code == 1 and "T2.1" in taken.output

    not_organiser = invoke(tmp_path, "pair", *ids, "--token", "nobody")
    assert not_organiser.exit_code == 1 and "organiser" in not_organiser.output
    paired = invoke(tmp_path, "pair", *ids, "--token", organiser.group(1))
    assert paired.exit_code == 0, paired.output
    shown = [line for line in paired.output.splitlines() if not line.startswith("receipt: ")]
    assert shown[0] == "round 1" and "table 1: game " in paired.output  # after its receipts
    game = re.search(r"^table 1: game (\S+):", paired.output, re.M)
    assert game is not None
    by_organiser = [*ids, "--token", organiser.group(1)]
    open_round = invoke(tmp_path, "finish", *by_organiser)
    assert open_round.exit_code == 1 and "T9.3" in open_round.output
    on_game = [*by_organiser, "--game", game.group(1)]
    early = invoke(tmp_path, "call", *on_game)
    assert early.exit_code == 1 and "T8.1" in early.output
    no_result = invoke(tmp_path, "correct", *on_game, "--places", "1,2,3", "--reason", "slip")
    assert no_result.exit_code == 1 and "T7.1" in no_result.output
    third = invoke(
        tmp_path, "penalise", *by_organiser, "--player", "1", "--points", "1/3", "--reason", "late"
    )
    assert third.exit_code == 1 and "T7.2" in third.output
    half = invoke(
        tmp_path, "penalise", *by_organiser, "--player", "1", "--points", "1/2", "--reason", "late"
    )
    assert half.exit_code == 0, half.output
    dropped = invoke(tmp_path, "drop", *by_organiser, "--player", "3")
    assert dropped.exit_code == 0, dropped.output
    called = invoke(tmp_path, "call", *on_game)
    assert called.exit_code == 0, called.output  # T8.1: a seat has withdrawn

    standings = invoke(tmp_path, "standings", *ids)
    assert standings.exit_code == 0
    rows = {row[2]: row for row in table_rows(standings.output)}
    assert sorted(rows) == ["Ada", "Boris", "Cleo"]
    assert rows["Cleo"][3] == "dropped"
    assert rows["Ada"][3:5] == ["-1/2", "1/2"]  # match points after the penalty, penalties


def test_T11_T12_simulate_with_teams_constraints_and_a_cut_then_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`opus tournament simulate --teams --constraints --cut k` plays the cut
    (T12) and prints the final ranking; the store then verifies (T10.1)."""
    result = invoke(
        tmp_path,
        *("simulate", "--players", "13", "--rounds", "2", "--bot", "random"),
        *("--teams", "3", "--constraints", "3", "--cut", "3", "--seed", "4"),
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index("final ranking (T12.4)")
    ranking = lines[start + 1 : start + 14]
    assert [int(line.split()[0]) for line in ranking] == list(range(1, 14))
    assert [line.endswith("(final, place 1)") for line in ranking][:1] == [True]
    assert sum("(semifinal, place" in line for line in ranking) >= 6
    assert ranking[-1].endswith("(swiss)")
    tournament = re.search(r"^tournament: (\S+)$", result.output, re.M)
    assert tournament is not None
    for key, value in {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "e.db"),
    }.items():
        monkeypatch.setenv(key, value)
    verified = CliRunner().invoke(main, ["verify", "--tournament", tournament.group(1)])
    assert verified.exit_code == 0, verified.output
    assert "re-derived" in verified.output


def test_T11_1_T12_an_organiser_names_teams_a_constraint_and_a_cut(tmp_path: Path) -> None:
    created = invoke(
        tmp_path, "create", "--name", "Families", "--rounds", "1", "--cut", "1", "--tables", "3/3/3"
    )
    assert created.exit_code == 0, created.output
    tournament = re.search(r"^tournament: (\S+)$", created.output, re.M)
    organiser = re.search(r"^organiser token: (\S+)$", created.output, re.M)
    assert tournament is not None and organiser is not None
    ids = ["--tournament", tournament.group(1)]
    by_organiser = [*ids, "--token", organiser.group(1)]
    for n, team in enumerate(["Home", "home ", "", "", "", ""], start=1):
        registered = invoke(tmp_path, "register", *ids, "--name", f"P{n}", "--team", team)
        assert registered.exit_code == 0, registered.output
    bad = invoke(tmp_path, "register", *ids, "--name", "P7", "--team", "\u202eevil")
    assert bad.exit_code == 1 and "T11.1" in bad.output
    same = invoke(tmp_path, "constrain", *by_organiser, "--players", "3,3", "--reason", "x")
    assert same.exit_code == 1 and "T11.1" in same.output
    kept = invoke(tmp_path, "constrain", *by_organiser, "--players", "4,3", "--reason", "siblings")
    assert kept.exit_code == 0 and "players 3 and 4 kept apart" in kept.output  # T11.1: ascending
    paired = invoke(tmp_path, "pair", *by_organiser)
    assert paired.exit_code == 0, paired.output
    tables = re.findall(
        r"^table \d: game \S+: (.*) \(repeats 0, spread 0, seated together 0\)$",
        paired.output,
        re.M,
    )
    assert len(tables) == 2  # P1 and P2 (one team) apart, P3 and P4 apart: (c) = 0 at both
    late = invoke(tmp_path, "constrain", *by_organiser, "--players", "1,5", "--reason", "late")
    assert late.exit_code == 1 and "T11.1" in late.output


def test_T1_1_simulate_takes_the_procedure_the_table_sizes_and_the_weight(tmp_path: Path) -> None:
    """`--procedure swap-1 --tables 2/3/3 --weight 2`: the tournament records
    them (T1.1) and pairs by them (tables of 2 or 3, T3.1), and verifies."""
    result = invoke(
        tmp_path,
        *("simulate", "--players", "8", "--rounds", "2", "--bot", "random"),
        *("--procedure", "swap-1", "--tables", "2/3/3", "--weight", "2"),
    )
    assert result.exit_code == 0, result.output
    found = re.search(r"^tournament: (\S+)$", result.output, re.M)
    assert found is not None
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    exported = CliRunner().invoke(main, ["export", "--tournament", found.group(1)], env=env)
    assert exported.exit_code == 0, exported.output
    created = next(
        json.loads(line) for line in exported.output.splitlines() if '"TournamentCreated"' in line
    )
    payload = created["payload"]
    assert payload["procedure"] == "swap-1" and payload["weight"] == 2
    assert payload["tables"] == {"min": 2, "preferred": 3, "max": 3}
    paired = [
        json.loads(line)["payload"]
        for line in exported.output.splitlines()
        if "RoundPaired" in line
    ]
    assert {p["procedure"] for p in paired} == {"swap-1"}
    assert {len(t["players"]) for p in paired for t in p["tables"]} <= {2, 3}
    bad = invoke(tmp_path, "simulate", "--players", "8", "--tables", "4/3/5")
    assert bad.exit_code != 0 and "must satisfy 2 ≤ min ≤ preferred ≤ max ≤ 5" in bad.output

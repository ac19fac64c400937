"""The ratings on the command line, on a SQLite store: ``opus ratings``;
``opus verify --ratings`` passing on the store and failing on a rating
tampered with in the view (beyond 1e-9; within it, it holds); ``opus
export --ratings`` carrying them, ``opus verify --ratings --file`` passing
on it and failing on a tampered rating or a game taken out of the line;
``opus analytics report`` showing the seat effects beside the seat shares."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from api.cli import main
from domain.application import Opus
from projections.ports import namespace
from tests.integration.test_ratings_view import Log, fill


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Log]:
    folder = tmp_path_factory.mktemp("ratings-cli")
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(folder / "events.db"),
        "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
        "OPUS_ANALYTICS_DIR": str(folder / "analytics"),
        "OPUS_RUN_PROJECTIONS": "0",
    }
    app = Opus(env={k: env[k] for k in ("PERSISTENCE_MODULE", "SQLITE_DBNAME")})
    log = fill(app)
    app.close()
    return env, log


def opus(env: dict[str, str], *args: str) -> Result:
    runner = CliRunner()
    return runner.invoke(main, list(args), env={**env, "REDIS_URL": ""}, catch_exceptions=False)


def rebuilt(env: dict[str, str]) -> None:
    done = opus(env, "rebuild")
    assert done.exit_code == 0, done.output


def tamper(env: dict[str, str], key: str, change: Any) -> str:
    """Change a document of the ratings view in place; the old text back."""
    with sqlite3.connect(env["OPUS_VIEWS_DBNAME"]) as db:
        ns = namespace("ratings", "g0")
        (text,) = db.execute(
            "SELECT value FROM view_docs WHERE ns=? AND key=?", (ns, key)
        ).fetchone()
        db.execute(
            "UPDATE view_docs SET value=? WHERE ns=? AND key=?",
            (json.dumps(change(json.loads(text))), ns, key),
        )
    return str(text)


def restore(env: dict[str, str], key: str, text: str) -> None:
    with sqlite3.connect(env["OPUS_VIEWS_DBNAME"]) as db:
        db.execute(
            "UPDATE view_docs SET value=? WHERE ns=? AND key=?",
            (text, namespace("ratings", "g0"), key),
        )


def test_opus_ratings_lists_the_accounts_an_account_and_the_seats(
    store: tuple[dict[str, str], Log],
) -> None:
    env, log = store
    rebuilt(env)
    done = opus(env, "ratings", "--seats")
    assert done.exit_code == 0, done.output
    assert "openskill 6.2.0 PlackettLuce" in done.output and "5 accounts rated" in done.output
    rows = [line for line in done.output.splitlines() if str(log.accounts["Ben"]) in line]
    assert len(rows) == 1 and rows[0].split()[0] in {"1", "2", "3", "4", "5"}
    assert "table of 4, seat 1: effect" in done.output
    shown = json.loads(opus(env, "ratings", "--json").output)
    assert [row["rank"] for row in shown["players"]] == [1, 2, 3, 4, 5]
    ann = opus(env, "ratings", str(log.accounts["Ann"]))
    assert ann.exit_code == 0 and "Ann Lovelace" in ann.output and "3 rated games" in ann.output
    for name in ("two", "withdrawn", "moved"):
        assert str(log.games[name]) in ann.output
    cat = opus(env, "ratings", str(log.accounts["Cat"]))
    (withdrawn,) = [line for line in cat.output.splitlines() if str(log.games["withdrawn"]) in line]
    assert " 4/4 w " in withdrawn  # last of four, withdrawn
    missing = opus(env, "ratings", str(log.games["two"]))
    assert missing.exit_code != 0 and "no account" in missing.output


def test_verify_recomputes_the_ratings_and_fails_on_a_tampered_one(
    store: tuple[dict[str, str], Log],
) -> None:
    env, log = store
    rebuilt(env)
    done = opus(env, "verify", "--ratings")
    assert done.exit_code == 0, done.output
    assert "ok   ratings at position" in done.output
    assert "4 rated games, 5 accounts" in done.output and "within 1e-09" in done.output
    key = f"rating:{log.accounts['Ben']}"
    old = tamper(env, key, lambda doc: {**doc, "mu": doc["mu"] + 1e-12})
    within = opus(env, "verify", "--ratings", "--no-views")
    assert within.exit_code == 0, within.output  # within 1e-9
    restore(env, key, old)
    tamper(env, key, lambda doc: {**doc, "mu": doc["mu"] + 1e-6})
    failed = opus(env, "verify", "--ratings", "--no-views")
    assert failed.exit_code == 1
    assert "FAIL ratings at position" in failed.output
    assert f"account {log.accounts['Ben']}: recorded μ" in failed.output
    everything = opus(env, "verify", "--ratings")  # the view check fails it too
    assert everything.exit_code == 1 and "FAIL view ratings" in everything.output
    restore(env, key, old)
    seat = tamper(env, "seats", lambda doc: {**doc, "0/2": {**doc["0/2"], "sigma": 1.0}})
    assert "seat 0/2: recorded" in opus(env, "verify", "--ratings", "--no-views").output
    restore(env, "seats", seat)
    assert opus(env, "verify", "--ratings", "--game", str(log.games["two"])).exit_code == 2


def test_the_export_carries_the_ratings_and_verify_holds_them_to_its_games(
    store: tuple[dict[str, str], Log], tmp_path: Path
) -> None:
    env, log = store
    rebuilt(env)
    path = tmp_path / "log.ndjson"
    done = opus(env, "export", "--ratings", "--output", str(path))
    assert done.exit_code == 0, done.output
    lines = path.read_text(encoding="utf-8").splitlines()
    carried = json.loads(lines[-1])["ratings"]
    assert carried["library"] == "openskill" and carried["version"] == "6.2.0"
    assert carried["parameters"]["beta"] == 25 / 6 and len(carried["games"]) == 4
    assert "history" not in carried
    good = opus(env, "verify", "--ratings", "--file", str(path))
    assert good.exit_code == 0, good.output
    assert "ok   ratings of the export" in good.output
    assert opus(env, "verify", "--file", str(path)).exit_code == 0  # the line is no event

    def written(ratings: dict[str, Any]) -> Path:
        changed = tmp_path / "changed.ndjson"
        body = [*lines[:-1], json.dumps({"ratings": ratings})]
        changed.write_text("\n".join(body) + "\n", encoding="utf-8")
        return changed

    nudged = json.loads(json.dumps(carried))
    nudged["games"][1]["seats"][0]["mu"] += 1e-7
    bad = opus(env, "verify", "--ratings", "--file", str(written(nudged)))
    assert bad.exit_code == 1 and "rated game 2" in bad.output and "recorded μ" in bad.output
    fewer = json.loads(json.dumps(carried))
    del fewer["games"][0]
    bad = opus(env, "verify", "--ratings", "--file", str(written(fewer)))
    assert bad.exit_code == 1 and "FAIL ratings of the export" in bad.output
    placed = json.loads(json.dumps(carried))
    first = placed["games"][0]["seats"]
    first[0]["place"], first[1]["place"] = first[1]["place"], first[0]["place"]
    bad = opus(env, "verify", "--ratings", "--file", str(written(placed)))
    assert bad.exit_code == 1 and "by the rules (R7.3)" in bad.output
    plain = tmp_path / "plain.ndjson"
    plain.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    none = opus(env, "verify", "--ratings", "--file", str(plain))
    assert none.exit_code == 1 and "carries no ratings" in none.output
    assert opus(env, "export", "--ratings", "--after", "5").exit_code == 2
    assert str(log.games["two"]) in carried["games"][0]["game"]


def test_the_analytics_report_shows_the_seat_effects_beside_the_seat_shares(
    store: tuple[dict[str, str], Log],
) -> None:
    env, _ = store
    assert opus(env, "analytics", "export").exit_code == 0
    done = opus(env, "analytics", "report")
    assert done.exit_code == 0, done.output
    report = Path(env["OPUS_ANALYTICS_DIR"]) / "report"
    snapshot = json.loads((report / "report.json").read_text(encoding="utf-8"))
    questions = list(snapshot["questions"])
    assert questions.index("seat_effects") == questions.index("seat_advantage") + 1
    effects = snapshot["questions"]["seat_effects"]
    rows = effects["rows"]
    assert {(r["players"], r["seat"]) for r in rows} == {
        (size, seat) for size in (2, 3, 4) for seat in range(size)
    }
    measured = {
        (r["players"], r["seat"]): r for r in snapshot["questions"]["seat_advantage"]["rows"]
    }
    for row in rows:
        assert row["share"] == measured[(row["players"], row["seat"])]["share"]
        assert row["inside"] == (row["wilson_low"] <= row["rated_share"] <= row["wilson_high"])
    for size in (2, 3, 4):
        table = [r for r in rows if r["players"] == size]
        assert sum(r["rated_share"] for r in table) == pytest.approx(1.0)
        assert sum(r["effect"] for r in table) == pytest.approx(0.0, abs=1e-12)
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "Seat effects, from the ratings" in page
    plain = opus(env, "analytics", "report", "--no-ratings")
    assert plain.exit_code == 0
    again = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert "seat_effects" not in again["questions"]

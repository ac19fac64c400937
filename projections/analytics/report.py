"""The report (``opus analytics report``): every question of ``sql/`` run by
an engine on the export, written to a folder:

- ``index.html``: each question with its description, its charts and its
  table (the first rows; the CSV has them all);
- ``<question>.csv``: each question's whole table;
- ``charts/*.png`` (matplotlib): seat advantage with Wilson intervals and the
  fair share, the ranked card chart, the steal graph, game-length
  histograms, points by rule, Sequence progress, time per move by seat and
  phase;
- ``report.json``: every question's table with the report's facts (engine,
  export position, games, time), written last and atomically: the snapshot
  ``GET /analytics/{question}`` serves.
"""

from __future__ import annotations

import csv
import functools
import html
import json
import math
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from projections.analytics import seat_effects
from projections.analytics.engines import Answer, Engine
from projections.analytics.export import Manifest

SQL_DIR = Path(__file__).parent / "sql"
SNAPSHOT = "report.json"
HTML_ROWS = 60  # rows of a table shown on the page

# the questions in the order the page shows them (each is sql/<question>.sql)
QUESTIONS = (
    "seat_advantage",
    "card_strength",
    "points_by_rule",
    "steal_graph",
    "sequence_progress",
    "sequence_wins",
    "game_ends",
    "game_length",
    "length_histogram",
    "time_per_move",
    "bot_head_to_head",
    "player_history",
    "tournament_seats",
    "tournament_match_points",
)
TITLES = {
    "seat_advantage": "Seat advantage",
    seat_effects.QUESTION: seat_effects.TITLE,
    "card_strength": "Card strength",
    "points_by_rule": "Where points come from",
    "steal_graph": "The steal graph",
    "sequence_progress": "Sequences: progress by column and stage",
    "sequence_wins": "Sequences and wins",
    "game_ends": "How games end",
    "game_length": "Game length",
    "length_histogram": "Game length: distribution",
    "time_per_move": "Time per move, by seat and by phase of the game",
    "bot_head_to_head": "Bots head to head",
    "player_history": "Players",
    "tournament_seats": "Tournaments: seat balance",
    "tournament_match_points": "Tournaments: match points by table size and seat",
}


@functools.cache
def sql_of(question: str) -> str:
    """A question's SQL, read once."""
    return (SQL_DIR / f"{question}.sql").read_text(encoding="utf-8")


def description_of(question: str) -> str:
    """The SQL file's leading comment (the seat effects: their module's)."""
    if question == seat_effects.QUESTION:
        return seat_effects.DESCRIPTION
    lines = []
    for line in sql_of(question).splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    return " ".join(lines)


def run_questions(engine: Engine, questions: tuple[str, ...] = QUESTIONS) -> dict[str, Answer]:
    return {question: engine.run(sql_of(question)) for question in questions}


@dataclass
class Report:
    """Every answer, with what it was computed from."""

    results: dict[str, Answer]
    engine: str
    position: int
    games: int
    seconds: float
    generated_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def snapshot(self) -> dict[str, Any]:
        return {
            "generated_at": self.generated_at,
            "engine": self.engine,
            "position": self.position,
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "questions": {
                q: {
                    "question": q,
                    "title": TITLES.get(q, q),
                    "description": description_of(q),
                    "columns": list(r.columns),
                    "rows": [_json_row(row) for row in r.dicts()],
                }
                for q, r in self.results.items()
            },
        }


def _json_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in row.items()
    }


def build_report(
    engine: Engine, data: Path, out: Path, ratings: seat_effects.Ratings | None = None
) -> Report:
    """Run every question on the export in ``data`` and write the report
    folder ``out``; the snapshot (report.json) last. ``ratings``: the seat
    pseudo-players as the ratings learned them on the same games, shown
    beside the seat advantage (projections/analytics/seat_effects.py)."""
    manifest = Manifest.load(data)
    started = time.perf_counter()
    results = run_questions(engine)
    if ratings is not None:
        results = seat_effects.with_seat_effects(results, *ratings)
    report = Report(results, engine.name, manifest.position, manifest.games, 0.0)
    report.seconds = time.perf_counter() - started
    write_report(report, out)
    return report


def write_report(report: Report, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    charts = out / "charts"
    charts.mkdir(exist_ok=True)
    for question, result in report.results.items():
        with open(out / f"{question}.csv", "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(result.columns)
            writer.writerows(result.rows)
    drawn = draw_charts(report.results, charts)
    (out / "index.html").write_text(page(report, drawn), encoding="utf-8")
    aside = out / f".{SNAPSHOT}.{uuid.uuid4().hex[:8]}.tmp"
    aside.write_text(json.dumps(report.snapshot(), ensure_ascii=False), encoding="utf-8")
    os.replace(aside, out / SNAPSHOT)


# ---- charts ----------------------------------------------------------------------


def draw_charts(results: Mapping[str, Answer], folder: Path) -> dict[str, list[str]]:
    """The PNG charts, by question: file names under ``folder``."""
    drawn: dict[str, list[str]] = defaultdict(list)
    charts: dict[str, Callable[[list[dict[str, Any]], Path], bool]] = {
        "seat_advantage": _seat_advantage,
        "card_strength": _card_strength,
        "points_by_rule": _points_by_rule,
        "steal_graph": _steal_graph,
        "sequence_progress": _sequence_progress,
        "length_histogram": _length_histogram,
        "time_per_move": _time_per_move,
    }
    for question, chart in charts.items():
        result = results.get(question)
        path = folder / f"{question}.png"
        if result is not None and result.rows and chart(result.dicts(), path):
            drawn[question].append(f"{folder.name}/{path.name}")
    return drawn


def _figure(
    width: float,
    height: float,
    *,
    left: float = 0.7,
    right: float = 0.2,
    bottom: float = 0.6,
    top: float = 0.75,
    wspace: float = 0.3,
) -> Any:
    """A figure of its own (no pyplot: nothing global, nothing to close)
    with fixed margins in inches: no layout engine, one drawing per chart."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)
    fig.subplots_adjust(
        left=left / width,
        right=1 - right / width,
        bottom=bottom / height,
        top=1 - top / height,
        wspace=wspace,
    )
    return fig


def _save(fig: Any, path: Path) -> bool:
    fig.savefig(path)
    return True


def _by(rows: list[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[row[key]].append(row)
    return dict(sorted(groups.items()))


def _seat_advantage(rows: list[dict[str, Any]], path: Path) -> bool:
    """Per player count: each seat's win share, its 95 % Wilson interval, and
    the fair share as a dashed line."""
    groups = _by(rows, "players")
    fig = _figure(max(6.5, 3.2 * len(groups) + 0.5), 3.6)
    for i, (players, seats) in enumerate(groups.items()):
        ax = fig.add_subplot(1, len(groups), i + 1)
        x = [r["seat"] for r in seats]
        share = [r["share"] for r in seats]
        low, high = error_bars(seats)
        colors = ["#c0392b" if r["wilson_low"] > r["fair_share"] else "#2e86c1" for r in seats]
        ax.bar(x, share, color=colors, yerr=[low, high], capsize=4)
        ax.axhline(1 / players, color="black", linestyle="--", linewidth=1, label="fair share")
        games = seats[0]["games"]
        ax.set_title(f"{players} players ({games:,} games)")
        ax.set_xlabel("seat")
        ax.set_xticks(x, [str(s + 1) for s in x])  # seats as people count them (SEAT_COLUMNS)
        if i == 0:
            ax.set_ylabel("win share (95 % Wilson interval)")
            ax.legend(loc="upper right", fontsize=8)
    fig.suptitle("Seat advantage: red = interval above the fair share")
    return _save(fig, path)


def error_bars(seats: list[dict[str, Any]]) -> tuple[list[float], list[float]]:
    """The seat advantage's error bars: how far each Wilson bound lies below
    and above its share; never negative (matplotlib refuses a negative bar),
    though the SQL already holds each bound on its side of the share."""
    low = [max(0.0, r["share"] - r["wilson_low"]) for r in seats]
    high = [max(0.0, r["wilson_high"] - r["share"]) for r in seats]
    return low, high


def _card_strength(rows: list[dict[str, Any]], path: Path) -> bool:
    """Recipes ranked by the win share of the seats that assembled them minus
    that of the others, with the sample size."""
    ranked = [r for r in rows if r["win_share_delta"] is not None]
    ranked.sort(key=lambda r: (r["win_share_delta"], r["name"]))
    fig = _figure(8.5, max(3.0, 0.22 * len(ranked) + 1.2), left=2.4, top=0.4)
    ax = fig.add_subplot(1, 1, 1)
    y = list(range(len(ranked)))
    values = [r["win_share_delta"] for r in ranked]
    ax.barh(y, values, color=["#27ae60" if v > 0 else "#c0392b" for v in values])
    ax.set_yticks(y)
    ax.set_yticklabels([f"{r['name']} (n={r['assembled_seats']:,})" for r in ranked], fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("win share when its owner assembled it − win share of all other seats")
    ax.set_title("Card strength: recipes ranked")
    return _save(fig, path)


def _points_by_rule(rows: list[dict[str, Any]], path: Path) -> bool:
    """Stacked shares of points by rule label, one bar per player count and variant."""
    groups = _by(
        [{**r, "group": (r["players"], r["draw"], r["guild"])} for r in rows],
        "group",
    )
    rules = sorted({r["rule"] for r in rows})
    fig = _figure(max(5.0, 0.7 * len(groups) + 3), 4.0, right=1.2, bottom=1.1, top=0.4)
    ax = fig.add_subplot(1, 1, 1)
    bottoms = [0.0] * len(groups)
    labels = [f"{p}p {d}{'' if g else ' no guild'}" for (p, d, g) in groups]
    for rule in rules:
        heights = [
            sum(r["share"] or 0.0 for r in members if r["rule"] == rule)
            for members in groups.values()
        ]
        ax.bar(labels, heights, bottom=bottoms, label=rule)
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
    ax.set_ylabel("share of all points")
    ax.set_title("Where points come from (R8.1 rule labels)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.tick_params(axis="x", labelrotation=45, labelsize=8)
    return _save(fig, path)


def _steal_graph(rows: list[dict[str, Any]], path: Path) -> bool:
    """Per player count, seats on a circle; an arrow from taker to victim,
    its width and darkness by the cards it carries against the mean of that
    count's arrows (a uniform table draws every arrow alike)."""
    groups = _by(rows, "players")
    fig = _figure(max(6.5, 3.6 * len(groups) + 0.5), 4.0, left=0.1, right=0.1, bottom=0.1)
    for i, (players, edges) in enumerate(groups.items()):
        ax = fig.add_subplot(1, len(groups), i + 1)
        ax.set_aspect("equal")
        ax.axis("off")
        spots = {
            s: (
                math.cos(math.pi / 2 - 2 * math.pi * s / players),
                math.sin(math.pi / 2 - 2 * math.pi * s / players),
            )
            for s in range(players)
        }
        total = sum(e["cards"] for e in edges) or 1
        mean = total / len(edges)
        for e in edges:
            (x0, y0), (x1, y1) = spots[e["taker"]], spots[e["victim"]]
            weight = e["cards"] / mean
            ax.annotate(
                "",
                xy=(x1, y1),
                xytext=(x0, y0),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "#8e44ad",
                    "alpha": max(0.1, min(1.0, 0.5 * weight**2)),
                    "linewidth": 0.3 + 2.5 * weight**2,
                    "connectionstyle": "arc3,rad=0.18",
                    "shrinkA": 14,
                    "shrinkB": 14,
                },
            )
        for seat, (x, y) in spots.items():
            ax.scatter([x], [y], s=500, color="#f5b041", zorder=3)
            ax.text(x, y, str(seat + 1), ha="center", va="center", zorder=4, fontsize=10)
        ax.set_xlim(-1.35, 1.35)
        ax.set_ylim(-1.35, 1.35)
        ax.set_title(f"{players} players: {total:,} cards taken", fontsize=9)
    fig.suptitle("Steal graph: taker → victim (width: cards taken, against the mean arrow)")
    return _save(fig, path)


def _sequence_progress(rows: list[dict[str, Any]], path: Path) -> bool:
    """The share of seat-columns reaching each stage, by column."""
    fig = _figure(6.0, 3.8, top=0.4)
    ax = fig.add_subplot(1, 1, 1)
    for column, stages in _by(rows, "sequence_column").items():
        ax.plot([r["stage"] for r in stages], [r["reach_share"] for r in stages], marker="o")
        ax.lines[-1].set_label(column)
    ax.set_xlabel("stage (7 = column completed)")
    ax.set_ylabel("share of seat-columns reaching it")
    ax.set_title("Sequences: how far columns get (Guild games)")
    ax.legend(fontsize=8)
    return _save(fig, path)


def _length_histogram(rows: list[dict[str, Any]], path: Path) -> bool:
    """Games by length in turns, one panel per player count."""
    groups = _by(rows, "players")
    fig = _figure(max(6.5, 3.0 * len(groups) + 0.5), 3.2)
    for i, (players, bins) in enumerate(groups.items()):
        ax = fig.add_subplot(1, len(groups), i + 1)
        ax.bar(
            [r["turns_from"] + 5 for r in bins],
            [r["games"] for r in bins],
            width=9,
            color="#5d6d7e",
        )
        ax.set_title(f"{players} players ({sum(r['games'] for r in bins):,} games)", fontsize=9)
        ax.set_xlabel("turns")
        if i == 0:
            ax.set_ylabel("games")
    fig.suptitle("Game length")
    return _save(fig, path)


def _time_per_move(rows: list[dict[str, Any]], path: Path) -> bool:
    """Mean seconds a turn took, by phase of the game (thirds of its turns),
    one bar per seat (seats shown from 1)."""
    seats = sorted({r["seat"] for r in rows})
    phases = (1, 2, 3)
    fig = _figure(6.5, 3.2)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(seats))
    means = {(r["seat"], r["phase"]): r["mean_seconds"] for r in rows}
    for i, seat in enumerate(seats):
        ax.bar(
            [p - 0.4 + width * (i + 0.5) for p in phases],
            [means.get((seat, p), 0.0) for p in phases],
            width=width,
            label=f"seat {seat + 1}",
        )
    ax.set_xticks(list(phases), ["first third", "second third", "last third"])
    ax.set_ylabel("seconds a turn took (mean)")
    ax.legend(fontsize=8)
    fig.suptitle("Time per move")
    return _save(fig, path)


# ---- the page --------------------------------------------------------------------


# the columns that hold a seat's index (from 0, as the events, the CSV and
# the API's JSON hold it): the page's tables and charts show index + 1, as
# the web client's pages number seats
SEAT_COLUMNS = frozenset({"seat", "taker", "victim"})


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}" if math.isfinite(value) else ""
    if value is None:
        return ""
    return html.escape(str(value))


def page(report: Report, drawn: Mapping[str, list[str]]) -> str:
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>Opus analytics</title><style>",
        "body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}",
        "table{border-collapse:collapse;font-size:0.85em;margin:0.5em 0 1.5em}",
        "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}",
        "th{background:#f4f6f7}td:first-child,th:first-child{text-align:left}",
        "img{max-width:100%;border:1px solid #eee}.note{color:#555}",
        "</style></head><body>",
        "<h1>Opus analytics</h1>",
        f"<p class='note'>{report.games:,} ended games exported up to log position "
        f"{report.position:,}; computed by {html.escape(report.engine)} in "
        f"{report.seconds:.2f} s at {html.escape(report.generated_at)}. Every figure comes "
        "from the events (the Parquet export of the log) by the SQL kept beside the code. "
        "Seats are numbered from 1 here (seat 1 plays first); the CSV files and the API "
        "keep the seat's index, from 0.</p>",
        "<ul>",
    ]
    for question in report.results:
        parts.append(
            f"<li><a href='#{question}'>{html.escape(TITLES.get(question, question))}</a></li>"
        )
    parts.append("</ul>")
    for question, result in report.results.items():
        parts.append(f"<h2 id='{question}'>{html.escape(TITLES.get(question, question))}</h2>")
        parts.append(f"<p>{html.escape(description_of(question))}</p>")
        for image in drawn.get(question, []):
            parts.append(f"<p><img src='{html.escape(image)}' alt='{question} chart'></p>")
        shown = result.rows[:HTML_ROWS]
        parts.append(
            f"<p class='note'>{len(result.rows):,} rows"
            + (f", the first {HTML_ROWS} shown" if len(result.rows) > HTML_ROWS else "")
            + f" — <a href='{question}.csv'>CSV</a></p>"
        )
        parts.append("<table><tr>")
        parts.extend(f"<th>{html.escape(c)}</th>" for c in result.columns)
        parts.append("</tr>")
        seats = [c in SEAT_COLUMNS for c in result.columns]
        for row in shown:
            pairs = zip(row, seats, strict=True)
            cells = (v + 1 if seat and isinstance(v, int) else v for v, seat in pairs)
            parts.append("<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in cells) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)

"""Tournaments as everyone may see them: state, rounds, seals, standings.

Keys per tournament:

- ``<t>``: the tournament: name, status, settings (the pairing procedure
  and the cut too), players (with their teams), the pairing constraints,
  every round (its stage: Swiss, semifinal or final; tables with games,
  players in seat order and their names, results, each table's shares of
  the objective's terms with the pairs behind them: those who had met
  before and those kept apart, sharing a team or constrained; in the cut,
  the players' seeds; byes, the
  objective, (c) and the procedure, the seal once closed), corrections and
  penalties with their reasons, the finish and its final ranking; version
  and position;
- ``<t>:standings``: the standings now (T6.2 rows, their digest);
- ``<t>:standings:<r>``: the standings sealed by round r's RoundClosed;
- ``<t>:events`` (a list, never served): the tournament's events in their
  public form, one appended per event, from which the domain's
  ``TournamentState`` is folded again when this process does not hold it
  (with ``<t>``'s version and position). Round 1's seed is kept with them:
  T6.1's last tie-break needs it, and the read side never holds the secret.

The folded state (``TournamentModel``) is held in the view's cache under
``<t>:model`` and never written: a batch writes its new events and the two
documents, never the events before them. A view written before the list
keeps a tournament's events in a ``<t>:model`` document; the tournament's
next event moves them into the list and deletes the document (README:
Upgrading).

The documents are computed from ``TournamentState`` (domain/tournaments/
state.py), the model the aggregate and the verifier evolve too, once per
batch, when it commits.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import Any

from domain.disclosure import PUBLIC, disclose
from domain.tournaments.cut import seeds_of
from domain.tournaments.events import RoundClosed, TournamentCreated, TournamentEvent
from domain.tournaments.pairing import Apart
from domain.tournaments.standings import Row, digest
from domain.tournaments.state import Round, TournamentState
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction

Doc = dict[str, Any]


class TournamentModel:
    """A tournament's state folded from its public events, and the events the
    documents show as they are: the creation, each round's pairing and
    seal, the corrections and penalties, the finish."""

    __slots__ = (
        "constraints",
        "corrections",
        "created",
        "finished",
        "paired",
        "position",
        "seals",
        "state",
        "tournament",
        "version",
    )

    def __init__(self, tournament: str, created: Doc, position: int = 0) -> None:
        self.tournament = tournament
        self.created = created
        self.state = TournamentState.from_created(created)
        self.paired: dict[int, Doc] = {}  # round -> its (first) RoundPaired
        self.seals: dict[int, Doc] = {}  # round -> its (last) RoundClosed
        self.finished: Doc | None = None  # the (first) TournamentFinished
        self.corrections: list[Doc] = []  # ResultCorrected and PenaltyGiven, in order
        self.constraints: list[Doc] = []  # PairingConstraintAdded, in order (T11.1)
        self.version = 1
        self.position = position

    def add(self, event: Doc, version: int, position: int) -> None:
        self.state.evolve(event["type"], event)
        kind = event["type"]
        if kind == "RoundPaired":
            self.paired.setdefault(event["round"], event)
        elif kind == "RoundClosed":
            self.seals[event["round"]] = event
        elif kind == "TournamentFinished":
            if self.finished is None:
                self.finished = event
        elif kind in ("ResultCorrected", "PenaltyGiven"):
            self.corrections.append(event)
        elif kind == "PairingConstraintAdded":
            self.constraints.append(event)
        self.version = version
        self.position = position

    @classmethod
    def folded(
        cls, tournament: str, events: Iterable[Doc], version: int, position: int
    ) -> TournamentModel:
        """The model of the events stored (the first the creation), at the
        version and position ``<t>`` records."""
        stream = iter(events)
        model = cls(tournament, next(stream))
        for event in stream:
            model.add(event, version, position)
        model.version, model.position = version, position
        return model


class TournamentDoc:
    """``<t>``, written from the model when the batch commits."""

    __slots__ = ("model",)

    def __init__(self, model: TournamentModel) -> None:
        self.model = model

    def to_json(self) -> Doc:
        return tournament_doc(self.model)


class StandingsDoc:
    """``<t>:standings``, computed once per batch, when it commits."""

    __slots__ = ("model",)

    def __init__(self, model: TournamentModel) -> None:
        self.model = model

    def to_json(self) -> Doc:
        state = self.model.state
        provisional = state.seed is None and not state.secret
        return standings_doc(state.standings(), provisional=provisional)


def standings_doc(rows: list[Row], *, provisional: bool = False, round_: int | None = None) -> Doc:
    doc: Doc = {"rows": [row.to_json() for row in rows], "digest": digest(rows)}
    if round_ is not None:
        doc["round"] = round_
    if provisional:
        # before round 1, T6.1's last tie-break needs the secret (our decision)
        doc["provisional"] = True
    return doc


def tournament_doc(model: TournamentModel) -> Doc:
    """What everyone may see of a tournament (T1.2: every figure re-derivable)."""
    state = model.state
    names = {r.number: r.name for r in state.registrations}
    created = model.created
    finished = model.finished
    cut_rounds = state.cut_rounds
    seeds = seeds_of(cut_rounds[0], state.cut) if cut_rounds and state.cut else {}
    return {
        "tournament": model.tournament,
        "name": state.name,
        "status": state.status,
        "rules": created["rules"],
        "tables": created["tables"],
        "weight": state.weight,
        "late_until": state.late_until,
        "time_limit": state.time_limit,
        "rounds": state.planned_rounds,
        "beacon": state.beacon,
        "beacon_value": state.beacon_value,
        "unicode_version": state.unicode_version,
        "revision": 4 if state.revised else 3,  # which rules it was created under
        "procedure": state.procedure,
        "cut": state.cut,
        "commitment": state.commitment,
        "secret": finished["secret"] if finished else None,
        "players": [
            {"player": r.number, "name": r.name, "dropped": r.dropped, "team": r.team}
            for r in state.registrations
        ],
        "constraints": [
            {"players": e["players"], "reason": e["reason"], "by": e["by"]}
            for e in model.constraints
        ],
        "rounds_paired": _rounds_doc(model, names, seeds, cut_rounds),
        "corrections": [
            {
                k: e[k]
                for k in ("type", "game", "player", "places", "points", "reason", "by")
                if k in e
            }
            for e in model.corrections
        ],
        "finished": (
            {"standings": finished["standings"], "ranking": finished.get("ranking")}
            if finished
            else None
        ),
        "version": model.version,
        "position": model.position,
    }


def _rounds_doc(
    model: TournamentModel, names: dict[int, str], seeds: dict[int, int], cut_rounds: list[Round]
) -> list[Doc]:
    """Every round's document, each table explained from the record alone
    (T11.3): the pairs at it who had met before (m, the rounds they shared)
    and the pairs at it who share a team or are constrained (revision 4)."""
    state = model.state
    conflicts = state.apart() if state.revised else Apart({})
    met: dict[tuple[int, int], int] = {}
    out = []
    for round_ in state.rounds:
        out.append(_round_doc(model, round_, names, seeds, cut_rounds, met, conflicts))
        for seat in round_.tables:
            for p, q in combinations(sorted(seat.players), 2):
                met[(p, q)] = met.get((p, q), 0) + 1
    return out


def _round_doc(
    model: TournamentModel,
    round_: Round,
    names: dict[int, str],
    seeds: dict[int, int],
    cut_rounds: list[Round],
    met: dict[tuple[int, int], int],
    conflicts: Apart,
) -> Doc:
    state = model.state
    paired = model.paired[round_.number]
    stage = "swiss"
    if round_.cut:
        semifinal = state.cut is not None and state.cut > 1 and round_ is cut_rounds[0]
        stage = "semifinal" if semifinal else "final"
    recorded = {t["table"]: t for t in paired["tables"]}
    return {
        "round": round_.number,
        "stage": stage,
        "paired_at": round_.paired_at,
        "tables": [
            {
                "table": seat.table,
                "game": str(seat.game),
                "players": list(seat.players),
                "names": [names[p] for p in seat.players],
                "seeds": [seeds.get(p) for p in seat.players] if round_.cut else None,
                "shares": recorded[seat.table].get("shares"),  # T11.3, revision 4
                "repeats": [
                    [p, q, met[(p, q)]]
                    for p, q in combinations(sorted(seat.players), 2)
                    if (p, q) in met
                ],
                "kept_apart": [
                    [p, q] for p, q in combinations(sorted(seat.players), 2) if (p, q) in conflicts
                ],
                "result": _result(state, seat.game),
            }
            for seat in round_.tables
        ],
        "byes": list(round_.byes),
        "objective": paired["objective"],
        "objective_c": paired.get("objective_c"),  # T11.2, where there is a team or a constraint
        "weight": state.weight,
        "procedure": paired["procedure"],
        "closed": round_.closed,
        "seal": _seal(model.seals.get(round_.number)),
    }


def _result(state: TournamentState, game: Any) -> Doc | None:
    result = state.results.get(game)
    if result is None:
        return None
    return {
        "places": list(result.counted),
        "recorded_places": list(result.places),
        "scores": list(result.scores),
        "head": result.head,
        "corrections": result.corrections,
    }


def _seal(event: Doc | None) -> Doc | None:
    if event is None:
        return None
    return {"heads": event["heads"], "root": event["root"], "standings": event["standings"]}


class TournamentView(ViewProjection):
    name = "tournaments"

    @on(TournamentCreated)
    def _created(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        event = self._public(kind, p)
        tx.append(f"{key}:events", event)
        self._write(tx, key, TournamentModel(key, event, position))

    @on(TournamentEvent)
    def _event(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        model = self._model(tx, key)
        event = self._public(kind, p)
        tx.append(f"{key}:events", event)
        model.add(event, p["originator_version"], position)
        self._write(tx, key, model)

    @on(RoundClosed)
    def _closed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        self._event(kind, key, p, tx, position)
        # T9.1: the standings this seal is over
        model: TournamentModel = tx.peek(f"{key}:model")
        rows = model.state.standings(p["round"])
        tx.put(f"{key}:standings:{p['round']}", standings_doc(rows, round_=p["round"]))

    @staticmethod
    def _model(tx: Transaction, key: str) -> TournamentModel:
        """The tournament's model: held, or folded again from its stored
        events (from the list, or from a former ``<t>:model`` document,
        whose events then move into the list)."""
        held = tx.peek(f"{key}:model")
        if type(held) is TournamentModel:
            return held
        if held is not None:  # written before the list: {tournament, events, version, position}
            events = held["events"]
            model = TournamentModel.folded(key, events, held["version"], held["position"])
            tx.rewrite(f"{key}:events", events)
            tx.delete(f"{key}:model")
        else:
            events = tx.items(f"{key}:events")
            doc = tx.peek(key)
            if not events or doc is None:
                raise KeyError(f"no tournament {key}: its TournamentCreated was never projected")
            model = TournamentModel.folded(key, events, doc["version"], doc["position"])
        tx.keep(f"{key}:model", model)
        return model

    @staticmethod
    def _public(kind: str, p: Fields) -> Doc:
        doc = disclose(kind, p, PUBLIC, ended=False)
        doc["type"] = kind
        doc["timestamp"] = p["timestamp"]
        if p.get("seed"):  # round 1's, kept for the standings (never served)
            doc["seed"] = p["seed"]
        return doc

    @staticmethod
    def _write(tx: Transaction, key: str, model: TournamentModel) -> None:
        tx.keep(f"{key}:model", model)
        tx.put(key, TournamentDoc(model))
        tx.put(f"{key}:standings", StandingsDoc(model))

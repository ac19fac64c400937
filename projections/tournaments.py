"""Tournaments as everyone may see them: state, rounds, seals, standings.

Keys per tournament:

- ``<t>``: the tournament: name, status, settings, players, every round
  (tables with games, players in seat order and their names, results, byes,
  the objective and procedure, the seal once closed), corrections and
  penalties with their reasons, the finish; version and position;
- ``<t>:standings``: the standings now (T6.2 rows, their digest);
- ``<t>:standings:<r>``: the standings sealed by round r's RoundClosed;
- ``<t>:model`` (never served): the tournament's events in their public
  form, from which the domain's ``TournamentState`` is evolved again when
  this process has not kept it. Round 1's seed is kept with them: T6.1's
  last tie-break needs it, and the read side never holds the secret.

The documents are computed from ``TournamentState`` (domain/tournaments/
state.py), the model the aggregate and the verifier evolve too, once per
batch, when it commits.
"""

from __future__ import annotations

from typing import Any

from domain.disclosure import PUBLIC, disclose
from domain.tournaments.events import RoundClosed, TournamentCreated, TournamentEvent
from domain.tournaments.standings import Row, digest
from domain.tournaments.state import TournamentState
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction

Doc = dict[str, Any]


class TournamentModel:
    """The tournament's public events and the state they evolve."""

    __slots__ = ("events", "position", "state", "tournament", "version")

    def __init__(self, tournament: str, created: Doc) -> None:
        self.tournament = tournament
        self.events: list[Doc] = [created]
        self.state = TournamentState.from_created(created)
        self.version = 1
        self.position = 0

    def add(self, event: Doc, version: int, position: int) -> None:
        self.events.append(event)
        self.state.evolve(event["type"], event)
        self.version = version
        self.position = position

    def to_json(self) -> Doc:
        return {
            "tournament": self.tournament,
            "events": self.events,
            "version": self.version,
            "position": self.position,
        }

    @classmethod
    def from_json(cls, doc: Doc) -> TournamentModel:
        model = cls(doc["tournament"], doc["events"][0])
        for event in doc["events"][1:]:
            model.events.append(event)
            model.state.evolve(event["type"], event)
        model.version = doc["version"]
        model.position = doc["position"]
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
    created = model.events[0]
    seals = {e["round"]: e for e in model.events if e["type"] == "RoundClosed"}
    finished = next((e for e in model.events if e["type"] == "TournamentFinished"), None)
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
        "commitment": state.commitment,
        "secret": finished["secret"] if finished else None,
        "players": [
            {"player": r.number, "name": r.name, "dropped": r.dropped} for r in state.registrations
        ],
        "rounds_paired": [
            {
                "round": round_.number,
                "paired_at": round_.paired_at,
                "tables": [
                    {
                        "table": seat.table,
                        "game": str(seat.game),
                        "players": list(seat.players),
                        "names": [names[p] for p in seat.players],
                        "result": _result(state, seat.game),
                    }
                    for seat in round_.tables
                ],
                "byes": list(round_.byes),
                "objective": _paired(model, round_.number)["objective"],
                "procedure": _paired(model, round_.number)["procedure"],
                "closed": round_.closed,
                "seal": _seal(seals.get(round_.number)),
            }
            for round_ in state.rounds
        ],
        "corrections": [
            {
                k: e[k]
                for k in ("type", "game", "player", "places", "points", "reason", "by")
                if k in e
            }
            for e in model.events
            if e["type"] in ("ResultCorrected", "PenaltyGiven")
        ],
        "finished": {"standings": finished["standings"]} if finished else None,
        "version": model.version,
        "position": model.position,
    }


def _paired(model: TournamentModel, round_: int) -> Doc:
    return next(e for e in model.events if e["type"] == "RoundPaired" and e["round"] == round_)


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


class Tournaments(ViewProjection):
    name = "tournaments"

    @on(TournamentCreated)
    def _created(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        model = TournamentModel(key, self._public(kind, p))
        model.position = position
        self._write(tx, key, model)

    @on(TournamentEvent)
    def _event(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        stored = tx.peek(f"{key}:model")
        if stored is None:
            raise KeyError(f"no tournament {key}: its TournamentCreated was never projected")
        model = stored if type(stored) is TournamentModel else TournamentModel.from_json(stored)
        model.add(self._public(kind, p), p["originator_version"], position)
        self._write(tx, key, model)

    @on(RoundClosed)
    def _closed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        self._event(kind, key, p, tx, position)
        # T9.1: the standings this seal is over
        model: TournamentModel = tx.peek(f"{key}:model")
        rows = model.state.standings(p["round"])
        tx.put(f"{key}:standings:{p['round']}", standings_doc(rows, round_=p["round"]))

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
        tx.put(f"{key}:model", model)
        tx.put(key, TournamentDoc(model))
        tx.put(f"{key}:standings", StandingsDoc(model))

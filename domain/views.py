"""What a seat may see of a game's state (R1.3: hands are secret, the deck
face down). The read side (projections/) builds the same shapes from events."""

from __future__ import annotations

from typing import Any

from domain.state import GAP, GameState


def public_view(state: GameState) -> dict[str, Any]:
    return {
        "status": state.status,
        "players": list(state.names),
        "turn": state.turn if state.status == "running" else None,
        "deck_size": len(state.deck),
        "cabinet": {stack: cards[-1] for stack, cards in sorted(state.cabinet.items()) if cards},
        "hand_sizes": [len(h) for h in state.hands],
        "tables": [
            [{"card": card, "components": list(comps)} for card, comps in table.items()]
            for table in state.tables
        ],
        "sequences": [
            {
                "card": state.sequence_cards[seat],
                "columns": {
                    column: ["gap" if s == GAP else s for s in stages]
                    for column, stages in cols.items()
                },
            }
            for seat, cols in enumerate(state.columns)
        ],
        "scores": list(state.scores),
        "winners": list(state.winners),
        "commitment": state.commitment,
        "secret": state.secret if state.status == "ended" else None,
    }


def player_view(state: GameState, seat: int) -> dict[str, Any]:
    view = public_view(state)
    view["seat"] = seat
    view["hand"] = list(state.hands[seat]) if state.hands else []
    return view

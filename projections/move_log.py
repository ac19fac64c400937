"""The public move log of each game: one entry per event, in order.

Hidden information (R1.3, R9.1) is redacted until GameEnded: GameCreated's
secret, the cards of CardsDealt and CardsDrawn. Others read "Ada drew 2
cards", not which. The full entries of those events wait under
``<game>:sealed`` (a private document, never served) and replace their
redacted entries when the game ends; the sealed document is then deleted.

What an entry shows of its event is the event's public disclosure
(domain/disclosure.py): identity material (token hashes, command ids) stays
out, and the hidden fields are replaced by their counts until the end.

Keys, per game: ``<game>`` (the list of entries; the entry of version v is
item v-1), ``<game>:names`` (names by seat, for the text), ``<game>:sealed``.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.disclosure import PUBLIC, disclose
from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    ComponentsReturned,
    GameCalled,
    GameCreated,
    GameEnded,
    GameEvent,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    PointsAwarded,
    RecipeAssembled,
    RecipePlaced,
    SeatWithdrawn,
    SequenceCompleted,
    SpellCast,
    StageStolen,
    StageTaken,
    TournamentGameCreated,
    TurnEnded,
)
from domain.state import CARDS
from projections.base import ViewProjection, game_key
from projections.view import Transaction

Entry = dict[str, Any]


def card(card_id: int | None) -> str:
    return "nothing" if card_id is None else f"{CARDS[card_id].name} ({card_id})"


def cards(card_ids: list[int]) -> str:
    return ", ".join(card(c) for c in card_ids) or "no cards"


def entry(event: Any, position: int, text: str) -> Entry:
    """An event's entry: where it stands, what anyone may see of it, and its
    line of text."""
    event_type = type(event).__name__
    return {
        "position": position,
        "version": event.originator_version,
        "event": event_type,
        "timestamp": event.timestamp.isoformat(),
        **disclose(event_type, vars(event), PUBLIC, ended=False),
        "text": text,
    }


class MoveLog(ViewProjection):
    name = "move_log"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events of other aggregates are not moves."""

    def log(self, tx: Transaction, event: Any, position: int, text: str) -> None:
        """The entry of an event with nothing hidden: all it shows."""
        tx.append(game_key(event.originator_id), entry(event, position, text))

    def seal(self, tx: Transaction, event: Any, position: int, text: str, full_text: str) -> None:
        """Log the public entry; keep the full one for GameEnded."""
        game = game_key(event.originator_id)
        public = entry(event, position, text)
        tx.append(game, public)
        revealed = disclose(type(event).__name__, vars(event), PUBLIC, ended=True)
        sealed: dict[str, Entry] = tx.doc(f"{game}:sealed", {})
        sealed[str(event.originator_version - 1)] = {**public, **revealed, "text": full_text}

    @staticmethod
    def names(tx: Transaction, event: GameEvent) -> list[str]:
        names: list[str] = tx.peek(f"{game_key(event.originator_id)}:names") or []
        return names

    def who(self, tx: Transaction, event: GameEvent, seat: int) -> str:
        names = self.names(tx, event)
        return names[seat] if seat < len(names) else f"seat {seat}"

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        guild = "with" if event.guild else "without"
        text = f"game created: draw {event.draw}, {guild} the Guild"
        if isinstance(event, TournamentGameCreated):
            text += f"; round {event.round}, table {event.table} of tournament {event.tournament}"
        self.seal(tx, event, position, text, text)

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        tx.doc(f"{game_key(event.originator_id)}:names", []).append(event.name)
        self.log(tx, event, position, f"{event.name} took seat {event.player}")

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        text = (
            f"{self.who(tx, event, event.player)} was removed from seat {event.player}; "
            "the seats after it move down"
        )
        self.log(tx, event, position, text)
        names: list[str] = tx.doc(f"{game_key(event.originator_id)}:names", [])
        del names[event.player]

    @project.register
    def _started(self, event: GameStarted, tx: Transaction, position: int) -> None:
        n = len(self.names(tx, event))
        self.log(tx, event, position, f"game started, {n} players; cabinet: {cards(event.cabinet)}")

    @project.register
    def _dealt(self, event: CardsDealt, tx: Transaction, position: int) -> None:
        text = "dealt " + ", ".join(
            f"{self.who(tx, event, seat)} {len(hand)}" for seat, hand in enumerate(event.hands)
        )
        full = "; ".join(
            f"{self.who(tx, event, seat)}: {cards(hand)}" for seat, hand in enumerate(event.hands)
        )
        self.seal(tx, event, position, text, f"dealt {full}")

    @project.register
    def _drawn(self, event: CardsDrawn, tx: Transaction, position: int) -> None:
        n = len(event.cards)
        text = f"{self.who(tx, event, event.player)} drew {n} card{'s' if n != 1 else ''}"
        self.seal(tx, event, position, text, f"{text}: {cards(event.cards)}")

    @project.register
    def _discarded(self, event: CardDiscarded, tx: Transaction, position: int) -> None:
        text = f"{self.who(tx, event, event.player)} discarded {card(event.card)}"
        self.log(tx, event, position, text)

    @project.register
    def _stolen(self, event: StageStolen, tx: Transaction, position: int) -> None:
        owner = self.who(tx, event, event.owner)
        text = (
            f"{self.who(tx, event, event.player)} took {card(event.card)} "
            f"from stage {event.stage} of {owner}'s {event.column} column"
        )
        self.log(tx, event, position, text)

    @project.register
    def _taken(self, event: StageTaken, tx: Transaction, position: int) -> None:
        text = (
            f"{self.who(tx, event, event.player)} took {card(event.card)} "
            f"from stage {event.stage} of their own {event.column} column"
        )
        self.log(tx, event, position, text)

    @project.register
    def _assembled(self, event: RecipeAssembled, tx: Transaction, position: int) -> None:
        text = (
            f"{self.who(tx, event, event.player)} assembled {card(event.card)} "
            f"from {cards(event.components)}"
        )
        self.log(tx, event, position, text)

    @project.register
    def _placed(self, event: RecipePlaced, tx: Transaction, position: int) -> None:
        text = (
            f"{self.who(tx, event, event.player)} placed {card(event.card)} "
            f"on stage {event.stage} of their {event.column} column"
        )
        self.log(tx, event, position, text)

    @project.register
    def _returned(self, event: ComponentsReturned, tx: Transaction, position: int) -> None:
        self.log(tx, event, position, f"back to the cabinet: {cards(event.cards)}")

    @project.register
    def _cast(self, event: SpellCast, tx: Transaction, position: int) -> None:
        text = f"{self.who(tx, event, event.player)} cast {card(event.spell)}"
        if event.kind == "knowledge":
            text += f", taking {card(event.card)}"
        elif event.kind == "transformation":
            text += f", giving {card(event.recipe)} for {card(event.card)}"
        elif event.kind == "destruction":
            text += f" on {card(event.recipe)}, keeping {card(event.card)}"
        else:
            text += f" into stage {event.stage} of their {event.column} column"
        self.log(tx, event, position, text)

    @project.register
    def _awarded(self, event: PointsAwarded, tx: Transaction, position: int) -> None:
        text = (
            f"{self.who(tx, event, event.player)} scored {event.points} "
            f"({event.rule}, {event.cause} v{event.cause_version})"
        )
        self.log(tx, event, position, text)

    @project.register
    def _completed(self, event: SequenceCompleted, tx: Transaction, position: int) -> None:
        text = f"{self.who(tx, event, event.player)} completed their {event.column} column"
        self.log(tx, event, position, text)

    @project.register
    def _turn(self, event: TurnEnded, tx: Transaction, position: int) -> None:
        did = "passed" if event.passed else "ended the turn"
        after = self.who(tx, event, event.next_player)
        text = f"{self.who(tx, event, event.player)} {did}; {after} plays"
        self.log(tx, event, position, text)

    @project.register
    def _withdrawn(self, event: SeatWithdrawn, tx: Transaction, position: int) -> None:
        text = f"{self.who(tx, event, event.player)} withdrew: their turns pass (R3.5)"
        self.log(tx, event, position, text)

    @project.register
    def _called(self, event: GameCalled, tx: Transaction, position: int) -> None:
        text = f"{event.by} called the game (T8.1): it ends after the last seat's turn"
        self.log(tx, event, position, text)

    @project.register
    def _ended(self, event: GameEnded, tx: Transaction, position: int) -> None:
        winners = " and ".join(self.who(tx, event, s) for s in event.winners)
        text = f"game over ({event.reason}): {winners} won, scores {event.scores}"
        self.log(tx, event, position, text)
        game = game_key(event.originator_id)
        sealed: dict[str, Entry] = tx.peek(f"{game}:sealed") or {}
        for index, full in sorted(sealed.items(), key=lambda item: int(item[0])):
            tx.replace(game, int(index), full)  # R9.3: now everything may be seen
        tx.delete(f"{game}:sealed")
        tx.delete(f"{game}:names")

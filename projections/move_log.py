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

from domain.disclosure import POLICIES, PUBLIC, disclose
from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    ComponentsReturned,
    GameCalled,
    GameCreated,
    GameEnded,
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
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction

Entry = dict[str, Any]
# every card's text, made once (a card is named in most entries)
CARD_TEXTS: dict[int, str] = {card_id: f"{c.name} ({card_id})" for card_id, c in CARDS.items()}


def card(card_id: int | None) -> str:
    if type(card_id) is int:
        text = CARD_TEXTS.get(card_id)
        if text is not None:
            return text
    return "nothing" if card_id is None else f"{CARDS[card_id].name} ({card_id})"


def cards(card_ids: list[int]) -> str:
    return ", ".join(map(card, card_ids)) or "no cards"


# An event type with no hidden field shows the public all its fields but
# the envelope and the identity fields (domain/disclosure.py: the policy's
# ``left_out``, what ``disclose`` drops for PUBLIC): its entry is cut from a
# copy of the fields, which is what ``disclose`` returns, made in a few C
# calls rather than a comprehension (the move log shows every event). The
# timestamp stays: the entry shows it.
_DROPPED: dict[str, tuple[str, ...]] = {
    name: tuple(sorted(policy.left_out - {"timestamp"}))
    for name, policy in POLICIES.items()
    if not policy.hidden
}
_HEADER = frozenset({"position", "version", "event"})


def entry(kind: str, fields: Fields, position: int, text: str) -> Entry:
    """An event's entry: where it stands, what anyone may see of it, and its
    line of text: ``{position, version, event, timestamp, **public, text}``."""
    dropped = _DROPPED.get(kind)
    if dropped is not None and "timestamp" in fields:
        shown = fields.copy()
        for name in dropped:
            shown.pop(name, None)
        if _HEADER.isdisjoint(shown):  # (else the public fields would win)
            shown["position"] = position
            shown["version"] = fields["originator_version"]
            shown["event"] = kind
            shown["text"] = text
            return shown
    return {
        "position": position,
        "version": fields["originator_version"],
        "event": kind,
        "timestamp": fields["timestamp"],
        **disclose(kind, fields, PUBLIC, ended=False),
        "text": text,
    }


def _names(tx: Transaction, game: str) -> list[str]:
    names: list[str] = tx.peek(f"{game}:names") or []
    return names


def who(names: list[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"seat {seat}"


class MoveLog(ViewProjection):
    name = "move_log"

    @staticmethod
    def seal(
        tx: Transaction,
        kind: str,
        game: str,
        fields: Fields,
        position: int,
        text: str,
        full_text: str,
    ) -> None:
        """Log the public entry; keep the full one for GameEnded."""
        public = entry(kind, fields, position, text)
        tx.append(game, public)
        revealed = disclose(kind, fields, PUBLIC, ended=True)
        sealed: dict[str, Entry] = tx.doc(f"{game}:sealed", {})
        sealed[str(fields["originator_version"] - 1)] = {**public, **revealed, "text": full_text}

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = self._created_text(p)
        self.seal(tx, kind, game, p, position, text, text)

    @on(TournamentGameCreated)
    def _tournament_created(
        self, kind: str, game: str, p: Fields, tx: Transaction, position: int
    ) -> None:
        text = (
            f"{self._created_text(p)}; round {p['round']}, table {p['table']} "
            f"of tournament {p['tournament']}"
        )
        self.seal(tx, kind, game, p, position, text, text)

    @staticmethod
    def _created_text(p: Fields) -> str:
        guild = "with" if p["guild"] else "without"
        return f"game created: draw {p['draw']}, {guild} the Guild"

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(f"{game}:names", []).append(p["name"])
        tx.append(game, entry(kind, p, position, f"{p['name']} took seat {p['player']}"))

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        seat = p["player"]
        text = (
            f"{who(_names(tx, game), seat)} was removed from seat {seat}; "
            "the seats after it move down"
        )
        tx.append(game, entry(kind, p, position, text))
        names: list[str] = tx.doc(f"{game}:names", [])
        del names[seat]

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        n = len(_names(tx, game))
        text = f"game started, {n} players; cabinet: {cards(p['cabinet'])}"
        tx.append(game, entry(kind, p, position, text))

    @on(CardsDealt)
    def _dealt(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names = _names(tx, game)
        hands = p["hands"]
        text = "dealt " + ", ".join(
            f"{who(names, seat)} {len(hand)}" for seat, hand in enumerate(hands)
        )
        full = "; ".join(f"{who(names, seat)}: {cards(hand)}" for seat, hand in enumerate(hands))
        self.seal(tx, kind, game, p, position, text, f"dealt {full}")

    @on(CardsDrawn)
    def _drawn(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        drawn = p["cards"]
        n = len(drawn)
        text = f"{who(_names(tx, game), p['player'])} drew {n} card{'s' if n != 1 else ''}"
        self.seal(tx, kind, game, p, position, text, f"{text}: {cards(drawn)}")

    @on(CardDiscarded)
    def _discarded(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = f"{who(_names(tx, game), p['player'])} discarded {card(p['card'])}"
        tx.append(game, entry(kind, p, position, text))

    @on(StageStolen)
    def _stolen(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names = _names(tx, game)
        text = (
            f"{who(names, p['player'])} took {card(p['card'])} "
            f"from stage {p['stage']} of {who(names, p['owner'])}'s {p['column']} column"
        )
        tx.append(game, entry(kind, p, position, text))

    @on(StageTaken)
    def _taken(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = (
            f"{who(_names(tx, game), p['player'])} took {card(p['card'])} "
            f"from stage {p['stage']} of their own {p['column']} column"
        )
        tx.append(game, entry(kind, p, position, text))

    @on(RecipeAssembled)
    def _assembled(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = (
            f"{who(_names(tx, game), p['player'])} assembled {card(p['card'])} "
            f"from {cards(p['components'])}"
        )
        tx.append(game, entry(kind, p, position, text))

    @on(RecipePlaced)
    def _placed(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = (
            f"{who(_names(tx, game), p['player'])} placed {card(p['card'])} "
            f"on stage {p['stage']} of their {p['column']} column"
        )
        tx.append(game, entry(kind, p, position, text))

    @on(ComponentsReturned)
    def _returned(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.append(game, entry(kind, p, position, f"back to the cabinet: {cards(p['cards'])}"))

    @on(SpellCast)
    def _cast(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = f"{who(_names(tx, game), p['player'])} cast {card(p['spell'])}"
        spell = p["kind"]
        if spell == "knowledge":
            text += f", taking {card(p['card'])}"
        elif spell == "transformation":
            text += f", giving {card(p['recipe'])} for {card(p['card'])}"
        elif spell == "destruction":
            text += f" on {card(p['recipe'])}, keeping {card(p['card'])}"
        else:
            text += f" into stage {p['stage']} of their {p['column']} column"
        tx.append(game, entry(kind, p, position, text))

    @on(PointsAwarded)
    def _awarded(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = (
            f"{who(_names(tx, game), p['player'])} scored {p['points']} "
            f"({p['rule']}, {p['cause']} v{p['cause_version']})"
        )
        tx.append(game, entry(kind, p, position, text))

    @on(SequenceCompleted)
    def _completed(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = f"{who(_names(tx, game), p['player'])} completed their {p['column']} column"
        tx.append(game, entry(kind, p, position, text))

    @on(TurnEnded)
    def _turn(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names = _names(tx, game)
        did = "passed" if p["passed"] else "ended the turn"
        text = f"{who(names, p['player'])} {did}; {who(names, p['next_player'])} plays"
        tx.append(game, entry(kind, p, position, text))

    @on(SeatWithdrawn)
    def _withdrawn(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = f"{who(_names(tx, game), p['player'])} withdrew: their turns pass (R3.5)"
        tx.append(game, entry(kind, p, position, text))

    @on(GameCalled)
    def _called(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        text = f"{p['by']} called the game (T8.1): it ends after the last seat's turn"
        tx.append(game, entry(kind, p, position, text))

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names = _names(tx, game)
        winners = " and ".join(who(names, s) for s in p["winners"])
        text = f"game over ({p['reason']}): {winners} won, scores {p['scores']}"
        tx.append(game, entry(kind, p, position, text))
        sealed: dict[str, Entry] = tx.peek(f"{game}:sealed") or {}
        for index, full in sorted(sealed.items(), key=lambda item: int(item[0])):
            tx.replace(game, int(index), full)  # R9.3: now everything may be seen
        tx.delete(f"{game}:sealed")
        tx.delete(f"{game}:names")

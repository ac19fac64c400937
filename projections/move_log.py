"""The public move log of each game: one entry per event, in order.

Hidden information (R1.3, R9.1) is redacted until GameEnded: GameCreated's
secret, the cards of CardsDealt and CardsDrawn. Others read "Ada drew 2
cards", not which. The full entries of those events wait under
``<game>:sealed`` (a private document, never served) and replace their
redacted entries when the game ends; the sealed document is then deleted.

What an entry shows of its event is the event's public disclosure
(domain/disclosure.py): identity material (token hashes, command ids) stays
out, and the hidden fields are replaced by their counts until the end.

An entry's line of text, the event in words as the web pages' log puts it
(projections/describe.py, in ``PLAIN`` English), is not stored: the query
renders it on read (``Queries.move_log``, with ``text``), from the entry and
the seating. The words of an event after GameStarted name its players by the
seating, which no event changes once the game has started (R2.1: seats are
taken, and removed, only before the start); the lobby's events
(GameCreated, PlayerJoined, PlayerLeft) name no seated player. So the
seating kept under ``<game>:names`` renders every entry as it read when it
was made. Entries stored with their text (a view written before) keep it.

Keys, per game: ``<game>`` (the list of entries; the entry of version v is
item v-1), ``<game>:names`` (names by seat, kept for the text),
``<game>:sealed`` (until the end).
"""

from __future__ import annotations

from typing import Any

from domain.disclosure import HIDING, POLICIES, PUBLIC, disclose
from domain.events import GameCreated, GameEnded, GameEvent, PlayerJoined, PlayerLeft
from projections.base import Fields, ViewProjection, on
from projections.describe import line
from projections.view import Transaction

Entry = dict[str, Any]

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


def entry(kind: str, fields: Fields, position: int) -> Entry:
    """An event's entry: where it stands and what anyone may see of it:
    ``{position, version, event, timestamp, **public}``."""
    dropped = _DROPPED.get(kind)
    if dropped is not None and "timestamp" in fields:
        shown = fields.copy()
        for name in dropped:
            shown.pop(name, None)
        if _HEADER.isdisjoint(shown):  # (else the public fields would win)
            shown["position"] = position
            shown["version"] = fields["originator_version"]
            shown["event"] = kind
            return shown
    return {
        "position": position,
        "version": fields["originator_version"],
        "event": kind,
        "timestamp": fields["timestamp"],
        **disclose(kind, fields, PUBLIC, ended=False),
    }


def with_text(entries: list[Entry], names: list[str]) -> list[Entry]:
    """The entries, each with its line of text (``text``, in ``PLAIN``
    words) rendered with the game's seating; one stored with its text keeps
    it."""
    for made in entries:
        if "text" not in made:
            made["text"] = line(made, names)
    return entries


class MoveLog(ViewProjection):
    name = "move_log"

    @on(GameCreated, GameEvent)
    def _logged(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        """Log the event's public entry; for an event with hidden fields
        (HIDING), keep its whole entry for GameEnded."""
        public = entry(kind, p, position)
        tx.append(game, public)
        if kind in HIDING:
            sealed: dict[str, Entry] = tx.doc(f"{game}:sealed", {})
            sealed[str(p["originator_version"] - 1)] = {
                **public,
                **disclose(kind, p, PUBLIC, ended=True),
            }

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names: list[str] = tx.doc(f"{game}:names", [])
        names.append(p["name"])  # R2.1: seated in join order
        tx.append(game, entry(kind, p, position))

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.put(f"{game}:names", list(p["names"]))  # R2.1: the seating the removal left
        tx.append(game, entry(kind, p, position))

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.append(game, entry(kind, p, position))
        sealed: dict[str, Entry] = tx.peek(f"{game}:sealed") or {}
        for index, full in sorted(sealed.items(), key=lambda item: int(item[0])):
            tx.replace(game, int(index), full)  # R9.3: now everything may be seen
        tx.delete(f"{game}:sealed")

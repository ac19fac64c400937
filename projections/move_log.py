"""The public move log of each game: one entry per event, in order.

Hidden information (R1.3, R9.1) is redacted until GameEnded: GameCreated's
secret, the cards of CardsDealt and CardsDrawn. Others read "Ada drew 2
cards", not which. The full entries of those events wait under
``<game>:sealed`` (a private document, never served) and replace their
redacted entries when the game ends; the sealed document is then deleted.

What an entry shows of its event is the event's public disclosure
(domain/disclosure.py): identity material (token hashes, command ids) stays
out, and the hidden fields are replaced by their counts until the end. Its
``text`` is the event in words, as the web pages' log puts it
(projections/describe.py), in ``PLAIN`` English; a view written before that
keeps its old lines until ``opus rebuild move_log --blue-green`` (README:
upgrading).

Keys, per game: ``<game>`` (the list of entries; the entry of version v is
item v-1), ``<game>:names`` (names by seat, for the text), ``<game>:sealed``.
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


def entry(kind: str, fields: Fields, position: int, names: list[str]) -> Entry:
    """An event's entry: where it stands, what anyone may see of it, and its
    line of text (projections/describe.py, in ``PLAIN`` words):
    ``{position, version, event, timestamp, **public, text}``."""
    dropped = _DROPPED.get(kind)
    if dropped is not None and "timestamp" in fields:
        shown = fields.copy()
        for name in dropped:
            shown.pop(name, None)
        if _HEADER.isdisjoint(shown):  # (else the public fields would win)
            shown["position"] = position
            shown["version"] = fields["originator_version"]
            shown["event"] = kind
            shown["text"] = line(shown, names)
            return shown
    made = {
        "position": position,
        "version": fields["originator_version"],
        "event": kind,
        "timestamp": fields["timestamp"],
        **disclose(kind, fields, PUBLIC, ended=False),
    }
    made["text"] = line(made, names)
    return made


def _names(tx: Transaction, game: str) -> list[str]:
    names: list[str] = tx.peek(f"{game}:names") or []
    return names


class MoveLog(ViewProjection):
    name = "move_log"

    @on(GameCreated, GameEvent)
    def _logged(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        """Log the event's public entry; for an event with hidden fields
        (HIDING), keep its whole entry for GameEnded."""
        names = _names(tx, game)
        public = entry(kind, p, position, names)
        tx.append(game, public)
        if kind in HIDING:
            revealed: Entry = {**public, **disclose(kind, p, PUBLIC, ended=True)}
            revealed["text"] = line(revealed, names)
            sealed: dict[str, Entry] = tx.doc(f"{game}:sealed", {})
            sealed[str(p["originator_version"] - 1)] = revealed

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names: list[str] = tx.doc(f"{game}:names", [])
        names.append(p["name"])
        tx.append(game, entry(kind, p, position, names))

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        names: list[str] = tx.doc(f"{game}:names", [])
        tx.append(game, entry(kind, p, position, names))
        del names[p["player"]]

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.append(game, entry(kind, p, position, _names(tx, game)))
        sealed: dict[str, Entry] = tx.peek(f"{game}:sealed") or {}
        for index, full in sorted(sealed.items(), key=lambda item: int(item[0])):
            tx.replace(game, int(index), full)  # R9.3: now everything may be seen
        tx.delete(f"{game}:sealed")
        tx.delete(f"{game}:names")

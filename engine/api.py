"""The contract every game of donne keeps, so a room can run any of them.

A game module (``engine.president``, ``engine.speculation``) provides a
``Match`` class satisfying :class:`Match` below, registered in
:data:`engine.GAMES` by name. The server's room coroutine only ever talks to
this surface:

* ``match.pending()`` — the decisions the table is waiting for, each with the
  action to apply when its time runs out (time is an input: rule 8 of STYLE);
* ``match.apply(action)`` — the one way to change a match; returns frozen
  events, raises :class:`engine.errors.Refusal` and changes nothing when the
  rules forbid the action;
* ``match.view(seat)`` — the only way information leaves the engine;
  ``seat=None`` is the spectator view;
* ``event.for_seat(seat)`` — what a given seat (or ``None``: spectator) may
  learn of an event, or ``None`` when it learns nothing;
* ``match.action_from(seat, cmd, args)`` — turns a protocol command
  (``"play"``, ``{"cards": ["7c"]}``) into the game's action.

Chance is an explicit step: when ``match.needs_deal()`` is true, the room
draws a seed, may publish ``engine.seeds.commitment(seed)``, and applies the
game's deal action built by ``match.deal_action(seed, **table_facts)``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Action(Protocol):
    """A frozen record of one decision. ``seat`` is ``None`` for table actions (deal, auction close)."""

    @property
    def seat(self) -> int | None: ...

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class Event(Protocol):
    """A frozen record of one change. ``name`` is the protocol event name (``"played"``)."""

    @property
    def name(self) -> str:
        """The protocol event name (read-only, so frozen dataclasses and class attributes satisfy it)."""
        ...

    def for_seat(self, seat: int | None) -> Event | None:
        """The version of this event that ``seat`` may see (``None`` = spectator), or ``None``."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields, ``{"event": name, ...}``; cards as codes."""
        ...


@dataclass(frozen=True, slots=True)
class Pending:
    """One decision the table waits for.

    ``key`` stays equal while the same decision is awaited, so a room keeps
    one deadline per key and starts a fresh one for a new key. ``kind`` is
    one of ``"turn"``, ``"give"``, ``"auction"``, ``"flip"``. ``seat`` is the
    seat that must decide (``None`` for the auction, which closes by itself).
    """

    key: Hashable
    kind: str
    seat: int | None
    on_timeout: Action


class View(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


class Match(Protocol):
    game: str
    rules_name: str

    @property
    def seats(self) -> int: ...

    @property
    def round(self) -> int:
        """The number of the round (deal) being played, or last played; 0 before the first."""
        ...

    @property
    def config(self) -> dict[str, Any]:
        """What the match was made with: enough to make it again (``replay``)."""
        ...

    def needs_deal(self) -> bool: ...

    def deal_action(self, seed: bytes, **table: Any) -> Action: ...

    def pending(self) -> Sequence[Pending]: ...

    def legal_actions(self, seat: int) -> Sequence[Action]: ...

    def apply(self, action: Action) -> tuple[Event, ...]: ...

    def view(self, seat: int | None) -> View: ...

    def action_from(self, seat: int, cmd: str, args: Mapping[str, Any]) -> Action: ...

    @property
    def over(self) -> bool: ...

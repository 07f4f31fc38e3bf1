"""The storage contract of tournaments (arenas and Swiss events): their rows, journals and tables.

An event is its configuration and its journal (``server/tournaments/record.py``): the store keeps
both, in order, and gives them back; it does not interpret entries (JSON-able dicts, as the core's
``Entry.to_dict()`` makes them). Its operations are ``apply`` operations like the tables' (one
transaction with whatever comes with them); a cluster owner's writes come after a
:class:`~server.storage.api.Fence` keyed by :func:`fence_key` (``docs/tournaments.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

FENCE_PREFIX = "tour:"
"""A tournament's row of fences is keyed ``tour:<id>`` (its Redis lease ``donne:lease:tour:<id>``):
never a table's id."""


def fence_key(tournament_id: str) -> str:
    """The key of ``tournament_id``'s fencing token (``Fence(fence_key(tid), epoch)``)."""
    return FENCE_PREFIX + tournament_id


@dataclass(frozen=True, slots=True)
class TournamentOpened:
    """A new event: its configuration (``ArenaConfig`` / ``SwissConfig`` ``.to_dict()``) and who
    organised it. Result: None (refused: an id already taken)."""

    tournament_id: str
    config: Mapping[str, Any]
    organiser: str


@dataclass(frozen=True, slots=True)
class TournamentLog:
    """Append journal ``entries`` (JSON-able dicts) numbered from ``seq`` (refused: a gap, an
    overlap, an event no longer open). Result: the next sequence number (``seq + len(entries)``)."""

    tournament_id: str
    seq: int
    entries: Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """A table the event opened (``table_id``, for its round ``round``; 0: an arena's), so that its
    round records are the event's. Result: None (refused: a table already linked)."""

    tournament_id: str
    table_id: str
    round: int = 0


@dataclass(frozen=True, slots=True)
class TournamentClosed:
    """The event is over (``standings``: its final standings, JSON-able) or set aside (``aside``: its
    journal could not be replayed). Its journal is closed. Result: True when closed now, False
    when it was already closed."""

    tournament_id: str
    status: Literal["over", "aside"]
    standings: Mapping[str, Any] | Sequence[Any] | None = None


TOURNAMENT_OPS: tuple[type, ...] = (TournamentOpened, TournamentLog, TournamentTable, TournamentClosed)


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """An event as stored: ``entries`` is its whole journal (empty in :meth:`Tournaments.events`'s
    answers), ``tables`` its tables as (table id, round), in the order they were linked."""

    tournament_id: str
    config: Mapping[str, Any]
    organiser: str
    status: str  # open | over | aside
    created_at: float
    closed_at: float | None = None
    next_seq: int = 0
    standings: Any = None
    entries: Sequence[Mapping[str, Any]] = ()
    tables: Sequence[tuple[str, int]] = ()

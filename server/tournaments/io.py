"""What goes into a tournament's director and what comes out, as frozen, JSON-able data.

Inputs (:data:`Input`) come from the server: a player joins or leaves, a table
the event opened reports its game (or was aborted, or started without some of
its players), the organiser stops the event. Effects (:data:`Effect`) are for
the server to perform or announce: open a table with these seats and these
rules, the event began, a round began, a table's game was scored, a bye was
given, the event ended.

Every input that changed something and every effect go, in order and with the
time of the call, into the event's journal (:class:`Entry`); a :class:`Tick`
stands for a call of ``tick`` that did something. The journal is the event's
record: replaying its inputs gives back its effects (``server.tournaments.record``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields

from server.tournaments.data import JSON, JSONObject

# -- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Join:
    """``name`` enters (or comes back); ``rating``: their rating's ordinal, for the seeding."""

    name: str
    rating: float = 0.0


@dataclass(frozen=True, slots=True)
class Leave:
    """``name`` leaves: an arena pauses them, a Swiss event withdraws them (both may come
    back); before the start it takes their entry back."""

    name: str


@dataclass(frozen=True, slots=True)
class TableOver:
    """A table the event opened finished its game: each seat's finishing place (competition
    style, RULES P15) and chips won, in the seats' order of :class:`OpenTable`."""

    table: str
    places: tuple[int, ...]
    chips: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TableAborted:
    """A table ended without a game to score (nobody scores; its players are free again)."""

    table: str


@dataclass(frozen=True, slots=True)
class Absent:
    """A table started without these of its players (their seats played by bots, as P16):
    they forfeit that game and are paused (arena) or withdrawn (Swiss)."""

    table: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Stop:
    """The organiser ends the event: no new table; the tables under way finish and count."""


@dataclass(frozen=True, slots=True)
class Tick:
    """(journal only) a call of ``tick`` that changed something."""


Input = Join | Leave | TableOver | TableAborted | Absent | Stop

# -- effects --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    """The event began with these entrants."""

    entrants: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OpenTable:
    """Open table ``table`` with ``seats`` in this order (``None``: a bot's seat) and the event's
    table ``options``; ``round``: the Swiss round (0 in an arena)."""

    table: str
    round: int
    seats: tuple[str | None, ...]
    options: Mapping[str, JSON] = field(default_factory=dict)

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(s for s in self.seats if s is not None)


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """A Swiss round began: its tables and who has a bye."""

    round: int
    tables: tuple[str, ...]
    byes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ByeGiven:
    """``name`` scores ``points`` for ``round`` without a table: a bye (no seat for them), or
    ``late``: a round played before they joined."""

    name: str
    round: int
    points: int
    late: bool = False


@dataclass(frozen=True, slots=True)
class TableScored:
    """A table's game as scored: per seat its place and the points it scored (``None``: a bot, or
    a person absent from the table, who score nothing)."""

    table: str
    round: int
    seats: tuple[str | None, ...]
    places: tuple[int, ...]
    points: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Ended:
    """The event is over: ``reason`` is ``time`` (arena), ``rounds`` (Swiss), ``stopped`` or
    ``too_few`` (not enough entrants for a table)."""

    reason: str


Effect = Started | OpenTable | RoundStarted | ByeGiven | TableScored | Ended

# -- the journal ----------------------------------------------------------------------------------

Item = Input | Tick | Effect

KINDS: dict[str, type[Item]] = {
    "join": Join, "leave": Leave, "over": TableOver, "aborted": TableAborted, "absent": Absent,
    "stop": Stop, "tick": Tick, "started": Started, "open": OpenTable, "round": RoundStarted,
    "bye": ByeGiven, "scored": TableScored, "ended": Ended,
}
KIND_OF = {cls: kind for kind, cls in KINDS.items()}
INPUTS = (Join, Leave, TableOver, TableAborted, Absent, Stop, Tick)


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of an event's journal: ``item`` at time ``at``."""

    at: float
    item: Item

    @property
    def is_input(self) -> bool:
        return isinstance(self.item, INPUTS)

    def to_dict(self) -> JSONObject:
        out: JSONObject = {"at": self.at, "k": KIND_OF[type(self.item)]}
        for f in fields(self.item):
            value = getattr(self.item, f.name)
            out[f.name] = dict(value) if isinstance(value, Mapping) else list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Entry:
        kind = KINDS.get(str(data.get("k")))
        if kind is None:
            raise ValueError(f"unknown journal entry {data.get('k')!r}")
        args: dict[str, object] = {}
        for f in fields(kind):
            if f.name in data:
                value = data[f.name]
                args[f.name] = tuple(value) if isinstance(value, list) else dict(value) if isinstance(value, Mapping) else value
        make: Callable[..., Item] = kind  # its fields' kinds are checked by nothing here, as before
        at = data["at"]
        if not isinstance(at, int | float | str):
            raise ValueError(f"a journal entry's time is a number, not {at!r}")
        return cls(float(at), make(**args))

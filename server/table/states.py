"""The state each reader of a table receives (PROTOCOL.md "The state a player receives").

:func:`build_state` makes one reader's state from the engine's view of it and the
table's own facts (names, connections, deadlines, the room). :class:`StateSet`
is every reader's state of one moment: when the adapter allows it
(``batch_states``), the public part is built and encoded once and each seat's
state is a copy with the fields of its own view put in, its JSON line the shared
encoding with the seat's values spliced in — the same keys, order and bytes as
building it alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from engine.api import Pending
from server.games.base import GameAdapter, TableOptions
from server.protocol import encode, encode_value
from server.table.seats import Seat


class Table(Protocol):
    """What a state is made of: the table's facts (see :class:`server.table.base.TableBase`)."""

    @property
    def id(self) -> str: ...
    @property
    def adapter(self) -> GameAdapter: ...
    @property
    def opts(self) -> TableOptions: ...
    @property
    def match(self) -> Any: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def spectators(self) -> Mapping[str, Any]: ...
    @property
    def status(self) -> str: ...
    @property
    def deadlines(self) -> Mapping[Any, float]: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def round_escrow(self) -> Mapping[int, int]: ...
    @property
    def window(self) -> tuple[str, float] | None: ...


def decorate_seats(table: Table, state: dict[str, Any]) -> None:
    """The room's facts about each seat in a state: name, connection, bot, leaving."""
    seats = table.seats
    for entry in state.get("seats", []):
        s = seats[entry["seat"]]
        entry["name"] = s.name
        entry["connected"] = s.connected and s.grace_until is None
        entry["bot"] = s.bot is not None and s.member is None
        if s.leaving:
            entry["leaving"] = True


def deadline(table: Table, seat: int | None, pending: Sequence[Pending], turn: Any, now: float) -> float | None:
    """Seconds left on the decision ``seat`` cares about: its own, else the turn's, else any."""
    return Dues(table, pending).left(seat, turn, now)


class Dues:
    """When the pending decisions of a moment fall due, by seat: read once for every reader."""

    __slots__ = ("_all", "_by_seat")

    def __init__(self, table: Table, pending: Sequence[Pending]) -> None:
        deadlines = table.deadlines
        self._by_seat: dict[int | None, float | None] = {}  # seats with a decision: its earliest due
        self._all: float | None = None  # the earliest of all (None: no clock runs)
        for p in pending:
            due = deadlines.get(p.key)
            earliest = self._by_seat.get(p.seat)
            if due is not None and (earliest is None or due < earliest):
                earliest = due
            self._by_seat[p.seat] = earliest
            if due is not None and (self._all is None or due < self._all):
                self._all = due
        self._by_seat.pop(None, None)

    def left(self, seat: int | None, turn: Any, now: float) -> float | None:
        by_seat = self._by_seat
        if seat is not None and seat in by_seat:
            due = by_seat[seat]
        elif turn is not None and turn in by_seat:
            due = by_seat[turn]
        else:
            due = self._all
        return None if due is None else round(max(0.0, due - now), 1)


def window_of(table: Table, now: float) -> dict[str, Any] | None:
    """People's window, if one is open: ``{"kind": "cut" | "trade", "left": seconds}``."""
    if table.window is None:
        return None
    kind, until = table.window
    return {"kind": kind, "left": round(max(0.0, until - now), 1)}


def pending_now(table: Table) -> Sequence[Pending]:
    match = table.match
    return tuple(match.pending()) if match is not None and table.status == "playing" else ()


def build_state(table: Table, seat: int | None, now: float) -> dict[str, Any]:
    """One reader's state (``seat is None``: a spectator)."""
    adapter, match = table.adapter, table.match
    state: dict[str, Any]
    if match is not None:
        state = dict(match.view(seat).to_dict())
    else:
        state = adapter.empty_state(table.opts, seat)
    if seat is None:
        state.pop("hand", None)  # a spectator sees no hand
    decorate_seats(table, state)
    pending = pending_now(table)
    auction = state.get("auction")
    if isinstance(auction, dict):
        keys = [p.key for p in pending if p.kind == "auction" and p.key in table.deadlines]
        auction["deadline"] = round(max(0.0, table.deadlines[keys[0]] - now), 1) if keys else None
    state.update(room=table.id, status=table.status, deadline=deadline(table, seat, pending, state.get("turn"), now),
                 spectators=len(table.spectators), commitment=table.commitment, window=window_of(table, now),
                 moves=list(adapter.moves))
    adapter.decorate(state, table.opts, match, seat, pending)
    if seat is not None:
        state["at_stake"] = table.round_escrow.get(seat, 0)  # chips of the reader's in this round
    return state


class StateSet:
    """Every reader's state at one moment, each built (and encoded) at most once.

    The states of ``seats`` (``None``: the spectators) are built when the set is made: the table
    may move on in the same step before the set is delivered, and a state is one moment of it.
    Their JSON lines are made when first asked for."""

    __slots__ = ("_cache", "_dues", "_keys_", "_parts", "now", "pending", "public", "table", "tail")

    def __init__(self, table: Table, now: float, seats: Iterable[int | None] = ()) -> None:
        self.table = table
        self.now = now
        self._cache: dict[int | None, tuple[dict[str, Any], str | None]] = {}
        self._parts: list[str] | None = None
        self._keys_: list[str] | None = None
        self.public: dict[str, Any] | None = None
        self.tail: dict[str, Any] = {}
        self.pending: Sequence[Pending] = ()
        if table.adapter.batch_states and table.match is not None:
            self.pending = pending_now(table)
            self._dues = Dues(table, self.pending)
            public = table.match.view(None).to_dict()
            decorate_seats(table, public)
            self.public = public
            self.tail = {"room": table.id, "status": table.status, "deadline": None,
                         "spectators": len(table.spectators), "commitment": table.commitment,
                         "window": window_of(table, now), "moves": list(table.adapter.moves)}
        for seat in seats:
            if seat not in self._cache:
                self._cache[seat] = self._build(seat)

    def state(self, seat: int | None) -> dict[str, Any]:
        return self._get(seat)[0]

    def line(self, seat: int | None) -> str:
        """The state as its JSON-mode line (``{"type": "state", ...}``)."""
        state, line = self._get(seat)
        if line is None:
            line = encode({"type": "state", **state})
            self._cache[seat] = (state, line)
        return line

    def _get(self, seat: int | None) -> tuple[dict[str, Any], str | None]:
        got = self._cache.get(seat)
        if got is None:
            got = self._cache[seat] = self._build(seat)
        return got

    def _build(self, seat: int | None) -> tuple[dict[str, Any], str | None]:
        table = self.table
        if self.public is None or seat is None:
            return build_state(table, seat, self.now), None
        assert table.match is not None
        private = table.adapter.private_fields(table.match.view(seat))
        if private is None:
            return build_state(table, seat, self.now), None
        state = dict(self.public)
        state.update(private)
        state.update(self.tail)
        state["deadline"] = self._dues.left(seat, state.get("turn"), self.now)
        table.adapter.decorate(state, table.opts, table.match, seat, self.pending)
        state["at_stake"] = table.round_escrow.get(seat, 0)
        keys = self._keys_
        if keys is None:  # the same for every seat (the template below is cut around them once)
            keys = self._keys_ = self._keys(state)
        parts = self._template(state, keys)
        out = [parts[0]]
        for key, part in zip(keys, parts[1:], strict=True):
            out.append(_json_value(state[key]))
            out.append(part)
        return state, "".join(out)

    def _keys(self, state: dict[str, Any]) -> list[str]:
        """The per-seat keys, in the state's order: the view's own fields, the deadline, and what the
        adapter's ``decorate`` added (tdc: ``give``)."""
        assert self.public is not None
        own = set(self.table.adapter.private_keys())
        return [k for k in state if k in own or k == "deadline" or (k not in self.public and k not in self.tail)]

    def _template(self, sample: dict[str, Any], keys: list[str]) -> list[str]:
        """The state's JSON line cut around the per-seat values."""
        if self._parts is None:
            marked = set(keys)
            text = encode({"type": "state", **{k: _mark(k) if k in marked else v for k, v in sample.items()}})
            parts = []
            for k in keys:
                head, sep, text = text.partition(_mark_json(k))
                if not sep:
                    raise ValueError(f"state template: no place for {k}")
                parts.append(head)
            parts.append(text)
            self._parts = parts
        return self._parts


def _mark(key: str) -> str:
    return f"\x00{key}\x00"  # no name or card contains it


def _mark_json(key: str) -> str:
    got = _MARKS.get(key)
    if got is None:
        got = _MARKS[key] = encode(_mark(key))[:-1]
    return got


_MARKS: dict[str, str] = {}  # a state's few keys: their marks, encoded once


def _json_value(value: Any) -> str:
    """``value`` as :func:`server.protocol.encode` writes it inside an object (fast for the usual ones)."""
    if value is None:
        return "null"
    cls = value.__class__
    if cls is int:
        return int.__repr__(value)
    if cls is float and math.isfinite(value):
        return float.__repr__(value)
    if cls is list:
        if not value:
            return "[]"
        if all(v.__class__ is str for v in value):
            joined = "".join(value)
            if joined.isascii() and joined.isalnum():  # card codes
                return '["' + '","'.join(value) + '"]'
    return encode_value(value)

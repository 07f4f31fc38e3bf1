"""The state each reader of a table receives (PROTOCOL.md "The state a player receives").

:func:`build_state` makes one reader's state from the engine's view of it and the
table's own facts (names, connections, deadlines, the room). :class:`StateSet`
is every reader's state of one moment: when the adapter allows it
(``batch_states``), the public part is built once, one seat's state whole and
encoded once, cut around the values of its own; every other seat's JSON line is
that encoding with its values put in (encoded together, in one call), and its dict
is made only when read — the same keys, order and bytes as building it alone.

The states' nested values (the trick, the cards played...) may be shared with
the engine's memo of the spectator's view (``to_dict()``) and between readers:
nobody changes a state in place.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, KeysView, Mapping, Sequence
from operator import is_not
from typing import NamedTuple, Protocol, TypeVar, cast, overload

import orjson

from engine.api import Match, Pending
from server.games.base import GameAdapter, TableOptions
from server.games.states import SeatOwn, State, StateSeat, TableFields, Window
from server.protocol import JSONValue, Push, encode, encode_value
from server.table.answers import AnswerClocks
from server.table.bank import TimeBank
from server.table.seats import Seat


class StateSource(Protocol):
    """What a state is made of: the table's facts (see :class:`server.table.core.Table`)."""

    @property
    def id(self) -> str: ...
    @property
    def adapter(self) -> GameAdapter: ...
    @property
    def opts(self) -> TableOptions: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def spectators(self) -> Mapping[str, object]: ...
    @property
    def status(self) -> str: ...
    @property
    def deadlines(self) -> Mapping[Hashable, float]: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def round_escrow(self) -> Mapping[int, int]: ...
    @property
    def window(self) -> tuple[str, float] | None: ...
    @property
    def state_memo(self) -> dict[int, Private]: ...
    @property
    def answers(self) -> AnswerClocks: ...
    @property
    def bank(self) -> TimeBank: ...


def decorate_seats(table: StateSource, state: State) -> None:
    """The room's facts about each seat in a state: name, connection, bot, leaving.

    The seat entries are replaced by decorated copies: the view's own are left as they were (a
    spectator's ``to_dict()`` is shared, see ``engine.president.view.PresidentView.to_dict``)."""
    entries = state.get("seats")
    if not entries:
        return
    seats = table.seats
    bank = table.bank
    out: list[StateSeat] = []
    for entry in entries:
        s = seats[entry["seat"]]
        entry = {**entry, "name": s.name, "connected": s.connected and s.grace_until is None,
                 "bot": s.bot is not None and s.member is None}
        if s.member is not None:
            entry["bank"] = bank.left(s.member)  # the person's time bank left in this match (extend)
        if s.leaving:
            entry["leaving"] = True
        out.append(entry)
    state["seats"] = out


def hide_names(table: StateSource, state: State) -> None:
    """A spectator's state: the seat of a person who hides where they sit (``hide``) has no name
    (``"name": null, "hidden": true``); the people at the table see every name."""
    seats = table.seats
    entries = state.get("seats")
    if not entries or not any(s.hidden and s.member is not None for s in seats):
        return
    state["seats"] = [{**entry, "name": None, "hidden": True}
                      if seats[entry["seat"]].hidden and seats[entry["seat"]].member is not None else entry
                      for entry in entries]


def deadline(table: StateSource, seat: int | None, pending: Sequence[Pending], turn: int | None,
             now: float) -> float | None:
    """Seconds left on the decision ``seat`` cares about: its own, else the turn's, else any."""
    return Dues(table, pending).left(seat, turn, now)


class Dues:
    """When the pending decisions of a moment fall due, by seat: read once for every reader."""

    __slots__ = ("_all", "_by_seat", "_left")

    def __init__(self, table: StateSource, pending: Sequence[Pending]) -> None:
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
        self._left: dict[float, float] = {}  # due - now -> the seconds left, as sent (round() is dear)

    def left(self, seat: int | None, turn: int | None, now: float) -> float | None:
        by_seat = self._by_seat
        if seat is not None and seat in by_seat:
            due = by_seat[seat]
        elif turn is not None and turn in by_seat:
            due = by_seat[turn]
        else:
            due = self._all
        if due is None:
            return None
        ahead = due - now
        left = self._left.get(ahead)
        if left is None:
            left = self._left[ahead] = round(max(0.0, ahead), 1)
        return left


def window_of(table: StateSource, now: float) -> Window | None:
    """People's window, if one is open: ``{"kind": "cut" | "trade", "left": seconds}``."""
    if table.window is None:
        return None
    kind, until = table.window
    return {"kind": kind, "left": round(max(0.0, until - now), 1)}


def answer_clocks(table: StateSource, state: State, now: float) -> None:
    """Seconds left to answer each open offer put to a person (``left``, in copies of the state's
    ``offers``; server.table.answers): the same for every reader."""
    offers = state.get("offers")
    answers = table.answers
    if not offers or not answers:
        return
    state["offers"] = [{**o, "left": left} if (left := answers.left(o.get("offer"), now)) is not None else o
                       for o in offers]


def auction_deadline(table: StateSource, state: State, pending: Sequence[Pending], now: float) -> None:
    """Seconds left on the auction of a state that has one (S7), in a copy of its ``auction``."""
    auction = state.get("auction")
    if isinstance(auction, dict):
        keys = [p.key for p in pending if p.kind == "auction" and p.key in table.deadlines]
        state["auction"] = {**auction,
                            "deadline": round(max(0.0, table.deadlines[keys[0]] - now), 1) if keys else None}


def pending_now(table: StateSource, match: Match | None) -> Sequence[Pending]:
    """The decisions the table waits for now (``match``: the table's, read once by the caller)."""
    return tuple(match.pending()) if match is not None and table.status == "playing" else ()


def build_state(table: StateSource, seat: int | None, now: float) -> State:
    """One reader's state (``seat is None``: a spectator)."""
    adapter, match = table.adapter, table.match
    state: State
    if match is not None:
        state = cast(State, dict(match.view(seat).to_dict()))  # (the engine's view: its game's fields)
    else:
        state = adapter.empty_state(table.opts, seat)
    if seat is None:
        state.pop("hand", None)  # a spectator sees no hand
    decorate_seats(table, state)
    if seat is None:
        hide_names(table, state)
    pending = pending_now(table, match)
    auction_deadline(table, state, pending, now)
    answer_clocks(table, state, now)
    state.update({"room": table.id, "status": table.status,  # (the table's fields: TableFields)
                  "deadline": deadline(table, seat, pending, state.get("turn"), now),
                  "spectators": len(table.spectators), "commitment": table.commitment,
                  "window": window_of(table, now), "moves": list(adapter.moves)})
    adapter.decorate(state, table.opts, match, seat, pending)
    if seat is not None:
        state["at_stake"] = table.round_escrow.get(seat, 0)  # chips of the reader's in this round
    return state


class StateSet:
    """Every reader's state at one moment, each built (and encoded) at most once.

    The states of ``seats`` (``None``: the spectators) are built when the set is made: the table
    may move on in the same step before the set is delivered, and a state is one moment of it.
    Their JSON lines are made when first asked for.

    When the adapter allows it (``batch_states``), the first seat's state is built whole (the
    spectator's public part, the fields of the seat's own view, the table's, the adapter's
    ``decorate``) and cut, encoded, around the values that differ from seat to seat (the view's own
    fields, the deadline, the chips at stake): another seat's line is that template with its own
    values put in, and its state dict is made only when someone asks for it (:meth:`state`; a
    JSON session needs only the line, :meth:`reader` gives it a mapping that builds the dict if
    read). What ``decorate`` writes must then be the same for every seat (what it adds to the
    keys, or writes over a seat's own value, sends the set back to building each seat whole)."""

    __slots__ = ("_cache", "_dues", "_key_of", "_layout", "_lefts", "_memo", "_parts", "_sample", "now", "pending",
                 "public", "table", "tail")

    def __init__(self, table: StateSource, now: float, seats: Iterable[int | None] = ()) -> None:
        self.table = table
        self.now = now
        match = table.match
        self._cache: dict[int | None, tuple[Push, str | None]] = {}  # (a state as the sessions read it)
        self._sample: State | None = None  # the first seat's state, whole (the template's source)
        self._layout: _Layout | None = None  # its per-seat keys (None: each seat built whole)
        self._parts: list[str] | None = None  # its line cut around them: [head, None, text, None, ..., end]
        self.public: State | None = None
        self.tail: TableFields  # (batch_states: the table's fields, the same for every reader)
        self.pending: Sequence[Pending] = ()
        self._memo: dict[int, Private] = table.state_memo
        adapter = table.adapter  # its private_key, unless it keeps nothing (the base's: asked for nothing)
        self._key_of = None if type(adapter).private_key is GameAdapter.private_key else adapter.private_key
        self._lefts: dict[float, str] = {}  # a deadline's text (most seats share one)
        if table.adapter.batch_states and match is not None:
            self.pending = pending_now(table, match)
            self._dues = Dues(table, self.pending)
            public = cast(State, dict(match.view(None).to_dict()))  # the engine's is shared: copied before changes
            decorate_seats(table, public)
            auction_deadline(table, public, self.pending, now)
            answer_clocks(table, public, now)
            self.public = public
            self.tail = {"room": table.id, "status": table.status, "deadline": None,
                         "spectators": len(table.spectators), "commitment": table.commitment,
                         "window": window_of(table, now), "moves": list(table.adapter.moves)}
        for seat in seats:
            if seat not in self._cache:
                self._cache[seat] = self._build(seat)

    def state(self, seat: int | None) -> Push:
        """The reader's state as a dict (built now if it was not yet: of the set's moment)."""
        state, line = self._get(seat)
        if isinstance(state, _Reader):
            state = dict(state.made())
            self._cache[seat] = (state, line)
        return state

    def reader(self, seat: int | None) -> Push:
        """The reader's state as a mapping that makes its dict only when read (for a JSON session's
        last state: :meth:`line` is what it sends)."""
        return self._get(seat)[0]

    def line(self, seat: int | None) -> str:
        """The state as its JSON-mode line (``{"type": "state", ...}``)."""
        state, line = self._get(seat)
        if line is None:
            if isinstance(state, _Reader):
                state = dict(state.made())
            line = encode({"type": "state", **state})
            self._cache[seat] = (state, line)
        return line

    def _get(self, seat: int | None) -> tuple[Push, str | None]:
        got = self._cache.get(seat)
        if got is None:
            got = self._cache[seat] = self._build(seat)
        return got

    def _build(self, seat: int | None) -> tuple[Push, str | None]:
        """A reader's state (a :class:`State`: its values are JSON, which mypy does not see of a
        TypedDict, whence the casts) and its line when made with it."""
        table = self.table
        public = self.public
        if public is None:
            return cast(Push, build_state(table, seat, self.now)), None
        match = table.match  # (a seat asked for later: the match as it is then, as before)
        assert match is not None  # (a public part is made of a match)
        pending = self.pending
        if seat is None:  # the spectators': the public part as it is (its line is encoded once, if asked)
            state: State = {**public, **self.tail}
            hide_names(table, state)
            state["deadline"] = self._dues.left(None, state.get("turn"), self.now)
            table.adapter.decorate(state, table.opts, match, None, pending)
            return cast(Push, state), None
        adapter = table.adapter
        view = match.view(seat)
        key_of = self._key_of
        key = None if key_of is None else key_of(view)
        kept = None if key is None else self._memo.get(seat)
        if kept is not None and kept.key == key:  # the same facts as at an earlier moment: the same fields
            private: SeatOwn | None = kept.fields
            texts: list[str] | None = kept.texts
        else:
            private, texts, kept = adapter.private_fields(view), None, None
        if private is None:
            return cast(Push, build_state(table, seat, self.now)), None
        left = self._dues.left(seat, private["turn"] if "turn" in private else public.get("turn"), self.now)
        at_stake = table.round_escrow.get(seat, 0)
        sample, layout = self._sample, self._layout
        if sample is None:
            size: list[int] = []
            sample = self._sample = self._whole(match, seat, private, left, at_stake, size)
            layout = self._layout = _layout_of(adapter, sample, size[0], private, left, at_stake)
            if layout is not None:
                self._parts = _template(sample, layout)
            return cast(Push, sample), self._line(seat, key, private, texts, left, at_stake)
        if layout is None or ((kept is None or kept.names is not layout.private)  # (kept: checked then)
                              and private.keys() != layout.private):  # (the same keys: every one of them replaced)
            return cast(Push, self._whole(match, seat, private, left, at_stake)), None
        return _Reader(sample, private, left, at_stake), self._line(seat, key, private, texts, left, at_stake)

    def _whole(self, match: Match, seat: int, private: SeatOwn, left: float | None, at_stake: int,
               size: list[int] | None = None) -> State:
        """A seat's state built whole, as :func:`build_state` builds it (``size``: gets how many keys
        it had before ``decorate``)."""
        assert self.public is not None
        table = self.table
        state: State = {**self.public, **private, **self.tail}
        state["deadline"] = left
        if size is not None:
            size.append(len(state))
        table.adapter.decorate(state, table.opts, match, seat, self.pending)
        state["at_stake"] = at_stake
        return state

    def _line(self, seat: int, key: tuple[object, ...] | None, private: SeatOwn, texts: list[str] | None,
              left: float | None, at_stake: int) -> str | None:
        """A seat's JSON line: the template with the seat's values, encoded in one call, put in.

        ``texts``: the encoded values of ``private`` (in order), kept in the table's memo under
        ``key`` (the adapter's :meth:`~server.games.base.GameAdapter.private_key` of the seat's
        view) at an earlier moment; ``None``: encoded now, and kept if ``key`` is not ``None``."""
        parts, layout = self._parts, self._layout
        if parts is None or layout is None:
            return None
        if texts is not None and layout.in_order:
            if type(left) is float:  # (not an int: 0 and 0.0 are one key but two texts)
                text = self._lefts.get(left)
                if text is None:
                    text = self._lefts[left] = encode_value(left)
            else:
                text = encode_value(left)
            out = parts.copy()
            out[1:-4:2] = texts
            out[-4] = text
            out[-2] = str(at_stake) if at_stake.__class__ is int else encode_value(at_stake)
            return "".join(out)
        if layout.in_order:
            values = [*private.values(), left, at_stake]
        else:
            own = {**private, "deadline": left, "at_stake": at_stake}
            values = [own[k] for k in layout.keys]
        n = len(values)
        spaced: list[object] = [_PLACE] * (2 * n - 1)
        spaced[::2] = values
        try:
            got = _dumps(spaced, default=str, option=_OPT).decode()[1:-1].split(_APART)
        except TypeError:  # an int beyond 64 bits
            got = []
        if len(got) != n:  # a value holding the place mark itself (or too big for orjson)
            got = [encode_value(v) for v in values]
        if key is not None and layout.in_order:
            self._memo[seat] = Private(key, private, got[:-2], layout.private)
        out = parts.copy()
        out[1::2] = got
        return "".join(out)


class Private(NamedTuple):
    """A seat's own fields of a state and their encoded values (in order), kept in its table's
    ``state_memo`` by seat under the adapter's ``private_key`` of the view they were made of: equal
    keys make equal fields, so a later moment whose key is equal reuses them."""

    key: tuple[object, ...]
    fields: SeatOwn
    texts: list[str]
    names: frozenset[str]  # the layout's keys they were found to have (the same object: no need to look again)


_T = TypeVar("_T")


class _Reader(Mapping[str, JSONValue]):
    """A seat's state of a :class:`StateSet`, made (from the set's first seat's) when first read."""

    __slots__ = ("_at_stake", "_dict", "_left", "_private", "_sample")

    def __init__(self, sample: State, private: SeatOwn, left: float | None, at_stake: int) -> None:
        self._sample, self._private, self._left, self._at_stake = sample, private, left, at_stake
        self._dict: Push | None = None

    def made(self) -> Push:
        """The state (a :class:`State`, as a JSON object): made at the first call."""
        d = self._dict
        if d is None:  # every key is the sample's already: the order stays the sample's
            state: State = {**self._sample, **self._private, "deadline": self._left, "at_stake": self._at_stake}
            d = self._dict = cast(Push, state)
        return d

    def __getitem__(self, key: str) -> JSONValue:
        return self.made()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.made())

    def __len__(self) -> int:
        return len(self.made())

    @overload
    def get(self, key: str, /) -> JSONValue: ...
    @overload
    def get(self, key: str, default: JSONValue | _T, /) -> JSONValue | _T: ...
    def get(self, key: str, default: object = None, /) -> object:
        return self.made().get(key, default)

    def keys(self) -> KeysView[str]:
        return self.made().keys()


class _Layout(NamedTuple):
    """Where a batch's per-seat values go in its states: the keys, in the state's order."""

    keys: tuple[str, ...]
    marks: dict[str, str]  # each of them -> the place mark
    private: frozenset[str]  # the keys of the adapter's private_fields
    in_order: bool  # keys == private_fields' keys + (deadline, at_stake)


_LAYOUTS: dict[tuple[object, ...], _Layout] = {}
"""Layouts by adapter class, the keys of a state and those of its seat's own fields, in their order
(a handful in all; no value in them)."""

_PLACE = "\x00"  # the place of a seat's value in a template: no name or card contains it
_PLACE_JSON = '"\\u0000"'
_APART = ',"\\u0000",'  # between two values of a list spaced with the place mark
_OPT = orjson.OPT_NON_STR_KEYS
_dumps = orjson.dumps
_SEAT_KEYS = ("deadline", "at_stake")


def _layout_of(adapter: GameAdapter, sample: State, undecorated: int, private: SeatOwn,
               left: float | None, at_stake: int) -> _Layout | None:
    """The per-seat keys of ``sample`` (a seat's state built whole; ``undecorated``: its size before
    ``decorate``), or ``None`` when the adapter's ``decorate`` added keys or wrote over a seat's own
    value (then each seat is built whole)."""
    if (len(sample) != undecorated + 1 or "at_stake" not in sample or sample.get("deadline") is not left
            or sample.get("at_stake") is not at_stake or any(map(is_not, map(sample.get, private), private.values()))):
        return None
    key = (adapter.__class__, tuple(sample), tuple(private))
    layout = _LAYOUTS.get(key)
    if layout is None:
        keys = tuple(k for k in sample if k in private or k in _SEAT_KEYS)
        layout = _Layout(keys, dict.fromkeys(keys, _PLACE), frozenset(private), keys == (*private, *_SEAT_KEYS))
        if len(_LAYOUTS) > 64:
            _LAYOUTS.clear()
        _LAYOUTS[key] = layout
    return layout


def _template(sample: State, layout: _Layout) -> list[str] | None:
    """The line of ``sample`` cut around its per-seat values: ``[head, None, text, ..., None, end]``."""
    pieces = encode({"type": "state", **sample, **layout.marks}).split(_PLACE_JSON)
    if len(pieces) != len(layout.keys) + 1:
        return None  # a name holding the mark: each line encoded whole
    parts: list[str] = [""] * (2 * len(pieces) - 1)  # (the odd places: each seat's values)
    parts[::2] = pieces
    return parts

"""What a table's readers receive: engine events in the form each may see, the table's own events,
every reader's state — gathered as the :class:`~server.table.io.Outputs` of one call.

The readers are the people seated (each reads as their seat) and the spectators (who read as
no seat). A spectator is never told the name of a person who hides where they sit (``hide``):
they read the seat (``"seat 2"``). A command's pushes wait until its reply has gone
(:meth:`Sender.defer`), and a refused command pushes nothing (:meth:`Sender.drop_deferred`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from engine.api import Event
from server.protocol import JSONValue, Shared
from server.table.events import TableEvent, pushed
from server.table.io import Item, Member, Outputs, Refused, Reply, Send
from server.table.seats import Seat
from server.table.states import StateSet, StateSource

log = logging.getLogger("server.table")

Recipients = tuple[tuple[str, "int | None"], ...]


class SenderHost(StateSource, Protocol):
    """What the sender reads of its table: who is there (besides what a state is made of)."""

    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def spectators(self) -> Mapping[str, Member]: ...
    @property
    def now(self) -> float:
        """The time of the call being made (a state is of that moment)."""
        ...

    def seat_of(self, key: str) -> int | None: ...


class Sender:
    """The messages and items of the call being made (see the module's documentation)."""

    __slots__ = ("_deferred", "_table", "out")

    def __init__(self, table: SenderHost) -> None:
        self._table = table
        self.out = Outputs()
        self._deferred: list[Callable[[], None]] = []

    def take(self) -> Outputs:
        """What this call produced; the next starts empty."""
        out, self.out = self.out, Outputs()
        return out

    def item(self, item: Item) -> None:
        self.out.items.append(item)

    def defer(self, push: Callable[[], None]) -> None:
        """A push the command being handled causes: after its reply."""
        self._deferred.append(push)

    def drop_deferred(self) -> None:
        """The command was refused: it pushes nothing."""
        self._deferred.clear()

    def run_deferred(self) -> None:
        deferred, self._deferred = self._deferred, []
        for push in deferred:
            push()

    # -- who reads ---------------------------------------------------------------------------------

    def audience(self) -> Recipients:
        """Everyone in the room now, with the seat each reads as (spectators: ``None``)."""
        table = self._table
        out: list[tuple[str, int | None]] = [(s.member, s.index) for s in table.seats if s.member is not None]
        out += [(key, None) for key in table.spectators]
        return tuple(out)

    def names(self) -> tuple[str, ...]:
        return tuple(s.name or "" for s in self._table.seats)

    def hidden(self) -> dict[str, int]:
        """The names of the people seated here who hide where they sit (``hide``), with their seats."""
        return {s.name: s.index for s in self._table.seats if s.hidden and s.member is not None and s.name}

    def watchers_names(self) -> tuple[str, ...]:
        """:meth:`names` as spectators read them: a hidden person's seat has no name ("seat 2")."""
        return tuple("" if s.hidden and s.member is not None else s.name or "" for s in self._table.seats)

    # -- what they receive ---------------------------------------------------------------------------

    def to_member(self, key: str, msg: Shared | StateSet | Reply | Refused) -> None:
        self.out.items.append(Send(((key, self._table.seat_of(key)),), msg))

    def broadcast(self, event: TableEvent) -> None:
        """A table event (chat, joined, left...) to everyone in the room; spectators are not told the
        name of a person who hides where they sit (:meth:`hidden`): they read the seat."""
        audience = self.audience()
        if not audience:
            return
        room = self._table.id
        fields = pushed(event)
        shared = Shared({**fields, "room": room}, self.names())
        hidden = self.hidden()
        if not hidden or all(seat is not None for _, seat in audience):
            self.out.items.append(Send(audience, shared))
            return
        seated = tuple(a for a in audience if a[1] is not None)
        if seated:
            self.out.items.append(Send(seated, shared))
        masked = {**fields, "room": room}
        name = fields.get("name")
        if isinstance(name, str) and name in hidden:
            masked["name"] = None
            masked.setdefault("seat", hidden[name])
        self.out.items.append(Send(tuple(a for a in audience if a[1] is None),
                                   Shared(masked, self.watchers_names())))

    def publish(self, events: Sequence[Event], extra: Mapping[str, Mapping[str, JSONValue]] | None = None) -> None:
        """Engine events, each in the form its receiver may see; bots observe theirs. ``extra``: the
        table's own fields to add to events of these names (the round's fairness record)."""
        if not events:
            return
        table = self._table
        room = table.id
        items = self.out.items
        names = self.names()
        audience = self.audience()
        watchers_names = self.watchers_names() if table.spectators and self.hidden() else None
        for ev in events:
            for seat in table.seats:
                if seat.bot is not None:
                    seen = ev.for_seat(seat.index)
                    if seen is not None:
                        try:
                            seat.bot.observe(seen)
                        except Exception:
                            log.debug("table %s: bot %d could not observe %s", room, seat.index, ev.name)
            # one message per form of the event (a public event: one for everybody)
            forms: dict[int | None, Event | None] = {}
            groups: list[tuple[Event, list[tuple[str, int | None]]]] = []
            for key, seat_no in audience:
                if seat_no in forms:
                    seen = forms[seat_no]
                else:
                    seen = forms[seat_no] = ev.for_seat(seat_no)
                if seen is None:
                    continue
                for form, readers in groups:
                    if form is seen:
                        readers.append((key, seat_no))
                        break
                else:
                    groups.append((seen, [(key, seat_no)]))
            more = extra.get(ev.name, {}) if extra else {}
            for seen, readers in groups:
                if watchers_names is not None and any(seat_no is None for _, seat_no in readers):
                    seated = [r for r in readers if r[1] is not None]  # (spectators: no hidden person's name)
                    if seated:
                        items.append(Send(tuple(seated), Shared(
                            {**seen.to_dict(), **more, "room": room}, names, source=seen)))
                    items.append(Send(tuple(r for r in readers if r[1] is None), Shared(
                        {**seen.to_dict(), **more, "room": room}, watchers_names, source=seen)))
                    continue
                items.append(Send(tuple(readers), Shared({**seen.to_dict(), **more, "room": room}, names,
                                                         source=seen)))

    def push_state(self, key: str) -> None:
        """``key``'s own state, if they are in the room."""
        table = self._table
        if key in table.spectators or table.seat_of(key) is not None:
            self.to_member(key, StateSet(table, table.now, (table.seat_of(key),)))

    def push_states(self) -> None:
        """Everyone's own state, each built and encoded once (see :class:`StateSet`)."""
        audience = self.audience()
        if audience:
            self.out.items.append(Send(audience, StateSet(self._table, self._table.now, {seat for _, seat in audience})))

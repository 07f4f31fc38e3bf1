"""What of a table's outputs goes to which node (no I/O).

The owner's room hands each reader's state to the reader's session; for a person on another node
that session is a :class:`~server.cluster.proxy.RemoteClient`, which hands it here. The
:class:`NodeQueues` gathers what one turn of the event loop produced and makes, per node, one message
per moment of a table: the states of the seats that node holds people for (each built and encoded
once, however many of its sessions read it) and the spectators' state when it holds spectators —
never the hand of a seat it holds nobody for. Messages to one node leave in the order they were
made (a state after the event that caused it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from server.cluster import wire
from server.protocol import JSONValue, Push


class Lines(Protocol):
    """A table's states of one moment as the owner hands them on (a ``StateSet``): each seat's line."""

    def line(self, seat: int | None) -> str: ...


@dataclass(slots=True)
class _StateGroup:
    rid: str
    get: Callable[[int | None], str]
    source: int  # id() of the StateSet
    seats: dict[int | None, None] = field(default_factory=dict)
    to: list[tuple[str, int | None]] = field(default_factory=list)


@dataclass(slots=True)
class _SharedGroup:
    rid: str
    event: Push
    names: tuple[str, ...] | None
    source: int  # id() of the Shared
    to: list[tuple[str, int | None]] = field(default_factory=list)


class NodeQueues:
    """Messages waiting for their nodes, in order; :meth:`drain` hands them out."""

    def __init__(self) -> None:
        self._queues: dict[str, list[_StateGroup | _SharedGroup | wire.Message]] = {}

    def __bool__(self) -> bool:
        return any(self._queues.values())

    def state(self, node: str, rid: str, states: Lines, key: str, seat: int | None) -> None:
        """``key`` on ``node`` reads ``states`` (a ``StateSet``-like: ``.line(seat)``) as ``seat``."""
        queue = self._queues.setdefault(node, [])
        last = queue[-1] if queue else None
        if not (isinstance(last, _StateGroup) and last.source == id(states) and last.rid == rid):
            last = _StateGroup(rid, states.line, id(states))
            queue.append(last)
        last.seats[seat] = None
        last.to.append((key, seat))

    def shared(self, node: str, rid: str, event: Push, names: tuple[str, ...] | None, source: object,
               key: str, you: int | None) -> None:
        queue = self._queues.setdefault(node, [])
        last = queue[-1] if queue else None
        if not (isinstance(last, _SharedGroup) and last.source == id(source) and last.rid == rid):
            last = _SharedGroup(rid, event, names, id(source))
            queue.append(last)
        last.to.append((key, you))

    def message(self, node: str, msg: Mapping[str, JSONValue]) -> None:
        self._queues.setdefault(node, []).append(dict(msg))

    def drain(self) -> list[tuple[str, wire.Message]]:
        """Every waiting message as ``(node, message)``, in order for each node."""
        out: list[tuple[str, wire.Message]] = []
        queues, self._queues = self._queues, {}
        for node, queue in queues.items():
            for item in queue:
                if isinstance(item, _StateGroup):
                    lines = {seat: item.get(seat) for seat in item.seats}
                    out.append((node, wire.states_message(item.rid, lines, item.to)))
                elif isinstance(item, _SharedGroup):
                    out.append((node, {"t": "sh", "rid": item.rid, "ev": dict(item.event),
                                       "names": list(item.names) if item.names is not None else None,
                                       "to": [[k, s] for k, s in item.to]}))
                else:
                    out.append((node, item))
        return out


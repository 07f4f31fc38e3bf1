"""An event's record: its configuration and its journal, JSON-able; a director rebuilt from it.

The record is all an event is: :func:`replay` feeds a fresh director the
journal's inputs at their times and checks that it makes the same decisions
(the same tables with the same seats, byes, scores, rounds, end) — so the
seating of every round follows from the record, and a restart rebuilds the
event exactly. :func:`standings` recomputes the standings from the record alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.tournaments.arena_director import ArenaDirector
from server.tournaments.config import ArenaConfig, EventConfig, config_from_dict
from server.tournaments.data import JSON, JSONObject
from server.tournaments.event import Outputs
from server.tournaments.io import Absent, Entry, Join, Leave, Stop, TableAborted, TableOver, Tick
from server.tournaments.standings import Standings, recompute
from server.tournaments.swiss_director import SwissDirector

Director = ArenaDirector | SwissDirector


class ReplayError(RuntimeError):
    """A record whose journal its director does not reproduce."""


@dataclass(frozen=True, slots=True)
class EventRecord:
    config: EventConfig
    entries: tuple[Entry, ...] = ()

    def to_dict(self) -> JSONObject:
        return {"config": self.config.to_dict(), "entries": [e.to_dict() for e in self.entries]}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> EventRecord:
        config, entries = data["config"], data["entries"]
        if not isinstance(config, Mapping) or not isinstance(entries, Sequence):
            raise ValueError("an event's record is its configuration and its journal's entries")
        return cls(config_from_dict(config), tuple(Entry.from_dict(_entry(e)) for e in entries))


def _entry(value: JSON) -> Mapping[str, JSON]:
    if not isinstance(value, Mapping):
        raise ValueError(f"a journal entry is a JSON object, not {value!r}")
    return value


def director_for(config: EventConfig) -> Director:
    if isinstance(config, ArenaConfig):
        return ArenaDirector(config)
    return SwissDirector(config)


def record_of(director: Director) -> EventRecord:
    return EventRecord(director.config, tuple(director.event.journal))


def step(director: Director, entry: Entry) -> Outputs:
    """One input of a journal given again to ``director``, at its time."""
    item = entry.item
    if isinstance(item, Tick):
        return director.tick(entry.at)
    if isinstance(item, Join | Leave | TableOver | TableAborted | Absent | Stop):
        return director.handle(entry.at, item)
    raise ReplayError(f"{entry} is not an input")


def replay(record: EventRecord) -> Director:
    """A director rebuilt from ``record`` (raises :class:`ReplayError` where its decisions differ)."""
    director = director_for(record.config)
    entries: Sequence[Entry] = record.entries
    i = 0
    while i < len(entries):
        if not entries[i].is_input:
            raise ReplayError(f"entry {i}: {entries[i]} is not caused by an input")
        got = step(director, entries[i]).entries
        want = tuple(entries[i: i + len(got)])
        if got != want:
            raise ReplayError(f"entry {i}: the record has {want}, the director made {got}")
        i += len(got)
    return director


def standings(record: EventRecord) -> Standings:
    """The standings recomputed from the record alone (not through a director)."""
    return recompute(record.config.kind, record.config.scoring, record.entries)

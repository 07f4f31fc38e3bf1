"""Tournaments for tables of three to eight: arenas and Swiss events, sans I/O.

A tournament's core is pure and deterministic: no I/O, no clock, no global
random. Times come in with every call and the seed with the configuration.

- :mod:`~server.tournaments.config`: what an organiser sets (:class:`ArenaConfig`,
  :class:`SwissConfig`); :mod:`~server.tournaments.scoring`: points by place or chips,
  the streak bonus;
- :mod:`~server.tournaments.arena`, :mod:`~server.tournaments.swiss`: the pairings, on
  :mod:`~server.tournaments.grouping` (the bounded search against repeats);
- :mod:`~server.tournaments.standings`: live and recomputed standings;
- :class:`ArenaDirector`, :class:`SwissDirector`: inputs (:mod:`~server.tournaments.io`)
  and the time in, journal entries and effects out;
- :mod:`~server.tournaments.record`: the record (configuration and journal) and a
  director rebuilt from it.

See docs/tournaments.md.
"""

from server.tournaments.arena_director import ArenaDirector
from server.tournaments.config import ArenaConfig, EventConfig, SwissConfig, config_from_dict
from server.tournaments.errors import TournamentError
from server.tournaments.event import Outputs
from server.tournaments.io import (
    Absent,
    ByeGiven,
    Effect,
    Ended,
    Entry,
    Input,
    Join,
    Leave,
    OpenTable,
    RoundStarted,
    Started,
    Stop,
    TableAborted,
    TableOver,
    TableScored,
    Tick,
)
from server.tournaments.record import (
    Director,
    EventRecord,
    ReplayError,
    director_for,
    record_of,
    replay,
    standings,
)
from server.tournaments.scoring import Scoring
from server.tournaments.standings import Standing, Standings
from server.tournaments.swiss_director import SwissDirector

__all__ = [
    "Absent", "ArenaConfig", "ArenaDirector", "ByeGiven", "Director", "Effect", "Ended", "Entry",
    "EventConfig", "EventRecord", "Input", "Join", "Leave", "OpenTable", "Outputs", "ReplayError",
    "RoundStarted", "Scoring", "Standing", "Standings", "Started", "Stop", "SwissConfig", "SwissDirector",
    "TableAborted", "TableOver", "TableScored", "Tick", "TournamentError", "config_from_dict", "director_for",
    "record_of", "replay", "standings",
]

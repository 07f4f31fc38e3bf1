"""An event's tables: opened for the director's seats, their match followed to its result.

A table the director opens (:class:`~server.tournaments.OpenTable`) becomes a room opened as
``create`` opens one: the event's table options, rated as the event says, its people seated and
bots in the other seats. The room's configuration carries ``{"tournament": tid, "table": name,
"plan": names by seat}`` (``server.table.people``: each person sits only at the seat planned for
them, and no rematch is offered), so its rounds go to the history, the ratings and ``verify`` as
any table's.

The room's seats are the director's in another order: the people who can sit first, then bots
(a table's bots take its last seats). :class:`TableLink` keeps the correspondence, and maps
the match's result back to the director's seats: places from the adapter's match totals
(:meth:`~server.games.base.GameAdapter.match_totals`, equal totals sharing a place, P15), chips
from its round records (:meth:`~server.games.base.GameAdapter.match_chips`).

A person who cannot sit (not online, seated at another table, short of chips) is reported back as
absent (their seat played by a bot); a table where nobody can sit is reported aborted.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from server.games import TableOptions, adapter, parse_options
from server.games.base import Settings
from server.people.players import Player
from server.protocol import JSONValue
from server.rooms.room import Room
from server.storage.api import MATCH_SUFFIX, RoundRecord
from server.storage.names import name_key
from server.tournaments import OpenTable, TableOver
from server.tournaments.scoring import places_from_totals

log = logging.getLogger(__name__)

TOURNAMENT, TABLE, PLAN = "tournament", "table", "plan"
"""The keys of a tournament table's configuration (``TableOptions.extra``)."""


@dataclass(slots=True)
class TableLink:
    """One table of the event: the director's name and seats, its room and the room's seat order."""

    tournament: str
    table: str  # the event's name of it: ``<tid>.<n>``
    round: int
    seats: tuple[str | None, ...]  # the director's order (None: a bot)
    order: list[int] = field(default_factory=list)  # room seat j plays the director's seat order[j]
    room: Room | None = None
    rounds: list[Mapping[str, JSONValue]] = field(default_factory=list)  # its rounds' results so far
    reported: bool = False  # its result (or its abort) went to the director

    def result(self, record: RoundRecord) -> TableOver | None:
        """The director's ``TableOver`` from the match record of this table's room (None: it does not
        fit the table, as if aborted)."""
        rules = record.rules
        chosen = adapter(rules)
        totals = chosen.match_totals(record.result)
        size = len(self.seats)
        if len(totals) != size or len(self.order) != size:
            log.warning("tournament %s: table %s's match record does not fit it", self.tournament, self.table)
            return None
        won = chosen.match_chips(record.result, self.rounds, size)
        won += [0] * (size - len(won))
        room_places = places_from_totals(totals)
        places = [0] * size
        chips = [0] * size
        for j, d in enumerate(self.order):
            places[d] = room_places[j]
            chips[d] = won[j]
        return TableOver(self.table, tuple(places), tuple(chips))


def is_match(record: RoundRecord) -> bool:
    return record.round_id.endswith(MATCH_SUFFIX)


def records_of(room_id: str, records: Sequence[RoundRecord]) -> list[RoundRecord]:
    """The records of room ``room_id`` among an event's (a record's id is ``<room>-<uid>-<n>``)."""
    prefix = room_id + "-"
    return [r for r in records if r.round_id.startswith(prefix)]


def seat_plan(seats: Sequence[str | None], can_sit: Sequence[str]) -> tuple[list[str | None], list[int]]:
    """The room's seats for the director's ``seats``: the people of ``can_sit`` first (in the
    director's order), then bots; and which director seat each room seat plays."""
    people = [i for i, name in enumerate(seats) if name is not None and name in can_sit]
    others = [i for i in range(len(seats)) if i not in people]
    plan: list[str | None] = [seats[i] for i in people] + [None] * len(others)
    return plan, people + others


def table_options(effect: OpenTable, plan: Sequence[str | None], settings: Settings, tid: str) -> TableOptions:
    """The room's options: the event's, checked by the adapter as ``create``'s are (raises
    ``CommandError``), with the event's marks (:data:`TOURNAMENT`, :data:`TABLE`, :data:`PLAN`)."""
    args: dict[str, JSONValue] = {k: v for k, v in effect.options.items() if k not in ("seats", "bots")}
    args["seats"] = len(plan)
    args["bots"] = sum(1 for name in plan if name is None)
    opts = parse_options(args, settings)
    marks: dict[str, JSONValue] = {TOURNAMENT: tid, TABLE: effect.table, PLAN: list(plan)}
    return dataclasses.replace(opts, extra={**opts.extra, **marks})


def who_can_sit(players: Mapping[str, Player], names: Sequence[str], holder: Callable[[str], str | None]) -> list[str]:
    """Those of ``names`` who are online and hold no seat (``holder``: the seat claims' ``holder``)."""
    out = []
    for name in names:
        player = players.get(name_key(name))
        if player is None or not player.connected or holder(name) is not None:
            continue
        out.append(name)
    return out

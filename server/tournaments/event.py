"""What every kind of event shares: its entrants, its tables under way, its tally and journal.

An :class:`Event` is owned by a director (``arena_director``, ``swiss_director``),
which decides when tables open; the event keeps the facts and their invariants:
nobody sits at two tables at once, a result fits the table it is for, and every
input that changed something and every effect goes into the journal in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from server.tournaments.config import EventConfig
from server.tournaments.entrants import ACTIVE, LEFT, Entrants
from server.tournaments.errors import TournamentError
from server.tournaments.io import (
    Absent,
    ByeGiven,
    Effect,
    Ended,
    Entry,
    Input,
    Item,
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
from server.tournaments.scoring import check_places
from server.tournaments.standings import Standings, Tally, build


@dataclass(frozen=True, slots=True)
class Outputs:
    """What a call produced: the journal ``entries`` to keep (durably, before anything is
    announced), and among them the ``effects`` to perform, in order."""

    entries: tuple[Entry, ...] = ()

    @property
    def effects(self) -> tuple[Effect, ...]:
        return tuple(e.item for e in self.entries
                     if isinstance(e.item, Started | OpenTable | RoundStarted | ByeGiven | TableScored | Ended))


class Event:
    def __init__(self, config: EventConfig) -> None:
        self.config = config
        self.entrants = Entrants()
        self.tally = Tally(config.scoring)
        self.tables: dict[str, OpenTable] = {}  # under way
        self.absent: dict[str, set[str]] = {}  # table -> its people who never sat down
        self.journal: list[Entry] = []
        self.opened = 0  # tables opened so far
        self.now = 0.0
        self._mark = 0
        self._standings: tuple[tuple[int, str, int, bool], Standings] | None = None

    # -- the journal ---------------------------------------------------------------------------

    def begin(self, now: float) -> None:
        self.now = now
        self._mark = len(self.journal)

    def log(self, item: Item) -> None:
        self.journal.append(Entry(self.now, item))

    def outputs(self) -> Outputs:
        return Outputs(tuple(self.journal[self._mark:]))

    def logged_since_begin(self) -> int:
        return len(self.journal) - self._mark

    def step(self, now: float, inp: Input, check: Callable[[Input], None], apply: Callable[[Input], None],
             advance: Callable[[], bool]) -> Outputs:
        """A director's input: ``check`` (raises :class:`TournamentError`, changing nothing, when it is
        refused), logged, ``apply``, then everything due (``advance``)."""
        check(inp)
        self.begin(now)
        self.log(inp)
        apply(inp)
        advance()
        return self.outputs()

    def tick(self, now: float, advance: Callable[[], bool]) -> Outputs:
        """Time passed: everything due; a tick that changed nothing leaves no journal entry."""
        self.begin(now)
        self.log(Tick())
        if not advance() and self.logged_since_begin() == 1:
            self.journal.pop()
        return self.outputs()

    def check_leave_or_stop(self, inp: Leave | Stop, over: bool) -> None:
        """Raise unless ``inp`` may be taken: nothing once the event is over; a leave of an entrant
        still in (changes nothing)."""
        if over:
            raise TournamentError("not_open")
        if isinstance(inp, Leave):
            known = self.entrants.get(inp.name)
            if known is None or known.status != ACTIVE:
                raise TournamentError("not_entered", name=inp.name)

    # -- tables --------------------------------------------------------------------------------

    def open_table(self, round_: int, seats: tuple[str | None, ...]) -> OpenTable:
        for name in seats:
            if name is not None:
                entrant = self.entrants[name]
                if not entrant.free:
                    raise RuntimeError(f"{name} cannot be seated: {entrant}")
        self.opened += 1
        table = OpenTable(f"{self.config.id}.{self.opened}", round_, seats, dict(self.config.options))
        for name in table.people:
            self.entrants[name].table = table.table
        self.tables[table.table] = table
        self.absent[table.table] = set()
        self.log(table)
        return table

    def check(self, inp: TableOver | TableAborted | Absent) -> None:
        """Raise unless ``inp`` fits a table under way (changes nothing)."""
        table = self.tables.get(inp.table)
        if table is None:
            raise TournamentError("unknown_table", table=inp.table)
        if isinstance(inp, TableOver):
            size = len(table.seats)
            if len(inp.places) != size or (inp.chips and len(inp.chips) != size):
                raise TournamentError("bad_result", table=inp.table)
            if self.config.scoring.mode == "chips" and not inp.chips:
                raise TournamentError("bad_result", table=inp.table, missing="chips")
            if any(not isinstance(c, int) or isinstance(c, bool) for c in inp.chips):
                raise TournamentError("bad_result", table=inp.table)
            check_places(inp.places)
        elif isinstance(inp, Absent):
            gone = self.absent[inp.table]
            if not inp.names or len(set(inp.names)) != len(inp.names) or any(
                    n not in table.people or n in gone for n in inp.names):
                raise TournamentError("bad_result", table=inp.table, absent=list(inp.names))

    def table_over(self, inp: TableOver) -> tuple[OpenTable, list[str]]:
        """Score a table's game; its people present are free again (returned)."""
        table = self.tables.pop(inp.table)
        gone = self.absent.pop(inp.table)
        points = self.tally.game(table.seats, inp.places, inp.chips, gone)
        self.log(TableScored(table.table, table.round, table.seats, inp.places, points))
        return table, self._free(table, gone)

    def table_aborted(self, inp: TableAborted) -> tuple[OpenTable, list[str]]:
        table = self.tables.pop(inp.table)
        return table, self._free(table, self.absent.pop(inp.table))

    def table_absent(self, inp: Absent) -> None:
        for name in inp.names:
            self.absent[inp.table].add(name)
            self.tally.forfeit(name)
            entrant = self.entrants[name]
            entrant.status = LEFT
            entrant.table = None

    def _free(self, table: OpenTable, gone: set[str]) -> list[str]:
        freed = []
        for name in table.people:
            if name in gone:
                continue
            entrant = self.entrants[name]
            entrant.table = None
            entrant.since = self.now
            freed.append(name)
        return freed

    # -- standings -----------------------------------------------------------------------------

    def playing(self) -> list[str]:
        return [name for t, table in self.tables.items() for name in table.people if name not in self.absent[t]]

    def standings(self, kind: str, round_: int, final: bool) -> Standings:
        """The live standings, made again only when the journal grew (every change of the event
        writes to it): asking for them between two changes costs nothing."""
        key = (len(self.journal), kind, round_, final)
        if self._standings is None or self._standings[0] != key:
            self._standings = (key, build(kind, round_, final, self.entrants, self.tally, self.playing()))
        return self._standings[1]

    def summary(self, phase: str, round_: int) -> dict[str, object]:
        """What a list of events shows of this one (JSON-able)."""
        cfg = self.config
        return {"id": cfg.id, "kind": cfg.kind, "phase": phase, "seats": cfg.seats,
                "options": dict(cfg.options), "scoring": cfg.scoring.to_dict(), "starts_at": cfg.starts_at,
                "entrants": sum(1 for e in self.entrants if e.status == ACTIVE),
                "playing": len(self.playing()), "tables": len(self.tables), "round": round_}

    def top_tables(self) -> list[OpenTable]:
        """The tables under way, the one with the best-placed player first (whom to watch)."""
        points = self.tally.points
        return sorted(self.tables.values(),
                      key=lambda t: (-max((points(n) for n in t.people), default=0), _number(t.table)))

    def accounted(self) -> bool:
        """Every entrant is at exactly one table under way, or free, or gone (an invariant)."""
        seen: dict[str, str] = {}
        for t, table in self.tables.items():
            for name in table.people:
                if name in self.absent[t]:
                    continue
                if name in seen or self.entrants[name].table != t:
                    return False
                seen[name] = t
        return all(e.table is None or e.table in self.tables for e in self.entrants) and all(
            e.status in (ACTIVE, LEFT) for e in self.entrants)


def _number(table: str) -> int:
    """A table's number in its event (``ID.N``: the N-th table the event opened)."""
    return int(table.rsplit(".", 1)[1])

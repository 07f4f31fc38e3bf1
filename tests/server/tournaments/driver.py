"""A fake server around a tournament director: a fake clock, tables that finish when told, results
drawn from a seeded ``random.Random`` (the test's, never the global one).

:class:`Driver` feeds the director its inputs, ticks it at its ``wake``, keeps what
every call returned, and checks after each call what must always hold: nobody
sits at two tables at once, every entrant is accounted for, the live standings
equal their recomputation from the record, and ``wake`` is never in the past.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from server.tournaments import (
    Director,
    Effect,
    Input,
    OpenTable,
    Outputs,
    TableOver,
    record_of,
    standings,
)
from server.tournaments.scoring import places_from_totals


class Driver:
    def __init__(self, director: Director, rng: random.Random | None = None) -> None:
        self.director = director
        self.rng = rng or random.Random(0)
        self.now = 0.0
        self.under_way: dict[str, OpenTable] = {}
        self.opened: list[OpenTable] = []
        self.effects: list[Effect] = []

    def _take(self, out: Outputs) -> Outputs:
        for effect in out.effects:
            self.effects.append(effect)
            if isinstance(effect, OpenTable):
                self.opened.append(effect)
                self.under_way[effect.table] = effect
        self.check()
        return out

    def send(self, inp: Input) -> Outputs:
        out = self._take(self.director.handle(self.now, inp))
        for table in [t for t in self.under_way if t not in self.director.event.tables]:
            del self.under_way[table]
        return out

    def at(self, when: float) -> None:
        """Time passes until ``when``, ticking the director at every wake on the way."""
        while True:
            wake = self.director.wake
            if wake is None or wake > when:
                break
            self.now = max(self.now, wake)
            self._take(self.director.tick(self.now))
        self.now = max(self.now, when)
        self._take(self.director.tick(self.now))

    def result(self, table: OpenTable, totals: Sequence[int] | None = None) -> TableOver:
        """A game's result for ``table``: places from ``totals`` (random when not given), and chips
        conserved among its seats."""
        size = len(table.seats)
        if totals is None:
            totals = [self.rng.randrange(4) for _ in range(size)]
        places = tuple(places_from_totals(totals))
        chips = [self.rng.randrange(-20, 21) for _ in range(size - 1)]
        chips.append(-sum(chips))
        return TableOver(table.table, places, tuple(chips))

    def finish(self, table: OpenTable, totals: Sequence[int] | None = None) -> Outputs:
        out = self.send(self.result(table, totals))
        self.under_way.pop(table.table, None)
        return out

    def finish_all(self) -> None:
        for table in list(self.under_way.values()):
            if table.table in self.director.event.tables:
                self.finish(table)

    def check(self) -> None:
        d = self.director
        seated: dict[str, str] = {}
        for t, table in d.event.tables.items():
            for name in table.people:
                if name in d.event.absent[t]:
                    continue
                assert name not in seated, f"{name} at {seated[name]} and {t}"
                seated[name] = t
        assert d.event.accounted()
        assert d.standings() == standings(record_of(d))
        wake = d.wake
        assert wake is None or wake > self.now, f"wake {wake} is not after now {self.now}"

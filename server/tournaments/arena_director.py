"""The director of an arena, sans I/O: inputs and the time in, journal entries and effects out.

Phases: ``registering`` until ``starts_at`` (players may enter and take their
entry back), ``running`` until ``ends_at`` (players join, leave — a pause: they
keep their points and may come back — and are seated whenever a table's worth
wait, ``server.tournaments.arena``), ``closing`` (no new table; the tables under
way finish and count) and ``over``. A stop by the organiser closes the event at
once.

Who waited longest is seated first (those who entered before the start: in the
order they entered). A remainder smaller than a table keeps waiting; when the
organiser allows bots, once its longest-waiting player has waited ``bot_wait``
seconds (counted from the start at the earliest) it is seated
with bots in the free seats. The pairing seats as few people who just played
together as the players waiting allow; a table that would be the very same table
again (nobody else waits) opens only once all its players waited ``rematch_wait``
seconds, so that the players of another table may come first (0: at once).

The director never reads a clock: each call gets ``now``, and :attr:`wake` says
when to call :meth:`tick` next.
"""

from __future__ import annotations

from server.tournaments import arena
from server.tournaments.config import ArenaConfig
from server.tournaments.entrants import ACTIVE, LEFT, Entrant
from server.tournaments.errors import TournamentError
from server.tournaments.event import Event, Outputs
from server.tournaments.io import (
    Absent,
    Ended,
    Input,
    Join,
    Leave,
    OpenTable,
    Started,
    Stop,
    TableAborted,
    TableOver,
)
from server.tournaments.standings import Standings
from server.tournaments.ties import tie_key

REGISTERING, RUNNING, CLOSING, OVER = "registering", "running", "closing", "over"


class ArenaDirector:
    kind = "arena"

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config
        self.event = Event(config)
        self.phase = REGISTERING
        self.stopped = False
        self.previous: dict[str, frozenset[str]] = {}  # each player's table-mates of their last game
        self._holds: list[float] = []  # when tables held for a rematch may open
        self._bot_due: float | None = None

    # -- the caller's side ---------------------------------------------------------------------

    def handle(self, now: float, inp: Input) -> Outputs:
        """One input (raises :class:`TournamentError`, changing nothing, when it is refused);
        then everything due."""
        return self.event.step(now, inp, self._check, self._apply, self._advance)

    def tick(self, now: float) -> Outputs:
        """Time passed: start, seat, close, end as due."""
        return self.event.tick(now, self._advance)

    @property
    def wake(self) -> float | None:
        if self.phase == REGISTERING:
            return self.config.starts_at
        if self.phase != RUNNING:
            return None
        due = [self.config.ends_at, *self._holds]
        if self._bot_due is not None:
            due.append(self._bot_due)
        return min(due)

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def standings(self) -> Standings:
        return self.event.standings(self.kind, 0, self.phase == OVER)

    def summary(self) -> dict[str, object]:
        """The event as a list shows it (JSON-able): id, kind, phase, seats, options, scoring,
        times, active entrants, people playing, tables under way, the round."""
        out = self.event.summary(self.phase, 0)
        out["ends_at"] = self.config.ends_at
        return out

    def top_tables(self) -> list[OpenTable]:
        """The tables under way, the one seating the leader (by points) first."""
        return self.event.top_tables()

    # -- inputs --------------------------------------------------------------------------------

    def _check(self, inp: Input) -> None:
        ev = self.event
        if isinstance(inp, Join):
            if self.phase in (CLOSING, OVER):
                raise TournamentError("not_open")
            known = ev.entrants.get(inp.name)
            if known is not None and known.status == ACTIVE:
                raise TournamentError("already_entered", name=inp.name)
            limit = self.config.max_entrants
            if known is None and limit is not None and len(ev.entrants) >= limit:
                raise TournamentError("full")
        elif isinstance(inp, Leave | Stop):
            ev.check_leave_or_stop(inp, self.phase == OVER)
        else:
            ev.check(inp)

    def _apply(self, inp: Input) -> None:
        ev = self.event
        if isinstance(inp, Join):
            known = ev.entrants.get(inp.name)
            if known is None:
                ev.entrants.add(Entrant(inp.name, inp.rating, since=ev.now))
            else:
                known.status = ACTIVE
                known.since = ev.now
        elif isinstance(inp, Leave):
            if self.phase == REGISTERING:
                ev.entrants.remove(inp.name)
            else:
                ev.entrants[inp.name].status = LEFT
        elif isinstance(inp, TableOver):
            _, freed = ev.table_over(inp)
            for name in freed:
                self.previous[name] = frozenset(n for n in freed if n != name)
        elif isinstance(inp, TableAborted):
            ev.table_aborted(inp)
        elif isinstance(inp, Absent):
            ev.table_absent(inp)
        elif isinstance(inp, Stop):
            self.stopped = True
            if self.phase in (REGISTERING, RUNNING):
                self.phase = CLOSING

    # -- time ----------------------------------------------------------------------------------

    def _advance(self) -> bool:
        """Everything due now; whether anything changed."""
        ev = self.event
        changed = False
        if self.phase == REGISTERING and ev.now >= self.config.starts_at:
            self.phase = RUNNING
            ev.log(Started(tuple(e.name for e in ev.entrants)))
            changed = True
        if self.phase == RUNNING and ev.now >= self.config.ends_at:
            self.phase = CLOSING
            changed = True
        if self.phase == CLOSING:
            self._holds, self._bot_due = [], None
            if not ev.tables:
                self.phase = OVER
                ev.log(Ended("stopped" if self.stopped else "time"))
                changed = True
        if self.phase == RUNNING:
            changed = self._seat() or changed
        return changed

    def _seat(self) -> bool:
        ev = self.event
        cfg = self.config
        now = ev.now
        waiting = [arena.Waiting(e.name, e.since, ev.tally.points(e.name), e.rating) for e in ev.entrants.free()]
        proposals = arena.pair(waiting, cfg.seats, self.previous, seed=cfg.seed, salt=str(ev.opened))
        opened = False
        holds: list[float] = []
        placed: set[str] = set()
        for p in proposals:
            placed.update(p.names)
            size = len(p.names)
            if p.repeats == size * (size - 1) // 2 and cfg.rematch_wait > 0:  # the same table again
                due = max(max(ev.entrants[n].since, cfg.starts_at) for n in p.names) + cfg.rematch_wait
                if now < due:
                    holds.append(due)
                    continue
            ev.open_table(0, p.names)
            opened = True
        self._holds = holds
        self._bot_due = None
        rest = [w for w in waiting if w.name not in placed]
        if cfg.bots and rest:
            due = max(min(w.since for w in rest), cfg.starts_at) + cfg.bot_wait
            if now >= due:
                rest.sort(key=lambda w: (w.since, tie_key(cfg.seed, str(ev.opened), w.name)))
                people = tuple(w.name for w in rest[: cfg.seats - 1])
                ev.open_table(0, (*people, *([None] * (cfg.seats - len(people)))))
                opened = True
            else:
                self._bot_due = due
        return opened

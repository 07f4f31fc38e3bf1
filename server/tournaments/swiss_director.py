"""The director of a Swiss event, sans I/O: inputs and the time in, journal entries and effects out.

Phases: ``registering`` until ``starts_at``, then ``running`` round after round,
then ``over``. Round 1 starts at ``starts_at``; each later round ``round_pause``
seconds after the last table of the previous round reported. Every active
entrant is seated each round (``server.tournaments.swiss``: sizes, byes, snake
seeding, the search against repeats); the event ends after its last round, or
when too few active players remain for a table (``too_few``), or once the
tables under way finish after the organiser stopped it.

**Late joiners** may enter until round ``late_until`` starts (by default half the
rounds, rounded up) and play from the next round; each round begun before they
joined scores ``late_points``: ``zero``, or ``half`` (a bye's points), recorded as
a late bye. **Withdrawals**: a player who leaves is not seated again (a game they
are playing still counts, P16); they may come back for the rounds left, without
points for the rounds they missed. A player absent from their table forfeits that
game and is withdrawn. An aborted table scores nothing for anyone.

The director never reads a clock: each call gets ``now``, and :attr:`wake` says
when to call :meth:`tick` next.
"""

from __future__ import annotations

from server.tournaments import swiss
from server.tournaments.config import SwissConfig
from server.tournaments.entrants import ACTIVE, LEFT, Entrant
from server.tournaments.errors import TournamentError
from server.tournaments.event import Event, Outputs
from server.tournaments.io import (
    Absent,
    ByeGiven,
    Ended,
    Input,
    Join,
    Leave,
    OpenTable,
    RoundStarted,
    Started,
    Stop,
    TableAborted,
    TableOver,
)
from server.tournaments.standings import Standings
from server.tournaments.ties import tie_key

REGISTERING, RUNNING, OVER = "registering", "running", "over"


class SwissDirector:
    kind = "swiss"

    def __init__(self, config: SwissConfig) -> None:
        self.config = config
        self.event = Event(config)
        self.phase = REGISTERING
        self.round = 0
        self.stopped = False
        self.next_round_at: float | None = None  # set once a round's last table reported

    # -- the caller's side ---------------------------------------------------------------------

    def handle(self, now: float, inp: Input) -> Outputs:
        """One input (raises :class:`TournamentError`, changing nothing, when it is refused);
        then everything due."""
        return self.event.step(now, inp, self._check, self._apply, self._advance)

    def tick(self, now: float) -> Outputs:
        return self.event.tick(now, self._advance)

    @property
    def wake(self) -> float | None:
        if self.phase == REGISTERING:
            return self.config.starts_at
        if self.phase == RUNNING and not self.event.tables:
            return self.next_round_at
        return None

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def standings(self) -> Standings:
        return self.event.standings(self.kind, self.round, self.phase == OVER)

    def summary(self) -> dict[str, object]:
        """The event as a list shows it (JSON-able): id, kind, phase, seats, options, scoring,
        times, active entrants, people playing, tables under way, the round."""
        out = self.event.summary(self.phase, self.round)
        out["rounds"] = self.config.rounds
        return out

    def top_tables(self) -> list[OpenTable]:
        """The tables under way, the one seating the leader (by points) first."""
        return self.event.top_tables()

    # -- inputs --------------------------------------------------------------------------------

    def _check(self, inp: Input) -> None:
        ev = self.event
        cfg = self.config
        if isinstance(inp, Join):
            known = ev.entrants.get(inp.name)
            if known is not None and known.status == ACTIVE:
                raise TournamentError("already_entered", name=inp.name)
            last = cfg.rounds if known is not None else cfg.last_late_round
            if self.phase == OVER or self.stopped or (self.phase == RUNNING and self.round + 1 > last):
                raise TournamentError("not_open")
            if known is None and cfg.max_entrants is not None and len(ev.entrants) >= cfg.max_entrants:
                raise TournamentError("full")
        elif isinstance(inp, Leave | Stop):
            ev.check_leave_or_stop(inp, self.phase == OVER)
        else:
            ev.check(inp)

    def _apply(self, inp: Input) -> None:
        ev = self.event
        cfg = self.config
        if isinstance(inp, Join):
            known = ev.entrants.get(inp.name)
            if known is not None:
                known.status = ACTIVE
                return
            ev.entrants.add(Entrant(inp.name, inp.rating, since=ev.now, first_round=self.round + 1))
            points = cfg.scoring.bye_points if cfg.late_points == "half" else 0
            for missed in range(1, self.round + 1):
                ev.tally.bye(inp.name, points, late=True)
                ev.log(ByeGiven(inp.name, missed, points, late=True))
        elif isinstance(inp, Leave):
            if self.phase == REGISTERING:
                ev.entrants.remove(inp.name)
            else:
                ev.entrants[inp.name].status = LEFT
        elif isinstance(inp, TableOver | TableAborted):
            if isinstance(inp, TableOver):
                ev.table_over(inp)
            else:
                ev.table_aborted(inp)
            if not ev.tables:
                self.next_round_at = ev.now + (0.0 if self.stopped or self.round >= cfg.rounds else cfg.round_pause)
        elif isinstance(inp, Absent):
            ev.table_absent(inp)
        elif isinstance(inp, Stop):
            self.stopped = True
            if not ev.tables:
                self.next_round_at = ev.now

    # -- time ----------------------------------------------------------------------------------

    def _advance(self) -> bool:
        ev = self.event
        if self.phase == REGISTERING:
            if self.stopped:
                return self._end("stopped")
            if ev.now < self.config.starts_at:
                return False
            self.phase = RUNNING
            ev.log(Started(tuple(e.name for e in ev.entrants)))
            self._start_round(1)
            return True
        if self.phase != RUNNING or ev.tables or self.next_round_at is None or ev.now < self.next_round_at:
            return False
        if self.stopped:
            return self._end("stopped")
        if self.round >= self.config.rounds:
            return self._end("rounds")
        self._start_round(self.round + 1)
        return True

    def _end(self, reason: str) -> bool:
        self.phase = OVER
        self.next_round_at = None
        self.event.log(Ended(reason))
        return True

    def _start_round(self, number: int) -> None:
        ev = self.event
        cfg = self.config
        tally = ev.tally
        players = ev.entrants.free()
        if not players or (len(players) < cfg.smallest and not cfg.bots):
            self._end("too_few")
            return
        salt = f"round {number}"
        if number == 1:
            players.sort(key=lambda e: (-e.rating, tie_key(cfg.seed, salt, e.name)))
        else:
            players.sort(key=lambda e: (-tally.points(e.name), -tally.opponents(e.name), -e.rating,
                                        tie_key(cfg.seed, salt, e.name)))
        order = [e.name for e in players]
        plan = swiss.sizes(len(order), cfg.seats, cfg.smallest, cfg.bots)
        had = {name: line.byes for name, line in tally.lines.items()}
        resting = swiss.byes(order, plan.byes, had)
        rest = [n for n in order if n not in set(resting)]
        if number == 1:
            groups = swiss.snake(rest, plan.people)
        else:
            points = {n: tally.points(n) for n in rest}
            groups = swiss.later(rest, plan.people, tally.shared, points, cfg.search_budget)
        self.round = number
        self.next_round_at = None
        tables = []
        for group in groups:
            seated = sorted(group, key=lambda n: tie_key(cfg.seed, salt + "/seat", n))
            bots = max(0, cfg.smallest - len(group)) if cfg.bots else 0
            tables.append(ev.open_table(number, (*seated, *([None] * bots))).table)
        for name in resting:
            tally.bye(name, cfg.scoring.bye_points, late=False)
            ev.log(ByeGiven(name, number, cfg.scoring.bye_points))
        ev.log(RoundStarted(number, tuple(tables), tuple(resting)))

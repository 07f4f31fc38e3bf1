"""Standings: points, tiebreaks, games and wins, live and recomputed from an event's record.

A :class:`Tally` keeps each entrant's figures as results come in (the live
standings); :func:`recompute` finds them again from nothing but the event's
journal (a pure function of the record: the tables opened, the results, the
byes, who joined and left). Both give the same :class:`Standings`.

Order: by points, then the tiebreaks of the event's kind (a Swiss event:
opponents' points, then wins; an arena: wins, then fewer games); entrants equal
on all of these share a rank (listed by name). **Opponents' points**: the sum
of the current points of everyone an entrant shared a table with, once per game
shared (bots are no one's opponents). A line is **provisional** while its
entrant's table is still playing; the standings are **final** once the event ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from server.tournaments.data import JSONObject
from server.tournaments.entrants import ACTIVE, LEFT, Entrant
from server.tournaments.io import (
    Absent,
    ByeGiven,
    Ended,
    Entry,
    Join,
    Leave,
    OpenTable,
    RoundStarted,
    Started,
    TableAborted,
    TableOver,
)
from server.tournaments.scoring import Scoring, Streak, is_win


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    points: int
    opponents: int  # opponents' points (see the module)
    games: int
    wins: int
    byes: int
    on_fire: bool  # the streak bonus doubles their next game
    provisional: bool  # their table is still playing
    status: str  # active | left
    rating: float


@dataclass(frozen=True, slots=True)
class Standings:
    kind: str  # arena | swiss
    round: int  # the Swiss round under way or last played (0: an arena, or not started)
    final: bool
    lines: tuple[Standing, ...]

    def to_dict(self) -> JSONObject:
        return {"kind": self.kind, "round": self.round, "final": self.final,
                "lines": [asdict(line) for line in self.lines]}

    def line(self, name: str) -> Standing | None:
        return next((line for line in self.lines if line.name == name), None)


class Line:
    """One entrant's figures."""

    __slots__ = ("byes", "games", "mates", "opponents", "points", "streak", "wins")

    def __init__(self) -> None:
        self.points = 0
        self.games = 0
        self.wins = 0
        self.byes = 0
        self.streak = Streak()
        self.mates: dict[str, int] = {}  # name -> games shared
        self.opponents = 0  # kept equal to sum(n * points of mate), as points and mates change


class Tally:
    """The live figures of every entrant who ever entered (a line stays when they leave)."""

    def __init__(self, scoring: Scoring) -> None:
        self.scoring = scoring
        self.lines: dict[str, Line] = {}

    def line(self, name: str) -> Line:
        line = self.lines.get(name)
        if line is None:
            line = self.lines[name] = Line()
        return line

    def points(self, name: str) -> int:
        line = self.lines.get(name)
        return 0 if line is None else line.points

    def shared(self, a: str, b: str) -> int:
        line = self.lines.get(a)
        return 0 if line is None else line.mates.get(b, 0)

    def opponents(self, name: str) -> int:
        line = self.lines.get(name)
        return 0 if line is None else line.opponents

    def _gain(self, line: Line, points: int) -> None:
        """``line`` scores ``points``: their opponents' opponents' points move with them."""
        if points:
            line.points += points
            for mate, n in line.mates.items():
                self.lines[mate].opponents += n * points

    def forfeit(self, name: str) -> None:
        """An entrant absent from their table: a game lost without a place (no points, no win)."""
        line = self.line(name)
        line.games += 1
        line.streak = Streak()

    def bye(self, name: str, points: int, late: bool) -> None:
        line = self.line(name)
        self._gain(line, points)
        if not late:
            line.byes += 1

    def game(self, seats: Sequence[str | None], places: Sequence[int], chips: Sequence[int],
             absent: Iterable[str] = ()) -> tuple[int | None, ...]:
        """A table's game: what each seat scores (``None``: a bot's seat or an absent person)."""
        gone = set(absent)
        people = [s for s in seats if s is not None and s not in gone]
        for person in people:  # first they meet (at the points they have), then they score
            met = self.line(person)
            for other in people:
                if other != person:
                    met.mates[other] = met.mates.get(other, 0) + 1
                    met.opponents += self.line(other).points
        out: list[int | None] = []
        for i, name in enumerate(seats):
            if name is None or name in gone:
                out.append(None)
                continue
            line = self.line(name)
            base = self.scoring.game_points(len(seats), places, chips or [0] * len(seats), i)
            won = is_win(places, i)
            got = line.streak.score(self.scoring, base)
            line.streak = line.streak.after(won)
            self._gain(line, got)
            line.games += 1
            line.wins += won
            out.append(got)
        return tuple(out)


def _key(kind: str, line: Line) -> tuple[int, ...]:
    if kind == "swiss":
        return (-line.points, -line.opponents, -line.wins)
    return (-line.points, -line.wins, line.games)


def build(kind: str, round_: int, final: bool, entrants: Iterable[Entrant], tally: Tally,
          playing: Iterable[str]) -> Standings:
    """The standings of ``entrants`` from ``tally``; ``playing``: who sits at a table under way."""
    busy = set(playing)
    fire = tally.scoring.streak
    empty = Line()
    rows: list[tuple[tuple[int, ...], str, Line, Entrant]] = []
    for e in entrants:
        line = tally.lines.get(e.name, empty)
        rows.append((_key(kind, line), e.name, line, e))
    rows.sort(key=lambda r: (r[0], r[1]))
    ranked: list[Standing] = []
    rank = 0
    for i, (key, name, line, e) in enumerate(rows):
        if i == 0 or key != rows[i - 1][0]:
            rank = i + 1
        ranked.append(Standing(rank, name, line.points, line.opponents, line.games, line.wins, line.byes,
                               fire and line.streak.on_fire, name in busy, e.status, e.rating))
    return Standings(kind, round_, final, tuple(ranked))


def recompute(kind: str, scoring: Scoring, entries: Iterable[Entry]) -> Standings:
    """The standings from an event's journal alone (see the module): who entered and left, the
    tables opened, their results, the byes."""
    tally = Tally(scoring)
    entrants: dict[str, Entrant] = {}
    tables: dict[str, OpenTable] = {}
    absent: dict[str, set[str]] = {}
    started = final = False
    round_ = 0
    for entry in entries:
        item = entry.item
        if isinstance(item, Join):
            known = entrants.get(item.name)
            if known is None:
                entrants[item.name] = Entrant(item.name, item.rating)
            else:
                known.status = ACTIVE
        elif isinstance(item, Leave):
            if not started:
                del entrants[item.name]
            else:
                entrants[item.name].status = LEFT
        elif isinstance(item, Started):
            started = True
        elif isinstance(item, RoundStarted):
            round_ = item.round
        elif isinstance(item, OpenTable):
            tables[item.table] = item
            absent[item.table] = set()
        elif isinstance(item, Absent):
            for name in item.names:
                absent[item.table].add(name)
                tally.forfeit(name)
                entrants[name].status = LEFT
        elif isinstance(item, TableOver):
            opened = tables.pop(item.table)
            tally.game(opened.seats, item.places, item.chips, absent.pop(item.table))
        elif isinstance(item, TableAborted):
            tables.pop(item.table)
            absent.pop(item.table)
        elif isinstance(item, ByeGiven):
            tally.bye(item.name, item.points, item.late)
        elif isinstance(item, Ended):
            final = True
    playing = [name for t, opened in tables.items() for name in opened.people if name not in absent[t]]
    return build(kind, round_, final, entrants.values(), tally, playing)


def points_of(standings: Standings) -> Mapping[str, int]:
    return {line.name: line.points for line in standings.lines}

"""What an organiser sets when opening an event: the table rules, the scoring, the times.

Configurations are frozen, checked when made (:class:`TournamentError` ``bad_config``)
and JSON-able (``to_dict`` / ``from_dict``), as they open an event's record. The
table options (``options``: game, table kind, stake or ante, turn time, rounds or
deals per table game) are passed through to every table the event opens; the
wiring checks them with the table kind's adapter when the event is created, and
the seat range against the adapter's.

Times are the caller's clock (seconds); nothing here reads one. ``seed`` (hex) is
the event's own: every tie the pairing breaks by chance is broken from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from server.tournaments.data import JSON, JSONObject
from server.tournaments.errors import TournamentError
from server.tournaments.scoring import Scoring

MIN_SEATS = 3
MAX_SEATS = 9

LatePoints = Literal["zero", "half"]


def _check(ok: bool, name: str, value: object) -> None:
    if not ok:
        raise TournamentError("bad_config", field=name, value=value)


def _number(data: Mapping[str, JSON], key: str, default: float | None = None) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TournamentError("bad_config", field=key, value=value)
    return value


def _whole(data: Mapping[str, JSON], key: str) -> int | None:
    """A number that may be absent (None), as a whole number."""
    value = data.get(key)
    return None if value is None else int(_number(data, key))


def _object(data: Mapping[str, JSON], key: str) -> dict[str, JSON]:
    """A JSON object that may be absent (empty)."""
    value = data.get(key) or {}
    _check(isinstance(value, Mapping), key, value)
    return dict(value) if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True)
class ArenaConfig:
    """A time-boxed event: from ``starts_at`` for ``length`` seconds, players join and leave at
    any time and are seated whenever ``seats`` of them wait.

    ``bots``: a remainder smaller than a table may be filled with bots once its
    longest-waiting player has waited ``bot_wait`` seconds (bots score nothing).
    ``rematch_wait``: a table that would be the same table again (all its players
    just played together, nobody else waits) waits up to that long for others first.
    """

    id: str
    seats: int
    starts_at: float
    length: float
    seed: str
    options: Mapping[str, JSON] = field(default_factory=dict)
    scoring: Scoring = field(default_factory=Scoring)
    bots: bool = False
    bot_wait: float = 20.0
    rematch_wait: float = 10.0
    max_entrants: int | None = None

    kind: ClassVar[str] = "arena"

    def __post_init__(self) -> None:
        _check(MIN_SEATS <= self.seats <= MAX_SEATS, "seats", self.seats)
        _check(self.length > 0, "length", self.length)
        _check(self.bot_wait >= 0, "bot_wait", self.bot_wait)
        _check(self.rematch_wait >= 0, "rematch_wait", self.rematch_wait)
        _check(self.max_entrants is None or self.max_entrants >= 1, "max_entrants", self.max_entrants)
        _check(bool(self.id) and bool(self.seed), "id", self.id)

    @property
    def ends_at(self) -> float:
        return self.starts_at + self.length

    def to_dict(self) -> JSONObject:
        return {"kind": self.kind, "id": self.id, "seats": self.seats, "starts_at": self.starts_at,
                "length": self.length, "seed": self.seed, "options": dict(self.options),
                "scoring": self.scoring.to_dict(), "bots": self.bots, "bot_wait": self.bot_wait,
                "rematch_wait": self.rematch_wait, "max_entrants": self.max_entrants}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> ArenaConfig:
        _check(data.get("kind") == cls.kind, "kind", data.get("kind"))
        return cls(id=str(data["id"]), seats=int(_number(data, "seats")), starts_at=float(_number(data, "starts_at")),
                   length=float(_number(data, "length")), seed=str(data["seed"]),
                   options=_object(data, "options"), scoring=Scoring.from_dict(_object(data, "scoring")),
                   bots=bool(data.get("bots", False)), bot_wait=float(_number(data, "bot_wait", 20.0)),
                   rematch_wait=float(_number(data, "rematch_wait", 10.0)),
                   max_entrants=_whole(data, "max_entrants"))


@dataclass(frozen=True, slots=True)
class SwissConfig:
    """A fixed number of rounds: every active entrant is seated each round, tables of
    ``min_seats`` to ``seats`` (as even as possible), round 1 by rating, later rounds by
    standing, avoiding people who already shared a table.

    ``bots``: short tables are filled with bots up to ``min_seats`` instead of
    giving byes. ``round_pause``: seconds between a round's last result and the
    next round. ``late_until``: the last round a late joiner can still play from
    (they may join until it starts); ``late_points``: what each round they missed
    scores, ``zero`` or ``half`` (a bye's points). ``search_budget``: the pairing
    search's bound (nodes), so a round is always paired in bounded time.
    """

    id: str
    seats: int
    rounds: int
    starts_at: float
    seed: str
    min_seats: int = 0  # 0: the same as seats (tables of one size; the rest get byes)
    options: Mapping[str, JSON] = field(default_factory=dict)
    scoring: Scoring = field(default_factory=Scoring)
    bots: bool = False
    round_pause: float = 30.0
    late_until: int = 0  # 0: half the rounds, rounded up
    late_points: LatePoints = "half"
    max_entrants: int | None = None
    search_budget: int = 20_000

    kind: ClassVar[str] = "swiss"

    def __post_init__(self) -> None:
        _check(MIN_SEATS <= self.seats <= MAX_SEATS, "seats", self.seats)
        _check(self.min_seats == 0 or MIN_SEATS <= self.min_seats <= self.seats, "min_seats", self.min_seats)
        _check(1 <= self.rounds <= 99, "rounds", self.rounds)
        _check(self.round_pause >= 0, "round_pause", self.round_pause)
        _check(0 <= self.late_until <= self.rounds, "late_until", self.late_until)
        _check(self.late_points in ("zero", "half"), "late_points", self.late_points)
        _check(self.max_entrants is None or self.max_entrants >= 1, "max_entrants", self.max_entrants)
        _check(self.search_budget >= 0, "search_budget", self.search_budget)
        _check(bool(self.id) and bool(self.seed), "id", self.id)

    @property
    def smallest(self) -> int:
        """The fewest people (and bots) a table may seat."""
        return self.min_seats or self.seats

    @property
    def last_late_round(self) -> int:
        """The last round a late joiner can play from."""
        return self.late_until or (self.rounds + 1) // 2

    def to_dict(self) -> JSONObject:
        return {"kind": self.kind, "id": self.id, "seats": self.seats, "rounds": self.rounds,
                "starts_at": self.starts_at, "seed": self.seed, "min_seats": self.min_seats,
                "options": dict(self.options), "scoring": self.scoring.to_dict(), "bots": self.bots,
                "round_pause": self.round_pause, "late_until": self.late_until,
                "late_points": self.late_points, "max_entrants": self.max_entrants,
                "search_budget": self.search_budget}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> SwissConfig:
        _check(data.get("kind") == cls.kind, "kind", data.get("kind"))
        late = data.get("late_points", "half")
        _check(late in ("zero", "half"), "late_points", late)
        return cls(id=str(data["id"]), seats=int(_number(data, "seats")), rounds=int(_number(data, "rounds")),
                   starts_at=float(_number(data, "starts_at")), seed=str(data["seed"]),
                   min_seats=int(_number(data, "min_seats", 0)), options=_object(data, "options"),
                   scoring=Scoring.from_dict(_object(data, "scoring")), bots=bool(data.get("bots", False)),
                   round_pause=float(_number(data, "round_pause", 30.0)),
                   late_until=int(_number(data, "late_until", 0)),
                   late_points="zero" if late == "zero" else "half",
                   max_entrants=_whole(data, "max_entrants"),
                   search_budget=int(_number(data, "search_budget", 20_000)))


EventConfig = ArenaConfig | SwissConfig


def config_from_dict(data: Mapping[str, JSON]) -> EventConfig:
    if data.get("kind") == ArenaConfig.kind:
        return ArenaConfig.from_dict(data)
    return SwissConfig.from_dict(data)

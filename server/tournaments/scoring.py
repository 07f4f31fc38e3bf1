"""Points for one table game: by finishing place, scaled to the table's size, or by chips won.

A table game ends with every seat's finishing place (competition style: equal
totals share a place, RULES P15) and the chips each seat won or lost in it.
The organiser chooses how that becomes tournament points:

- ``place``: the winner of the table scores :data:`TOP` (100) whatever the
  table's size, the last 0, the places between evenly spaced:
  ``TOP × (N − p) / (N − 1)`` for place ``p`` of ``N`` seats (P14's points,
  scaled so that tables of three and of eight weigh the same). Seats sharing a
  place share the mean of the places they cover (two tied Présidents at four
  seats score the mean of 100 and 67). Rounded half up to a whole point.
- ``chips``: the chips won in the game (negative when lost).

Bots take places (the others' places count them) but score nothing.

The optional streak bonus, as lichess's arenas: a "win" is first place (the
Président of a match; shared first counts, P15). After two wins in a row a
player is *on fire*: each game played on fire scores double (a positive score
only: a loss on fire costs no more), and the first game that is not a win puts
the fire out. A void game changes nothing; a forfeit (absent from the table) is
a non-win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from server.tournaments.data import JSON, JSONObject
from server.tournaments.errors import TournamentError

TOP = 100
"""The points of a table's winner in ``place`` scoring."""

FIRE_AFTER = 2
"""Wins in a row after which games score double (streak bonus)."""

Mode = Literal["place", "chips"]
MODES: tuple[Mode, ...] = ("place", "chips")


@dataclass(frozen=True, slots=True)
class Scoring:
    """The organiser's choice: ``mode`` (``place`` or ``chips``) and the streak bonus."""

    mode: Mode = "place"
    streak: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise TournamentError("bad_config", field="scoring", value=self.mode)

    def game_points(self, size: int, places: Sequence[int], chips: Sequence[int], seat: int) -> int:
        """What ``seat`` of a table game of ``size`` seats scores before any streak bonus."""
        if self.mode == "chips":
            return int(chips[seat])
        return place_points(size, places, seat)

    @property
    def bye_points(self) -> int:
        """A bye (no table for a player this round) or a half-bye for a missed round: the mean
        score of a table game, half a win in ``place`` scoring, nothing in ``chips``."""
        return TOP // 2 if self.mode == "place" else 0

    def to_dict(self) -> JSONObject:
        return {"mode": self.mode, "streak": self.streak}

    @classmethod
    def from_dict(cls, data: Mapping[str, JSON]) -> Scoring:
        mode = data.get("mode", "place")
        if mode not in MODES:
            raise TournamentError("bad_config", field="scoring", value=mode)
        return cls(mode="place" if mode == "place" else "chips", streak=bool(data.get("streak", False)))


def check_places(places: Sequence[int]) -> None:
    """Raise ``bad_result`` unless ``places`` is a competition ranking of its seats: places in
    1..N where ``k`` seats sharing place ``p`` leave places ``p+1 .. p+k−1`` empty."""
    size = len(places)
    for p in places:
        if not isinstance(p, int) or isinstance(p, bool) or not 1 <= p <= size:
            raise TournamentError("bad_result", places=list(places))
    for p in places:
        if p != 1 + sum(1 for q in places if q < p):
            raise TournamentError("bad_result", places=list(places))


def place_points(size: int, places: Sequence[int], seat: int) -> int:
    """``place`` scoring for ``seat`` (see the module): a shared place shares the mean points of
    the places it covers, rounded half up."""
    if size < 2 or len(places) != size:
        raise TournamentError("bad_result", places=list(places))
    p = places[seat]
    shared = sum(1 for q in places if q == p)
    num = TOP * sum(size - q for q in range(p, p + shared))
    den = shared * (size - 1)
    return (2 * num + den) // (2 * den)


def places_from_totals(totals: Sequence[float]) -> list[int]:
    """Finishing places from each seat's total (higher is better; equal totals share a place,
    P15): ``[5, 9, 5] -> [2, 1, 2]``. A Président match's totals (P14) or the chips each seat won."""
    return [1 + sum(1 for other in totals if other > mine) for mine in totals]


def is_win(places: Sequence[int], seat: int) -> bool:
    """First place, alone or shared (the Président; P15: equal totals share the win)."""
    return places[seat] == 1


@dataclass(frozen=True, slots=True)
class Streak:
    """A player's run of wins (for the streak bonus): ``wins`` in a row so far."""

    wins: int = 0

    @property
    def on_fire(self) -> bool:
        return self.wins >= FIRE_AFTER

    def score(self, scoring: Scoring, points: int) -> int:
        """The points a game scores when played with this streak."""
        if scoring.streak and self.on_fire and points > 0:
            return 2 * points
        return points

    def after(self, won: bool) -> Streak:
        return Streak(self.wins + 1) if won else Streak(0)

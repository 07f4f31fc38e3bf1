"""Points for a table game: by place scaled to the table's size, or by chips; the streak bonus."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.tournaments.errors import TournamentError
from server.tournaments.scoring import (
    TOP,
    Scoring,
    Streak,
    check_places,
    is_win,
    place_points,
    places_from_totals,
)


def points(size: int, places: list[int]) -> list[int]:
    return [place_points(size, places, seat) for seat in range(size)]


@pytest.mark.parametrize("size", range(2, 10))
def test_the_winner_scores_top_and_the_last_nothing_whatever_the_size(size: int) -> None:
    # P14 scaled: Président N−1 … last 0, as 100 … 0 at every table size
    got = points(size, list(range(1, size + 1)))
    assert got[0] == TOP and got[-1] == 0
    assert got == sorted(got, reverse=True) and len(set(got)) == size


def test_places_between_are_evenly_spaced_and_rounded_half_up() -> None:
    assert points(3, [1, 2, 3]) == [100, 50, 0]  # P12: with three the middle is neutral
    assert points(4, [1, 2, 3, 4]) == [100, 67, 33, 0]
    assert points(8, [1, 2, 3, 4, 5, 6, 7, 8]) == [100, 86, 71, 57, 43, 29, 14, 0]


def test_shared_places_share_the_mean_of_the_places_they_cover() -> None:
    # P15: equal totals share the win
    assert points(4, [1, 1, 3, 4]) == [83, 83, 33, 0]
    assert points(3, [1, 1, 1]) == [50, 50, 50]
    assert points(4, [1, 2, 2, 4]) == [100, 50, 50, 0]
    assert points(5, [1, 2, 3, 3, 3]) == [100, 75, 25, 25, 25]


@given(st.lists(st.integers(0, 5), min_size=2, max_size=9))
def test_a_table_always_shares_the_same_total(totals: list[int]) -> None:
    size = len(totals)
    places = places_from_totals(totals)
    check_places(places)
    got = points(size, places)
    # every seat between 0 and TOP, and the table's sum is N × TOP / 2 give or take rounding
    assert all(0 <= p <= TOP for p in got)
    assert abs(sum(got) - size * TOP / 2) <= size / 2


def test_places_from_totals_is_competition_ranking() -> None:
    assert places_from_totals([5, 9, 5]) == [2, 1, 2]
    assert places_from_totals([0, 0, 0, 0]) == [1, 1, 1, 1]
    assert places_from_totals([-3, 4, 10, 4]) == [4, 2, 1, 2]


@pytest.mark.parametrize("places", [[1, 2, 2, 3], [0, 1, 2], [1, 1, 2], [2, 3, 4], [1, 2, 5]])
def test_places_that_are_no_ranking_are_refused(places: list[int]) -> None:
    with pytest.raises(TournamentError) as err:
        check_places(places)
    assert err.value.code == "bad_result"


def test_chips_scoring_scores_the_chips_won() -> None:
    scoring = Scoring("chips")
    assert scoring.game_points(3, [1, 2, 3], [12, -2, -10], 0) == 12
    assert scoring.game_points(3, [1, 2, 3], [12, -2, -10], 2) == -10
    assert scoring.bye_points == 0
    assert Scoring("place").bye_points == TOP // 2


def test_a_win_is_first_place_alone_or_shared() -> None:
    assert is_win([1, 1, 3], 0) and is_win([1, 1, 3], 1) and not is_win([1, 1, 3], 2)


def test_the_streak_doubles_after_two_wins_until_a_non_win() -> None:
    scoring = Scoring("place", streak=True)
    streak = Streak()
    scored = []
    for won, base in [(True, 100), (True, 100), (True, 100), (False, 50), (True, 100), (True, 100), (True, 100)]:
        scored.append(streak.score(scoring, base))
        streak = streak.after(won)
    assert scored == [100, 100, 200, 100, 100, 100, 200]


def test_the_streak_is_off_unless_chosen_and_never_doubles_a_loss() -> None:
    fire = Streak(2)
    assert fire.on_fire
    assert fire.score(Scoring("place"), 80) == 80
    assert fire.score(Scoring("chips", streak=True), -15) == -15
    assert fire.score(Scoring("chips", streak=True), 15) == 30


def test_scoring_round_trips_and_refuses_an_unknown_mode() -> None:
    s = Scoring("chips", streak=True)
    assert Scoring.from_dict(s.to_dict()) == s
    with pytest.raises(TournamentError):
        Scoring.from_dict({"mode": "elo"})

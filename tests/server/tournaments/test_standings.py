"""Standings: the tally, the order and tiebreaks, and the recomputation from a journal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.tournaments.entrants import LEFT, Entrant
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
from server.tournaments.scoring import Scoring, places_from_totals
from server.tournaments.standings import Tally, build, recompute


def test_a_game_scores_people_and_not_bots() -> None:
    tally = Tally(Scoring())
    got = tally.game(("ann", None, "bob", "cid"), (2, 1, 3, 4), ())
    assert got == (67, None, 33, 0)  # the bot won: Ann is second of four
    assert tally.line("ann").games == 1 and tally.line("ann").wins == 0
    assert tally.shared("ann", "bob") == 1 and tally.shared("ann", "cid") == 1
    assert "None" not in tally.lines and len(tally.lines) == 3


def test_opponents_points_are_the_points_of_everyone_shared_with_once_per_game() -> None:
    tally = Tally(Scoring())
    tally.game(("a", "b", "c"), (1, 2, 3), ())
    tally.game(("a", "b", "d"), (3, 2, 1), ())
    # a: 100 + 0; b: 50 + 50; c: 0; d: 100
    assert tally.opponents("a") == 2 * 100 + 0 + 100
    assert tally.opponents("c") == 100 + 100


@given(st.lists(st.tuples(st.permutations(["a", "b", "c", "d", "e", "f"]), st.integers(3, 5),
                          st.lists(st.integers(0, 3), min_size=5, max_size=5), st.integers(0, 2)),
                max_size=12), st.booleans())
def test_opponents_points_kept_as_they_go_equal_the_sum_made_afresh(
        games: list[tuple[list[str], int, list[int], int]], streak: bool) -> None:
    tally = Tally(Scoring(streak=streak))
    for order, size, totals, bye in games:
        seats = order[:size]
        tally.game(seats, places_from_totals(totals[:size]), (), absent=seats[:1] if bye == 2 else ())
        if bye:
            tally.bye(order[-1], 50, late=bye == 2)
    for name, line in tally.lines.items():
        assert line.opponents == sum(n * tally.points(mate) for mate, n in line.mates.items())
        assert all(tally.shared(mate, name) == n for mate, n in line.mates.items())


def test_an_absent_player_forfeits_and_is_nobody_s_opponent() -> None:
    tally = Tally(Scoring(streak=True))
    tally.line("a").streak = tally.line("a").streak.after(True).after(True)
    tally.forfeit("a")
    got = tally.game(("a", "b", "c"), (1, 2, 3), (), absent=["a"])
    assert got == (None, 50, 0)
    assert tally.line("a").games == 1 and not tally.line("a").streak.on_fire
    assert tally.shared("b", "a") == 0


def entrants(*names: str) -> list[Entrant]:
    return [Entrant(n, 0.0) for n in names]


def test_swiss_order_is_points_then_opponents_then_wins_and_equals_share_a_rank() -> None:
    tally = Tally(Scoring())
    tally.game(("a", "b", "c"), (1, 2, 3), ())
    tally.game(("d", "e", "f"), (1, 2, 3), ())
    tally.game(("a", "e", "x"), (2, 1, 3), ())
    # a and e: 150 each; e's opponents have more (d 100 + f 0 + a 150 + x 0 = 250 against 200)
    st = build("swiss", 2, False, entrants("a", "b", "c", "d", "e", "f", "x"), tally, [])
    assert [(line.name, line.points, line.opponents) for line in st.lines] == [
        ("e", 150, 250), ("a", 150, 200), ("d", 100, 150), ("b", 50, 150),
        ("x", 0, 300), ("f", 0, 250), ("c", 0, 200)]
    assert [line.rank for line in st.lines] == [1, 2, 3, 4, 5, 6, 7]
    tally.game(("f", "y", "z"), (3, 1, 2), ())  # f: 0 again, opponents now 250 + y 100 + z 50
    st = build("swiss", 3, False, entrants("x", "f"), tally, [])
    assert [(line.name, line.rank) for line in st.lines] == [("f", 1), ("x", 2)]


def test_arena_order_is_points_then_wins_then_fewer_games() -> None:
    tally = Tally(Scoring())
    tally.game(("a", "b", "c"), (1, 2, 3), ())  # a 100 in one game
    tally.game(("d", "e", "f"), (2, 1, 3), ())
    tally.game(("d", "g", "h"), (2, 1, 3), ())  # d 100 in two games, no win
    st = build("arena", 0, True, entrants("a", "d"), tally, ["d"])
    assert [(line.name, line.rank) for line in st.lines] == [("a", 1), ("d", 2)]
    assert st.final and st.line("d") is not None and st.line("d").provisional  # type: ignore[union-attr]
    assert not st.lines[0].provisional
    assert st.to_dict()["lines"][0]["name"] == "a"


def test_equal_lines_share_a_rank_and_are_listed_by_name() -> None:
    st = build("arena", 0, False, entrants("zoe", "al", "mo"), Tally(Scoring()), [])
    assert [(line.name, line.rank) for line in st.lines] == [("al", 1), ("mo", 1), ("zoe", 1)]


def test_recompute_reads_a_journal_alone() -> None:
    log = [Join("a", 3.0), Join("b"), Join("c"), Join("gone"), Leave("gone"), Started(("a", "b", "c")),
           RoundStarted(1, ("e.1",), ()), OpenTable("e.1", 1, ("a", "b", "c", None)),
           TableOver("e.1", (1, 2, 3, 4)), ByeGiven("d", 1, 50, late=True), Join("d"),
           OpenTable("e.2", 2, ("a", "b", "c")), Absent("e.2", ("c",)), TableOver("e.2", (1, 1, 3)),
           OpenTable("e.3", 2, ("d", None, None)), TableAborted("e.3"), Leave("b"),
           OpenTable("e.4", 3, ("a", "d", None)), ByeGiven("b", 3, 50)]
    st = recompute("swiss", Scoring(), [Entry(float(i), item) for i, item in enumerate(log)])
    lines = {line.name: line for line in st.lines}
    assert set(lines) == {"a", "b", "c", "d"}  # "gone" left before the start
    assert lines["a"].points == 100 + 75 and lines["a"].games == 2 and lines["a"].wins == 2
    assert lines["c"].games == 2 and lines["c"].points == 33 and lines["c"].status == LEFT
    assert lines["d"].points == 50 and lines["d"].byes == 0 and lines["b"].byes == 1
    assert lines["a"].provisional and lines["d"].provisional and not lines["b"].provisional
    assert st.round == 1 and not st.final
    st = recompute("swiss", Scoring(), [Entry(0, item) for item in [*log, TableOver("e.4", (1, 2, 3)), Ended("x")]])
    assert st.final and not any(line.provisional for line in st.lines)

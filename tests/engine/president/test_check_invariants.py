"""``PresidentMatch.check_invariants()`` fails on every kind of broken state it guards against.

The simulator trusts this check (``donne simulate --check-every``), so a cheaper check must keep
its power: each corruption below (a card duplicated, lost, moved without its count, a count off,
two counts off in opposite directions, a holding flag, an absent seat's cards, chips, points, the
turn) is injected into a real state and must raise ``AssertionError``; the untouched state passes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.cards import parse_cards
from engine.president import Pass, Play, PresidentMatch
from engine.seeds import seed_from_int

Corruption = Callable[[PresidentMatch], None]


def mid_round() -> PresidentMatch:
    """A classic round in play: two cards played, a pass, seat 3 on turn."""
    m = PresidentMatch.from_hands(
        "classic", ["3c 7c 9c Kd", "4d 5h 8d", "4h 8h Jd Qs", "5c 6d 9h"], leader=0
    )
    m.apply(Play(0, parse_cards("7c")))
    m.apply(Play(1, parse_cards("8d")))
    m.apply(Pass(2))
    assert m.awaited_turn() == 3
    return m


def low_card(mask: int) -> int:
    return mask & -mask


def duplicate_into_other_hand(m: PresidentMatch) -> None:
    m._hands[2] |= low_card(m._hands[0])
    m._counts[2] += 1


def lose_a_card(m: PresidentMatch) -> None:
    m._hands[1] &= ~low_card(m._hands[1])
    m._counts[1] -= 1


def move_without_count(m: PresidentMatch) -> None:
    c = low_card(m._hands[0])
    m._hands[0] &= ~c
    m._hands[1] |= c


def count_off(m: PresidentMatch) -> None:
    m._counts[3] += 1


def counts_off_both_ways(m: PresidentMatch) -> None:
    # the sum of the counts is right; each of the two is wrong
    m._counts[0] += 1
    m._counts[2] -= 1


def played_still_held(m: PresidentMatch) -> None:
    m._hands[2] |= low_card(m._played)
    m._counts[2] += 1


def undealt_also_held(m: PresidentMatch) -> None:
    m._hands[3] |= low_card(m._undealt)
    m._counts[3] += 1


def undealt_card_lost(m: PresidentMatch) -> None:
    m._undealt &= ~low_card(m._undealt)


def played_card_also_undealt(m: PresidentMatch) -> None:
    m._undealt |= low_card(m._played)


def holding_flag_cleared(m: PresidentMatch) -> None:
    m._holding &= ~(1 << 2)


def holding_flag_of_empty_hand(m: PresidentMatch) -> None:
    # seat 1 gives its cards to the undealt pile but keeps its holding flag
    m._undealt |= m._hands[1]
    m._hands[1] = 0
    m._counts[1] = 0


def turn_on_a_passive_seat(m: PresidentMatch) -> None:
    m._passive |= 1 << 3


def turn_on_a_seat_without_cards(m: PresidentMatch) -> None:
    m._turn = 3
    m._holding &= ~(1 << 3)
    m._undealt |= m._hands[3]
    m._hands[3] = 0
    m._counts[3] = 0


def no_turn(m: PresidentMatch) -> None:
    m._turn = None


def one_player_left(m: PresidentMatch) -> None:
    for s in (0, 1, 2):
        m._undealt |= m._hands[s]
        m._hands[s] = 0
        m._counts[s] = 0
    m._holding = 1 << 3
    m._turn = 3


CORRUPTIONS: list[Corruption] = [
    duplicate_into_other_hand,
    lose_a_card,
    move_without_count,
    count_off,
    counts_off_both_ways,
    played_still_held,
    undealt_also_held,
    undealt_card_lost,
    played_card_also_undealt,
    holding_flag_cleared,
    holding_flag_of_empty_hand,
    turn_on_a_passive_seat,
    turn_on_a_seat_without_cards,
    no_turn,
    one_player_left,
]


def test_the_untouched_states_pass() -> None:
    assert mid_round().check_invariants() > 0
    assert after_a_round().check_invariants() > 0
    assert tdc_with_an_absent_seat().check_invariants() > 0


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__)
def test_a_broken_state_in_play_fails_the_check(corrupt: Corruption) -> None:
    m = mid_round()
    corrupt(m)
    with pytest.raises(AssertionError):
        m.check_invariants()


def after_a_round() -> PresidentMatch:
    """A seeded classic match between rounds (P14 points given out, the next deal not made)."""
    m = PresidentMatch("classic", seats=4)
    m.apply(m.deal_action(seed_from_int(3)))
    while m.phase == "play":
        seat = m.awaited_turn()
        assert seat is not None
        m.apply(m.legal_actions(seat)[0])
    assert m.phase == "round_over"
    return m


def test_points_not_given_per_round_fail_the_check() -> None:  # P14
    m = after_a_round()
    m._totals[0] += 1
    with pytest.raises(AssertionError, match="points"):
        m.check_invariants()


def test_a_turn_between_rounds_fails_the_check() -> None:
    # apply() and next_turn() read "a turn of play now" from the turn alone
    m = after_a_round()
    m._turn = 0
    with pytest.raises(AssertionError, match="turn outside the play phase"):
        m.check_invariants()


def test_a_card_lost_between_rounds_fails_the_check() -> None:
    m = after_a_round()
    m._played &= ~low_card(m._played)
    with pytest.raises(AssertionError):
        m.check_invariants()


def tdc_with_an_absent_seat() -> PresidentMatch:
    """A tdc round that seat 3 sits out (T1), with stakes (T13)."""
    m = PresidentMatch("tdc", seats=4, stake=10)
    m.apply(m.deal_action(seed_from_int(5), present=(0, 1, 2)))
    return m


def test_an_absent_seat_holding_cards_fails_the_check() -> None:  # T1
    m = tdc_with_an_absent_seat()
    c = low_card(m._hands[0])
    assert c and not m._hands[3]
    m._hands[0] &= ~c  # moved with its count: only the absence is wrong
    m._counts[0] -= 1
    m._hands[3] |= c
    m._counts[3] += 1
    with pytest.raises(AssertionError):
        m.check_invariants()


def test_chips_created_fail_the_check() -> None:  # T13
    m = tdc_with_an_absent_seat()
    m._chips[1] += 2
    with pytest.raises(AssertionError, match="chips"):
        m.check_invariants()

"""RULES P2 and T2: the order of ranks, with explicit deals."""

from __future__ import annotations

from engine.cards import parse_cards
from engine.president import Pass, Play, PresidentMatch


def test_P2_order_3_lowest_2_highest_suits_never_matter() -> None:
    m = PresidentMatch.from_hands("classic", ["Ac 5c", "Ks 2d 7d", "As 9h 6h"], leader=0)
    m.apply(Play(0, parse_cards("Ac")))
    assert not m.can(Play(1, parse_cards("Ks")))  # K < A
    assert m.can(Play(1, parse_cards("2d")))  # 2 > A
    m.apply(Pass(1))
    assert m.can(Play(2, parse_cards("As")))  # an equal rank follows, whatever its suit (P6)
    assert not m.can(Play(2, parse_cards("9h")))


def test_P2_a_quad_never_reverses_the_classic_order() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 5d 5h 5s 4c", "3d 6d", "3h 8h"], leader=0)
    m.apply(Play(0, parse_cards("5c 5d 5h 5s")))
    m.apply(Play(0, parse_cards("4c")))
    assert not m.can(Play(1, parse_cards("3d")))  # 3 is still the weakest
    assert m.view(1).to_dict()["order"] == "normal"


def test_T2_revolution_reverses_the_whole_order() -> None:
    m = PresidentMatch.from_hands("tdc", ["5c 5d 5h 5s 4c 9c", "Ad 2d 6d", "3h 8h Kh"], leader=0)
    m.apply(Play(0, parse_cards("5c 5d 5h 5s")))  # T10: revolution, seat 0 leads again
    assert m.view(2).to_dict()["order"] == "reversed"
    m.apply(Play(0, parse_cards("9c")))
    assert m.can(Play(1, parse_cards("6d")))  # 6 beats 9 in revolution
    assert not m.can(Play(1, parse_cards("Ad")))  # A is below 9 now
    assert not m.can(Play(1, parse_cards("2d")))  # 2 is the weakest
    m.apply(Play(1, parse_cards("6d")))
    assert m.can(Play(2, parse_cards("3h")))
    assert not m.can(Play(2, parse_cards("Kh")))

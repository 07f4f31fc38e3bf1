"""The five invariants at the end of RULES.md, each shown on an explicit deal of each game.

The random-game tests (test_president_invariants.py, test_speculation_invariants.py) check
them over many games; these scenarios pin each one to a deal a reader can follow, and
show that the engine's own check does fail when the state breaks it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cards import Card, parse_cards
from engine.errors import IllegalPlay, NotAllowed, NotYourTurn, Refusal
from engine.president import Pass, Play, PresidentMatch
from engine.speculation import Bid, Keep, Offer, SpeculationMatch, Turn
from tests.engine.president.test_invariants import card_codes
from tests.engine.speculation.test_match import PLAIN, SEED, deck_for, new, run


def _hands(m: PresidentMatch) -> list[set[str]]:
    return [{str(c) for c in m.hand(s)} for s in range(m.seats)]


def test_invariant1_president_cards_partitioned_on_an_explicit_deal() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 9c Kd", "8d 4d 5h", "8h Jd Qs"], leader=0)
    dealt = {"7c", "9c", "Kd", "8d", "4d", "5h", "8h", "Jd", "Qs"}
    m.apply(Play(0, parse_cards("7c")))
    m.apply(Play(1, parse_cards("8d")))
    assert m.check_invariants() > 0
    hands = _hands(m)
    played = {str(c) for c in m.view(None).played}
    assert played == {"7c", "8d"}
    assert sum(map(len, hands)) + len(played) == len(dealt)
    assert set().union(*hands, played) == dealt  # disjoint and complete
    # the check is real: a card duplicated into a second hand breaks it
    m._hands[2] |= m._hands[0] & -m._hands[0]
    with pytest.raises(AssertionError):
        m.check_invariants()


def test_invariant1_speculation_cards_partitioned_on_an_explicit_deal() -> None:
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0), Turn(1), Turn(2))
    assert m.check_invariants() > 0
    stacks = [c for st in m._stacks for c in st]
    up = [c for st in m._faceup for c in st]
    assert len(stacks) + len(up) + len(m._undealt) == 52
    assert len(set(stacks) | set(up) | set(m._undealt)) == 52
    m._undealt.append(m._stacks[3][0])  # a face-down card counted twice
    with pytest.raises(AssertionError, match="invariant 1"):
        m.check_invariants()


def test_invariant2_president_views_hide_other_hands() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 9c Kd", "8d 4d 5h", "8h Jd Qs"], leader=0)
    m.apply(Play(0, parse_cards("7c")))
    hands = _hands(m)
    for seat in (None, 0, 1, 2):
        shown = card_codes(m.view(seat).to_dict())
        others = set().union(*(h for s, h in enumerate(hands) if s != seat))
        assert others and not shown & others, (seat, shown & others)
        if seat is not None:
            assert hands[seat] <= shown  # the seat does see its own hand
    assert "7c" in card_codes(m.view(None).to_dict())  # public plays are shown


def test_invariant2_speculation_no_face_down_card_in_any_view() -> None:
    m, events = new(stacks=PLAIN)
    run(m, Keep(0), Turn(1))
    down = {str(Card(c)) for st in m._stacks for c in st}
    undealt = {str(Card(c)) for c in m._undealt}
    assert len(down) == 11 and undealt
    for seat in (None, 0, 1, 2, 3):
        shown = card_codes(m.view(seat).to_dict())
        assert not shown & (down | undealt), (seat, shown & down)
        for e in events:
            seen = e.for_seat(seat)
            assert seen is None or not card_codes(seen.to_dict()) & (down | undealt)
    assert "2c" in card_codes(m.view(None).to_dict())  # seat 1's turned card is public


def test_invariant3_president_same_deal_same_actions_same_bytes() -> None:
    def game() -> tuple[PresidentMatch, str]:
        m = PresidentMatch.from_hands("tdc", ["7c 9c Kd", "8d 4d 5h", "8h Jd Qs"], leader=0, stake=2)
        out: list[Any] = []
        for a in (Play(0, parse_cards("7c")), Play(1, parse_cards("8d")), Pass(2), Pass(0), Play(1, parse_cards("4d"))):
            out += [e.to_dict() for e in m.apply(a)]
        return m, json.dumps(out)

    (m1, b1), (m2, b2) = game(), game()
    assert b1 == b2 and json.dumps(m1.view(0).to_dict()) == json.dumps(m2.view(0).to_dict())
    replayed, events = PresidentMatch.replay(json.loads(json.dumps(m1.config)), json.loads(json.dumps(m1.log())))
    assert json.dumps([e.to_dict() for e in events][-len(json.loads(b1)) :]) == b1
    assert json.dumps(replayed.log()) == json.dumps(m1.log())
    assert json.dumps(replayed.view(None).to_dict()) == json.dumps(m1.view(None).to_dict())


def test_invariant3_speculation_same_deal_same_actions_same_bytes() -> None:
    deal = SpeculationMatch(seats=4, chips=[20] * 4).deal_action(SEED, cards=deck_for(0, 4, PLAIN, "7h"))
    actions = [deal, Bid(1, 2), Keep(0), Turn(1), Offer(3, 2, 1, 1)]

    def game() -> tuple[SpeculationMatch, str]:
        m = SpeculationMatch(seats=4, chips=[20] * 4, first_dealer=0)
        out = [e.to_dict() for e in run(m, *actions)]
        return m, json.dumps(out)

    (m1, b1), (_, b2) = game(), game()
    assert b1 == b2 and '"bid"' in b1 and '"offered"' in b1
    log = json.loads(json.dumps([a.to_dict() for a in actions]))
    replayed = SpeculationMatch.replay(m1.config, log)
    assert json.dumps(replayed.view(None).to_dict()) == json.dumps(m1.view(None).to_dict())


def test_invariant4_president_tdc_stake_moves_but_sums_to_zero() -> None:
    m = PresidentMatch.from_hands("tdc", ["Ac", "Kc", "Qc", "3c 4c"], leader=0, stake=2)
    for seat, c in ((0, "Ac"), (1, "Kc"), (2, "Qc")):
        m.apply(m.action_from(seat, "play", {"cards": [c]}))
        assert sum(m.chips) == 0
    assert m.phase == "exchange" or m.phase == "round_over"
    assert m.chips != (0, 0, 0, 0) and sum(m.chips) == 0  # chips moved (T13), none created
    m.check_invariants()


def test_invariant4_speculation_chips_plus_pool_constant() -> None:
    m, _ = new(chips=[20, 7, 20, 20], stacks=PLAIN)
    total = 67
    assert sum(m.chips) + m.pool == total and m.pool == 5  # the antes, the dealer's double, went to the pool (S3)
    for a in (Bid(1, 2), Bid(2, 3), Keep(0), Offer(3, 2, 1, 1)):
        run(m, a)
        assert sum(m.chips) + m.pool == total
    m._chips[1] += 1  # a chip from nowhere
    with pytest.raises(AssertionError, match="invariant 4"):
        m.check_invariants()


def test_invariant5_president_refusals_change_nothing() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 9c Kd", "8d 4d 5h", "8h Jd Qs"], leader=0)
    m.apply(Play(0, parse_cards("9c")))
    before = (json.dumps(m.view(None).to_dict()), _hands(m), m.version, m.log())
    for action, exc in (
        (Play(2, parse_cards("Jd")), NotYourTurn),
        (Play(1, parse_cards("8d")), IllegalPlay),  # too weak (P6)
        (Play(1, parse_cards("Kd")), IllegalPlay),  # not his card
    ):
        with pytest.raises(exc) as info:
            m.apply(action)
        assert isinstance(info.value, Refusal) and info.value.code
        assert (json.dumps(m.view(None).to_dict()), _hands(m), m.version, m.log()) == before


def test_invariant5_speculation_refusals_change_nothing() -> None:
    m, _ = new(stacks=PLAIN)
    before = (json.dumps(m.view(None).to_dict()), m.chips, m.pool, tuple(m.pending()))
    for action, exc in ((Turn(1), NotYourTurn), (Bid(0, 1), NotAllowed), (Offer(1, 2, 1, 1), NotAllowed)):
        with pytest.raises(exc) as info:
            m.apply(action)
        assert info.value.code
        assert (json.dumps(m.view(None).to_dict()), m.chips, m.pool, tuple(m.pending())) == before

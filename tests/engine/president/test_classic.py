"""Scenario tests of the classic Président table (RULES P1–P16), each with an explicit deal."""

from __future__ import annotations

import json

import pytest

from engine.cards import Card, deck, parse_cards
from engine.errors import BadArgument, IllegalPlay, NotAllowed, NotYourTurn, Refusal
from engine.president import (
    RULESETS,
    Deal,
    Exchange,
    Give,
    Pass,
    Play,
    PresidentMatch,
    PresidentRules,
    Timeout,
    titles_for,
)
from engine.seeds import SeedStream, commitment, derive, seed_from_int, shuffled


def play(m: PresidentMatch, seat: int, cards: str) -> list[str]:
    return [e.name for e in m.apply(Play(seat, parse_cards(cards)))]


def pas(m: PresidentMatch, seat: int) -> list[str]:
    return [e.name for e in m.apply(Pass(seat))]


def refused(m: PresidentMatch, action: object, exc: type[Refusal], reason: str | None = None) -> Refusal:
    """The action is refused with ``exc`` (and ``reason``) and changes nothing."""
    before = (json.dumps(m.view(None).to_dict()), [m.hand(s) for s in range(m.seats)], m.version)
    with pytest.raises(exc) as info:
        m.apply(action)  # type: ignore[arg-type]
    assert not m.can(action)  # type: ignore[arg-type]
    if reason is not None:
        assert info.value.params.get("reason") == reason
    assert (json.dumps(m.view(None).to_dict()), [m.hand(s) for s in range(m.seats)], m.version) == before
    return info.value


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def test_rulesets_are_configuration() -> None:
    assert isinstance(RULESETS["classic"], PresidentRules)
    assert RULESETS["classic"].name == "classic" and RULESETS["tdc"].name == "tdc"
    assert PresidentMatch("classic").rules_name == "classic"


def test_P1_three_to_eight_players() -> None:
    for bad in (2, 9):
        with pytest.raises(BadArgument):
            PresidentMatch("classic", seats=bad)
    for ok in (3, 8):
        assert PresidentMatch("classic", seats=ok).seats == ok


def test_P3_deal_one_card_at_a_time_from_dealers_left() -> None:
    seed = seed_from_int(7)
    m = PresidentMatch("classic", seats=5)
    deal = m.deal_action(seed)
    assert deal.to_dict()["commitment"] == commitment(seed)
    assert deal.to_dict()["seed"] == seed.hex()
    (dealt,) = m.apply(deal)
    dealer = SeedStream(derive(seed, "dealer")).below(5)
    assert m.view(None).dealer == dealer
    order = [(dealer + 1 + i) % 5 for i in range(5)]
    shuffled_deck = shuffled(deck(), seed)
    for i, card in enumerate(shuffled_deck):
        assert card in m.hand(order[i % 5])
    sizes = [len(m.hand(s)) for s in range(5)]
    assert sorted(sizes) == [10, 10, 10, 11, 11] and sizes[order[0]] == sizes[order[1]] == 11
    d = dealt.to_dict()
    assert d["event"] == "dealt" and d["counts"] == sizes and d["commitment"] == commitment(seed)
    # P3 / invariant 2: each seat sees only its own hand
    for s in range(5):
        hands = dealt.for_seat(s).to_dict()["hands"]
        assert [h is not None for h in hands] == [i == s for i in range(5)]
        assert hands[s] == [str(c) for c in m.hand(s)]
    assert all(h is None for h in dealt.for_seat(None).to_dict()["hands"])


def test_P3_dealer_moves_one_seat_left_each_round() -> None:
    m = PresidentMatch.from_hands("classic", ["Ac", "Kc", "3c 4c"], leader=0, dealer=2)
    play(m, 0, "Ac")
    pas(m, 1), pas(m, 2)
    play(m, 1, "Kc")
    assert m.phase == "round_over"
    m.apply(m.deal_action(seed_from_int(3)))
    assert m.view(None).dealer == 0


def test_P4_round_one_the_3c_holder_leads_with_any_play() -> None:
    for i in range(5):
        m = PresidentMatch("classic", seats=4)
        m.apply(m.deal_action(seed_from_int(i)))
        holder = next(s for s in range(4) if Card.parse("3c") in m.hand(s))
        assert m.turn == holder
        assert [p.kind for p in m.pending()] == ["turn"] and m.pending()[0].seat == holder
        other = next(c for c in m.hand(holder) if c.rank != 0)
        m.apply(Play(holder, (other,)))  # the 3c need not be in the first play


def _round_one_ranking_0123() -> PresidentMatch:
    m = PresidentMatch.from_hands("classic", ["Ac", "Kc", "Qc", "3c 4c"], leader=0)
    play(m, 0, "Ac")
    pas(m, 1), pas(m, 2), pas(m, 3)
    play(m, 1, "Kc")
    pas(m, 2), pas(m, 3)
    play(m, 2, "Qc")
    assert m.phase == "round_over" and m.last_titles == ("president", "vice_president", "vice_last", "last")
    return m


def test_P4_later_rounds_the_previous_last_leads_after_the_exchange() -> None:
    m = _round_one_ranking_0123()
    m.deal_hands(["Kc Kd Ac", "5c 6c", "9c Tc", "3c 8d 8h Js"])
    assert m.phase == "play" and m.turn == 3


def test_P5_a_play_is_one_to_four_cards_of_one_rank() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 5d 6c 7c 7d 7h 7s Tc", "3c 4c", "3d 4d"], leader=0)
    refused(m, Play(0, cards("5c 6c")), IllegalPlay, "mixed_ranks")
    refused(m, Play(0, ()), IllegalPlay, "count")
    refused(m, Play(0, cards("5c 5c")), IllegalPlay, "duplicate")
    refused(m, Play(0, cards("8c")), IllegalPlay, "not_in_hand")
    refused(m, Play(1, cards("3c")), NotYourTurn)
    assert m.can(Play(0, cards("7c 7d 7h 7s"))) and m.can(Play(0, cards("7d 7s")))


def test_P5_the_leader_must_play() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 9c", "3c 4c", "3d 4d"], leader=0)
    refused(m, Pass(0), IllegalPlay, "must_lead")
    assert Pass(0) not in m.legal_actions(0)


def test_P6_follow_with_as_many_cards_at_least_as_strong() -> None:
    m = PresidentMatch.from_hands("classic", ["8c 8d Kc", "5c 8h 8s 9c 9d Jc", "3d 4d 4h"], leader=0)
    play(m, 0, "8c 8d")
    refused(m, Play(1, cards("9c")), IllegalPlay, "must_follow_count")
    refused(m, Play(1, cards("5c")), IllegalPlay, "must_follow_count")
    assert m.can(Play(1, cards("8h 8s")))  # equal is allowed
    assert m.can(Play(1, cards("9c 9d")))
    legal = m.legal_actions(1)
    assert Pass(1) in legal and all(len(a.cards) == 2 for a in legal if isinstance(a, Play))
    play(m, 1, "9c 9d")
    refused(m, Play(2, cards("4d 4h")), IllegalPlay, "too_weak")


def test_P7_ca_ou_rien_and_its_persistence() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 3c", "7d 8d", "7h 9h", "7s 8s Ks"], leader=0)
    play(m, 0, "7c")
    assert m.view(1).must_rank is None
    play(m, 1, "7d")  # same rank as the play under it: that or nothing
    assert m.view(2).must_rank == Card.parse("7c").rank
    refused(m, Play(2, cards("9h")), IllegalPlay, "ca_ou_rien")
    assert [a for a in m.legal_actions(2)] == [Play(2, cards("7h")), Pass(2)]
    play(m, 2, "7h")  # Decision: persists while the top equals the play under it
    refused(m, Play(3, cards("8s")), IllegalPlay, "ca_ou_rien")
    play(m, 3, "7s")  # the fourth 7: nobody can follow (P9 Decision, below)
    assert m.view(3).must_rank is None and m.turn == 3


def test_P7_ca_ou_rien_ends_with_a_different_play() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 3c", "7d 8d", "9h 4h", "8s 5s"], leader=0)
    play(m, 0, "7c")
    play(m, 1, "7d")
    refused(m, Play(2, cards("9h")), IllegalPlay, "ca_ou_rien")
    pas(m, 2)
    pas(m, 3)
    refused(m, Play(0, cards("3c")), IllegalPlay, "ca_ou_rien")
    assert pas(m, 0) == ["passed", "trick_closed"]  # P9c: a seven left, nobody played it
    assert m.turn == 1 and m.view(1).must_rank is None


def passes(evs: tuple[object, ...]) -> list[tuple[int, bool]]:
    return [(e.seat, e.auto) for e in evs if e.name == "passed"]  # type: ignore[attr-defined]


def test_P9_decision_four_single_fives_pass_everyone_at_once() -> None:
    """P9 Decision: "ça ou rien" on the fourth 5: nobody can play, the passes are applied at once."""
    m = PresidentMatch.from_hands("classic", ["5c 9c", "5d Tc", "5h Jc", "5s Qc"], leader=0)
    play(m, 0, "5c")
    play(m, 1, "5d")  # ça ou rien: 5 or nothing
    play(m, 2, "5h")
    evs = m.apply(Play(3, cards("5s")))
    assert [e.name for e in evs] == ["played", "passed", "passed", "passed", "trick_closed"]
    assert passes(evs) == [(0, True), (1, True), (2, True)]  # in seat order, marked automatic
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 3, "leader": 3, "reason": "all_passed"}
    assert [e.to_dict() for e in evs[1:4]] == [{"event": "passed", "seat": s, "auto": True, "forced": True}
                                               for s in (0, 1, 2)]  # forced: nobody could play, not the clock
    assert m.turn == 3 and m.view(None).trick == () and m.view(3).leading  # P10: the last player leads
    assert [p.seat for p in m.pending()] == [3]
    assert m.legal_actions(0) == [] and m.legal_actions(3)[0] == Play(3, cards("Qc"))


def test_P9_decision_a_pair_of_fives_on_a_pair_of_fives() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 5d 9c", "6c Tc", "5h 5s Jc"], leader=0)
    play(m, 0, "5c 5d")
    pas(m, 1)
    evs = m.apply(Play(2, cards("5h 5s")))  # P7 on a rank with no card left: seats 0 and 1 pass
    assert passes(evs) == [(0, True), (1, True)] and evs[-1].to_dict()["leader"] == 2
    assert m.turn == 2 and m.pending()[0].seat == 2


def test_P9_decision_counts_the_fours_played_in_earlier_tricks() -> None:
    """The fourth 8 went in an earlier trick: after 8 8 8 in this one nobody can follow either."""
    m = PresidentMatch.from_hands("classic", ["8c 3c 9c", "2c 8d Tc", "8h 4h", "8s 3s Jc"], leader=0)
    play(m, 0, "8c")
    play(m, 1, "2c")  # P9a: the 2 closes; seat 1 leads
    play(m, 1, "8d")
    pas(m, 2)
    play(m, 3, "8s")  # ça ou rien on the 8s, and seat 2 still holds the 8h
    evs = m.apply(Pass(0))
    assert passes(evs) == [(0, False)] and m.turn == 1
    pas(m, 1)
    evs = m.apply(Play(2, cards("8h")))  # the last 8: every 8 is out, seats 3, 0 and 1 pass at once
    assert passes(evs) == [(3, True), (0, True), (1, True)]
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 2, "leader": 2, "reason": "all_passed"}


def test_P9_decision_the_player_who_went_out_leaves_the_lead_to_the_next_seat() -> None:
    """P10/P11 Decisions still apply: the player of the fourth card went out, the next seat with cards leads."""
    m = PresidentMatch.from_hands("classic", ["6c 9c", "6d Tc Kc", "6h Jc", "6s"], leader=0)
    play(m, 0, "6c")
    play(m, 1, "6d")
    play(m, 2, "6h")
    evs = m.apply(Play(3, cards("6s")))
    assert [e.name for e in evs] == ["played", "out", "passed", "passed", "passed", "trick_closed"]
    assert passes(evs) == [(0, True), (1, True), (2, True)]
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 3, "leader": 0, "reason": "all_passed"}
    assert m.turn == 0


def test_P9_decision_no_forced_pass_while_a_card_of_the_rank_is_out() -> None:
    m = PresidentMatch.from_hands("classic", ["6c 9c", "6d Tc", "6h Jc", "Qc 6s"], leader=0)
    play(m, 0, "6c")
    evs = m.apply(Play(1, cards("6d")))
    assert passes(evs) == [] and m.turn == 2  # two 6s are still held: seat 2 is asked
    play(m, 2, "6h")
    assert m.turn == 3 and m.legal_actions(3) == [Play(3, cards("6s")), Pass(3)]


def test_P9_decision_undealt_cards_are_not_played() -> None:
    """An explicit deal without the 4th card: the rank is not "all played", seats are asked in turn."""
    m = PresidentMatch.from_hands("classic", ["7c 9c", "7d Tc", "7h Jc"], leader=0)
    play(m, 0, "7c")
    play(m, 1, "7d")
    evs = m.apply(Play(2, cards("7h")))
    assert passes(evs) == [] and m.turn == 0


def test_P9_decision_is_not_tdc() -> None:
    """tdc: T7b closes four of a rank in the trick; with one in an earlier trick the passes are asked (T5)."""
    from engine.president import TDC

    assert PresidentMatch("classic").rules.forced_passes and not TDC.forced_passes
    m = PresidentMatch.from_hands("tdc", ["8c 3c 9c", "Kc 8d Tc", "8h 4h Qh", "8s 3s Jc"], leader=0)
    play(m, 0, "8c")
    play(m, 1, "Kc")
    pas(m, 2), pas(m, 3), pas(m, 0)  # T7d: seat 1 leads
    play(m, 1, "8d")
    play(m, 2, "8h")
    evs = m.apply(Play(3, cards("8s")))  # every 8 is out, but only three in this trick
    assert passes(evs) == [] and m.turn == 0 and [p.seat for p in m.pending()] == [0]


def test_P7_no_constraint_when_ranks_differ() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 3c", "8d 4d", "9h 9s 5h"], leader=0)
    play(m, 0, "7c")
    play(m, 1, "8d")
    assert m.view(2).must_rank is None and m.can(Play(2, cards("9h")))


def test_P8_passing_does_not_take_you_out_of_the_trick() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 9c", "6c Tc", "7c 8c"], leader=0)
    play(m, 0, "5c")
    pas(m, 1)
    play(m, 2, "7c")
    pas(m, 0)
    assert m.turn == 1
    play(m, 1, "Tc")  # B passed before and plays again


def test_P9a_a_play_of_twos_closes_the_trick() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 3c", "2d 4d", "6h 8h"], leader=0)
    play(m, 0, "5c")
    evs = m.apply(Play(1, cards("2d")))
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 1, "leader": 1, "reason": "twos"}
    assert m.turn == 1 and m.view(None).trick == ()


def test_P9b_a_quad_closes_the_trick_and_never_reverses() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 5d 5h 5s 3c", "4d 6d", "6h 8h"], leader=0)
    evs = m.apply(Play(0, cards("5c 5d 5h 5s")))
    assert [e.name for e in evs] == ["played", "trick_closed"]
    assert evs[-1].to_dict()["reason"] == "quad" and m.turn == 0
    assert m.view(0).order == "normal"  # P2: no revolution here


def test_P9c_closes_when_every_other_holder_passed_with_players_out() -> None:
    m = PresidentMatch.from_hands("classic", ["5c", "6c 9c", "7c 8c", "8d Td"], leader=0)
    assert play(m, 0, "5c") == ["played", "out"]  # P11: the trick goes on among the others
    assert m.turn == 1
    play(m, 1, "6c")
    play(m, 2, "7c")
    play(m, 3, "8d")
    pas(m, 1)
    evs = m.apply(Pass(2))  # seat 0 is out: it need not pass
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 3, "leader": 3, "reason": "all_passed"}


def test_P10_closing_player_out_next_seat_with_cards_leads() -> None:
    m = PresidentMatch.from_hands("classic", ["2c", "3c 4c", "3d 5d"], leader=0)
    evs = m.apply(Play(0, cards("2c")))
    assert [e.name for e in evs] == ["played", "out", "trick_closed"]
    assert evs[-1].to_dict()["leader"] == 1 and m.turn == 1


def test_P10_last_player_out_after_passes_next_seat_leads() -> None:
    m = PresidentMatch.from_hands("classic", ["Kc", "3c 4c", "3d 5d", "4d 6d"], leader=0)
    play(m, 0, "Kc")
    pas(m, 1), pas(m, 2)
    evs = m.apply(Pass(3))
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 0, "leader": 1, "reason": "all_passed"}


def test_P11_round_ends_mid_trick_when_one_player_holds_cards() -> None:
    m = PresidentMatch.from_hands("classic", ["5c", "6c", "3c 7c"], leader=0)
    play(m, 0, "5c")
    evs = m.apply(Play(1, cards("6c")))
    assert [e.name for e in evs] == ["played", "out", "round_over"]
    d = evs[-1].to_dict()
    assert d["ranking"] == [0, 1, 2]
    assert d["hands"] == [[], [], ["3c", "7c"]]  # shown to everyone
    assert d["titles"] == ["president", "neutral", "last"] and d["scores"] == [2, 1, 0]
    assert m.phase == "round_over" and m.needs_deal() and m.pending() == []
    assert m.view(0).to_dict()["seats"][0]["place"] == 1


def test_P12_titles() -> None:
    assert titles_for([2, 0, 1]) == {2: "president", 0: "neutral", 1: "last"}
    assert titles_for([3, 1, 0, 2]) == {3: "president", 1: "vice_president", 0: "vice_last", 2: "last"}
    t5 = titles_for([4, 3, 2, 1, 0])
    assert [t5[s] for s in (4, 3, 2, 1, 0)] == ["president", "vice_president", "neutral", "vice_last", "last"]


def test_P13_exchange_is_simultaneous_with_suit_tie_break() -> None:
    m = _round_one_ranking_0123()
    evs = m.deal_hands(["Kc Kd Ac", "5c 6c", "9c Tc", "3c 8d 8h Js"])
    ex = [e for e in evs if isinstance(e, Exchange)]
    moves = {(e.giver, e.receiver): [str(c) for c in e.cards or ()] for e in ex}
    # last → Président: 2 strongest (8h beats 8d on the suit); the Président gives his 2 weakest
    # of the hand as dealt (Kc Kd), not the cards he is receiving (simultaneous).
    assert moves == {(3, 0): ["8h", "Js"], (0, 3): ["Kc", "Kd"], (2, 1): ["Tc"], (1, 2): ["5c"]}
    assert [str(c) for c in m.hand(0)] == ["8h", "Js", "Ac"]
    assert [str(c) for c in m.hand(3)] == ["3c", "8d", "Kc", "Kd"]
    assert [str(c) for c in m.hand(1)] == ["6c", "Tc"] and [str(c) for c in m.hand(2)] == ["5c", "9c"]
    # only the two players of a pair see the cards
    e30 = next(e for e in ex if (e.giver, e.receiver) == (3, 0))
    assert e30.for_seat(0).to_dict()["cards"] == ["8h", "Js"] and e30.for_seat(3) == e30
    assert e30.for_seat(1).to_dict() == {"event": "exchange", "from": 3, "to": 0, "count": 2}
    assert "cards" not in e30.for_seat(None).to_dict()
    assert [x["from"] for x in m.view(0).to_dict()["exchange"]] == [3, 0]
    assert m.view(1).to_dict()["exchange"] == [{"from": 2, "to": 1, "cards": ["Tc"]}, {"from": 1, "to": 2, "cards": ["5c"]}]
    assert m.phase == "play" and not m.legal_actions(0)  # nobody chooses in classic
    refused(m, Give(0, cards("Ac 8h")), NotAllowed)


def test_P13_three_players_only_president_and_last() -> None:
    m = PresidentMatch.from_hands("classic", ["Ac", "Kc", "3c 4c"], leader=0)
    play(m, 0, "Ac")
    pas(m, 1), pas(m, 2)
    play(m, 1, "Kc")
    evs = m.deal_hands(["3d 4d 9d", "5c 6c", "2c 2s Ah"])
    ex = [(e.giver, e.receiver, [str(c) for c in e.cards or ()]) for e in evs if isinstance(e, Exchange)]
    assert ex == [(2, 0, ["2c", "2s"]), (0, 2, ["3d", "4d"])]


def test_P14_scoring_and_P15_five_rounds() -> None:
    m = PresidentMatch("classic", seats=4)
    assert m.rules.default_rounds == 5
    i = 0
    rounds = []
    while not m.over:
        if m.needs_deal():
            m.apply(m.deal_action(seed_from_int(100 + m.round)))
            continue
        p = m.pending()[0]
        evs = m.apply(p.on_timeout if i % 3 == 0 else m.legal_actions(p.seat)[0])
        i += 1
        for e in evs:
            if e.name == "round_over":
                d = e.to_dict()
                rounds.append(d)
                assert sorted(d["scores"]) == [0, 1, 2, 3]
                assert [d["scores"][s] for s in d["ranking"]] == [3, 2, 1, 0]
            if e.name == "match_over":
                d = e.to_dict()
                assert d["winners"] == [s for s in range(4) if d["totals"][s] == max(d["totals"])]
    assert len(rounds) == 5 and m.round == 5 and m.phase == "match_over"
    assert list(m.totals) == [sum(r["scores"][s] for r in rounds) for s in range(4)]
    with pytest.raises(NotAllowed):
        m.apply(m.deal_action(seed_from_int(1)))


def test_P15_equal_totals_share_the_win() -> None:
    m = PresidentMatch.from_hands("classic", ["2c", "3c 5c", "4d 6d"], leader=0, rounds=2)
    play(m, 0, "2c")  # out first, closes; seat 1 leads
    play(m, 1, "3c")
    play(m, 2, "4d")
    play(m, 1, "5c")
    assert m.totals == (2, 1, 0)
    m.deal_hands(["3h 4h", "2d", "Kc Ks 5s"])
    # exchange: seat 2 (last) gives Kc Ks to seat 0, seat 0 gives 3h 4h; seat 2 leads (P4)
    assert m.turn == 2
    play(m, 2, "3h")
    play(m, 0, "Kc")
    play(m, 1, "2d")
    play(m, 2, "4h")
    evs = m.apply(Play(0, cards("Ks")))
    assert evs[-1].to_dict() == {"event": "match_over", "winners": [0, 1], "totals": [3, 3, 0]}
    assert m.over


def test_P16_seats_are_fixed() -> None:
    m = PresidentMatch("classic", seats=4)
    with pytest.raises(NotAllowed):
        m.apply(m.deal_action(seed_from_int(1), present=(0, 1, 2)))
    m.apply(m.deal_action(seed_from_int(1), present=(0, 1, 2, 3)))


def test_classic_timeout_passes_or_plays_the_weakest_single() -> None:
    m = PresidentMatch.from_hands("classic", ["9c 5d 5c", "6c Tc", "7c 8c"], leader=0)
    (pending,) = m.pending()
    assert pending.kind == "turn" and pending.seat == 0 and pending.on_timeout == Timeout(0)
    assert m.pending()[0].key == pending.key  # stable while the same decision is awaited
    refused(m, Timeout(1), NotAllowed)
    evs = m.apply(Timeout(0))
    assert [e.to_dict() for e in evs[:2]] == [
        {"event": "timeout", "seat": 0, "passive": False, "kind": "turn"},
        {"event": "played", "seat": 0, "cards": ["5c"], "remaining": 2, "auto": True},
    ]
    key1 = m.pending()[0].key
    assert key1 != pending.key
    evs = m.apply(Timeout(1))
    assert [e.name for e in evs] == ["timeout", "passed"] and m.view(1).passive(1) is False
    play(m, 2, "7c")
    play(m, 0, "9c")
    play(m, 1, "Tc")  # the timed-out seat plays again: no passivity in classic


def test_classic_has_no_cut() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 9c", "7d 7h 7s 4d", "8d Jd"], leader=0)
    play(m, 0, "7c")
    from engine.president import Cut

    refused(m, Cut(1, cards("7d 7h 7s")), NotAllowed, "no_cut")
    assert m.cut_options() == {}


def test_refusals_for_bad_input() -> None:
    m = PresidentMatch.from_hands("classic", ["7c 9c", "8d 4d", "8h Jd"], leader=0)
    refused(m, Play(7, cards("7c")), BadArgument)
    refused(m, Play(0, (99,)), BadArgument)  # type: ignore[arg-type]
    refused(m, Deal(b"x"), NotAllowed)
    with pytest.raises(BadArgument):
        m.action_from(0, "dance", {})
    with pytest.raises(BadArgument):
        m.action_from(0, "play", {"cards": ["Zz"]})
    assert m.action_from(0, "play", {"cards": ["7c"]}) == Play(0, cards("7c"))
    assert m.action_from(0, "pass", {}) == Pass(0)


def test_replay_gives_identical_events() -> None:
    m = PresidentMatch("classic", seats=5)
    events = []
    step = 0
    while not m.over:
        if m.needs_deal():
            events += m.apply(m.deal_action(seed_from_int(500 + m.round)))
            continue
        p = m.pending()[0]
        legal = m.legal_actions(p.seat)
        events += m.apply(legal[step % len(legal)])
        step += 1
    m2, events2 = PresidentMatch.replay(json.loads(json.dumps(m.config)), json.loads(json.dumps(m.log())))
    assert json.dumps([e.to_dict() for e in events]) == json.dumps([e.to_dict() for e in events2])
    assert m2.totals == m.totals and m2.over


def test_no_play_nor_pass_between_rounds_nor_before_the_deal():
    # apply() and next_turn() read "a turn of play now" from the turn alone: the shared plays and
    # passes the bots hand back take the same fast path, and are refused outside the play phase
    from engine.president.actions import PASSES, PLAYS

    m = PresidentMatch("classic", seats=4)
    assert m.next_turn() is None
    refused(m, PLAYS[0][1], NotAllowed, "phase")  # 3c, before the deal
    refused(m, PASSES[0], NotAllowed, "phase")
    m.apply(m.deal_action(seed_from_int(3)))
    while m.phase == "play":
        seat = m.awaited_turn()
        assert seat is not None
        m.apply(m.legal_actions(seat)[0])
    assert m.phase == "round_over" and m.next_turn() is None
    for seat in range(4):
        refused(m, PASSES[seat], NotAllowed, "phase")
        for row in PLAYS[seat * 13 : seat * 13 + 13]:
            for play in row[1:]:
                refused(m, play, NotAllowed, "phase")

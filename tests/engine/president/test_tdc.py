"""Scenario tests of the "trou du cul" table (RULES T1–T15), each with an explicit deal."""

from __future__ import annotations

import json

import pytest

from engine.cards import Card, parse_cards
from engine.errors import BadArgument, IllegalPlay, NotAllowed, NotYourTurn, Refusal
from engine.president import (
    Cut,
    Deal,
    Exchange,
    Give,
    Pass,
    Play,
    PresidentMatch,
    Timeout,
    settle_stakes,
    stake_debits,
    stake_payouts,
)
from engine.seeds import seed_from_int


def play(m: PresidentMatch, seat: int, cards: str) -> list[str]:
    return [e.name for e in m.apply(Play(seat, parse_cards(cards)))]


def pas(m: PresidentMatch, seat: int) -> list[str]:
    return [e.name for e in m.apply(Pass(seat))]


def cut(m: PresidentMatch, seat: int, cards: str) -> list[dict[str, object]]:
    return [e.to_dict() for e in m.apply(Cut(seat, parse_cards(cards)))]


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def refused(m: PresidentMatch, action: object, exc: type[Refusal], reason: str | None = None) -> None:
    before = (json.dumps(m.view(None).to_dict()), [m.hand(s) for s in range(m.seats)], m.version)
    with pytest.raises(exc) as info:
        m.apply(action)  # type: ignore[arg-type]
    assert not m.can(action)  # type: ignore[arg-type]
    if reason is not None:
        assert info.value.params.get("reason") == reason
    assert (json.dumps(m.view(None).to_dict()), [m.hand(s) for s in range(m.seats)], m.version) == before


def tdc(*hands: str, leader: int | None = 0, stake: int = 0) -> PresidentMatch:
    return PresidentMatch.from_hands("tdc", list(hands), leader=leader, stake=stake)


def ranking_0123_of_4(seats: int = 4, stake: int = 0) -> PresidentMatch:
    """Round 1 where seat 0 is Président, 1 VP, 2 vice-last, 3 last (other seats sit out)."""
    hands = ["Ac", "Kc", "Qc", "3c 4c"] + [""] * (seats - 4)
    m = PresidentMatch.from_hands("tdc", hands, leader=0, stake=stake)
    play(m, 0, "Ac")  # T7c: closes, the next seat leads
    play(m, 1, "Kc")
    play(m, 2, "Qc")
    assert m.phase == "round_over"
    assert m.last_titles == ("president", "vice_president", "vice_last", "last") + (None,) * (seats - 4)
    return m


def test_T1_players_join_and_leave_between_rounds() -> None:
    m = PresidentMatch("tdc", seats=6)
    assert m.rules.default_rounds is None
    with pytest.raises(NotAllowed):
        m.apply(m.deal_action(seed_from_int(1), present=(0, 1)))
    (dealt,) = m.apply(m.deal_action(seed_from_int(1), present=(0, 2, 5)))
    assert dealt.to_dict()["present"] == [0, 2, 5]
    sizes = [len(m.hand(s)) for s in range(6)]
    assert sorted(sizes) == [0, 0, 0, 17, 17, 18] and sizes[1] == sizes[3] == sizes[4] == 0
    seats = m.view(1).to_dict()["seats"]
    assert [s["playing"] for s in seats] == [True, False, True, False, False, True]
    assert m.view(None).dealer in (0, 2, 5)
    with pytest.raises(BadArgument):
        m.deal_action(seed_from_int(1), seats=3)


def _finish_round(m: PresidentMatch) -> dict[str, object]:
    while m.phase == "exchange":
        m.apply(m.pending()[0].on_timeout)
    while True:
        p = m.pending()[0]
        evs = m.apply(m.legal_actions(p.seat)[0])
        if evs[-1].name == "round_over":
            return evs[-1].to_dict()


def test_T1_round_size_follows_who_plays() -> None:
    m = ranking_0123_of_4(seats=5, stake=2)
    # seats 0 and 3 leave, seat 4 joins: this round has N = 3
    m.deal_hands(["", "5c 6c 9d", "9c Tc 4h", "", "Jc Qd 5h"])
    assert m.present == (1, 2, 4)
    d = _finish_round(m)
    titles = d["titles"]
    assert isinstance(titles, list) and titles[0] is None and titles[3] is None
    assert sorted(t for t in titles if t) == ["last", "neutral", "president"]
    assert d["chips"] == [0 if t is None else {"president": 2, "neutral": 0, "last": -2}[t] for t in titles]
    assert sum(m.chips) == 0


def test_T3_queen_of_hearts_leads_every_round() -> None:
    for i in range(3):
        m = PresidentMatch("tdc", seats=4)
        m.apply(m.deal_action(seed_from_int(i)))
        assert m.turn == next(s for s in range(4) if Card.parse("Qh") in m.hand(s))
    m = PresidentMatch.from_hands("tdc", ["Ac", "Kc", "3c 4c"], leader=0)
    play(m, 0, "Ac")
    play(m, 1, "Kc")
    m.deal_hands(["3d 4d 5d", "6d 7d", "Qh Kh 8c"])
    # T12: the last's Kh Qh went to the Président, who keeps the Qh: he leads (after the exchange)
    assert m.phase == "exchange" and m.turn is None
    m.apply(Give(0, cards("3d 4d")))
    assert m.phase == "play" and m.turn == 0


def test_T4_following_in_the_order_in_force() -> None:
    m = tdc("5c 5d 5h 5s Kc 9c", "4d 3d Ah", "Qh Jh 6h")
    evs = m.apply(Play(0, cards("5c 5d 5h 5s")))
    assert [e.name for e in evs] == ["played", "revolution", "trick_closed"]
    play(m, 0, "Kc")
    assert m.can(Play(1, cards("4d")))  # 4 beats K in revolution
    refused(m, Play(1, cards("Ah")), IllegalPlay, "too_weak")
    play(m, 1, "4d")
    refused(m, Play(2, cards("Qh")), IllegalPlay, "too_weak")


def test_T5_passing_takes_you_out_of_the_trick() -> None:
    m = tdc("5c 9c 3c", "6c Tc 3d", "7c 8c 3h", "4d Jd 3s")
    play(m, 0, "5c")
    pas(m, 1)
    play(m, 2, "7c")
    play(m, 3, "Jd")
    pas(m, 0)
    assert m.turn == 2  # seat 1 passed: it is out of this trick
    assert m.view(None).to_dict()["seats"][1]["passed"] is True
    evs = m.apply(Pass(2))
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 3, "leader": 3, "reason": "all_passed"}  # T7d
    assert m.turn == 3
    play(m, 3, "3s")
    assert m.turn == 0  # and everyone plays again from the next trick


def test_T6_ca_ou_rien() -> None:
    m = tdc("7c 3c", "7d 8d", "9h 7h 4h")
    play(m, 0, "7c")
    play(m, 1, "7d")
    refused(m, Play(2, cards("9h")), IllegalPlay, "ca_ou_rien")
    assert m.cut_options() == {}  # T9: no cut after "ça ou rien" double singles


def test_T7a_the_strongest_rank_closes_and_its_player_leads() -> None:
    m = tdc("2c 5c 9c", "3c 4c", "6h 8h")
    play(m, 0, "5c")
    pas(m, 1)
    play(m, 2, "8h")
    evs = m.apply(Play(0, cards("2c")))
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 0, "leader": 0, "reason": "strongest"}


def test_T7b_all_four_cards_of_a_rank_in_several_plays_close() -> None:
    m = tdc("7c 3c", "7d 4d", "7h 5h", "7s 6s")
    play(m, 0, "7c")
    play(m, 1, "7d")
    play(m, 2, "7h")
    evs = m.apply(Play(3, cards("7s")))
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 3, "leader": 3, "reason": "four_of_rank"}


def test_T7c_emptying_closes_next_non_passive_seat_leads() -> None:
    m = tdc("Jc", "3c 4c", "6h 8h", "9d Td", leader=1)
    evs = m.apply(Timeout(1))  # T14: seat 1 passive; a passive player never leads
    assert evs[0].to_dict() == {"event": "timeout", "seat": 1, "passive": True, "kind": "turn"}
    assert m.turn == 2
    play(m, 2, "6h")
    play(m, 3, "9d")
    evs = m.apply(Play(0, cards("Jc")))
    assert [e.name for e in evs] == ["played", "out", "trick_closed"]
    assert evs[-1].to_dict() == {"event": "trick_closed", "by": 0, "leader": 2, "reason": "emptied"}


def test_T7c_wins_over_T7a_for_the_lead() -> None:
    m = tdc("2c", "3c 4c", "6h 8h", leader=1)
    play(m, 1, "3c")
    play(m, 2, "6h")
    evs = m.apply(Play(0, cards("2c")))
    assert evs[1].to_dict() == {"event": "out", "seat": 0, "place": 1, "forbidden": True}
    assert evs[-1].to_dict()["leader"] == 1 and evs[-1].to_dict()["reason"] == "emptied"


def test_T8_two_forbidden_finishers_and_the_holder() -> None:
    m = tdc("2c", "2d", "5c 6c", "3c 4c", leader=2, stake=10)
    play(m, 2, "5c")
    pas(m, 3)
    play(m, 0, "2c")  # forbidden, out first
    assert m.turn == 1
    play(m, 1, "2d")  # forbidden too
    assert m.turn == 2
    evs = m.apply(Play(2, cards("6c")))
    d = evs[-1].to_dict()
    assert d["event"] == "round_over"
    assert d["ranking"] == [2, 3, 1, 0]  # T15: clean outs, holder, forbidden latest first
    assert d["titles"] == ["last", "vice_last", "president", "vice_president"]
    assert d["scores"] == [0, 1, 3, 2]
    assert d["chips"] == [-10, -5, 10, 5] and sum(d["chips"]) == 0  # T13
    assert d["hands"] == [[], [], [], ["3c", "4c"]]
    assert m.view(0).to_dict()["seats"][0]["place"] == 1  # going-out number


def test_T8_forbidden_finish_in_revolution_with_a_3() -> None:
    m = tdc("5c 5d 5h 5s 9c", "3d Qc", "Kc Kd", "4c 4d")
    play(m, 0, "5c 5d 5h 5s")
    assert m.view(0).order == "reversed" and m.turn == 0
    play(m, 0, "9c")
    assert m.turn == 1
    play(m, 1, "Qc")
    pas(m, 2)
    refused(m, Play(3, cards("4c 4d")), IllegalPlay, "must_follow_count")
    play(m, 3, "4c")
    evs = m.apply(Play(1, cards("3d")))
    assert evs[1].to_dict() == {"event": "out", "seat": 1, "place": 2, "forbidden": True}


def test_T8_order_before_the_emptying_play_counts() -> None:
    m = tdc("3c 3d 3h 3s", "2d Qc", "Kc Kd")
    evs = m.apply(Play(0, cards("3c 3d 3h 3s")))
    names = [e.name for e in evs]
    assert names == ["played", "out", "revolution", "trick_closed"]
    assert evs[1].to_dict()["forbidden"] is False  # the order was normal before: 3s are no 2s
    assert m.view(None).order == "reversed"
    m2 = tdc("2c 2d 2h 2s", "3d Qc", "Kc Kd")
    evs = m2.apply(Play(0, cards("2c 2d 2h 2s")))
    assert evs[1].to_dict()["forbidden"] is True


def test_T9_cut_by_a_player_who_passed() -> None:
    m = tdc("7c 9c", "Ks 4d", "7d 7h 7s 5h", "8d Jd")
    play(m, 0, "7c")
    assert m.cut_options() == {2: cards("7d 7h 7s")}
    pas(m, 1)
    pas(m, 2)  # a pass is not a play: the chance stays
    assert m.turn == 3
    assert Cut(2, cards("7d 7h 7s")) in m.legal_actions(2)  # out of turn
    assert m.view(2).to_dict()["cut"] == ["7d", "7h", "7s"] and m.view(3).cut is None
    refused(m, Cut(2, cards("7d 7h")), IllegalPlay, "cut_cards")
    refused(m, Cut(3, cards("8d")), NotAllowed, "cannot_cut")
    evs = cut(m, 2, "7h 7s 7d")
    assert evs == [
        {"event": "cut", "seat": 2, "cards": ["7d", "7h", "7s"], "remaining": 1},
        {"event": "trick_closed", "by": 2, "leader": 2, "reason": "cut"},
    ]
    assert m.turn == 2 and m.view(0).order == "normal"  # a cut is no revolution


def test_T9_cut_that_empties_the_cutters_hand() -> None:
    m = tdc("7c 9c", "Ks 4d", "7d 7h 7s", "8d Jd")
    play(m, 0, "7c")
    evs = cut(m, 2, "7d 7h 7s")
    assert evs[1] == {"event": "out", "seat": 2, "place": 1, "forbidden": False}
    assert evs[2] == {"event": "trick_closed", "by": 2, "leader": 3, "reason": "cut"}  # T7c


def test_T9_cut_after_a_pair_and_by_the_seat_on_turn() -> None:
    m = tdc("7c 7d 9c", "7h 7s 4d", "8d Jd")
    play(m, 0, "7c 7d")
    assert m.turn == 1 and m.cut_options() == {1: cards("7h 7s")}
    assert Play(1, cards("7h 7s")) in m.legal_actions(1) and Cut(1, cards("7h 7s")) in m.legal_actions(1)
    evs = cut(m, 1, "7h 7s")
    assert evs[-1]["reason"] == "cut" and m.turn == 1


def test_T9_no_cut_after_a_triple_by_the_player_himself_or_after_a_later_play() -> None:
    m = tdc("7c 7d 7h 9c", "7s 4d Kd", "8d Jd")
    play(m, 0, "7c 7d 7h")
    assert m.cut_options() == {}
    refused(m, Cut(1, cards("7s")), NotAllowed, "cut_triple")  # holding the fourth is only ça ou rien
    m = tdc("7c 7d 7h 7s 9c", "4d Kd", "8d Jd")
    play(m, 0, "9c")
    play(m, 1, "Kd")
    m = tdc("7c 9c", "9d Kd", "7d 7h 7s Jd")
    play(m, 0, "7c")
    play(m, 1, "9d")  # a later play ends the chance
    refused(m, Cut(2, cards("7d 7h 7s")), NotAllowed, "cut_moved_on")
    m = tdc("7c 7d 7h 7s 2c", "9d Kd", "8d Jd")
    play(m, 0, "7c")
    assert m.cut_options() == {}  # the player who just played holds the rest: no cut


def test_T9_passive_player_never_cuts() -> None:
    m = tdc("5c 9c", "7d 7h 7s 4d", "7c Jd", leader=1)
    m.apply(Timeout(1))  # seat 1 passive; the lead goes to seat 2
    assert m.turn == 2
    play(m, 2, "7c")
    assert m.cut_options() == {}
    assert m.legal_actions(1) == []
    refused(m, Cut(1, cards("7d 7h 7s")), NotAllowed, "passive")


def test_T9_no_cut_in_revolution_on_a_closing_3() -> None:
    m = tdc("5c 5d 5h 5s 3c 9c", "3d 3h 3s Kd", "8d Jd")
    play(m, 0, "5c 5d 5h 5s")
    evs = m.apply(Play(0, cards("3c")))
    assert evs[-1].to_dict()["reason"] == "strongest"  # T7a in revolution: the 3 closes
    assert m.cut_options() == {}
    refused(m, Cut(1, cards("3d 3h 3s")), NotAllowed, "cut_closing")


def test_T10_revolution_then_a_second_one_and_normal_next_round() -> None:
    m = tdc("5c 5d 5h 5s Kc 9c", "8c 8d 8h 8s Qh 6h", "4d 3d Ah Jh")
    evs = m.apply(Play(0, cards("5c 5d 5h 5s")))
    assert [e.name for e in evs] == ["played", "revolution", "trick_closed"]
    assert evs[1].to_dict() == {"event": "revolution", "seat": 0, "order": "reversed"}
    assert evs[2].to_dict()["reason"] == "four_of_rank" and m.turn == 0
    assert m.view(1).to_dict()["order"] == "reversed"
    play(m, 0, "Kc")
    assert m.can(Play(1, cards("Qh")))  # Q beats K in revolution
    pas(m, 1)
    play(m, 2, "4d")
    pas(m, 0)  # T7d: seat 2 leads
    assert m.turn == 2
    evs = m.apply(Play(2, cards("3d")))
    assert evs[-1].to_dict()["reason"] == "strongest" and m.turn == 2  # T7a: the 3 in revolution
    play(m, 2, "Jh")
    play(m, 0, "9c")  # 9 beats J in revolution; seat 0 is out: T7c, seat 1 leads
    assert m.turn == 1
    evs = m.apply(Play(1, cards("8c 8d 8h 8s")))
    assert evs[1].to_dict() == {"event": "revolution", "seat": 1, "order": "normal"}
    assert m.view(2).order == "normal"
    play(m, 1, "6h")
    play(m, 2, "Ah")  # out: seat 1 alone, the round ends
    assert m.phase == "round_over"
    m.deal_hands(["4c 5c", "6c 7c", "9s Ts"], leader=2)
    assert m.view(0).order == "normal"  # normal again at the start of every round


def test_T11_titles_as_P12() -> None:
    m = ranking_0123_of_4()
    assert m.view(2).to_dict()["seats"][3]["title"] == "last"


def test_T12_exchange_choice_phase() -> None:
    m = ranking_0123_of_4()
    evs = m.deal_hands(["3d 4d 5d", "5c 6c", "9c Tc", "3c 8d 8h Js"])
    ex = [e.to_dict() for e in evs if isinstance(e, Exchange)]
    assert ex == [
        {"event": "exchange", "from": 3, "to": 0, "count": 2, "cards": ["8h", "Js"]},
        {"event": "exchange", "from": 2, "to": 1, "count": 1, "cards": ["Tc"]},
    ]
    assert m.phase == "exchange" and m.turn is None
    pend = m.pending()
    assert [(p.kind, p.seat) for p in pend] == [("give", 0), ("give", 1)]
    assert all(p.on_timeout == Timeout(p.seat) for p in pend)
    assert len(m.legal_actions(0)) == 10 and len(m.legal_actions(1)) == 3  # C(5,2), C(3,1)
    refused(m, Play(0, cards("3d")), NotAllowed, "phase")
    refused(m, Give(2, cards("9c")), NotAllowed, "no_give")
    refused(m, Give(0, cards("3d")), IllegalPlay, "give_count")
    refused(m, Give(0, cards("3d 3c")), IllegalPlay, "not_in_hand")
    evs = m.apply(Give(0, cards("Js 3d")))  # his choice, from his hand after receiving
    assert evs[0].to_dict() == {"event": "exchange", "from": 0, "to": 3, "count": 2, "cards": ["3d", "Js"], "chosen": True}
    assert evs[0].for_seat(2).to_dict() == {"event": "exchange", "from": 0, "to": 3, "count": 2, "chosen": True}
    assert [(p.kind, p.seat) for p in m.pending()] == [("give", 1)]
    assert m.pending()[0].key == pend[1].key  # the VP's decision is still the same one
    evs = m.apply(Timeout(1))  # T12 Decision: the weakest card goes, and no passivity
    assert [e.to_dict() for e in evs] == [
        {"event": "timeout", "seat": 1, "passive": False, "kind": "give"},
        {"event": "exchange", "from": 1, "to": 2, "count": 1, "cards": ["5c"]},
    ]
    assert m.phase == "play" and m.view(1).passive(1) is False
    assert [str(c) for c in m.hand(3)] == ["3c", "3d", "8d", "Js"]
    assert m.view(3).to_dict()["exchange"] == [
        {"from": 3, "to": 0, "cards": ["8h", "Js"]},
        {"from": 0, "to": 3, "cards": ["3d", "Js"]},
    ]


def test_T12_newcomer_and_departed_president() -> None:
    m = ranking_0123_of_4(seats=5)
    # seat 0 (Président) left, seat 4 is new: only the VP pair exchanges
    evs = m.deal_hands(["", "5c 6c", "9c Tc", "3d 8d 8s", "Jc Jd"])
    ex = [e.to_dict() for e in evs if isinstance(e, Exchange)]
    assert ex == [{"event": "exchange", "from": 2, "to": 1, "count": 1, "cards": ["Tc"]}]
    assert [p.seat for p in m.pending()] == [1]
    m.apply(Give(1, cards("5c")))
    assert [str(c) for c in m.hand(3)] == ["3d", "8d", "8s"] and [str(c) for c in m.hand(4)] == ["Jc", "Jd"]


def test_T12_a_newcomer_on_the_seat_of_last_rounds_last_exchanges_nothing() -> None:
    m = ranking_0123_of_4()
    # round 2: a new player sits on seat 3 (last of round 1): the Président's pair is skipped, the
    # Vice pair still exchanges; the newcomer keeps every card dealt
    hands = tuple(parse_cards(h) for h in ["4h 5h", "6h 7h", "8h 9h", "Th Jh Kh"])
    evs = m.apply(Deal(b"explicit", present=(0, 1, 2, 3), hands=hands, newcomers=(3,)))
    ex = [e.to_dict() for e in evs if isinstance(e, Exchange)]
    assert ex == [{"event": "exchange", "from": 2, "to": 1, "count": 1, "cards": ["9h"]}]
    while m.phase == "exchange":
        m.apply(m.pending()[0].on_timeout)
    assert [str(c) for c in m.hand(3)] == ["Th", "Jh", "Kh"]
    # the deal says so in the log, and the log replays
    assert [e.get("newcomers") for e in m.log() if e["cmd"] == "deal"] == [None, [3]]
    again, _ = PresidentMatch.replay(m.config, m.log())
    assert [str(c) for c in again.hand(3)] == ["Th", "Jh", "Kh"]
    with pytest.raises(BadArgument):
        ranking_0123_of_4().apply(Deal(b"explicit", present=(0, 1, 2, 3), hands=hands, newcomers=(9,)))


def test_T12_player_who_sat_the_round_out_exchanges_nothing() -> None:
    m = ranking_0123_of_4(seats=5)
    # round 2: seat 4 sat round 1 out: it has no title and exchanges nothing
    m.deal_hands(["4h 5h", "6h 7h", "8h 9h", "Th Jh Kh", "Kc Ac"])
    while m.phase == "exchange":
        m.apply(m.pending()[0].on_timeout)
    assert [str(c) for c in m.hand(4)] == ["Kc", "Ac"]
    # round 3: seat 3 (last of round 1) sat round 2 out: round 1's title no longer counts
    m = ranking_0123_of_4(seats=5)
    m.deal_hands(["4h 5h", "6h 7h", "8h 9h", "", "Kc Ac"])
    _finish_round(m)
    m.deal_hands(["4d 5d", "6d 7d", "8d 9d", "2c 2d 2h", "Kd Ad"])
    while m.phase == "exchange":
        m.apply(m.pending()[0].on_timeout)
    assert [str(c) for c in m.hand(3)] == ["2c", "2d", "2h"]


def test_T13_settlement_three_players() -> None:
    titles = {0: "neutral", 1: "last", 2: "president"}
    assert settle_stakes([2, 0, 1], titles, 10) == {2: 10, 0: 0, 1: -10}
    assert stake_payouts([2, 0, 1], titles, 10) == {2: 20, 0: 10, 1: 0}
    assert stake_debits([0, 1, 2], 10) == {0: -10, 1: -10, 2: -10}


def test_T13_settlement_four_and_more_sums_to_zero() -> None:
    from engine.president import titles_for

    for n in range(4, 9):
        ranking = list(range(n))[::-1]
        titles = titles_for(ranking)
        delta = settle_stakes(ranking, titles, 8)
        assert sum(delta.values()) == 0
        assert delta[ranking[0]] == 8 and delta[ranking[1]] == 4 and delta[ranking[-2]] == -4 and delta[ranking[-1]] == -8
        payouts = stake_payouts(ranking, titles, 8)
        assert sum(payouts.values()) == 8 * n and payouts[ranking[1]] == 12 and payouts[ranking[-2]] == 4
    with pytest.raises(ValueError):
        settle_stakes([0, 1, 2], titles_for([0, 1, 2]), 5)  # T13: the stake is even


def test_T13_stake_per_round_and_odd_stake_refused() -> None:
    m = PresidentMatch("tdc", seats=3, stake=4)
    with pytest.raises(BadArgument):
        m.apply(m.deal_action(seed_from_int(2), stake=3))
    (dealt,) = m.apply(m.deal_action(seed_from_int(2), stake=6))
    assert dealt.to_dict()["stake"] == 6 and m.view(0).stake == 6
    with pytest.raises(BadArgument):
        PresidentMatch("tdc", seats=3, stake=3)


def test_T14_timeout_makes_passive_and_all_passive_ends_the_round() -> None:
    m = tdc("5c 6c", "7c 8c", "9c Tc", "Jc Qc", leader=0)
    m.apply(Timeout(0))  # passive; a passive player never leads
    assert m.turn == 1
    m.apply(Timeout(1))
    assert m.turn == 2
    play(m, 2, "9c")
    evs = m.apply(Timeout(3))  # counts as a pass: seat 2 alone in the trick
    assert [e.name for e in evs] == ["timeout", "passed", "trick_closed"]
    assert evs[1].to_dict() == {"event": "passed", "seat": 3, "auto": True}
    assert m.turn == 2  # passive seats are skipped
    refused(m, Play(0, cards("5c")), NotYourTurn)
    evs = m.apply(Play(2, cards("Tc")))
    assert [e.name for e in evs] == ["played", "out", "round_over"]
    d = evs[-1].to_dict()
    assert d["ranking"] == [2, 3, 1, 0]  # T15: passive holders, the latest to become passive first
    assert d["hands"] == [["5c", "6c"], ["7c", "8c"], [], ["Jc", "Qc"]]
    # passivity ends with the round
    m.deal_hands(["5d 6d", "7d 8d", "9d Td", "Jd Qd"], leader=0)
    while m.phase == "exchange":
        m.apply(m.pending()[0].on_timeout)
    assert m.view(None).passive_mask == 0


def test_T14_passive_turns_are_skipped() -> None:
    m = tdc("5c 6c 7c", "7d 8c", "9c Tc", "Jc Qc Kc", leader=1)
    m.apply(Timeout(1))
    assert m.turn == 2
    play(m, 2, "9c")
    play(m, 3, "Jc")
    assert m.turn == 0
    pas(m, 0)
    assert m.turn == 2  # seat 1 is skipped


def test_T15_ranking_with_a_non_passive_holder() -> None:
    m = tdc("2c", "5c", "Kc Ac", "3c 4c", leader=3)
    play(m, 3, "3c")
    m.apply(Timeout(0))  # passive, passes
    play(m, 1, "5c")  # out: T7c, seat 2 leads
    play(m, 2, "Kc")
    evs = m.apply(Pass(3))
    assert evs[-1].to_dict()["leader"] == 2
    evs = m.apply(Play(2, cards("Ac")))
    assert m.phase == "play" and m.turn == 3  # a non-passive player still holds cards
    evs = m.apply(Play(3, cards("4c")))
    d = evs[-1].to_dict()
    assert d["ranking"] == [1, 2, 3, 0]


def test_tdc_replay_is_identical() -> None:
    m = PresidentMatch("tdc", seats=5, stake=2, rounds=3)
    events = []
    step = 0
    while not m.over:
        if m.needs_deal():
            present = (0, 1, 2, 3, 4) if m.round % 2 else (0, 2, 4, 1)
            events += m.apply(m.deal_action(seed_from_int(70 + m.round), present=present))
            continue
        cuts = m.cut_options()
        if cuts and step % 2:
            seat, cs = sorted(cuts.items())[0]
            events += m.apply(Cut(seat, cs))
        else:
            p = m.pending()[step % len(m.pending())]
            legal = m.legal_actions(p.seat)
            events += m.apply(p.on_timeout if step % 17 == 0 else legal[step % len(legal)])
        step += 1
    m2, events2 = PresidentMatch.replay(json.loads(json.dumps(m.config)), json.loads(json.dumps(m.log())))
    assert json.dumps([e.to_dict() for e in events]) == json.dumps([e.to_dict() for e in events2])
    assert m2.chips == m.chips and sum(m.chips) == 0

"""What a view says its seat may do now (``decision``, ``must``, ``legal``, ``give``, ``cut``,
Speculation ``can``) agrees exactly with the engine's ``legal_actions()``, ``cut_options()`` and
``pending()``, on thousands of random states of every table; and the refusals tell the true
reason (RULES P5–P9, T4–T14, S7–S9), with the legal alternatives.
"""

from __future__ import annotations

import contextlib
import json
import random
from math import comb
from typing import Any

import pytest

from engine.bots.president_random import RandomPresidentBot
from engine.cards import RANKS, parse_cards
from engine.errors import IllegalPlay, InsufficientChips, NotAllowed, NotYourTurn, Refusal
from engine.president import CLASSIC, TDC, Cut, Give, Pass, Play, PresidentMatch, PresidentRules
from engine.president.view import TurnView
from engine.seeds import seed_from_int
from engine.speculation import (
    Accept,
    Bid,
    Decline,
    Keep,
    Offer,
    Sell,
    SpeculationMatch,
    Turn,
    Withdraw,
)

# ---------------------------------------------------------------------------------- Président


def expected_decision(m: PresidentMatch, seat: int) -> str | None:
    for p in m.pending():
        if p.seat == seat:
            if p.kind == "give":
                return "give"
            return "follow" if m.view(None).top is not None else "lead"
    return None


def check_president_views(m: PresidentMatch) -> int:
    """Every seat's view against the engine's own answers; the number of seat views checked."""
    spectator = m.view(None)
    top = spectator.top
    must = spectator.must_rank
    assert spectator.decision is None and spectator.legal is None and spectator.give == 0
    assert spectator.must == (None if must is None else RANKS[must])
    assert (must is not None) == (m._must and m.phase == "play")
    d = spectator.to_dict()
    assert (d["decision"], d["legal"], d["give"], d["must"]) == (None, None, 0, spectator.must)
    cuts = m.cut_options()
    for seat in range(m.seats):
        v = m.view(seat)
        legal = m.legal_actions(seat)
        decision = expected_decision(m, seat)
        assert v.decision == decision, (seat, v.decision, decision)
        assert v.must == spectator.must
        assert v.cut == cuts.get(seat)
        assert [a for a in legal if isinstance(a, Cut)] == ([Cut(seat, cuts[seat])] if seat in cuts else [])
        plays = [(a.cards[0].rank, len(a.cards)) for a in legal if isinstance(a, Play)]
        gives = [a for a in legal if isinstance(a, Give)]
        got = v.legal
        d = v.to_dict()
        assert (d["decision"], d["legal"], d["give"], d["must"]) == (v.decision, got, v.give, v.must)
        if decision is None:
            assert got is None and v.give == 0
            assert not plays and not gives and Pass(seat) not in legal
            continue
        if decision == "give":
            k = v.give
            assert got == {"give": k} and k > 0
            assert {len(a.cards) for a in gives} == {k}
            assert len(gives) == comb(len(v.hand or ()), k)
            continue
        assert v.give == 0 and not gives
        assert got is not None and got["pass"] == (Pass(seat) in legal) == (decision == "follow")
        listed = [(RANKS.index(r), k) for r, k in got["plays"]]
        assert sorted(listed) == sorted(plays), (seat, listed, plays)
        # weakest to strongest in the order in force (T10), each size of a rank once
        strength = [12 - r if spectator.reversed else r for r, _ in listed]
        assert strength == sorted(strength) and len(set(listed)) == len(listed)
        if decision == "lead":
            assert top is None and not got["pass"]
        else:
            assert top is not None and all(k == len(top) for _, k in listed)
            if must is not None:
                assert all(r == must for r, _ in listed)
    return m.seats


def check_turn_view(m: PresidentMatch) -> bool:
    """The compact view of the seat on turn says what its view and its legal actions say;
    another seat has none; ``next_turn()`` gives it, or the seat's only legal action. Whether a
    turn view was checked."""
    seat = m.awaited_turn()
    for other in range(m.seats):
        if other != seat:
            with pytest.raises(Refusal):
                m.turn_view(other)
    if seat is None:
        assert m.next_turn() is None
        return False
    t = m.turn_view(seat)
    # next_turn(): the forced action itself, else the same turn view's fields (no forced action)
    # as a plain tuple
    assert m.next_turn() == (t if t.forced is None else t.forced)
    if t.forced is not None:
        assert m.next_turn() is t.forced
    else:
        fields = m.next_turn()
        assert type(fields) is tuple and TurnView._make(fields) == t
    v = m.view(seat)
    legal = m.legal_actions(seat)
    hand = v.hand or ()
    assert t.seat == seat and t.rules == v.rules == m.rules_name
    assert t.hand_mask == sum(1 << c for c in hand) and t.cards == len(hand)
    assert list(t.rank_counts.to_bytes(13, "little")) == [sum(1 for c in hand if c.rank == r) for r in range(13)]
    top = v.top
    assert t.top_count == (0 if top is None else len(top))
    if top is not None:
        assert t.top_rank == top[0].rank
        assert t.must == (v.must_rank is not None) and (not t.must or v.must_rank == t.top_rank)
    else:
        assert not t.must
    assert (t.reversed, t.played_mask, t.cut) == (v.reversed, v.played_mask, v.cut)
    if len(legal) == 1:
        assert t.forced is legal[0]  # the very object legal_actions() lists
    else:
        assert t.forced is None
    return True


def drive_president(rules: PresidentRules, seats: int, seed: int, rounds: int, on_state: Any) -> None:
    rng = random.Random(seed)
    m = PresidentMatch(rules, seats=seats, stake=2, rounds=rounds)
    bots = [RandomPresidentBot(s, seed_from_int(seed * 10 + s)) for s in range(seats)]
    while not m.over:
        on_state(m)
        if m.needs_deal():
            table = {"present": tuple(range(seats))} if rules.seats_change else {}
            m.apply(m.deal_action(seed_from_int(rng.getrandbits(40)), **table))
            continue
        options = m.cut_options()
        if options and rng.random() < 0.3:
            seat = rng.choice(sorted(options))
            m.apply(Cut(seat, options[seat]))
            continue
        pending = m.pending()
        p = pending[rng.randrange(len(pending))]
        if rng.random() < 0.05:
            m.apply(p.on_timeout)
            continue
        action = bots[p.seat].decide(m.view(p.seat), m.legal_actions(p.seat))
        assert action is not None
        m.apply(action)
    on_state(m)


MIXED = PresidentRules(
    name="mixed", cut=True, revolution=True, close_on_four_of_rank=True, forbidden_last=True, exchange_choice=True
)
"""A third rule set: classic passing, with the cut, revolution, T7b, T8 and the T12 choice."""


@pytest.mark.parametrize("rules", [CLASSIC, TDC, MIXED], ids=lambda r: r.name)
def test_president_views_agree_with_the_engine_on_random_states(rules: PresidentRules) -> None:
    counted = {"states": 0, "views": 0, "give": 0, "follow": 0, "lead": 0, "cut": 0, "must": 0, "turn_views": 0}

    def on_state(m: PresidentMatch) -> None:
        counted["states"] += 1
        counted["views"] += check_president_views(m)
        for s in range(m.seats):
            v = m.view(s)
            if v.decision is not None:
                counted[v.decision] += 1
            counted["cut"] += v.cut is not None
        counted["must"] += m.view(None).must is not None
        counted["turn_views"] += check_turn_view(m)

    for i in range(20):
        seats = 3 + i % 4
        drive_president(rules, seats, 1000 * seats + i, 3, on_state)
    assert counted["states"] > 3000, counted
    assert counted["follow"] > 500 and counted["lead"] > 100 and counted["must"] > 10
    assert counted["turn_views"] > 2000
    if rules.exchange_choice:
        assert counted["give"] > 5
    if rules.cut:
        assert counted["cut"] > 5


def check_forced_pass(m: PresidentMatch) -> bool:
    """``forced_pass()`` applies the pass ``turn_view().forced`` names exactly as ``apply()`` would
    (the same events, log, version and views), and changes nothing otherwise. Whether it passed."""
    seat = m.awaited_turn()
    forced = None if seat is None else m.turn_view(seat).forced
    if not isinstance(forced, Pass):
        version, actions = m.version, len(m.log())
        assert m.forced_pass() is None
        assert (m.version, len(m.log())) == (version, actions)
        return False
    twin, _ = PresidentMatch.replay(m.config, m.log())
    expected, _ = PresidentMatch.replay(m.config, m.log())
    got = twin.forced_pass()
    events = expected.apply(forced)
    assert got is not None and got[0] is forced and got[1] == events
    assert twin.version == expected.version and twin.log() == expected.log()
    for s in [None, *range(m.seats)]:
        assert twin.view(s).to_dict() == expected.view(s).to_dict()
    assert twin.pending() == expected.pending()
    return True


@pytest.mark.parametrize("rules", [CLASSIC, TDC, MIXED], ids=lambda r: r.name)
def test_P6_P7_T4_forced_pass_is_the_only_legal_pass_applied(rules: PresidentRules) -> None:
    counted = {"states": 0, "passed": 0}

    def on_state(m: PresidentMatch) -> None:
        counted["states"] += 1
        counted["passed"] += check_forced_pass(m)

    for i in range(8):
        seats = 3 + i % 4
        drive_president(rules, seats, 2000 * seats + i, 2, on_state)
    assert counted["passed"] > 100 and counted["states"] > 2 * counted["passed"], counted


def test_P5_P6_P7_a_views_legal_moves() -> None:
    m = PresidentMatch.from_hands("classic", ["5c 5d 9c Ks", "7c 7d 7h 8c 3d", "6c 6d 8d 2h"], leader=0)
    lead = m.view(0)
    assert lead.decision == "lead"  # P5: on an empty table he must play
    assert lead.legal == {"plays": [["5", 1], ["5", 2], ["9", 1], ["K", 1]], "pass": False}
    assert m.view(1).decision is None and m.view(1).legal is None
    m.apply(Play(0, parse_cards("5c 5d")))
    follow = m.view(1)
    assert follow.decision == "follow"  # P6: a pair of at least 5, or a pass
    assert follow.legal == {"plays": [["7", 2]], "pass": True}
    m.apply(Play(1, parse_cards("7c 7d")))
    assert m.view(2).legal == {"plays": [], "pass": True}  # nothing of two cards at least 7
    m.apply(Pass(2))
    m.apply(Pass(0))
    m.apply(Play(1, parse_cards("8c")))
    m.apply(Play(2, parse_cards("8d")))  # P7: "ça ou rien" on the 8
    v = m.view(0)
    assert v.must == "8" and m.view(None).must == "8" and v.to_dict()["must"] == "8"
    assert v.legal == {"plays": [], "pass": True}  # his 9 and K are not 8s


def test_T10_legal_ranks_weakest_first_in_revolution() -> None:
    m = PresidentMatch.from_hands("tdc", ["4c 4d 4h 4s Qh 9c", "3c 5c Kd 2d", "6c 7c 8c Ac"], leader=0)
    m.apply(Play(0, parse_cards("4c 4d 4h 4s")))  # T10: reversed, T7b: closed, seat 0 leads again
    assert m.view(0).legal == {"plays": [["Q", 1], ["9", 1]], "pass": False}
    m.apply(Play(0, parse_cards("9c")))
    assert m.view(1).legal == {"plays": [["5", 1], ["3", 1]], "pass": True}  # at most 9, weakest (5) first


def test_T12_give_and_its_decision() -> None:
    m = PresidentMatch.from_hands("tdc", ["Ac", "Kc", "Qc", "3c 4c"], leader=0)
    for s, c in ((0, "Ac"), (1, "Kc"), (2, "Qc")):
        m.apply(Play(s, parse_cards(c)))
    m.deal_hands(["3d 4d 5d", "5c 6c", "9c Tc", "3c 8d 8h Js"])
    pres, vp = m.view(0), m.view(1)
    assert (pres.decision, pres.give, pres.legal) == ("give", 2, {"give": 2})
    assert (vp.decision, vp.give, vp.legal) == ("give", 1, {"give": 1})
    assert m.view(3).give == 0 and m.view(3).decision is None and m.view(None).give == 0
    assert pres.to_dict()["give"] == 2 and m.view(2).to_dict()["give"] == 0
    err = refused(m, Give(0, parse_cards("3d")), IllegalPlay, "give_count")
    assert err.params["count"] == 2 and err.params["legal"] == {"give": 2}
    m.apply(Give(1, parse_cards("5c")))
    assert m.view(1).give == 0 and m.view(1).decision is None and m.view(0).give == 2
    refused(m, Give(1, parse_cards("6c")), NotAllowed, "no_give")


# ---------------------------------------------------------------------------------- refusals


def refused(m: Any, action: Any, exc: type[Refusal], reason: str) -> Refusal:
    """Refused with ``exc`` and ``reason``, nothing changed, and no card of another seat in the params."""
    before = json.dumps(m.view(None).to_dict())
    with pytest.raises(exc) as info:
        m.apply(action)
    assert info.value.params.get("reason") == reason, info.value.params
    assert json.dumps(m.view(None).to_dict()) == before
    if isinstance(m, PresidentMatch) and action.seat is not None:
        mine = {str(c) for c in m.hand(action.seat)}
        shown = {x for x in json.dumps(info.value.params).replace('"', " ").split() if len(x) == 2 and x[1] in "cdhs"}
        assert shown <= mine, shown - mine
    return info.value


def test_play_refusals_carry_the_legal_alternatives() -> None:
    m = PresidentMatch.from_hands("classic", ["9c 9d 3c", "7c 7d Kc Ks Ad", "5h 6h"], leader=0)
    err = refused(m, Pass(0), IllegalPlay, "must_lead")
    assert err.params["legal"] == {"plays": [["3", 1], ["9", 1], ["9", 2]], "pass": False}
    err = refused(m, Play(1, parse_cards("7c")), NotYourTurn, "not_your_turn")
    assert err.params["turn"] == 0
    m.apply(Play(0, parse_cards("9c 9d")))
    err = refused(m, Play(1, parse_cards("7c 7d")), IllegalPlay, "too_weak")
    assert (err.params["rank"], err.params["count"]) == ("9", 2)
    assert err.params["legal"] == {"plays": [["K", 2]], "pass": True}
    err = refused(m, Play(1, parse_cards("Ad")), IllegalPlay, "must_follow_count")
    assert err.params["count"] == 2 and err.params["legal"] == {"plays": [["K", 2]], "pass": True}
    refused(m, Play(1, parse_cards("2c 2d")), IllegalPlay, "not_in_hand")
    refused(m, Play(1, parse_cards("Kc Ad")), IllegalPlay, "mixed_ranks")


def test_P7_refusal_names_the_rank_and_the_alternatives() -> None:
    m = PresidentMatch.from_hands("classic", ["8c 3c", "8d 4d", "Kh 8h", "5s 6s"], leader=0)
    m.apply(Play(0, parse_cards("8c")))
    m.apply(Play(1, parse_cards("8d")))
    err = refused(m, Play(2, parse_cards("Kh")), IllegalPlay, "ca_ou_rien")
    assert err.params["rank"] == "8" and err.params["legal"] == {"plays": [["8", 1]], "pass": True}


def tdc(hands: list[str], leader: int = 0) -> PresidentMatch:
    return PresidentMatch.from_hands("tdc", hands, leader=leader)


def test_T9_cut_refusal_after_ca_ou_rien() -> None:
    """T9 Decision: after two single 5s nobody can cut; the refusal says so, not "you need three 5s"."""
    m = tdc(["5c 9c Kc", "5d Tc Kd", "5h 5s Jc Kh", "6c Qc Ks"])
    m.apply(Play(0, parse_cards("5c")))
    m.apply(Play(1, parse_cards("5d")))  # ça ou rien: two singles of 5 in the trick
    assert m.cut_options() == {}
    err = refused(m, Cut(2, parse_cards("5h 5s")), NotAllowed, "cut_ca_ou_rien")
    assert err.params["rank"] == "5" and err.params["legal"] == {"plays": [["5", 1]], "pass": True}


def test_T9_cut_refusal_after_a_triple_and_on_own_play() -> None:
    m = tdc(["7c 7d 7h 9c", "7s Tc", "Jc Qc", "Kc 3s"])
    m.apply(Play(0, parse_cards("7c 7d 7h")))
    refused(m, Cut(1, parse_cards("7s")), NotAllowed, "cut_triple")  # holding the fourth is only ça ou rien
    m = tdc(["7c 7d 9c", "7h 7s Tc", "Jc Qc", "Kc 3s"])
    m.apply(Play(0, parse_cards("7c 7d")))
    assert m.cut_options() == {1: parse_cards("7h 7s")}
    refused(m, Cut(0, parse_cards("7c 7d")), NotAllowed, "cut_own")


def test_T9_cut_refusal_when_only_two_remain_and_when_you_lack_one() -> None:
    m = tdc(["6c 9c Ac", "6d 2c", "6h 6s Jc", "Kc Qd"])
    m.apply(Play(0, parse_cards("6c")))
    err = refused(m, Cut(2, parse_cards("6h 6s")), NotAllowed, "cannot_cut")  # the 6d is elsewhere
    assert (err.params["rank"], err.params["count"]) == ("6", 3)  # true: the three others remain
    m = tdc(["6c 9c Ac", "6d 2c 9d", "6h 6s Jc", "Kc Qd 8h"])
    m.apply(Play(0, parse_cards("6c")))
    m.apply(Play(1, parse_cards("2c")))  # T7a: closes, seat 1 leads
    m.apply(Play(1, parse_cards("6d")))
    err = refused(m, Cut(2, parse_cards("6h 6s")), NotAllowed, "cut_short")  # a 6 went in the last trick
    assert (err.params["count"], err.params["left"]) == (3, 2)
    m = tdc(["6c 9c Ac", "6d 2c", "6h 6s Jc", "Kc Qd 8h"])
    m.apply(Play(0, parse_cards("6c")))
    m.apply(Play(1, parse_cards("2c")))
    m.apply(Play(1, parse_cards("6d")))  # his last card: T7c closes the trick, seat 2 leads
    refused(m, Cut(2, parse_cards("6h 6s")), NotAllowed, "cut_closing")


def test_T9_cut_refusal_on_a_closing_play_and_after_the_trick_moved_on() -> None:
    m = tdc(["2c 9c", "2d 2h 2s 4c", "Jc Qc 5d", "Kc 3s 8d"])
    m.apply(Play(0, parse_cards("2c")))  # T7a: the strongest rank closes the trick at once
    refused(m, Cut(1, parse_cards("2d 2h 2s")), NotAllowed, "cut_closing")
    m = tdc(["8c 9c Kd", "8d 8h 8s 4c", "Jc Qc 5d", "Kc 3s 7d"])
    m.apply(Play(0, parse_cards("8c")))
    m.apply(Pass(1))
    m.apply(Play(2, parse_cards("Jc")))  # the 8 is covered: the chance is gone
    err = refused(m, Cut(1, parse_cards("8d 8h 8s")), NotAllowed, "cut_moved_on")
    assert err.params["rank"] == "8"
    m.apply(Pass(3))
    m.apply(Pass(0))  # T7d: closes, seat 2 leads
    refused(m, Cut(1, parse_cards("8d 8h 8s")), NotAllowed, "cut_moved_on")


def test_T14_a_passive_player_may_not_cut() -> None:
    from engine.president import Timeout

    m = tdc(["8c 9c Kd", "Tc 4c", "8d 8h 8s Jc", "Kc 3s 7d"])
    m.apply(Play(0, parse_cards("9c")))
    m.apply(Play(1, parse_cards("Tc")))
    m.apply(Timeout(2))  # T14: seat 2 is passive for the round
    m.apply(Pass(3))
    m.apply(Pass(0))  # T7d: seat 1 leads
    m.apply(Play(1, parse_cards("4c")))
    m.apply(Play(3, parse_cards("7d")))
    m.apply(Play(0, parse_cards("8c")))
    assert m.cut_options() == {}
    refused(m, Cut(2, parse_cards("8d 8h 8s")), NotAllowed, "passive")


def test_T9_wrong_cut_cards_name_the_right_ones() -> None:
    m = tdc(["8c 9c Kd", "8d 8h 8s 4c", "Jc Qc 5d", "Kc 3s 7d"])
    m.apply(Play(0, parse_cards("8c")))
    err = refused(m, Cut(1, parse_cards("8d 8h")), IllegalPlay, "cut_cards")
    assert err.params["cut"] == ["8d", "8h", "8s"] and err.params["count"] == 3
    refused(PresidentMatch.from_hands("classic", ["8c 9c", "8d 8h 8s", "Jc"], leader=0), Cut(1, parse_cards("8d")),
            NotAllowed, "no_cut")  # fmt: skip


# ---------------------------------------------------------------------------------- Speculation


def check_speculation_views(m: SpeculationMatch) -> None:
    spectator = m.view(None)
    assert spectator.decision is None and spectator.can is None
    d = spectator.to_dict()
    assert d["decision"] is None and d["can"] is None
    pending = m.pending()
    for seat in range(m.seats):
        v = m.view(seat)
        can = v.can
        assert can is not None and v.to_dict()["can"] == can and v.to_dict()["decision"] == v.decision
        legal = list(m.legal_actions(seat))
        kinds = {type(a) for a in legal}
        expected = None
        for p in pending:
            if p.kind == "turn" and p.seat == seat:
                expected = "turn"
            elif p.kind == "auction" and m._auction is not None and m._auction.owner == seat:
                expected = "auction"
        assert v.decision == expected
        assert can["turn"] == (Turn(seat) in legal)
        assert can["keep"] == (Keep(seat) in legal) and can["sell"] == (Sell(seat) in legal)
        bids = [a.amount for a in legal if isinstance(a, Bid)]
        assert can["bid"] == (bids[0] if bids else None)
        offers = [a for a in legal if isinstance(a, Offer)]
        assert can["offer"] == bool(offers) and can["offer_to"] == [a.to for a in offers]
        for key, cls in (("accept", Accept), ("decline", Decline), ("withdraw", Withdraw)):
            assert can[key] == [a.offer for a in legal if isinstance(a, cls)], key
        for a in legal:  # and the engine agrees that each is allowed
            assert m.can(a), a
        if not legal:
            assert not any(can[k] for k in can)
        assert kinds <= {Turn, Keep, Sell, Bid, Offer, Accept, Decline, Withdraw}
        if can["bid"] is not None:
            assert m.can(Bid(seat, can["bid"])) and not m.can(Bid(seat, can["bid"] - 1))
        for to in can["offer_to"]:
            chips = v.seats[seat].chips
            top = v.seats[to].facedown
            assert m.can(Offer(seat, to, top, chips)) and not m.can(Offer(seat, to, top + 1, 1))


def test_speculation_views_agree_with_the_engine_on_random_states() -> None:
    from tests.engine.speculation.test_invariants import random_action

    states = 0
    seen: set[str] = set()
    for i in range(24):
        rng = random.Random(500 + i)
        seats = 3 + i % 5
        m = SpeculationMatch(seats=seats, chips=[rng.randint(2, 30) for _ in range(seats)], deals=6)
        steps = 0
        while not m.over and steps < 400:
            check_speculation_views(m)
            states += 1
            for s in range(seats):
                v = m.view(s)
                if v.decision:
                    seen.add(v.decision)
                seen |= {k for k, x in (v.can or {}).items() if x}
            if m.needs_deal():
                m.apply(m.deal_action(seed_from_int(rng.getrandbits(32))))
            else:
                with contextlib.suppress(Refusal):
                    m.apply(random_action(m, rng))
            steps += 1
    assert states > 2000
    assert {"turn", "auction", "sell", "keep", "bid", "offer", "accept", "decline", "withdraw"} <= seen


def spec(trump: str, stacks: list[str], chips: list[int] | None = None) -> SpeculationMatch:
    """4 seats, dealer 0: ``stacks`` of seats 1, 2, 3, 0 bottom card first, then the trump (S4, S5)."""
    m = SpeculationMatch(seats=4, chips=chips or [20] * 4, first_dealer=0)
    order = [parse_cards(s) for s in stacks]
    cards = [int(order[p][i]) for i in range(3) for p in range(4)] + [int(parse_cards(trump)[0])]
    m.apply(m.deal_action(b"spec", cards=cards))
    return m


def test_S7_S8_decisions_and_can() -> None:
    m = spec("5h", ["2c 3c 4c", "2d 3d 4d", "6c 7c 8c", "9c Tc Jc"], chips=[20, 20, 3, 1])
    owner = m.view(0)
    assert owner.decision == "auction" and owner.can["keep"] and not owner.can["sell"]  # type: ignore[index]
    assert m.view(1).decision is None and m.view(1).can["bid"] == 1  # type: ignore[index]
    assert m.view(3).can["bid"] is None  # no chip left after the ante (S7: at most his chips)
    err = refused(m, Turn(1), NotYourTurn, "auction_open")
    assert err.params["can"] == m.view(1).can
    refused(m, Offer(1, 2, 1, 1), NotAllowed, "auction_open")
    m.apply(Bid(1, 3))
    err = refused(m, Bid(2, 3), IllegalPlay, "bid_too_low")
    assert err.params["min"] == 4
    refused(m, Bid(2, 5), InsufficientChips, "bid_over_chips")
    refused(m, Bid(0, 5), NotAllowed, "own_auction")
    assert m.view(0).can["sell"]  # type: ignore[index]
    m.apply(Keep(0))
    v = m.view(1)
    assert v.decision == "turn" and v.can["turn"] and v.can["offer"] and v.can["offer_to"] == [0, 2, 3]  # type: ignore[index]
    refused(m, Turn(0), NotYourTurn, "holder_turns_not")
    refused(m, Turn(2), NotYourTurn, "not_your_turn")
    refused(m, Offer(1, 1, 1, 1), NotAllowed, "self_offer")
    refused(m, Offer(1, 2, 1, 50), InsufficientChips, "price_over_chips")
    m.apply(Offer(2, 1, 1, 1))
    assert m.view(1).can["accept"] == [1] and m.view(2).can["withdraw"] == [1]  # type: ignore[index]


def test_cards_of_mask_lists_the_cards_of_each_bit_weakest_first() -> None:
    from engine.cards import CARDS
    from engine.president.view import cards_of_mask

    rng = random.Random(52)
    masks = [0, 1, 1 << 51, (1 << 52) - 1] + [rng.getrandbits(52) for _ in range(500)]
    masks += [sum(1 << c for c in rng.sample(range(52), rng.randint(1, 3))) for _ in range(500)]
    for mask in masks:
        expected = tuple(CARDS[c] for c in range(52) if mask >> c & 1)
        got = cards_of_mask(mask)
        assert got == expected and all(a is b for a, b in zip(got, expected, strict=True))


def test_codes_of_cards_and_masks_are_format_cards() -> None:
    """``card_codes`` and ``played_codes`` (the states' fast forms) give what ``format_cards`` gives."""
    from engine.cards import CARDS, format_cards
    from engine.president.view import card_codes, cards_of_mask, played_codes

    rng = random.Random(7)
    for k in (0, 1, 2, 13, 52):
        for _ in range(50):
            cards = tuple(sorted(rng.sample(CARDS, k)))
            mask = sum(1 << c for c in cards)
            assert card_codes(cards) == format_cards(cards)
            assert played_codes(mask) == format_cards(cards_of_mask(mask)) == format_cards(cards)

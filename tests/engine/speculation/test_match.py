"""Speculation scenarios with explicit deals, one or more per rule of RULES.md S1–S12.

Explicit decks use the test hook of the deal action (``deal_action(seed, cards=...)``):
the cards in the order they leave the deck. :func:`deck_for` builds that order
from the stacks we want, written top card first.
"""

from __future__ import annotations

import json

import pytest

from engine import game_class
from engine.api import Pending
from engine.cards import Card, parse_cards
from engine.errors import BadArgument, IllegalPlay, NotAllowed, NotYourTurn, Refusal
from engine.seeds import SeedStream, derive, seed_from_int
from engine.speculation import (
    STRENGTH,
    Accept,
    Bid,
    CloseAuction,
    Deal,
    Decline,
    Keep,
    Offer,
    Sell,
    SpeculationMatch,
    Turn,
    Withdraw,
    action_from_dict,
)

SEED = b"scenario"


def deck_for(dealer: int, seats: int, stacks: dict[int, str], trump: str) -> tuple[int, ...]:
    """Deck order giving each playing seat its stack (written top first) and the trump card.

    Seats missing from ``stacks`` sit the deal out. Dealing goes one card at a time from
    the dealer's left, the dealer last (S4); the first card received is the bottom one.
    """
    order = [s for s in ((dealer + i) % seats for i in range(1, seats + 1)) if s in stacks]
    cards = {s: parse_cards(stacks[s]) for s in order}
    out = []
    for r in range(3):
        for s in order:
            out.append(int(cards[s][2 - r]))
    out.append(int(Card.parse(trump)))
    return tuple(out)


def new(seats=4, chips=None, stacks=None, trump="7h", ante=1, deals=None, dealer=0):
    m = SpeculationMatch(seats=seats, chips=chips or [20] * seats, ante=ante, deals=deals, first_dealer=dealer)
    if stacks is not None:
        events = m.apply(m.deal_action(SEED, cards=deck_for(dealer, seats, stacks, trump)))
        return m, events
    return m, ()


def names(events):
    return [e.name for e in events]


def run(m, *actions):
    out = []
    for a in actions:
        out += m.apply(a)
        m.check_invariants()
    return out


# four players, dealer 0: seat 1 deals first... stacks written top first
PLAIN = {1: "2c 3c 4c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"}


def test_strength_table_S1():
    # S1: only trump matters, 2 low ... K, A high
    assert [STRENGTH[Card.parse(r + "h").rank] for r in "23456789TJQKA"] == list(range(13))


def test_S1_players_and_chips_are_validated():
    for bad in (2, 10):
        with pytest.raises(ValueError):
            SpeculationMatch(seats=bad)
    with pytest.raises(ValueError):
        SpeculationMatch(seats=3, chips=[1, 2])
    with pytest.raises(ValueError):
        SpeculationMatch(seats=3, chips=[1, 2, -1])
    with pytest.raises(ValueError):
        SpeculationMatch(seats=3, rules="tdc")
    assert game_class("speculation") is SpeculationMatch
    m = SpeculationMatch(seats=3, chips=[5, 5, 5])
    assert m.game == "speculation" and m.rules_name == "speculation" and m.seats == 3
    assert m.deals == 6 and m.needs_deal() and not m.over and m.round == 0


def test_S2_first_dealer_drawn_from_the_first_seed_then_passes_left():
    seed = seed_from_int(7)
    m = SpeculationMatch(seats=5, chips=[10] * 5)
    events = m.apply(m.deal_action(seed))
    expected = SeedStream(derive(seed, "dealer")).below(5)
    dealt = next(e for e in events if e.name == "dealt")
    assert dealt.dealer == expected == m.view(None).dealer
    # finish the deal by time-outs, then the next dealer is the next seat
    while not m.needs_deal():
        m.apply(m.pending()[0].on_timeout)
    events = m.apply(m.deal_action(seed_from_int(8)))
    assert next(e for e in events if e.name == "dealt").dealer == (expected + 1) % 5
    assert m.round == 2


def test_S3_ante_dealer_pays_double_into_the_pool():
    m, events = new(stacks=PLAIN)
    ante = events[0]
    assert ante.name == "ante" and ante.to_dict()["payments"] == [
        {"seat": 0, "amount": 2},
        {"seat": 1, "amount": 1},
        {"seat": 2, "amount": 1},
        {"seat": 3, "amount": 1},
    ]
    assert m.pool == 5 and m.chips == (18, 19, 19, 19)


def test_S3_player_who_cannot_pay_sits_out():
    m, events = new(chips=[20, 0, 20, 20], stacks={2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"})
    v = m.view(1).to_dict()
    assert [s["playing"] for s in v["seats"]] == [True, False, True, True]
    assert v["seats"][1]["facedown"] == 0 and v["pool"] == 4
    assert next(e for e in events if e.name == "dealt").players == (0, 2, 3)
    assert m.legal_actions(1) == ()
    with pytest.raises(NotAllowed):
        m.apply(Bid(1, 1))
    run(m, Keep(0))
    # S12a: "the dealer's left" is the next seat that plays
    assert m.pending()[0].seat == 2


def test_S3_a_deal_needs_three_players():
    m = SpeculationMatch(seats=4, chips=[5, 0, 0, 5])
    assert m.over and not m.needs_deal()
    m = SpeculationMatch(seats=3, chips=[5, 5, 5], first_dealer=0)
    with pytest.raises(NotAllowed):
        m.apply(m.deal_action(SEED, present=(0, 1)))
    assert m.round == 0 and m.chips == (5, 5, 5)


def test_S12a_dealer_who_cannot_pay_double_passes_the_deal():
    # seat 0 would deal but has 1 chip: seat 1 deals; seat 0 still plays with a single ante
    m = SpeculationMatch(seats=4, chips=[1, 20, 20, 20], first_dealer=0)
    events = m.apply(m.deal_action(SEED, cards=deck_for(1, 4, {2: "2c 3c 4c", 3: "2d 3d 4d", 0: "2s 3s 4s", 1: "5c 5d 5s"}, "7h")))
    dealt = next(e for e in events if e.name == "dealt")
    assert dealt.dealer == 1 and set(dealt.players) == {0, 1, 2, 3}
    assert m.chips == (0, 18, 19, 19)
    assert m.view(None).best == (1, Card.parse("7h"))
    # after this deal the deal passes left of the actual dealer: seat 2
    run(m, Keep(1))
    while not m.needs_deal():
        run(m, m.pending()[0].on_timeout)
    events = m.apply(m.deal_action(seed_from_int(3)))
    assert next(e for e in events if e.name == "dealt").dealer == 2


def test_S4_three_face_down_cards_dealt_from_dealers_left_first_card_at_bottom():
    m, events = new(stacks=PLAIN)
    dealt = next(e for e in events if e.name == "dealt")
    assert dealt.to_dict() == {"event": "dealt", "round": 1, "dealer": 0, "players": [0, 1, 2, 3], "facedown": [3, 3, 3, 3]}
    # the raw deck: seat 1 got the first card (its bottom: 4c), the dealer the fourth
    deck = deck_for(0, 4, PLAIN, "7h")
    assert [str(Card(c)) for c in deck[:4]] == ["4c", "4d", "4s", "5s"]
    run(m, Keep(0))
    # turning takes the top card: the last one received
    ev = run(m, Turn(1))
    assert ev[0].to_dict() == {"event": "turned", "seat": 1, "card": "2c", "best": False}


def test_S5_trump_card_face_up_belongs_to_the_dealer():
    m, events = new(stacks=PLAIN, trump="9h")
    trump = next(e for e in events if e.name == "trump")
    assert trump.to_dict() == {"event": "trump", "seat": 0, "card": "9h", "suit": "h"}
    v = m.view(2).to_dict()
    assert v["trump"] == "h" and v["best"] == {"seat": 0, "card": "9h"}
    assert v["seats"][0]["faceup"] == ["9h"] and v["seats"][0]["facedown"] == 3
    assert v["auction"] == {"seat": 0, "card": "9h", "best_bid": 0, "bidder": None}
    assert v["turn"] is None


def test_S6_ace_at_turn_up_dealer_takes_pool_at_once():
    m, events = new(stacks=PLAIN, trump="Ah")
    assert names(events) == ["ante", "dealt", "trump", "pool_won", "revealed", "deal_over"]
    won = events[3].to_dict()
    assert won == {"event": "pool_won", "seat": 0, "amount": 5, "card": "Ah", "reason": "ace"}
    assert m.chips == (23, 19, 19, 19) and m.pool == 0
    assert m.needs_deal() and m.pending() == () and m.round == 1


def test_S7_sale_of_the_first_trump_and_turning_after_it():
    m, _ = new(stacks=PLAIN, trump="7h")
    ev = run(m, Bid(2, 1), Bid(3, 2), Bid(2, 4))
    assert [e.to_dict() for e in ev] == [
        {"event": "bid", "seat": 2, "amount": 1},
        {"event": "bid", "seat": 3, "amount": 2},
        {"event": "bid", "seat": 2, "amount": 4},
    ]
    ev = run(m, Sell(0))
    assert ev[0].to_dict() == {"event": "sold", "seat": 0, "to": 2, "card": "7h", "price": 4}
    # S7: the price goes to the seller, never the pool; the buyer shows the card and holds it
    assert m.chips == (18 + 4, 19, 19 - 4, 19) and m.pool == 5
    v = m.view(None).to_dict()
    assert v["best"] == {"seat": 2, "card": "7h"} and v["seats"][2]["faceup"] == ["7h"]
    assert v["seats"][0]["faceup"] == [] and v["auction"] is None
    # S8: turning starts at the dealer's left and skips the holder; the dealer turns too
    turners = []
    for _ in range(5):
        (p,) = m.pending()
        assert p.kind == "turn"
        turners.append(p.seat)
        run(m, Turn(p.seat))
    assert turners == [1, 3, 0, 1, 3]


def test_S7_best_bidder_may_raise_own_bid_S12c():
    m, _ = new(stacks=PLAIN)
    run(m, Bid(1, 1), Bid(1, 3))
    assert m.view(None).auction.best_bid == 3
    with pytest.raises(IllegalPlay):
        m.apply(Bid(2, 3))


def test_S7_keep_and_time_out_keep():
    m, _ = new(stacks=PLAIN)
    (p,) = m.pending()
    assert p.kind == "auction" and p.seat is None and p.on_timeout == CloseAuction()
    run(m, Bid(1, 2))
    (p2,) = m.pending()
    assert p2.key != p.key  # a bid restarts the auction's deadline
    ev = run(m, p2.on_timeout)
    assert ev[0].to_dict() == {"event": "kept", "seat": 0, "card": "7h", "timeout": True}
    assert m.chips == (18, 19, 19, 19)
    m, _ = new(stacks=PLAIN)
    ev = run(m, Keep(0))
    assert ev[0].to_dict()["timeout"] is False and m.pending()[0].seat == 1


def test_S7_S8_new_best_trump_sold_twice_previous_holder_turns_again():
    # trump 7h; seat 1 turns 9h (new best), sells it to seat 3; later seat 0 turns Jh and sells it to seat 1
    stacks = {1: "9h 2c 3c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "Jh 5d 5s"}
    m, _ = new(stacks=stacks)
    run(m, Keep(0))
    ev = run(m, Turn(1))
    assert names(ev) == ["turned", "auction"] and ev[0].best
    assert m.view(None).turn is None  # S12c: nobody on turn during an auction
    with pytest.raises(NotYourTurn):
        m.apply(Turn(2))
    run(m, Bid(0, 1), Bid(3, 2), Sell(1))
    assert m.view(None).best == (3, Card.parse("9h")) and m.chips == (18, 21, 19, 17)
    # turning resumes after the seat that turned 9h (seat 1): 2, then 0 (3 holds the best)
    assert m.pending()[0].seat == 2
    run(m, Turn(2))
    ev = run(m, Turn(0))
    assert ev[0].best and names(ev) == ["turned", "auction"]
    run(m, Bid(1, 3), Sell(0))
    assert m.view(None).best == (1, Card.parse("Jh")) and m.chips == (21, 18, 19, 17)
    # after seat 0: seat 1 holds, so seat 2; and seat 3, the previous holder, turns again
    seq = []
    for _ in range(3):
        seq.append(m.pending()[0].seat)
        run(m, m.pending()[0].on_timeout)
    assert seq == [2, 3, 0]


def test_S8_turning_order_after_a_sale_resumes_after_the_owner():
    # the first trump is sold by the dealer (seat 0) to seat 1, the dealer's left: seat 2 starts
    m, _ = new(stacks=PLAIN)
    run(m, Bid(1, 1), Sell(0))
    assert m.pending()[0].seat == 2


def test_S12b_trump_ace_turned_mid_deal_ends_without_auction():
    stacks = {1: "2c 3c 4c", 2: "Ah 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"}
    m, _ = new(stacks=stacks)
    run(m, Bid(1, 2), Sell(0))
    ev = run(m, Turn(2))
    assert names(ev) == ["turned", "pool_won", "revealed", "deal_over"]
    assert ev[1].to_dict() == {"event": "pool_won", "seat": 2, "amount": 5, "card": "Ah", "reason": "ace"}
    assert m.needs_deal() and m.chips == (20, 17, 24, 19)


def test_S12b_new_best_leaving_only_its_owner_with_cards_ends_at_once():
    # seat 2 buys the dealer's stack, then turns a higher trump: only seat 2 has face-down cards left
    m, _ = new(seats=3, chips=[30, 30, 30], stacks={1: "2c 3c 4c", 2: "2d 3d 9h", 0: "5c 5d 5s"})
    run(m, Keep(0), Offer(2, 0, 3, 1), Accept(0, 1))
    run(m, Turn(1), Turn(2), Turn(1), Turn(2), Turn(1))
    assert m.pending()[0].seat == 2 and [s.facedown for s in m.view(None).seats] == [0, 0, 4]
    ev = run(m, Turn(2))
    assert names(ev) == ["turned", "pool_won", "revealed", "deal_over"]
    assert ev[1].seat == 2 and ev[1].reason == "end"
    assert ev[2].to_dict()["stacks"] == [[], [], ["5c", "5d", "5s"]]


def test_S9_S10_holder_buys_all_remaining_face_down_cards_and_wins():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0))
    ev = run(m, Offer(0, 1, 3, 2), Offer(0, 2, 3, 2))
    assert ev[0].to_dict() == {"event": "offered", "offer": 1, "from": 0, "to": 1, "cards": 3, "price": 2}
    assert [o["offer"] for o in m.view(None).to_dict()["offers"]] == [1, 2]  # several open at once
    ev = run(m, Accept(1, 1))
    assert ev[0].to_dict() == {"event": "traded", "offer": 1, "from": 0, "to": 1, "cards": 3, "price": 2}
    # S12e: seat 1 was on turn and has no card left: the turn goes on to seat 2
    assert m.pending()[0].seat == 2 and m.view(None).seats[0].facedown == 6
    run(m, Accept(2, 2), Offer(0, 3, 3, 3))
    assert m.pending()[0].seat == 3
    ev = run(m, Accept(3, 3))
    # S10: nobody but the holder has a face-down card: the holder takes the pool
    assert names(ev) == ["traded", "pool_won", "revealed", "deal_over"]
    assert ev[1].seat == 0 and ev[1].reason == "end"
    assert m.chips == (18 - 7 + 5, 21, 21, 22)
    # S9: the bought cards went UNDER the buyer's stack, in the order bought (S12h reveals top first)
    revealed = ev[2].to_dict()["stacks"]
    assert revealed == [["5c", "5d", "5s", "2c", "3c", "4c", "2d", "3d", "4d", "2s", "3s", "4s"], [], [], []]


def test_S9_trade_of_some_cards_takes_them_from_the_top():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0), Offer(3, 2, 2, 1), Accept(2, 1))
    assert [s.facedown for s in m.view(None).seats] == [3, 3, 1, 5]
    # S12e: the turn stays with seat 1, who did not trade
    assert m.pending()[0].seat == 1
    run(m, Turn(1))
    ev = run(m, Turn(2))
    assert ev[0].to_dict()["card"] == "4d"  # 2d and 3d left with the trade
    turned = [e.to_dict()["card"] for e in run(m, Turn(3), Turn(1), Turn(3), Turn(1), Turn(3), Turn(3)) if e.name == "turned"]
    # seat 3's own cards first, then the bought packet (it went under, its top card first)
    assert turned == ["2s", "3c", "3s", "4c", "4s", "2d"]


def test_S12e_trade_does_not_move_the_turn():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0))
    key = m.pending()[0].key
    run(m, Offer(2, 1, 1, 1), Accept(1, 1))
    assert m.pending()[0].key == key and m.pending()[0].seat == 1
    # the turner buys: still his turn
    run(m, Offer(1, 3, 2, 1), Accept(3, 2))
    assert m.pending()[0].seat == 1


def test_S12d_offer_lapses_when_a_covered_card_is_turned():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0), Offer(3, 1, 1, 1), Offer(0, 2, 2, 1))
    ev = run(m, Turn(1))
    assert [e.to_dict() for e in ev] == [
        {"event": "turned", "seat": 1, "card": "2c", "best": False},
        {"event": "lapsed", "offer": 1, "reason": "cards"},
    ]
    assert [o.offer for o in m.view(None).offers] == [2]
    with pytest.raises(NotAllowed):
        m.apply(Accept(1, 1))


def test_S12d_offer_lapses_when_the_buyers_chips_fall_below_its_price():
    m, _ = new(chips=[20, 5, 20, 20], stacks=PLAIN)
    run(m, Keep(0), Offer(1, 2, 1, 4), Offer(1, 3, 1, 2), Offer(0, 1, 1, 1))
    assert m.chips[1] == 4  # after the ante; both offers are within his chips, not their sum
    run(m, Accept(1, 3))  # seat 1 sells one card for 1: 5 chips
    run(m, Offer(3, 1, 1, 1), Offer(1, 0, 3, 3))
    ev = run(m, Accept(0, 5))  # seat 1 pays 3: 2 chips left, below offer 1's price
    assert [e.to_dict() for e in ev] == [
        {"event": "traded", "offer": 5, "from": 1, "to": 0, "cards": 3, "price": 3},
        {"event": "lapsed", "offer": 1, "reason": "chips"},
    ]
    assert [o.offer for o in m.view(None).offers] == [2, 4]


def test_S12d_offers_lapse_when_the_deal_ends():
    m, _ = new(stacks={1: "2c 3c 4c", 2: "Ah 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"})
    run(m, Keep(0), Offer(3, 1, 1, 1))
    run(m, Turn(1))  # lapses offer 1
    run(m, Offer(1, 3, 1, 1))
    ev = run(m, Turn(2))
    assert [e.to_dict() for e in ev if e.name == "lapsed"] == [{"event": "lapsed", "offer": 2, "reason": "deal_over"}]
    assert m.view(None).offers == ()


def test_S12c_no_offer_or_accept_during_an_auction_decline_and_withdraw_any_time():
    stacks = {1: "9h 2c 3c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"}
    m, _ = new(stacks=stacks)
    with pytest.raises(NotAllowed):
        m.apply(Offer(1, 2, 1, 1))
    run(m, Keep(0), Offer(2, 3, 1, 1), Offer(3, 2, 1, 1), Offer(0, 3, 2, 1))
    run(m, Turn(1))  # 9h: an auction opens
    assert m.view(None).auction is not None
    with pytest.raises(NotAllowed):
        m.apply(Accept(3, 1))
    with pytest.raises(NotAllowed):
        m.apply(Offer(2, 0, 1, 1))
    ev = run(m, Decline(3, 1), Withdraw(3, 2))
    assert [e.to_dict() for e in ev] == [
        {"event": "declined", "offer": 1, "seat": 3},
        {"event": "withdrawn", "offer": 2, "seat": 3},
    ]
    legal = m.legal_actions(3)
    assert Decline(3, 3) in legal and Accept(3, 3) not in legal


def test_S12f_time_out_turns_the_top_card_and_is_not_passive():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0))
    (p,) = m.pending()
    assert p == Pending(p.key, "turn", 1, Turn(1))
    ev = run(m, p.on_timeout)
    assert ev[0].name == "turned" and ev[0].seat == 1
    # next time round seat 1 turns again like anyone
    for _ in range(2):
        run(m, m.pending()[0].on_timeout)
    assert m.pending()[0].seat == 1


def test_S11_S12g_each_player_deals_twice_ace_deals_included():
    m = SpeculationMatch(seats=3, chips=[50, 50, 50], first_dealer=0)
    dealers = []
    events = []
    while not m.over:
        # every third deal turns up the trump ace at once (S12g counts it)
        if m.round % 3 == 0:
            d = m.view(None).dealer
            dealer = 0 if d is None else (d + 1) % 3
            evs = m.apply(m.deal_action(SEED, cards=deck_for(dealer, 3, {0: "2c 3c 4c", 1: "2d 3d 4d", 2: "2s 3s 4s"}, "As")))
        else:
            evs = m.apply(m.deal_action(seed_from_int(m.round)))
        dealers.append(next(e for e in evs if e.name == "dealt").dealer)
        events += evs
        while not m.needs_deal() and not m.over:
            events += m.apply(m.pending()[0].on_timeout)
    assert dealers == [0, 1, 2, 0, 1, 2] and m.round == 6
    over = events[-1].to_dict()
    assert over["event"] == "match_over" and over["deals"] == 6
    assert sum(m.chips) == 150 and over["totals"] == list(m.chips)
    assert over["changes"] == [c - 50 for c in m.chips]
    assert over["winners"] == [s for s in range(3) if over["changes"][s] == max(over["changes"])]
    with pytest.raises(NotAllowed):
        m.apply(m.deal_action(SEED))


def test_S12h_all_stack_cards_shown_at_the_end_undealt_never():
    m, _ = new(stacks=PLAIN)
    run(m, Keep(0), Turn(1), Turn(2), Turn(3))
    ev = ()
    while not m.needs_deal():
        ev = run(m, m.pending()[0].on_timeout)
    revealed = next(e for e in ev if e.name == "revealed").to_dict()
    # the holder's (dealer's) face-down cards are shown, top first; undealt cards nowhere
    assert revealed["stacks"] == [["5c", "5d", "5s"], [], [], []]
    text = json.dumps([e.to_dict() for e in ev])
    assert "Kc" not in text and "Qd" not in text


def test_view_keys_and_no_hand():
    m, _ = new(stacks=PLAIN)
    v = m.view(1).to_dict()
    for key in ("game", "rules", "round", "you", "dealer", "turn", "trump", "best", "pool", "auction", "offers", "seats"):
        assert key in v
    assert "hand" not in v and v["you"] == 1 and m.view(None).to_dict()["you"] is None
    assert v["game"] == "speculation" and v["rules"] == "speculation" and v["round"] == 1
    assert set(v["seats"][0]) >= {"seat", "chips", "faceup", "facedown", "playing", "cards"}
    assert v["unseen"] == 51 and v["seats"][0]["cards"] == 4


def test_refusal_codes_and_refusals_change_nothing():
    m, _ = new(chips=[20, 3, 20, 20], stacks=PLAIN)

    def refused(action, code):
        before = (m.view(None).to_dict(), m.chips, m.pending())
        with pytest.raises(Refusal) as info:
            m.apply(action)
        assert info.value.code == code, action
        assert not m.can(action)
        assert (m.view(None).to_dict(), m.chips, m.pending()) == before

    # during the first auction
    refused(Bid(0, 1), "not_allowed")  # the owner does not bid
    refused(Bid(1, 0), "illegal_play")
    refused(Bid(1, 3), "insufficient_chips")  # 2 chips after the ante
    refused(Sell(0), "not_allowed")  # no bid yet
    refused(Sell(1), "not_allowed")
    refused(Keep(2), "not_allowed")
    refused(Turn(1), "not_your_turn")
    refused(Offer(1, 2, 1, 1), "not_allowed")
    refused(Accept(1, 99), "not_allowed")
    refused(Deal(SEED), "not_allowed")
    run(m, Bid(2, 2))
    refused(Bid(3, 2), "illegal_play")
    run(m, Keep(0))
    # turning, seat 1 on turn
    refused(CloseAuction(), "not_allowed")
    refused(Turn(2), "not_your_turn")
    refused(Bid(2, 5), "not_allowed")  # no auction
    refused(Offer(1, 1, 1, 1), "not_allowed")  # not to oneself
    refused(Offer(1, 2, 4, 1), "illegal_play")  # only 3 cards there
    refused(Offer(1, 2, 0, 1), "illegal_play")
    refused(Offer(1, 2, 1, 0), "illegal_play")
    refused(Offer(1, 2, 1, 3), "insufficient_chips")
    refused(Offer(1, 9, 1, 1), "bad_argument")
    run(m, Offer(1, 2, 1, 1))
    refused(Accept(3, 1), "not_allowed")  # not a party
    refused(Accept(1, 1), "not_allowed")  # the buyer does not accept
    refused(Decline(1, 1), "not_allowed")
    refused(Withdraw(2, 1), "not_allowed")
    refused(Turn(7), "not_allowed")


def test_sitting_out_seats_do_nothing_S12a():
    m, _ = new(chips=[20, 0, 20, 20], stacks={2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"})
    run(m, Keep(0))
    with pytest.raises(NotAllowed):
        m.apply(Offer(2, 1, 1, 1))
    with pytest.raises(NotAllowed):
        m.apply(Offer(1, 2, 1, 1))


def test_action_from_protocol_commands():
    m, _ = new(stacks=PLAIN)
    assert m.action_from(2, "bid", {"amount": 3}) == Bid(2, 3)
    assert m.action_from(2, "bid", {"amount": "3"}) == Bid(2, 3)
    assert m.action_from(0, "sell", {}) == Sell(0)
    assert m.action_from(0, "keep", {}) == Keep(0)
    assert m.action_from(1, "turn", {}) == Turn(1)
    assert m.action_from(1, "offer", {"to": 2, "cards": 2, "price": 5}) == Offer(1, 2, 2, 5)
    assert m.action_from(1, "accept", {"offer": 4}) == Accept(1, 4)
    assert m.action_from(1, "decline", {"offer": 4}) == Decline(1, 4)
    assert m.action_from(1, "withdraw", {"offer": 4}) == Withdraw(1, 4)
    for cmd, args in (("bid", {}), ("bid", {"amount": True}), ("bid", {"amount": "x"}), ("offer", {"to": 1}), ("play", {})):
        with pytest.raises(BadArgument):
            m.action_from(1, cmd, args)
    with pytest.raises(BadArgument):
        m.apply("turn")  # type: ignore[arg-type]


def test_action_dicts_round_trip():
    actions = [
        Deal(b"\x01\x02", (1, 2, 3), (0, 1, 2)),
        Deal(b"x"),
        CloseAuction(),
        Turn(1),
        Bid(2, 5),
        Sell(0),
        Keep(0),
        Offer(1, 2, 3, 4),
        Accept(2, 7),
        Decline(2, 7),
        Withdraw(1, 7),
    ]
    for a in actions:
        assert action_from_dict(json.loads(json.dumps(a.to_dict()))) == a
    assert CloseAuction().to_dict() == {"cmd": "close", "seat": None}


def test_replay_gives_the_same_events():
    m = SpeculationMatch(seats=4, chips=[20] * 4, first_dealer=0)
    actions = [
        m.deal_action(SEED, cards=deck_for(0, 4, {1: "9h 2c 3c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "Jh 5d 5s"}, "7h")),
        Bid(1, 1),
        Sell(0),
        Offer(0, 2, 2, 3),
        Turn(2),
        Turn(3),
        Turn(0),
        Bid(3, 2),
        CloseAuction(),
    ]
    events = []
    for a in actions:
        events += m.apply(a)
    replayed = SpeculationMatch.replay(m.config, [a.to_dict() for a in actions])
    assert replayed.view(None).to_dict() == m.view(None).to_dict()
    again = SpeculationMatch(**m.config)
    events2 = []
    for a in [action_from_dict(a.to_dict()) for a in actions]:
        events2 += again.apply(a)
    assert json.dumps([e.to_dict() for e in events]) == json.dumps([e.to_dict() for e in events2])

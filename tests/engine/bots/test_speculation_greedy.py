"""Speculation bots (engine/bots/speculation_*.py) played through the in-process driver."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.bots.speculation_greedy import GreedySpeculationBot, keep_probability
from engine.bots.speculation_random import RandomSpeculationBot
from engine.cards import Card, parse_cards
from engine.seeds import derive, seed_from_int
from engine.speculation import Bid, Keep, Offer, Sell, SpeculationMatch


def bots_for(strategies, seed):
    return [make_bot("speculation", s, i, derive(seed, f"bot-{i}")) for i, s in enumerate(strategies)]


def run(strategies, seed_n, chips=50, deals=None, on_step=None, check_every=1):
    seed = seed_from_int(seed_n)
    n = len(strategies)
    m = SpeculationMatch(seats=n, chips=[chips] * n, deals=deals)
    stats = play_match(m, bots_for(strategies, seed), seed, on_step, check_every=check_every)
    return m, stats


def test_make_bot_strategies_and_levels():
    assert isinstance(make_bot("speculation", "random", 0, b"s"), RandomSpeculationBot)
    assert isinstance(make_bot("speculation", "easy", 1, b"s"), RandomSpeculationBot)
    assert isinstance(make_bot("speculation", "greedy", 2, b"s"), GreedySpeculationBot)
    assert isinstance(make_bot("speculation", "normal", 2, b"s"), GreedySpeculationBot)


def test_keep_probability():
    assert keep_probability(40, 0, 10) == 1.0
    assert keep_probability(10, 1, 1) == pytest.approx(0.9)
    assert keep_probability(10, 2, 2) == pytest.approx(8 / 10 * 7 / 9)
    assert keep_probability(5, 3, 3) == 0.0
    assert keep_probability(10, 3, 0) == 1.0


@pytest.mark.parametrize("strategies", [["random"] * 3, ["greedy"] * 4, ["greedy", "random"] * 4 + ["random"]])
def test_bots_play_whole_matches_with_only_accepted_actions(strategies):
    # play_match raises DriverError if a bot chooses a refused action; invariants after each action
    for k in range(4):
        m, stats = run(strategies, 100 + k, chips=12)
        assert m.over and stats.checks > 0 and sum(m.chips) == 12 * len(strategies)


def test_random_bot_uses_every_action():
    kinds: Counter[str] = Counter()

    def step(action, events):
        kinds[action.to_dict()["cmd"]] += 1

    for k in range(3):
        run(["random"] * 5, 200 + k, chips=40, deals=20, on_step=step, check_every=0)
    assert set(kinds) >= {"deal", "turn", "bid", "sell", "keep", "close", "offer", "accept", "decline", "withdraw"}


def test_bots_are_deterministic_from_their_seeds():
    log_a, log_b = [], []
    run(["greedy", "random", "random", "greedy"], 5, deals=12, on_step=lambda a, e: log_a.append(a.to_dict()))
    run(["greedy", "random", "random", "greedy"], 5, deals=12, on_step=lambda a, e: log_b.append(a.to_dict()))
    assert log_a == log_b and len(log_a) > 50


def test_bots_are_not_chatty():
    # at most one offer per bot per turned card, so offers stay well below seats x actions
    offers: Counter[int] = Counter()
    turns = Counter[int]()

    def step(action, events):
        d = action.to_dict()
        if d["cmd"] == "offer":
            offers[d["seat"]] += 1
        elif d["cmd"] in ("turn", "deal"):
            turns["all"] += 1

    run(["greedy", "greedy", "random", "random", "random"], 9, chips=100, deals=40, on_step=step, check_every=0)
    for seat, count in offers.items():
        assert count <= turns["all"] * 4, (seat, count)


def test_greedy_beats_random():
    seed = seed_from_int(77)
    m = SpeculationMatch(seats=5, chips=[10**6] * 5, deals=600)
    play_match(m, bots_for(["greedy", "greedy", "greedy", "random", "random"], seed), seed, check_every=0)
    change = [c - 10**6 for c in m.chips]
    assert sum(change[:3]) > 0 > sum(change[3:])
    assert min(change[:3]) > max(change[3:])


def deal4(stacks, trump, ante=1):
    """Four seats, dealer 0; stacks written top first (see test_speculation.deck_for)."""
    m = SpeculationMatch(seats=4, chips=[30] * 4, first_dealer=0, ante=ante)
    order = [1, 2, 3, 0]
    cards = {s: parse_cards(stacks[s]) for s in order}
    deck = [int(cards[s][2 - r]) for r in range(3) for s in order] + [int(Card.parse(trump))]
    m.apply(m.deal_action(b"t", cards=deck))
    return m


def test_greedy_owner_sells_only_at_its_value_and_others_bid_below_theirs():
    m = deal4({1: "2c 3c 4c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"}, "Kh")
    owner = GreedySpeculationBot(0, b"g")
    bidder = GreedySpeculationBot(1, b"g")
    # Kh: only Ah beats it; 9 cards threaten the holder among 51 unseen
    bid = bidder.decide(m.view(1), m.legal_actions(1))
    assert bid == Bid(1, 1)
    m.apply(bid)
    assert owner.decide(m.view(0), m.legal_actions(0)) is None  # 1 chip is far below ~0.82 x 5
    m.apply(Bid(2, 5))
    assert owner.decide(m.view(0), m.legal_actions(0)) == Sell(0)
    assert bidder.decide(m.view(1), m.legal_actions(1)) is None  # 6 is more than it is worth


def test_greedy_holder_offers_to_buy_face_down_cards_once():
    m = deal4({1: "2c 3c 4c", 2: "2d 3d 4d", 3: "2s 3s 4s", 0: "5c 5d 5s"}, "9h", ante=4)  # pool 20
    m.apply(Keep(0))
    holder = GreedySpeculationBot(0, b"g")
    a = holder.decide(m.view(0), m.legal_actions(0))
    assert isinstance(a, Offer) and a.seat == 0 and a.cards == 3 and m.can(a)
    m.apply(a)
    # same situation: one offer per seller, then other sellers, never the same one again
    b = holder.decide(m.view(0), m.legal_actions(0))
    assert b is None or (isinstance(b, Offer) and b.to != a.to)

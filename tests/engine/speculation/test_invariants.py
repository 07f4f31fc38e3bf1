"""RULES invariants over many random Speculation deals (seeded loops and Hypothesis).

1. the 52 cards are conserved; 2. no view or event shows a face-down card (for every
seat and spectators) and undealt cards are never shown; 3. a match replays byte for
byte from its configuration and log; 4. chips are conserved; 5. refused actions
change nothing. ``check_invariants()`` runs after every action.
"""

from __future__ import annotations

import json
import random
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.errors import Refusal
from engine.seeds import seed_from_int
from engine.speculation import Bid, Offer, SpeculationMatch, Turn, action_from_dict

CODE = re.compile(r'"([2-9TJQKA][cdhs])"')


def codes(obj) -> set[int]:
    return {int(Card.parse(c)) for c in CODE.findall(json.dumps(obj))}


def hidden(m: SpeculationMatch) -> tuple[set[int], set[int]]:
    """(face-down cards in stacks, undealt cards): white-box, for the checks only."""
    down = {c for stack in m._stacks for c in stack}
    return down, set(m._undealt)


def random_action(m: SpeculationMatch, rng: random.Random):
    """A random action: mostly legal ones with random amounts, sometimes a wild one."""
    n = m.seats
    if rng.random() < 0.05:
        seat = rng.randrange(n)
        kind = rng.randrange(3)
        if kind == 0:
            return Turn(seat)
        if kind == 1:
            return Bid(seat, rng.randrange(-1, 40))
        return Offer(seat, rng.randrange(-1, n + 1), rng.randrange(0, 8), rng.randrange(0, 30))
    pending = m.pending()
    if rng.random() < 0.4:
        return pending[0].on_timeout  # the awaited move (turn) or the auction's deadline
    seat = rng.randrange(n)
    options = m.legal_actions(seat)
    if not options:
        return pending[0].on_timeout
    a = rng.choice(options)
    if isinstance(a, Bid):
        a = Bid(a.seat, a.amount + rng.randrange(4))
    elif isinstance(a, Offer):
        a = Offer(a.seat, a.to, rng.randint(1, a.cards), rng.randint(1, 6))
    return a


def play(
    m: SpeculationMatch, rng: random.Random, seed: int, deep: bool, max_actions: int = 100_000, refused=None
):
    """Play ``m`` to its end; returns (log, events as JSON). ``deep``: check every view and event.

    ``refused``: a list that receives the refusal codes checked against invariant 5.
    """
    log, events = [], []
    total = sum(m.chips)
    seats = [*range(m.seats), None]
    deep_events = deep
    deal = 0
    for _ in range(max_actions):
        if m.over:
            break
        if m.needs_deal():
            deal += 1
            action = m.deal_action(seed_from_int(seed * 1000 + deal))
        else:
            action = random_action(m, rng)
        before = json.dumps(m.view(None).to_dict()) if deep else None
        try:
            out = m.apply(action)
        except Refusal:
            # invariant 5: a refusal changes nothing
            assert before is None or json.dumps(m.view(None).to_dict()) == before
            if refused is not None and before is not None:
                assert not m.can(action), action
                refused.append(action.__class__.__name__)
            continue
        log.append(action.to_dict())
        m.check_invariants()
        assert sum(m.chips) + m.pool == total
        events += [e.to_dict() for e in out]
        if deep:
            down, undealt = hidden(m)
            for e in out if deep_events else ():
                for s in seats:
                    seen = e.for_seat(s)
                    assert seen is not None and seen.to_dict() == e.to_dict()
                shown = codes(e.to_dict())
                assert not shown & undealt, e
                if e.name != "revealed":
                    assert not shown & down, e
            public = m.view(None).to_dict()
            assert "hand" not in public and public["you"] is None
            assert not codes(public) & (down | undealt), public
            spectator = m.view(None)
            m._seat_views = [None] * m.seats  # white-box: the cached view equals a fresh one
            m._public_step = -1
            assert m.view(None) == spectator
            for s in range(m.seats):  # every seat sees exactly the spectator's facts
                assert m.view(s) == spectator._replace(you=s)
    else:
        raise AssertionError("match did not end")
    return log, events


def test_invariants_random_deals_deep():
    rng = random.Random(2024)
    deals = 0
    seen: set[str] = set()
    refused: list[object] = []
    for i in range(40):
        n = rng.randint(3, 9)
        m = SpeculationMatch(seats=n, chips=[rng.randint(0, 25) for _ in range(n)], ante=rng.randint(1, 2))
        log, events = play(m, rng, i, deep=True, refused=refused)
        deals += m.round
        seen |= {e["event"] for e in events}
        seen |= {"lapsed-" + e["reason"] for e in events if e["event"] == "lapsed"}
        seen |= {"won-" + e["reason"] for e in events if e["event"] == "pool_won"}
        replayed = SpeculationMatch.replay(m.config, json.loads(json.dumps(log)))
        assert replayed.view(None).to_dict() == m.view(None).to_dict()
    assert deals >= 300
    # invariant 5 was checked on refusals of every kind of wild action
    assert len(refused) > 100 and {"Turn", "Bid", "Offer"} <= set(refused), set(refused)
    # the loop reached every kind of event, so the checks above covered them
    assert seen >= {
        "ante", "dealt", "trump", "turned", "auction", "bid", "sold", "kept", "offered", "declined",
        "withdrawn", "traded", "pool_won", "revealed", "deal_over", "match_over",
        "lapsed-cards", "lapsed-chips", "lapsed-deal_over", "won-ace", "won-end",
    }, seen


def test_invariants_thousands_of_deals_and_byte_identical_replays():
    rng = random.Random(7)
    deals = 0
    i = 0
    while deals < 3000:
        i += 1
        n = rng.randint(3, 9)
        m = SpeculationMatch(seats=n, chips=[rng.randint(2, 60) for _ in range(n)], deals=rng.randint(3, 30))
        log, events = play(m, rng, 10_000 + i, deep=False)
        deals += m.round
        if i % 5 == 0:
            again = SpeculationMatch(**m.config)
            replay_events = []
            for record in json.loads(json.dumps(log)):
                replay_events += [e.to_dict() for e in again.apply(action_from_dict(record))]
            assert json.dumps(replay_events) == json.dumps(events)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(3, 9),
    chips=st.lists(st.integers(0, 12), min_size=9, max_size=9),
    ante=st.integers(0, 3),
    seed=st.integers(0, 10**6),
    deals=st.integers(1, 4),
)
def test_invariants_hypothesis(seats, chips, ante, seed, deals):
    m = SpeculationMatch(seats=seats, chips=chips[:seats], ante=ante, deals=deals)
    log, _ = play(m, random.Random(seed), seed, deep=True)
    replayed = SpeculationMatch.replay(m.config, log)
    assert replayed.chips == m.chips and replayed.over == m.over

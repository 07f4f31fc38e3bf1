"""Time-outs on the fake clock: each decision's deadline, and what the clock does for the seat (P, T14,
T12, S12f, S7)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards import parse_cards
from engine.speculation import Keep, Turn
from tests.server.table.harness import Harness, simple_president

P3 = ["alice", "bob", "carol"]


def key_of(h: Harness, seat: int) -> str:
    member = h.table.seats[seat].member
    assert member is not None
    return member


def test_classic_time_out_leads_the_weakest_single_then_passes() -> None:
    h = Harness("classic", seats=3, turn_seconds=20)
    h.join(*P3)
    leader = h.table.match.turn
    hand = h.state(key_of(h, leader))["hand"]
    start = h.clock.now
    h.inbox["alice"].clear()
    h.tick_wake()
    assert h.clock.now == start + 20
    assert h.events("alice") == [
        {"event": "timeout", "seat": leader, "passive": False, "kind": "turn", "room": "t1"},
        # the weakest single (P5: a leader must play)
        {"event": "played", "seat": leader, "cards": [hand[0]], "remaining": len(hand) - 1, "auto": True,
         "room": "t1"},
    ]
    follower = h.table.match.turn
    h.inbox["bob"].clear()
    h.tick_wake()
    assert h.clock.now == start + 40
    assert h.events("bob") == [
        {"event": "timeout", "seat": follower, "passive": False, "kind": "turn", "room": "t1"},
        {"event": "passed", "seat": follower, "auto": True, "room": "t1"},
    ]
    # classic knows no passivity: the seat plays again when its turn comes
    assert not any(s["passive"] for s in h.state("alice")["seats"])
    third = h.table.match.turn
    assert third not in (leader, follower)
    simple_president([key_of(h, third)])(h)
    assert h.table.match.turn == leader  # P8: passing does not take the follower out


def test_T14_tdc_time_out_makes_the_seat_passive_for_the_round() -> None:
    h = Harness("tdc", seats=3, stake=2, turn_seconds=20)
    h.join(*P3)
    leader = h.table.match.turn  # T3: the Qh holder
    assert "Qh" in h.state(key_of(h, leader))["hand"]
    h.tick_wake()
    timeout = h.events("alice", "timeout")
    assert timeout == [{"event": "timeout", "seat": leader, "passive": True, "kind": "turn", "room": "t1"}]
    state = h.state("alice")
    assert state["seats"][leader]["passive"] is True
    assert h.table.match.turn != leader  # a passive player never leads (T14)
    others = [k for k in P3 if h.seat(k) != leader]
    # the two others play the round out; the passive seat is never waited for again
    act = simple_president(others)
    h.run(lambda: bool(h.events("alice", "round_over")), act=act)
    assert all(p.seat != leader for p in h.table.match.pending())
    over = h.events("alice", "round_over")[0]
    # T15: below every other player but the forbidden finishers
    forbidden = [e["seat"] for e in h.events("alice", "out") if e["forbidden"]]
    assert over["ranking"].index(leader) == 2 - len(forbidden)
    assert len(h.events("alice", "timeout")) == 1  # one time-out for the whole round
    # passivity ends with the round (T14)
    h.tick_wake()
    assert h.events("alice", "dealt")[-1]["round"] == 2
    assert not any(s["passive"] for s in h.state("alice")["seats"])


def test_T12_give_time_out_gives_the_weakest_cards_and_no_passivity() -> None:
    h = Harness("tdc", seats=3, stake=2, turn_seconds=20)
    h.join(*P3)
    h.run(lambda: bool(h.events("alice", "round_over")), act=simple_president(P3))
    titles = h.events("alice", "round_over")[0]["titles"]
    president = titles.index("president")
    h.tick_wake()  # round 2: the last gives his 2 strongest, the Président must choose 2 (T12)
    state = h.state(key_of(h, president))
    assert state["give"] == 2 and state["phase"] == "exchange"
    hand = state["hand"]
    dealt_at = h.clock.now
    h.tick_wake()
    assert h.clock.now == dealt_at + 20
    ev = h.events(key_of(h, president))
    timeout = next(e for e in ev if e["event"] == "timeout")
    assert (timeout["seat"], timeout["kind"], timeout["passive"]) == (president, "give", False)
    given = [e for e in ev if e["event"] == "exchange" and e["from"] == president]
    weakest = sorted(parse_cards(hand))[:2]
    assert len(given) == 1 and given[0]["cards"] == [str(c) for c in weakest] and "chosen" not in given[0]
    state = h.state(key_of(h, president))
    assert state["phase"] == "play" and not state["seats"][president]["passive"] and state["give"] == 0


def _spec(h: Harness, wanted: Callable[[Any, tuple[Any, ...]], bool] | None = None) -> int:
    """Three people at a Speculation table whose first deal opens an auction; the dealer."""
    h.join("alice", "bob")
    h.seed_for_next_deal(lambda m, events: events[-1].name == "auction" and (wanted is None or wanted(m, events)))
    h.join("carol")
    dealer = h.table.match.view(None).dealer
    assert dealer is not None
    return dealer


def test_S7_auction_closes_by_time_the_owner_keeps_and_a_bid_restarts_the_clock() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 4})
    dealer = _spec(h)
    start = h.clock.now
    auction = h.state("alice")["auction"]
    assert auction["seat"] == dealer and auction["deadline"] == 10.0
    bidder = key_of(h, (dealer + 1) % 3)
    h.advance(6)
    h.ok(bidder, "bid", amount=2)
    assert h.state("alice")["auction"]["deadline"] == 10.0  # a new best bid: a new 10 s
    assert h.table.wake == start + 16
    h.tick_wake()
    kept = h.events("alice", "kept")
    assert len(kept) == 1 and kept[0]["seat"] == dealer and kept[0]["timeout"] is True
    assert not h.events("alice", "sold") and h.balance(bidder) == 1000 - 1  # only his ante moved
    # S8: turning starts, with the flip time
    assert h.state("alice")["turn"] is not None and h.state("alice")["deadline"] == 4.0


def _first_turner_turns_twice_without_an_auction(m: Any, events: tuple[Any, ...]) -> bool:
    """After the dealer keeps, the first turner's cards and the others' are dead until his next turn."""
    m.apply(Keep(m.view(None).dealer))
    first = m.view(None).turn
    for n in range(6):
        view = m.view(None)
        if view.auction is not None or m.needs_deal():
            return False
        if n > 0 and view.turn == first:
            return True
        m.apply(Turn(view.turn))
    return False


def test_S12f_flip_time_out_turns_the_top_card_and_the_seat_turns_again_later() -> None:
    h = Harness("speculation", seats=3, turn_seconds=10, settings={"flip_seconds": 4})
    dealer = _spec(h, _first_turner_turns_twice_without_an_auction)
    h.ok(key_of(h, dealer), "keep")
    turner = h.state("alice")["turn"]
    stack_before = h.state("alice")["seats"][turner]["facedown"]
    at = h.clock.now
    h.tick_wake()
    assert h.clock.now == at + 4
    turned = h.events("alice", "turned")
    assert len(turned) == 1 and turned[0]["seat"] == turner and turned[0]["best"] is False
    assert h.state("alice")["seats"][turner]["facedown"] == stack_before - 1
    # S12f: he does not become passive; the others turn, and when his turn is back he turns himself
    while h.state("alice")["turn"] != turner:
        h.ok(key_of(h, h.state("alice")["turn"]), "turn")
    h.ok(key_of(h, turner), "turn")
    assert [e["seat"] for e in h.events("alice", "turned")].count(turner) == 2
    assert len(h.events("alice", "turned")) >= 3 and h.clock.now == at + 4

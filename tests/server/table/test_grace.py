"""Disconnections: the seat is kept ``grace_seconds``; back in time, nothing is lost; otherwise the
seat goes — classic: a bot plays it on with its points (P16); tdc and Speculation: it ends with the
round or deal being played, and only then is the seat claim released (T1, S11)."""

from __future__ import annotations

from typing import Any

from server.protocol import Shared
from server.table import Gone, Send
from tests.server.table.harness import Harness, simple_president

P3 = ["alice", "bob", "carol"]
P4 = ["alice", "bob", "carol", "dave"]


def index_of_event(h: Harness, name: str) -> int:
    """Where in the items the first ``name`` event went out."""
    for i, item in enumerate(h.items):
        if isinstance(item, Send) and isinstance(item.msg, Shared) and item.msg.event.get("event") == name:
            return i
    raise AssertionError(f"no {name} event")


def index_of(h: Harness, wanted: Any) -> int:
    return h.items.index(wanted)


def test_back_within_the_grace_keeps_the_seat_and_gets_the_full_state() -> None:
    h = Harness("classic", seats=3, turn_seconds=300, settings={"grace_seconds": 60})
    h.join(*P3)
    bob = h.seat("bob")
    h.disconnected("bob")
    gone = {"event": "disconnected", "room": "t1", "name": "Bob", "seat": bob, "grace": 60.0}
    assert h.events("alice", "disconnected") == h.events("carol", "disconnected") == [gone]
    assert h.state("alice")["seats"][bob]["connected"] is False
    assert h.table.wake == h.clock.now + 60
    h.advance(59.5)
    h.inbox["bob"].clear()
    h.connected("bob")
    back = {"event": "reconnected", "room": "t1", "name": "Bob", "seat": bob}
    assert h.events("alice", "reconnected") == h.events("bob", "reconnected") == [back]
    state = h.state("bob")  # the whole table again, his hand included
    assert state["you"] == bob and state["hand"] == [str(c) for c in h.table.match.hand(bob)]
    assert state["seats"][bob]["connected"] is True and state["phase"] == "play"
    assert h.table.wake == h.clock.now - 59.5 + 300  # only the turn is timed again
    h.advance(1)  # past the old grace: nothing
    assert h.table.seats[bob].member == "bob" and not h.events("alice", "left")
    assert h.claims.holder("bob") == "t1" and "bob" not in h.released


def test_P16_classic_gone_for_good_is_replaced_by_a_bot_and_keeps_its_points() -> None:
    h = Harness("classic", seats=3, turn_seconds=300, settings={"grace_seconds": 60})
    h.join(*P3)
    bob = h.seat("bob")
    act = simple_president(P3)
    h.run(lambda: len(h.events("alice", "round_over")) == 2, act=act)
    points = h.events("alice", "round_over")[-1]["totals"][bob]
    h.disconnected("bob")
    gone_at = h.clock.now
    h.run(lambda: bool(h.events("alice", "replaced")), act=simple_president(["alice", "carol"]))
    assert h.clock.now == gone_at + 60  # the grace ended
    assert h.events("alice", "replaced") == [{"event": "replaced", "room": "t1", "name": "Bob", "seat": bob}]
    assert h.events("alice", "left")[-1]["name"] == "Bob"
    # he is out of the room and his seat claim ends now: the seat is the bot's for the rest of the match
    assert Gone("bob") in h.items and h.released == ["bob"] and h.claims.holder("bob") is None
    seat = h.state("alice")["seats"][bob]
    assert seat["bot"] is True and seat["score"] == points
    h.connected("bob")  # too late: nothing for him here
    assert h.table.seat_of("bob") is None
    h.run(lambda: h.table.status == "over", act=simple_president(["alice", "carol"]))
    rounds = h.events("alice", "round_over")
    assert len(rounds) == 5
    assert rounds[-1]["totals"][bob] == points + sum(r["scores"][bob] for r in rounds[2:])
    assert h.events("alice", "match_over")[0]["totals"][bob] == rounds[-1]["totals"][bob]


def test_T1_tdc_gone_for_good_is_free_while_his_seat_plays_the_round_out() -> None:
    h = Harness("tdc", seats=4, stake=2, turn_seconds=20, settings={"grace_seconds": 10})
    h.join(*P4)
    dave = h.seat("dave")
    h.disconnected("dave")
    others = simple_president(P4[:3])
    h.run(lambda: bool(h.events("alice", "left")), act=others)
    # the grace is over: dave is gone from the room, his seat and his stake stay in the round; he is
    # free to sit elsewhere (his claim ended with the grace)
    assert Gone("dave") in h.items
    assert h.state("alice")["seats"][dave]["leaving"] is True
    assert h.released == ["dave"] and h.claims.holder("dave") is None
    h.run(lambda: bool(h.events("alice", "round_over")), act=others)
    over = h.events("alice", "round_over")[0]
    assert over["titles"][dave] is not None  # he played the round out (the clock played for him, T14)
    settle = h.ledger.rounds["t1-u1-1"].payouts
    assert settle is not None and "dave" in settle
    assert h.released == ["dave"]  # once
    h.tick_wake()  # the next round, without him (T1)
    assert h.events("alice", "dealt")[-1]["present"] == [s for s in range(4) if s != dave]
    assert h.state("alice")["seats"][dave]["name"] is None
    assert "dave" not in h.ledger.rounds["t1-u1-2"].stakes


def test_S11_speculation_gone_for_good_is_free_while_his_seat_plays_the_deal_out() -> None:
    h = Harness("speculation", seats=4, turn_seconds=10, settings={"grace_seconds": 5, "flip_seconds": 4})
    h.join(*P4)
    dave = h.seat("dave")
    h.disconnected("dave")

    def others(h: Harness) -> bool:
        m = h.table.match
        if m.needs_deal():
            return False
        view = m.view(None)
        if view.auction is not None:
            owner = h.table.seats[view.auction.seat].member
            if owner is None or owner == "dave":
                return False
            h.ok(owner, "keep")
            return True
        key = h.table.seats[view.turn].member if view.turn is not None else None
        if key is None or key == "dave":
            return False
        h.ok(key, "turn")
        return True

    h.run(lambda: bool(h.events("alice", "left")) or h.table.match.needs_deal(), act=others)
    assert h.events("alice", "left") and not h.table.match.needs_deal(), "the deal ended within the grace"
    assert h.released == ["dave"] and h.claims.holder("dave") is None  # free at once
    assert h.state("alice")["seats"][dave]["leaving"] is True
    h.run(lambda: bool(h.events("alice", "deal_over")), act=others)
    assert h.released == ["dave"] and h.claims.holder("dave") is None
    h.tick_wake()
    assert h.events("alice", "dealt")[-1]["players"] and dave not in h.events("alice", "dealt")[-1]["players"]

"""Bots at the table: slow ones think through the ``Think`` effect; a failed thought costs the bot its
turn to the clock, never the table."""

from __future__ import annotations

from server.table import Think
from tests.server.table.harness import Harness, simple_president

SEARCH = {"rollouts": 2, "budget_ms": 1}


def test_search_bots_think_outside_and_their_moves_are_played() -> None:
    h = Harness("classic", seats=3, bots=2, bot_level="hard", rounds=1, bot_options=SEARCH)
    h.join("alice")
    h.run(lambda: h.table.status == "over", act=simple_president(["alice"]))
    thoughts = h.effects_of(Think)
    bot_moves = [a for a in h.table.log if a["cmd"] in ("play", "pass") and a["seat"] != h.seat("alice")]
    assert thoughts and len(thoughts) == len(bot_moves)  # every bot move came from a Think, none inline
    assert {t.bot for t in thoughts} == {s.bot for s in h.table.seats if s.bot is not None}
    assert not h.events("alice", "timeout")


def test_a_bot_whose_thinking_fails_is_played_by_the_clock() -> None:
    h = Harness("classic", seats=3, bots=2, bot_level="hard", rounds=1, turn_seconds=15, bot_options=SEARCH)
    h.refuse(Think, RuntimeError("the worker died"), times=1000)
    h.join("alice")
    h.run(lambda: bool(h.events("alice", "timeout")), act=simple_president(["alice"]))
    timeout = h.events("alice", "timeout")[0]
    assert timeout["seat"] != h.seat("alice")
    assert h.table.closed is None and h.table.status == "playing"
    # and so on to the end of the round: the table never stalls
    h.run(lambda: h.table.status == "over", act=simple_president(["alice"]))
    assert h.events("alice", "round_over")


def test_speculation_search_bots_play_a_deal() -> None:
    h = Harness("speculation", seats=3, bots=2, bot_level="hard", rounds=2, bot_options=SEARCH)
    h.join("alice")
    h.run(lambda: h.table.status == "over")
    assert len(h.events("alice", "deal_over")) == 2 and h.effects_of(Think)


def test_bots_sit_down_in_seat_order() -> None:
    """A person reads bot1, bot2, bot3 sitting down in that order, not counting down."""
    h = Harness("classic", seats=4, bots=3, rounds=1)
    h.join("alice")
    joined = [e for e in h.events("alice", "joined") if e.get("bot")]
    assert [e["seat"] for e in joined] == [1, 2, 3]
    assert [e["name"] for e in joined] == ["bot1", "bot2", "bot3"]

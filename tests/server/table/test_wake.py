"""``Table.wake``: the one time the room must tick at; before it nothing happens, at it something does.

The harness checks after every call of every test that ``wake`` is ``None`` or
later than now (a table due now and doing nothing would make its room tick in a
loop), ticks just before it to see that nothing happens, and, driving time,
ticks at ``wake`` and checks that something changed. These tests pin the values.
"""

from __future__ import annotations

from server.table import Placed
from tests.server.table.harness import START, Harness, simple_president


def test_wake_is_none_until_a_match_has_something_timed() -> None:
    h = Harness("classic", seats=3)
    assert h.table.wake is None
    h.join("alice", "bob")
    assert h.table.wake is None  # waiting for a third player: only an input moves it
    h.advance(3600)
    assert h.items_of(Placed) == [Placed("alice", 0), Placed("bob", 1)] and h.table.match is None


def test_wake_is_the_turn_deadline_then_a_grace_then_the_bots() -> None:
    h = Harness("classic", seats=3, turn_seconds=30, settings={"grace_seconds": 10})
    h.join("alice", "bob", "carol")
    now = h.clock.now
    assert h.table.wake == now + 30  # the first turn's deadline
    turn = h.table.match.turn
    waiting = next(k for k in ("alice", "bob", "carol") if h.seat(k) != turn)
    h.advance(5)
    h.disconnected(waiting)
    assert h.table.wake == now + 5 + 10  # the grace ends before the turn does
    h.connected(waiting)
    assert h.table.wake == now + 30  # back: the turn's deadline again
    h.tick_wake()
    timeouts = h.events("alice", "timeout")
    assert len(timeouts) == 1 and timeouts[0]["seat"] == turn and h.clock.now == now + 30
    assert h.table.wake == now + 30 + 30  # the next turn's own deadline


def test_a_round_ending_leaves_only_the_next_deal_to_wait_for() -> None:
    """A round ended with bots at the table: the next deal is due round_pause later and nothing
    before it (a bot's turn scheduled by the last move must not stay due between rounds)."""
    h = Harness("classic", seats=3, bots=2, turn_seconds=30)
    h.join("alice")
    act = simple_president(["alice"])
    h.run(lambda: bool(h.events("alice", "round_over")), act=act)
    assert h.table.match.needs_deal()
    assert h.table.wake == h.clock.now + h.settings.round_pause
    ended = h.clock.now
    h.tick_wake()
    assert h.clock.now == ended + h.settings.round_pause and len(h.events("alice", "dealt")) == 2


def test_the_first_deal_is_due_at_once_and_bots_act_bot_delay_apart() -> None:
    h = Harness("classic", seats=3, bots=2, settings={"bot_delay": 2.5})
    h.join("alice")
    assert h.clock.now == START and len(h.events("alice", "dealt")) == 1  # the match starts at the join
    turn = h.table.match.turn
    if turn == h.seat("alice"):
        simple_president(["alice"])(h)
    assert h.table.wake == h.clock.now + 2.5
    before = len(h.table.log)
    h.tick_wake()
    assert len(h.table.log) == before + 1  # one bot's move, no more, at that moment

"""The round cycle (server/table/rounds.py, the table's ``cycle``): the bots' next move, each
decision's clock, and everything due done on a tick."""

from __future__ import annotations

from tests.server.table.harness import Harness


def test_the_bots_move_after_their_pause_never_later_than_already_planned() -> None:
    h = Harness("classic", seats=3, bots=2)
    h.join("alice")
    table, cycle = h.table, h.table.cycle
    table.clocks.bot_due = None
    table.now = h.clock.now
    cycle.schedule_bots()
    assert table.bot_due == h.clock.now + h.settings.bot_delay
    table.clocks.bot_due = h.clock.now + 0.5
    cycle.schedule_bots()
    assert table.bot_due == h.clock.now + 0.5


def test_each_pending_decision_gets_its_clock_once_and_loses_it_when_decided() -> None:
    h = Harness("classic", seats=3, turn_seconds=30)
    h.join("alice", "bob", "carol")
    h.tick_wake()  # the deal
    table = h.table
    assert table.match is not None and not table.match.needs_deal()
    keys = [p.key for p in table.match.pending()]
    assert keys and {k: table.deadlines[k] for k in keys} == dict.fromkeys(keys, h.clock.now + 30)
    table.now = h.clock.now + 5
    table.cycle.refresh_deadlines()  # the same decisions: their clocks do not start again
    assert {k: table.deadlines[k] for k in keys} == dict.fromkeys(keys, h.clock.now + 30)
    table.clocks.deadlines["gone"] = 1.0
    table.cycle.refresh_deadlines()
    assert "gone" not in table.deadlines  # a decision no longer pending has no clock

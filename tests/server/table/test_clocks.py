"""A table's clocks (server/table/clocks.py): the earliest moment due, more time from a bank, and
every clock held afresh for a table rebuilt after a restart (docs/restart.md)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.api import Pending
from server.config import load_config
from server.games import parse_options
from server.table.clocks import Clocks
from server.table.seats import Seat

SETTINGS = load_config(None, close_after_over=120.0, bot_delay=1.0, autopass_delay=2.0, offer_seconds=15.0,
                       turn_seconds=30.0, cut_window=4.0)


def test_wake_is_the_earliest_moment_due() -> None:
    clocks = Clocks(SETTINGS)
    seats = [Seat(0), Seat(1, grace_until=50.0)]
    assert clocks.wake(seats[:1], deal_due=False) is None
    clocks.deadlines = {"turn": 80.0}
    clocks.bot_due, clocks.over_at, clocks.auto_at = 70.0, 90.0, 65.0
    assert clocks.wake(seats[:1], deal_due=False) == 65.0
    assert clocks.wake(seats, deal_due=False) == 50.0
    clocks.next_deal_at = 40.0
    assert clocks.wake(seats, deal_due=False) == 50.0 and clocks.wake(seats, deal_due=True) == 40.0
    clocks.window = ("cut", 30.0)
    assert clocks.wake(seats, deal_due=True) == 30.0
    clocks.stop()
    assert clocks.deadlines == {} and clocks.bot_due is None


def test_more_time_moves_the_decisions_or_the_window_and_what_starts_after_it() -> None:
    clocks = Clocks(SETTINGS, time_bank=60.0)
    clocks.deadlines = {"a": 10.0, "b": 20.0}
    clocks.move_on(["a"], 5.0, window=False)
    assert clocks.deadlines == {"a": 15.0, "b": 20.0}
    clocks.window, clocks.bot_due = ("trade", 12.0), 12.0
    clocks.move_on([], 3.0, window=True)
    assert clocks.window == ("trade", 15.0) and clocks.deadlines == {"a": 18.0, "b": 23.0} and clocks.bot_due == 15.0
    assert clocks.bank.take("ann", 50.0) == 50.0 and clocks.bank.left("ann") == 10.0


@dataclass
class FakeMatch:
    waiting: Sequence[Pending]
    deal: bool = False

    def needs_deal(self) -> bool:
        return self.deal

    def pending(self) -> Sequence[Pending]:
        return self.waiting


class Asking:
    """An adapter whose one question (an offer to seat 0) is open, and whose windows last 8 s."""

    def questions(self, match: Any) -> Mapping[Hashable, int]:
        return {"offer-1": 0}

    def window_seconds(self, kind: str, opts: Any, settings: Any) -> float:
        return 8.0


@dataclass
class Rebuilt:
    """A table rebuilt after a restart, as the clocks read it."""

    match: Any
    status: str = "playing"
    seats: list[Seat] = field(default_factory=lambda: [Seat(0, member="ann", present=False), Seat(1, bot=object())])
    adapter: Any = field(default_factory=lambda: Asking())
    opts: Any = field(default_factory=lambda: parse_options({"game": "speculation", "rules": "speculation",
                                                             "seats": 3}, SETTINGS))
    settings: Any = SETTINGS
    asked: Mapping[Hashable, int] = field(default_factory=dict)

    def can_answer(self, seat: int) -> bool:
        return True

    def timer_seconds(self, kind: str) -> float:
        return {"turn": 30.0, "auction": 10.0}[kind]


def test_a_rebuilt_table_gives_every_decision_its_full_time_from_the_start() -> None:
    clocks = Clocks(SETTINGS)
    clocks.deadlines = {"old": 1.0}
    clocks.bot_due = 2.0
    table = Rebuilt(FakeMatch([Pending("turn-0", "turn", 0, None), Pending("auction", "auction", None, None)]))
    table.seats[0].prefs = {"autopass": True}
    clocks.hold(100.0, table)
    # the question put to seat 0 holds its decision until it is answered (S12d)
    assert clocks.deadlines == {"turn-0": 130.0, "auction": 110.0} and clocks.answers.held_until(0) == 115.0
    assert clocks.bot_due == 101.0 and clocks.auto_at == 102.0 and clocks.over_at is None
    clocks.window = ("trade", 0.0)  # a window that was open: its whole length again, the clocks after it
    clocks.hold(100.0, table)
    assert clocks.window == ("trade", 108.0) and clocks.deadlines == {"turn-0": 138.0, "auction": 118.0}
    assert clocks.bot_due == 108.0 and clocks.auto_at == 110.0
    clocks.window = None
    table.match.deal = True
    clocks.hold(200.0, table)
    assert clocks.next_deal_at == 200.0 and clocks.deadlines == {}
    table.status = "over"
    clocks.hold(300.0, table)
    assert clocks.over_at == 420.0


def test_the_clocks_start_when_everyone_is_back_or_at_the_end_of_the_window() -> None:
    clocks = Clocks(SETTINGS)
    table = Rebuilt(FakeMatch([Pending("turn-0", "turn", 0, None)]))
    clocks.resume_until = 160.0
    clocks.back(110.0, table, lambda: False)
    assert clocks.resume_until == 160.0 and clocks.deadlines == {}
    clocks.back(120.0, table, lambda: True)
    assert clocks.resume_until is None and clocks.deadlines == {"turn-0": 150.0}
    clocks.resume_until = 160.0
    clocks.back(170.0, table, lambda: True)
    assert clocks.resume_until is None and clocks.deadlines == {"turn-0": 150.0}  # (they started at its end)

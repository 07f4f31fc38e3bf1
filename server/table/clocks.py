"""A table's clocks: every moment it waits for, and the clocks held after a restart.

:class:`Clocks` keeps when each thing falls due — each pending decision's time-out, people's
window (a tdc cut, a Speculation trade), the bots' next move, a delayed automatic move
(autopass), the next deal, the closing of a finished table, the answers to questions put to
people (:class:`~server.table.answers.AnswerClocks`) — with each person's time bank
(:class:`~server.table.bank.TimeBank`); :meth:`Clocks.wake` is the earliest of them.

A table rebuilt after a restart waits for its people, then gives every decision its full time.
Time the server spent down is charged to nobody (see :mod:`server.table.durable`): the rebuilt
table holds every clock until :attr:`Clocks.resume_until` (the resume window), or until everyone
seated is back if that comes first (:meth:`Clocks.back`), and then starts each pending decision,
people's window, a person's time to answer an offer and the bots' pause afresh
(:meth:`Clocks.hold`), as if the situation had just arisen.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Protocol

from engine.api import Match
from server.games.base import GameAdapter, TableOptions
from server.table.answers import AnswerClocks
from server.table.bank import TimeBank
from server.table.seats import Seat
from server.table.steps import TableSettings


class ClockSettings(Protocol):
    """The server settings the clocks read (a subset of :class:`server.config.Config`)."""

    @property
    def close_after_over(self) -> float: ...
    @property
    def bot_delay(self) -> float: ...
    @property
    def autopass_delay(self) -> float: ...
    @property
    def offer_seconds(self) -> float: ...


class Timed(Protocol):
    """What :meth:`Clocks.hold` reads of its table: the match and what decides each clock's length."""

    @property
    def status(self) -> str: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def adapter(self) -> GameAdapter: ...
    @property
    def opts(self) -> TableOptions: ...
    @property
    def settings(self) -> TableSettings: ...
    @property
    def seats(self) -> Sequence[Seat]: ...

    def can_answer(self, seat: int) -> bool: ...

    def timer_seconds(self, kind: str) -> float: ...


class Clocks:
    """When each thing a table waits for falls due (see the module's documentation)."""

    __slots__ = ("answers", "auto_at", "bank", "bot_due", "deadlines", "next_deal_at", "over_at", "resume_until",
                 "settings", "window")

    def __init__(self, settings: ClockSettings, time_bank: float = 0.0) -> None:
        self.settings = settings
        self.deadlines: dict[Hashable, float] = {}  # pending decision's key -> when it times out
        self.next_deal_at = 0.0
        self.over_at: float | None = None  # when a finished table closes
        self.bot_due: float | None = None  # when the bots move next
        self.window: tuple[str, float] | None = None  # (kind, until): people's time before bots or clocks move on
        self.auto_at: float | None = None  # when a delayed automatic move (autopass) is due
        self.answers = AnswerClocks()  # open questions put to people (offers to a seller): their clocks
        self.bank = TimeBank(time_bank)  # each person's extra time this match (extend)
        self.resume_until: float | None = None  # a table rebuilt after a restart waits for its people until then

    def wake(self, seats: Sequence[Seat], deal_due: bool) -> float | None:
        """The earliest moment due: a decision, a grace, the next deal (``deal_due``: one is waited
        for), the bots, the closing, the window's end, an automatic move, an answer."""
        # (asked before every input the room takes: the earliest of a few values, no list made)
        deadlines = self.deadlines
        best = min(deadlines.values()) if deadlines else None
        for seat in seats:
            due = seat.grace_until
            if due is not None and (best is None or due < best):
                best = due
        if deal_due:
            due = self.next_deal_at
            if best is None or due < best:
                best = due
        window = self.window
        for due in (self.bot_due, self.over_at, None if window is None else window[1], self.auto_at,
                    self.answers.wake):
            if due is not None and (best is None or due < best):
                best = due
        return best

    def stop(self) -> None:
        """Nothing of a match is waited for any more (it is over, or the table closed)."""
        self.deadlines.clear()
        self.answers.clear()
        self.bot_due = None

    def move_on(self, keys: Sequence[Hashable], seconds: float, *, window: bool) -> None:
        """``seconds`` more on the decisions ``keys``; or (``window``) on people's window and every
        clock that starts after it (the next turn's), the bots' moves after it too."""
        if window and self.window is not None:
            kind, until = self.window
            self.window = (kind, until + seconds)
            for key in self.deadlines:
                self.deadlines[key] += seconds
            if self.bot_due is not None and self.bot_due >= until:
                self.bot_due += seconds
        else:
            for key in keys:
                self.deadlines[key] += seconds

    def hold(self, start: float, table: Timed) -> None:
        """Every clock of the table starts at ``start``: the full time of each decision, the window
        that was open, the bots' pause, the next deal, the closing of a finished table."""
        settings = self.settings
        self.deadlines.clear()
        self.answers.clear()
        self.auto_at = None
        self.bot_due = None
        if table.status == "over":
            self.over_at = start + settings.close_after_over
        match = table.match
        if match is None or table.status != "playing":
            return
        if match.needs_deal():
            self.next_deal_at = start
            return
        if self.window is not None:
            length = table.adapter.window_seconds(self.window[0], table.opts, table.settings)
            self.window = (self.window[0], start + length) if length > 0 else None
        begin = start if self.window is None else max(start, self.window[1])
        self.answers.refresh(table.adapter.questions(match), table.can_answer,
                             start, settings.offer_seconds)  # an offer put to a person: its full time again
        for pending in match.pending():
            due = begin + table.timer_seconds(pending.kind)
            held = None if pending.seat is None else self.answers.held_until(pending.seat)
            self.deadlines[pending.key] = due if held is None else max(due, held)
        if any(s.bot is not None for s in table.seats):
            self.bot_due = max(start + settings.bot_delay, begin)
        if any(s.member is not None and s.prefs for s in table.seats):
            self.auto_at = begin + settings.autopass_delay  # an automatic move asked for before

    def back(self, now: float, table: Timed, everyone: Callable[[], bool]) -> None:
        """Someone came back to a rebuilt table: once ``everyone()`` seated is here, the clocks start
        now (no need to wait out the resume window)."""
        until = self.resume_until
        if until is None:
            return
        if now >= until:
            self.resume_until = None  # the window is over: the clocks started at its end
            return
        if everyone():
            self.resume_until = None
            self.hold(now, table)

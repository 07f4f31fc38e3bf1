"""A table rebuilt after a restart waits for its people, then gives every decision its full time.

Time the server spent down is charged to nobody (see :mod:`server.table.durable`):
the rebuilt table holds every clock until :attr:`~server.table.base.TableBase.resume_until`
(the resume window), or until everyone seated is back if that comes first, and
then starts each pending decision, people's window (a tdc cut, a Speculation
trade), a person's time to answer an offer and the bots' pause afresh, as if the
situation had just arisen.
"""

from __future__ import annotations

from server.table.base import TableBase


class Resuming(TableBase):
    def _hold_timers(self, start: float) -> None:
        """Every clock of the table starts at ``start``: the full time of each decision, the window
        that was open, the bots' pause, the next deal, the closing of a finished table."""
        self.deadlines.clear()
        self.answers.clear()
        self.auto_at = None
        self.bot_due = None
        if self.status == "over":
            self.over_at = start + self.settings.close_after_over
        match = self.match
        if match is None or self.status != "playing":
            return
        if match.needs_deal():
            self.next_deal_at = start
            return
        if self.window is not None:
            length = self.adapter.window_seconds(self.window[0], self.opts, self.settings)
            self.window = (self.window[0], start + length) if length > 0 else None
        begin = start if self.window is None else max(start, self.window[1])
        self.answers.refresh(self.adapter.questions(match), self._can_answer,
                             start, self.settings.offer_seconds)  # an offer put to a person: its full time again
        for pending in match.pending():
            due = begin + self._timer_seconds(pending.kind)
            held = None if pending.seat is None else self.answers.held_until(pending.seat)
            self.deadlines[pending.key] = due if held is None else max(due, held)
        if any(s.bot is not None for s in self.seats):
            self.bot_due = max(start + self.settings.bot_delay, begin)
        if any(s.member is not None and s.prefs for s in self.seats):
            self.auto_at = begin + self.settings.autopass_delay  # an automatic move asked for before

    def _back_if_all_here(self) -> None:
        """Someone came back to a rebuilt table: once everyone seated is here, the clocks start now
        (no need to wait out the resume window)."""
        until = self.resume_until
        if until is None:
            return
        if self._now >= until:
            self.resume_until = None  # the window is over: the clocks started at its end
            return
        if all(s.present for s in self.seats if s.member is not None):
            self.resume_until = None
            self._hold_timers(self._now)

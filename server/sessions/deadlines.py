"""When a session is ended for waiting too long, as times: no clock is read here.

A connection has ``login_timeout`` seconds to log in; once in, ``idle_timeout`` seconds without a
line end it (0: never), except while the person holds a seat: the room's own timers act on a
seated player, so a seated player's quiet time never counts. The session reads its clock, asks
:meth:`Deadlines.wait` when to look again and :meth:`Deadlines.expired` when it looks.
"""

from __future__ import annotations

MIN_WAIT = 0.05
"""The shortest wait between two looks (a deadline passed already is looked at this soon)."""


class Deadlines:
    """The login time-out, then the idle time-out outside a seat."""

    __slots__ = ("connected_at", "idle_timeout", "last_input", "login_timeout")

    def __init__(self, login_timeout: float, idle_timeout: float, now: float) -> None:
        self.login_timeout = login_timeout
        self.idle_timeout = idle_timeout
        self.connected_at = now
        self.last_input = now

    def touch(self, now: float) -> None:
        """A line came in at ``now``."""
        self.last_input = now

    def wait(self, now: float, logged_in: bool) -> float | None:
        """Seconds until the next look (``None``: no deadline now)."""
        if not logged_in:
            left = self.login_timeout - (now - self.connected_at)
        elif self.idle_timeout > 0:
            left = self.idle_timeout - (now - self.last_input)
        else:
            return None
        return max(left, MIN_WAIT)

    def expired(self, now: float, logged_in: bool, seated: bool) -> str | None:
        """``"login_timeout"`` or ``"idle"`` when the session is over at ``now``, else ``None`` (a
        seated player's quiet time so far is forgotten)."""
        if not logged_in:
            return "login_timeout" if now - self.connected_at >= self.login_timeout else None
        if now - self.last_input >= self.idle_timeout and not seated:
            return "idle"
        if seated:
            self.last_input = now
        return None

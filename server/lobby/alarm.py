"""One timer for the earliest of some deadlines (the lobby's seeks and challenges lapsing)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Alarm:
    """Calls ``ring`` at the time last set (:meth:`set`, the event loop's clock); one at a time."""

    def __init__(self, ring: Callable[[], None]) -> None:
        self._ring = ring
        self._handle: asyncio.TimerHandle | None = None

    @property
    def armed(self) -> bool:
        return self._handle is not None

    def set(self, at: float | None) -> None:
        """Ring at ``at`` (None: not at all), instead of any time set before."""
        self.cancel()
        if at is not None:
            self._handle = asyncio.get_running_loop().call_at(at, self._rang)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _rang(self) -> None:
        self._handle = None
        self._ring()

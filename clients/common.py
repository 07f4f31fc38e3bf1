"""Small pieces shared by ``donne bot`` and ``donne load``: a settable deadline, the loopback guard."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass
class Deadline:
    """A stop time (:func:`time.perf_counter`) that may be set after the bots started (``inf``: not yet)."""

    at: float = math.inf

    def remaining(self) -> float | None:
        """Seconds left (at least 0.1), or ``None`` while no time is set."""
        return None if self.at == math.inf else max(0.1, self.at - time.perf_counter())


def check_loopback(host: str) -> None:
    """Refuse (``SystemExit``) any target but this machine: these tools never load someone else's server."""
    if host not in LOOPBACK and not host.startswith("127."):
        raise SystemExit(f"these tools only target this machine (127.0.0.1), not {host!r}")

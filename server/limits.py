"""Limits at the edge: command rate, connections per address, clean text.

Everything here is pure (the clock is passed in), so it is tested without a
network. Sessions and transports apply these limits before any command
reaches the lobby or a room.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST),
# other two-character ESC sequences, and the 8-bit C1 forms.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC ... BEL/ST
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[ -/]*[0-~]?"  # other ESC sequences (and a lone ESC)
)


def clean_text(text: str, limit: int | None = None) -> str:
    """``text`` without escape sequences or control characters, whitespace runs folded.

    Used on every name and chat line before anyone sees it: a player cannot
    move another player's cursor, change colours or ring a bell.
    """
    text = _ESCAPES.sub("", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "\t\n\r\v\f":
            out.append(" ")
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue  # controls, bidi overrides/zero-width formatting, surrogates, unassigned
        else:
            out.append(ch)
    cleaned = " ".join("".join(out).split())
    if limit is not None:
        cleaned = cleaned[:limit].rstrip()
    return cleaned


_NAME_OK = re.compile(r"^[^\s:@/\\\"'`<>]+$")


def clean_name(text: str, limit: int) -> str | None:
    """A player name as shown to others, or ``None`` when nothing usable is left.

    Names are one word of printable characters (letters of any script, digits,
    ``-_.``…); ``:`` is reserved for house accounts (``bot:house``) and ``@``,
    quotes and slashes would confuse commands and logs.
    """
    name = unicodedata.normalize("NFC", clean_text(text))
    if not name or len(name) > limit or not _NAME_OK.match(name):
        return None
    return name


@dataclass(slots=True)
class TokenBucket:
    """``rate`` commands per second sustained, ``burst`` at once."""

    rate: float
    burst: float
    tokens: float = field(init=False)
    stamp: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.tokens = float(self.burst)

    def take(self, now: float, cost: float = 1.0) -> bool:
        if self.stamp is not None:
            self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


@dataclass(slots=True)
class RateLimiter:
    """A session's command rate, and when a flood should end the session."""

    bucket: TokenBucket
    flood_disconnect: int
    refused_in_a_row: int = 0

    @classmethod
    def of(cls, rate: float, burst: int, flood_disconnect: int) -> RateLimiter:
        return cls(TokenBucket(rate, burst), flood_disconnect)

    def allow(self, now: float) -> bool:
        if self.bucket.take(now):
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False

    @property
    def flooding(self) -> bool:
        return self.refused_in_a_row >= self.flood_disconnect


class ConnectionCounter:
    """Open connections per peer address, capped."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self._open: Counter[str] = Counter()

    def acquire(self, address: str) -> bool:
        if self._open[address] >= self.per_address:
            return False
        self._open[address] += 1
        return True

    def release(self, address: str) -> None:
        self._open[address] -= 1
        if self._open[address] <= 0:
            del self._open[address]

    def count(self, address: str) -> int:
        return self._open[address]

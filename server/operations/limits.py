"""Limits at the edge: command rate, connections per address, rooms per opener, clean text.

Everything here is pure (the clock is passed in), so it is tested without a
network. Sessions and transports apply these limits before any command
reaches the lobby or a room.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from server.messages.terminal import display_width

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST),
# other two-character ESC sequences, and the 8-bit C1 forms.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"  # OSC ... BEL/ST
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"  # DCS/SOS/PM/APC strings
    r"|\x1b[ -/]*[0-~]?"  # other ESC sequences (and a lone ESC)
)


MAX_MARKS = 2
"""Combining marks (accents) a character of a shown text may carry (``ệ`` has two)."""


def clean_text(text: str, limit: int | None = None) -> str:
    """``text`` without escape sequences or control characters, whitespace runs folded.

    Used on every name and chat line before anyone sees it: a player cannot
    move another player's cursor, change colours or ring a bell, nor pile
    accents over the lines around (a character keeps :data:`MAX_MARKS` of its
    combining marks, once composed).
    """
    text = _ESCAPES.sub("", text)
    out = []
    run = 0
    for ch in unicodedata.normalize("NFC", text) if not text.isascii() else text:
        cat = unicodedata.category(ch)
        if cat in ("Mn", "Me"):
            run += 1
            if run > MAX_MARKS:
                continue  # a pile of accents ("zalgo"): the first ones stay
            out.append(ch)
            continue
        run = 0
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


def shown_text_problem(text: str, max_columns: int) -> str | None:
    """Why a text others are shown at length (a bio) is refused, or None: ``invisible`` (format
    characters: direction overrides like U+202E, zero-width joiners), ``marks`` (more than
    :data:`MAX_MARKS` combining marks on a character: they pile over the lines around it) or
    ``wide`` (wider than ``max_columns`` terminal columns: a full-width character takes two)."""
    if any(unicodedata.category(ch) in ("Cf", "Co", "Cn") for ch in text):
        return "invisible"
    run = 0
    for i, ch in enumerate(text):
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > MAX_MARKS or i == 0:
                return "marks"
        else:
            run = 0
    if display_width(text) > max_columns:
        return "wide"
    return None


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

    def ready(self, now: float, cost: float = 1.0) -> bool:
        """Whether :meth:`take` would allow ``cost`` at ``now`` (nothing is taken)."""
        tokens = self.tokens
        if self.stamp is not None:
            tokens = min(float(self.burst), tokens + (now - self.stamp) * self.rate)
        return tokens >= cost

    def full(self, now: float) -> bool:
        """Refilled to its burst by ``now``: as good as a new bucket."""
        return self.ready(now, float(self.burst))


class Budgets:
    """A :class:`TokenBucket` per key (a sender, a recipient, an address), made at its first use:
    ``per_minute`` sustained, ``burst`` at once (``per_minute`` 0: no limit).

    Buckets that have refilled are forgotten now and then, so a stream of new keys (guests come
    and go) does not grow it for ever. Pure: the clock is passed in.
    """

    SWEEP = 1024
    """Keys held before the refilled ones are swept out."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = max(1, burst)
        self._buckets: dict[str, TokenBucket] = {}
        self._sweep_at = self.SWEEP

    def __len__(self) -> int:
        return len(self._buckets)

    @property
    def limited(self) -> bool:
        return self.rate > 0

    def ready(self, key: str, now: float) -> bool:
        """Whether ``key`` has a token left at ``now`` (nothing is taken)."""
        bucket = self._buckets.get(key)
        return not self.limited or bucket is None or bucket.ready(now)

    def take(self, key: str, now: float) -> bool:
        """One token of ``key``'s: True when it had one (and it is spent)."""
        if not self.limited:
            return True
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.take(now)

    def _sweep(self, now: float) -> None:
        self._buckets = {k: b for k, b in self._buckets.items() if not b.full(now)}
        self._sweep_at = max(self.SWEEP, 2 * len(self._buckets))


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


def address_key(peer: str) -> str:
    """Whom an address stands for when counting what it opened: an IPv4 address, or an IPv6 /64.

    One IPv6 host is given a whole /64, so counting its addresses one by one
    would count nothing; an IPv4 address seen through IPv6 (``::ffff:a.b.c.d``)
    is that IPv4 address. Anything else (``"?"``, a name) is its own key.
    """
    try:
        addr = ipaddress.ip_address(peer.strip("[]").split("%", 1)[0])
    except ValueError:
        return peer
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


@dataclass(frozen=True, slots=True)
class Opener:
    """Who opened a room: the account's name key, the address key (:func:`address_key`), a guest or not."""

    account: str
    address: str
    guest: bool


@dataclass(frozen=True, slots=True)
class RoomLimits:
    """How many rooms may be open at once: in all, per account, per address and for guests (0: no limit
    for the per-account and per-address counts). Guests are counted per address and against their
    share of ``max_rooms``; the rest of the rooms is kept for registered accounts."""

    max_rooms: int
    per_account: int
    per_address: int
    guest_share: float

    @property
    def guest_rooms(self) -> int:
        return int(self.max_rooms * self.guest_share)


class RoomSlots:
    """The open rooms, counted by who opened them; :meth:`take` checks and counts in one step.

    Pure (no clock, no I/O): the lobby calls :meth:`take` when it begins to
    open a room (before anything is awaited) and :meth:`give_back` with the
    same opener when that room closes, or when opening it failed. A refusal
    names its ``reason`` (a protocol ``not_allowed`` reason with a sentence in
    every language) and the limit (``max``).
    """

    def __init__(self, limits: RoomLimits) -> None:
        self.limits = limits
        self._open = 0
        self._by_account: Counter[str] = Counter()
        self._by_address: Counter[str] = Counter()
        self._guests = 0

    def __len__(self) -> int:
        return self._open

    def refusal(self, opener: Opener | None, pending: Iterable[Opener | None] = ()) -> tuple[str, int] | None:
        """Why ``opener`` may not open a room now (reason, limit), or None.

        ``pending``: who else has a room on its way (the open seeks and challenges, whose tables open
        when they are taken up). They count as open rooms of their openers for the per-account,
        per-address and guests' limits, so a seek is refused when its table would be, and seeks
        cannot promise more rooms than their openers may open (``max_rooms`` counts rooms only)."""
        lim = self.limits
        if self._open >= lim.max_rooms:
            return "too_many_rooms", lim.max_rooms
        if opener is None:
            return None
        account, address, guests = self._by_account[opener.account], self._by_address[opener.address], self._guests
        for other in pending:
            if other is None:
                continue
            account += other.account == opener.account
            if other.guest:
                address += other.address == opener.address
                guests += 1
        if lim.per_account and account >= lim.per_account:
            return "rooms_per_account", lim.per_account
        if opener.guest:
            if lim.per_address and address >= lim.per_address:
                return "rooms_per_address", lim.per_address
            if guests >= lim.guest_rooms:
                return "guest_rooms", lim.guest_rooms
        return None

    def take(self, opener: Opener | None) -> tuple[str, int] | None:
        """Count a room opened by ``opener`` unless a limit refuses it: None, or (reason, limit)."""
        refused = self.refusal(opener)
        if refused is not None:
            return refused
        self._open += 1
        if opener is not None:
            self._by_account[opener.account] += 1
            if opener.guest:
                self._by_address[opener.address] += 1
                self._guests += 1
        return None

    def restored(self) -> None:
        """Count a room a restart brought back: it was counted before, so no limit refuses it
        (it is given back with ``give_back(None)``)."""
        self._open += 1

    def give_back(self, opener: Opener | None) -> None:
        """A room :meth:`take` counted for ``opener`` closed (or was never opened)."""
        if self._open <= 0:
            raise ValueError("no room is counted")
        self._open -= 1
        if opener is None:
            return
        _drop(self._by_account, opener.account)
        if opener.guest:
            _drop(self._by_address, opener.address)
            self._guests -= 1

    def opened_from(self, address: str) -> int:
        return self._by_address[address]

    @property
    def guests(self) -> int:
        return self._guests


def _drop(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]

"""The contract of running a community (:attr:`server.storage.api.Store.moderation`): roles, bans,
mutes, locks, password resets, renames, admins' chips, ignore lists, the message of the day, and the
moderation log. Its refusals (:class:`~server.storage.api.Forbidden`,
:class:`~server.storage.api.NoSuchBan`, ...) are the store's :class:`~server.storage.api.StorageError` errors.
``server/storage/sql/moderation.py`` implements it for both back-ends; ``docs/operators.md`` tells the
rules.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from server.protocol import JSONValue

MIN_PREFIX = {4: 8, 6: 16}  # a network banned at once is at most a /8 (IPv4) or a /16 (IPv6)


def network(text: str) -> str:
    """An address or a CIDR network as stored: ``192.0.2.7/32``, ``10.0.0.0/8``, ``2001:db8::/32``.

    :class:`ValueError`: not an address, or wider than /8 (IPv4) or /16 (IPv6), which would shut
    out half a continent by a typo."""
    try:
        net = ipaddress.ip_network(str(text).strip(), strict=False)
    except ValueError:
        raise ValueError(f"{text!r} is not an address or a network") from None
    if isinstance(net, ipaddress.IPv6Network) and net.prefixlen >= 96 and net.network_address.ipv4_mapped:
        mapped = net.network_address.ipv4_mapped
        net = ipaddress.ip_network(f"{mapped}/{net.prefixlen - 96}", strict=False)
    if net.prefixlen < MIN_PREFIX[net.version]:
        raise ValueError(f"{net} is too wide a network to ban (at least /{MIN_PREFIX[net.version]})")
    return str(net)


@functools.lru_cache(maxsize=4096)
def address_of(peer: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """A connection's address (an IPv4-mapped IPv6 address as its IPv4 one), or None."""
    try:
        ip = ipaddress.ip_address(str(peer).strip().split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@functools.lru_cache(maxsize=4096)
def _parsed(net: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    try:
        return ipaddress.ip_network(net, strict=False)
    except (ValueError, TypeError):
        return None


def in_network(peer: str, net: str) -> bool:
    """Whether a connection's address is inside a stored network (parsed once: the door asks often)."""
    ip = address_of(peer)
    parsed = _parsed(net)
    return ip is not None and parsed is not None and ip.version == parsed.version and ip in parsed


ROLES = ("player", "moderator", "admin")
"""Roles, weakest first: moderators kick and mute, admins do everything (``docs/operators.md``).
A guest is always a player."""


def role_rank(role: str) -> int:
    """0 for a player, 1 for a moderator, 2 for an admin (an unknown role counts as a player)."""
    return ROLES.index(role) if role in ROLES else 0


BAN_KINDS = ("account", "address", "key")


@dataclass(frozen=True, slots=True)
class Ban:
    """A ban: of a registered account, of an address or network (CIDR), or of an SSH public key."""

    id: int
    kind: str  # account | address | key
    target: str  # the account's name, the network ("10.0.0.0/8", "192.0.2.7/32"), the key "type base64"
    reason: str
    actor: str
    created: float
    until: float | None  # None: for good


@dataclass(frozen=True, slots=True)
class Mute:
    """No chat (lobby, rooms, tells) from that account until ``until``."""

    name: str
    reason: str
    actor: str
    created: float
    until: float


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the door refuses a connection: ``banned`` (by ``kind``: account, address, key) or ``locked``."""

    code: str  # "banned" | "locked"
    kind: str  # account | address | key | lock
    reason: str
    until: float | None = None  # None: for good (a lock has no end)


@dataclass(frozen=True, slots=True)
class ModEntry:
    """One line of the moderation log: who did what to whom, why, when (never a password or a code)."""

    id: int
    ts: float
    actor: str
    action: str
    target: str
    reason: str
    detail: Mapping[str, JSONValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Standing:
    """An account as its operators see it: no password hash, no reset code."""

    name: str
    guest: bool
    role: str
    chips: int
    created: float
    locked: str | None = None  # the reason, when locked
    muted_until: float | None = None
    banned_until: float | None = None  # float("inf"): for good
    ban_reason: str = ""


class Moderation(Protocol):
    """Roles, bans, mutes, locks, password resets, renames, admins' chips, ignore lists, the message of
    the day, and the moderation log. Every action that changes something takes its ``actor`` (a
    player's name, or ``console:USER`` for ``donne admin``) and writes its log line in the same
    transaction. Reasons are stored as given (at most 200 characters): callers clean them
    (``server.operations.limits.clean_text``) like chat."""

    async def role(self, name: str) -> str:
        """``player``, ``moderator`` or ``admin`` (a guest, an unknown name: ``player``)."""
        ...

    async def set_role(self, name: str, role: str, *, actor: str, reason: str = "") -> str:
        """Give a registered account a role; returns the role it had (:class:`Forbidden` for a guest)."""
        ...

    async def door(self, *, name: str | None = None, address: str | None = None,
                   key: str | None = None) -> Refusal | None:
        """Whether the door refuses this address, this SSH key or this account (banned or locked)."""
        ...

    async def ban(self, kind: str, target: str, *, until: float | None, reason: str, actor: str) -> Ban:
        """Ban an account (``target``: its name), an address or a CIDR network, or an SSH public key
        (an ``authorized_keys`` line) until ``until`` (None: for good); replaces an active ban of the
        same target."""
        ...

    async def unban(self, kind: str, target: str, *, actor: str, reason: str = "") -> Ban:
        """Lift the active ban of that target (:class:`NoSuchBan` when there is none); ``kind`` may
        be ``"id"`` (``target``: the ban's number)."""
        ...

    async def bans(self) -> list[Ban]:
        """The active bans, newest first."""
        ...

    async def mute(self, name: str, until: float, *, reason: str, actor: str) -> Mute: ...

    async def unmute(self, name: str, *, actor: str, reason: str = "") -> Mute: ...

    async def muted(self, name: str) -> Mute | None:
        """The live account's active mute, if any."""
        ...

    async def mutes(self) -> list[Mute]: ...

    async def lock(self, name: str, *, reason: str, actor: str) -> None: ...

    async def unlock(self, name: str, *, actor: str, reason: str = "") -> None: ...

    async def reset_password(self, name: str, *, actor: str) -> tuple[str, float]:
        """A one-time code (returned once, stored hashed) that logs the account in and opens
        ``passwd`` in place of the old password, until it is used there or expires; and when."""
        ...

    async def rename(self, name: str, new: str, *, actor: str, reason: str = "") -> str:
        """Rename a registered account (its history follows); returns the new name as stored."""
        ...

    async def grant_chips(self, name: str, amount: int, *, reason: str, actor: str) -> int:
        """New chips for a registered account (a ``grant`` entry of its own); returns its balance."""
        ...

    async def retire_chips(self, name: str, amount: int, *, reason: str, actor: str) -> int:
        """Take chips out of circulation from an account's available chips (a ``retire`` entry of its
        own); returns its balance."""
        ...

    async def record(self, actor: str, action: str, target: str = "", reason: str = "",
                     detail: Mapping[str, JSONValue] | None = None) -> None:
        """A line of the moderation log for an action that changes nothing stored (kick, announce)."""
        ...

    async def log(self, limit: int = 50, name: str | None = None) -> list[ModEntry]:
        """The latest lines, newest first (``name``: those by or about that name)."""
        ...

    async def ignores(self, name: str) -> list[str]: ...

    async def ignore_lists(self) -> dict[str, list[str]]:
        """Every live account's ignore list (account name -> names), for the lobby's moderation hook."""
        ...

    async def ignore(self, name: str, other: str) -> None: ...

    async def unignore(self, name: str, other: str) -> bool: ...

    async def motd(self) -> str | None:
        """The message of the day an admin set (None: the configuration's)."""
        ...

    async def set_motd(self, text: str | None, *, actor: str) -> None: ...

    async def standing(self, name: str) -> Standing | None: ...

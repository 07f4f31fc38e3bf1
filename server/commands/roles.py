"""Who may do what: the one table of roles the staff commands need, and what they parse.

Pure (no I/O): the table :data:`ROLE_NEEDED`, the rule for targets (:func:`may_act_on`), durations
(``10m``, ``2h``, ``3d``, ``1w``, ``forever``: :func:`parse_duration`) and what a ban's target is
(a name, an address or network, an SSH public key: :func:`target_kind`). The commands
(:mod:`server.commands.moderation`) and ``donne admin`` (:mod:`server.start.admin`) use the same functions.

The rules (``docs/operators.md``):

* moderators kick and mute; admins do everything;
* a role acts only on people of a lower role: a moderator never on a moderator or an admin, an
  admin never on another admin (the operator's ``donne admin`` does that), nobody on themselves —
  so an admin cannot grant himself chips;
* a guest is always a player.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata

from server.protocol import Args, JSONValue
from server.storage.api import ROLES, role_rank

PLAYER, MODERATOR, ADMIN = ROLES

ROLE_NEEDED: dict[str, str] = {
    "kick": MODERATOR,
    "mute": MODERATOR,
    "unmute": MODERATOR,
    "ban": ADMIN,
    "unban": ADMIN,
    "bans": ADMIN,
    "announce": ADMIN,
    "motd set": ADMIN,  # reading the message of the day is everyone's
    "shutdown": ADMIN,
    "grant": ADMIN,
    "revoke": ADMIN,
    "resetpw": ADMIN,
    "rename": ADMIN,
    "lock": ADMIN,
    "unlock": ADMIN,
    "chips": ADMIN,
    "modlog": ADMIN,
    "standing": ADMIN,
}
"""Each staff command and the least role that may run it (the only place this is decided)."""


def allowed(action: str, role: str) -> bool:
    """May someone of ``role`` run ``action`` (a key of :data:`ROLE_NEEDED`)?"""
    return role_rank(role) >= role_rank(ROLE_NEEDED[action])


def may_act_on(actor_role: str, target_role: str, *, self_: bool) -> bool:
    """Only on people of a lower role, never on oneself."""
    return not self_ and role_rank(target_role) < role_rank(actor_role)


# --------------------------------------------------------------------------- durations

FOREVER_WORDS = frozenset({"forever", "permanent", "perm", "never", "toujours", "definitif", "definitivement",
                           "siempre", "permanente", "indefinido", "parasiempre"})
NOW_WORDS = frozenset({"now", "maintenant", "immediatement", "ahora", "ya", "0"})
UNITS: dict[str, float] = {}
for _words, _seconds in (
    (("s", "sec", "secs", "second", "seconds", "seconde", "secondes", "segundo", "segundos"), 1),
    (("m", "min", "mins", "minute", "minutes", "minuto", "minutos", "mn"), 60),
    (("h", "hr", "hrs", "hour", "hours", "heure", "heures", "hora", "horas"), 3600),
    (("d", "j", "day", "days", "jour", "jours", "dia", "dias"), 86400),
    (("w", "sem", "week", "weeks", "semaine", "semaines", "semana", "semanas"), 604800),
):
    for _w in _words:
        UNITS[_w] = _seconds
MAX_DURATION = 10 * 365 * 86400.0
_PART = re.compile(r"(\d+)\s*([a-z]+)")


def _fold(text: str) -> str:
    w = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(c for c in w if not unicodedata.combining(c))


def parse_duration(value: JSONValue, *, forever: bool = True, now: bool = False) -> float | None:
    """Seconds for ``10m``, ``2h30m``, ``3d``, ``1w``, ``90s`` (units in the three languages: ``2j``,
    ``3 jours``, ``1 semana``), or a number of seconds (JSON); ``None`` for ``forever`` (when
    ``forever``); ``0`` for ``now`` (when ``now``). :class:`ValueError` otherwise: a number without
    a unit is refused when typed, so that nobody bans for 10 seconds meaning 10 days."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        text = _fold(value).replace(" ", "")
        if forever and text in FOREVER_WORDS:
            return None
        if now and text in NOW_WORDS:
            return 0.0
        parts = _PART.findall(text)
        if not parts or "".join(n + u for n, u in parts) != text or any(u not in UNITS for _, u in parts):
            raise ValueError(value)
        seconds = sum(int(n) * UNITS[u] for n, u in parts)
    else:
        raise ValueError(value)
    if seconds == 0 and now:
        return 0.0
    if not 0 < seconds <= MAX_DURATION:
        raise ValueError(value)
    return seconds


# --------------------------------------------------------------------------- targets

KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
             "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com", "ssh-dss")


def is_address(text: str) -> bool:
    """An address or a CIDR network (names start with a letter and have no ``.``-only digits or ``:``)."""
    try:
        ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return False
    return True


def is_key(words: list[str]) -> bool:
    """``TYPE BASE64 …``: an SSH public key as ``authorized_keys`` has it."""
    return len(words) >= 2 and words[0] in KEY_TYPES and words[1].startswith("AAAA")


def target_kind(args: Args) -> tuple[str, str]:
    """(``account`` | ``address`` | ``key``, the target) from a ban's protocol arguments: ``name``,
    ``address`` or ``key`` (exactly one). :class:`ValueError` naming the argument otherwise."""
    given = [k for k in ("name", "address", "key") if args.get(k) is not None]
    if len(given) != 1:
        raise ValueError("name")
    which = given[0]
    value = args.get(which)
    if not isinstance(value, str) or not value.strip() or len(value) > 16384:
        raise ValueError(which)
    kind = {"name": "account", "address": "address", "key": "key"}[which]
    if kind == "address" and not is_address(value):
        raise ValueError("address")
    if kind == "key" and not is_key(value.split()):
        raise ValueError("key")
    return kind, value.strip()


__all__ = ["ADMIN", "MODERATOR", "PLAYER", "ROLE_NEEDED", "allowed", "is_address", "is_key", "may_act_on",
           "parse_duration", "target_kind"]

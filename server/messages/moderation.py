"""The sentences of running a community: refusals (roles, bans, mutes, locks), the staff's news
(announcements, the message of the day, a kick, a mute, a shutdown coming), and what the door says.

Reasons typed by moderators (``why``, ``reason``) and announcements (``message``) are cleaned like
chat before they are stored or sent (``server.operations.limits.clean_text``); they are shown as typed, never
translated. Moments are ``2025-01-31 14:05 UTC`` in every language.
"""

from __future__ import annotations

import datetime as _dt
import gettext
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from server.messages.kit import ANYONE, T, event, to_int
from server.messages.terminal import TermStyle
from server.messages.translations import LANGS, translation
from server.protocol import JSONValue, Push


def when(ts: float | None) -> str | None:
    """A moment as people and programs read it: ``2025-01-31 14:05 UTC`` (None: for good)."""
    if ts is None:
        return None
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


class Refused(Protocol):
    """What a refusal at the door says (a :class:`~server.storage.api.Refusal`)."""

    @property
    def kind(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def until(self) -> float | None: ...


def refusal_params(refusal: Refused) -> dict[str, JSONValue]:
    """The parameters of a ``banned`` or ``locked`` refusal's sentence (a
    :class:`~server.storage.api.Refusal`; ``why``: the moderator's reason)."""
    return {"kind": refusal.kind, "why": refusal.reason, "until": when(refusal.until)}


def _has(p: Mapping[str, object], key: str) -> bool:
    return p.get(key) is not None and p.get(key) != ""


def _why(t: gettext.NullTranslations, p: Mapping[str, object], key: str = "why") -> str:
    return " " + t.gettext("Reason: {reason}.").format(reason=p[key]) if _has(p, key) else ""


def role_name(lang: str, role: object) -> str:
    t = translation(lang)
    if role == "admin":
        return t.pgettext("role", "admin")
    if role == "moderator":
        return t.pgettext("role", "moderator")
    return t.pgettext("role", "player")


def _banned(t: gettext.NullTranslations, p: Mapping[str, object]) -> str:
    kind = p.get("kind")
    until = p.get("until")
    if kind == "address":
        text = (t.gettext("Connections from your address are banned from this server until {until}.")
                if until else t.gettext("Connections from your address are banned from this server for good."))
    elif kind == "key":
        text = (t.gettext("This SSH key is banned from this server until {until}.")
                if until else t.gettext("This SSH key is banned from this server for good."))
    else:
        text = (t.gettext("This account is banned from this server until {until}.")
                if until else t.gettext("This account is banned from this server for good."))
    return text.format(until=until) + _why(t, p)


def moderation_text(t: gettext.NullTranslations, code: str, reason: str | None, p: Mapping[str, object]) -> str | None:
    """The sentence of a refusal of running a community, or None (not one of them)."""
    if code == "forbidden":
        if p.get("yourself"):
            return t.gettext("You cannot do that to yourself.")
        if _has(p, "name"):
            return t.gettext("You cannot do that to {name}: only to someone of a lower role than yours.").format(
                name=p["name"])
        if p.get("need") == "admin":
            return t.gettext("Only admins can do that.")
        if p.get("need") == "moderator":
            return t.gettext("Only moderators and admins can do that.")
        return t.gettext("You are not allowed to do that.")
    if code == "bad_argument" and p.get("arg") in _ARGUMENTS:
        return str(_ARGUMENTS[str(p["arg"])](t))
    if code == "muted" and _has(p, "until"):  # without: the social commands' sentence (errors.py)
        return t.gettext("You are muted until {until}: nobody hears you.").format(until=p["until"]) + _why(t, p)
    if code == "banned":
        return _banned(t, p)
    if code == "locked":
        return (t.gettext("This account is locked.") + _why(t, p) + " "
                + t.gettext("Ask the server's operators."))
    if code == "no_such_account":
        if _has(p, "name"):
            return t.gettext("There is no account called {name}.").format(name=p["name"])
        return t.gettext("There is no such account.")
    if code == "registration_closed":
        return t.gettext("This server takes no new accounts; ask its operators for one.")
    if code == "no_such_ban":
        return t.gettext("Nothing to lift: no such ban, mute or lock is in force.")
    if code == "rate_limited" and reason == "chat":
        return t.gettext("You are talking too fast: wait a moment before the next line.")
    if code == "not_allowed" and reason == "online":
        if _has(p, "name"):
            return t.gettext("{name} is connected or holds a seat: that waits until they are gone.").format(
                name=p["name"])
        return t.gettext("That waits until they are gone.")
    if code == "not_allowed" and reason == "no_shutdown":
        return t.gettext("No shutdown is planned.")
    return None


_ARGUMENTS: dict[str, Callable[[gettext.NullTranslations], str]] = {
    # what the staff's arguments must be, when they are wrong
    "duration": lambda t: t.gettext("A duration is written like 10m, 2h, 3d or 1w (a ban may also be forever)."),
    "delay": lambda t: t.gettext("A delay is written like 30s, 5m or 1h, or now."),
    "role": lambda t: t.gettext("The roles are player, moderator and admin."),
    "reason": lambda t: t.gettext("Say why, after the other words: it goes to the moderation log."),
    "address": lambda t: t.gettext("An address is written like 192.0.2.7 or a network like 198.51.100.0/24 "
                                   "(at most a /8, or a /16 for IPv6)."),
    "key": lambda t: t.gettext("A public key is written as in authorized_keys: its type, then its base64 text."),
    "ban": lambda t: t.gettext("A ban is named by its number, as the list of bans shows it (#12)."),
    "new": lambda t: t.gettext("Give the new name after the current one."),
}


def door_notice(code: str, params: Mapping[str, object]) -> str:
    """What the door says before anyone chose a language (SSH, before a shell opens): the refusal
    in French, Spanish and English, one line each."""
    lines = []
    for lang in LANGS:
        text = moderation_text(translation(lang), code, None, params)
        if text and text not in lines:
            lines.append(text)
    return "\n".join(lines) + "\n"


def span_text(t: gettext.NullTranslations, seconds: int) -> str:
    """``5 minutes``, ``1 hour``, ``30 seconds``: a delay in its largest whole unit."""
    if seconds >= 3600 and seconds % 3600 == 0:
        n = seconds // 3600
        return t.ngettext("{n} hour", "{n} hours", n).format(n=n)
    if seconds >= 60 and seconds % 60 == 0:
        n = seconds // 60
        return t.ngettext("{n} minute", "{n} minutes", n).format(n=n)
    return t.ngettext("{n} second", "{n} seconds", seconds).format(n=seconds)


# --------------------------------------------------------------------------- events


@event("announcement", seats=ANYONE)
def _ev_announcement(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                     style: TermStyle) -> str | None:
    return t.gettext("Announcement from {name}: {message}").format(name=e.get("name") or "?",
                                                                   message=e.get("message", ""))


@event("motd", seats=ANYONE)
def _ev_motd(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
             style: TermStyle) -> str | None:
    return t.gettext("Message of the day:") + "\n" + str(e.get("message", ""))


@event("kicked", seats=ANYONE)
def _ev_kicked(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
               style: TermStyle) -> str | None:
    return t.gettext("A moderator disconnected you.") + _why(t, e, "reason")


@event("banned", seats=ANYONE)
def _ev_banned(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
               style: TermStyle) -> str | None:
    return _banned(t, {**e, "why": e.get("reason")})


@event("locked", seats=ANYONE)
def _ev_locked(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
               style: TermStyle) -> str | None:
    return t.gettext("Your account was locked by the server's operators.") + _why(t, e, "reason")


@event("muted", seats=ANYONE)
def _ev_muted(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
              style: TermStyle) -> str | None:
    return (t.gettext("A moderator muted you until {until}: your chat reaches nobody until then.").format(
        until=e.get("until", "?")) + _why(t, e, "reason"))


@event("unmuted", seats=ANYONE)
def _ev_unmuted(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                style: TermStyle) -> str | None:
    return t.gettext("You may chat again.")


@event("role", seats=ANYONE)
def _ev_role(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
             style: TermStyle) -> str | None:
    return t.gettext("You are {role} on this server now.").format(role=role_name(lang, e.get("role")))


@event("chips", seats=ANYONE)
def _ev_chips(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
              style: TermStyle) -> str | None:
    n = to_int(e.get("delta") or 0)
    if n >= 0:
        text = t.ngettext("An admin gave you {n} chip.", "An admin gave you {n} chips.", n).format(n=n)
    else:
        text = t.ngettext("An admin took back {n} chip of yours.", "An admin took back {n} chips of yours.",
                          -n).format(n=-n)
    return text + _why(t, e, "reason")

"""The social news as sentences: tells, messages, friends coming and sitting down, seeks, challenges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from server.messages.kit import ANYONE, T, event
from server.messages.labels import table_name
from server.terminal import TermStyle


@event("tell", seats=ANYONE)
def _ev_tell(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("{name} tells you: {text}").format(name=e.get("from") or "?", text=e.get("message", ""))


@event("message", seats=ANYONE)
def _ev_message(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                style: TermStyle) -> str | None:
    when = str(e.get("sent") or "")[:16].replace("T", " ")
    if when:
        return t.gettext("Message from {name} ({when}): {text}").format(name=e.get("from") or "?", when=when,
                                                                        text=e.get("message", ""))
    return t.gettext("Message from {name}: {text}").format(name=e.get("from") or "?", text=e.get("message", ""))


@event("friend_online", seats=ANYONE)
def _ev_friend_online(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    return t.gettext("Your friend {name} is online.").format(name=e.get("name") or "?")


@event("friend_seated", seats=ANYONE)
def _ev_friend_seated(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    return t.gettext("Your friend {name} sits down in room {room} (watch {room}).").format(
        name=e.get("name") or "?", room=e.get("room"))


def _what(lang: str, e: Mapping[str, Any]) -> str:
    return table_name(lang, e.get("game"), e.get("rules"))


@event("seek", seats=ANYONE)
def _ev_seek(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = int(e.get("missing") or 0)
    return t.ngettext(
        "{name} seeks {n} player for {game}, {seats} seats (accept {id}).",
        "{name} seeks {n} players for {game}, {seats} seats (accept {id}).", n,
    ).format(name=e.get("name") or "?", n=n, game=_what(lang, e), seats=e.get("seats"), id=e.get("seek"))


@event("challenge", seats=ANYONE)
def _ev_challenge(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                  style: TermStyle) -> str | None:
    return t.gettext("{name} challenges you: {game}, {seats} seats. Type accept or decline.").format(
        name=e.get("name") or "?", game=_what(lang, e), seats=e.get("seats"))


@event("seek_accepted", seats=ANYONE)
def _ev_seek_accepted(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    n = int(e.get("missing") or 0)
    return t.ngettext("{name} accepts your seek; {n} more player needed.",
                      "{name} accepts your seek; {n} more players needed.", n).format(name=e.get("name") or "?", n=n)


@event("seek_started", seats=ANYONE)
def _ev_seek_started(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                     style: TermStyle) -> str | None:
    return t.gettext("The table of {name}'s seek is open: room {room}, your seat {seat}.").format(
        name=e.get("name") or "?", room=e.get("room"), seat=e.get("seat"))


@event("seek_over", seats=ANYONE)
def _ev_seek_over(t: T, lang: str, e: Mapping[str, Any], names: Sequence[str], you: int | None,
                  style: TermStyle) -> str | None:
    reason = e.get("reason")
    name = e.get("name") or "?"
    if reason == "declined":
        return t.gettext("{name} declines your challenge.").format(name=name)
    if reason == "cancelled":
        return t.gettext("{name} withdraws the seek or challenge #{id}.").format(name=name, id=e.get("seek"))
    if reason == "lapsed":
        return t.gettext("Seek or challenge #{id} lapsed: nobody took it up in time.").format(id=e.get("seek"))
    if reason == "gone":
        return t.gettext("Seek or challenge #{id} ended: a player it needed is gone.").format(id=e.get("seek"))
    text = t.gettext("Seek or challenge #{id} could not open its table.").format(id=e.get("seek"))
    if isinstance(e.get("code"), str):  # why (a room limit, chips): the refusal's own sentence
        from server.messages.errors import error_message

        params = {k: v for k, v in e.items() if k in ("max", "need", "chips", "have")}
        text += " " + error_message(lang, e["code"], style, reason=e.get("refused"), **params)
    return text

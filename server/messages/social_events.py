"""The social news as sentences: tells, messages, friends coming and sitting down, seeks, challenges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.messages.games import deals, has_ante, staked
from server.messages.kit import ANYONE, T, event, text_of, to_int
from server.messages.labels import number, table_name
from server.messages.terminal import TermStyle
from server.messages.translations import translation
from server.protocol import JSONValue, Push


@event("tell", seats=ANYONE)
def _ev_tell(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    return t.gettext("{name} tells you: {text}").format(name=e.get("from") or "?", text=e.get("message", ""))


@event("message", seats=ANYONE)
def _ev_message(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                style: TermStyle) -> str | None:
    when = str(e.get("sent") or "")[:16].replace("T", " ")
    if when:
        return t.gettext("Message from {name} ({when}): {text}").format(name=e.get("from") or "?", when=when,
                                                                        text=e.get("message", ""))
    return t.gettext("Message from {name}: {text}").format(name=e.get("from") or "?", text=e.get("message", ""))


@event("friend_online", seats=ANYONE)
def _ev_friend_online(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    return t.gettext("Your friend {name} is online.").format(name=e.get("name") or "?")


@event("friend_seated", seats=ANYONE)
def _ev_friend_seated(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    return t.gettext("Your friend {name} sits down in room {room} (watch {room}).").format(
        name=e.get("name") or "?", room=e.get("room"))


def _what(lang: str, e: Push) -> str:
    return table_name(lang, text_of(e.get("game")), text_of(e.get("rules")))


def _level(t: T, level: JSONValue) -> str:
    if level == "easy":
        return t.pgettext("bot level", "easy")
    if level == "hard":
        return t.pgettext("bot level", "hard")
    return t.pgettext("bot level", "normal")


def _int(value: JSONValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def seek_terms(lang: str, e: Push) -> str:
    """Everything a seek or a challenge sets, before anyone accepts it: the table, its seats, then
    the stake or ante, rounds, bots and their level, time per turn, rated or not, and the game's
    own options (``Président trou du cul, 4 seats, stake 2 chips, 1 bot (normal), 30 s a turn``)."""
    t = translation(lang)
    parts = [_what(lang, e)]
    seats = _int(e.get("seats"))
    if seats is not None:
        parts.append(t.ngettext("{n} seat", "{n} seats", seats).format(n=seats))
    stake = _int(e.get("stake"))
    if stake and staked(e.get("rules")):
        parts.append(t.ngettext("stake {n} chip", "stake {n} chips", stake).format(n=number(lang, stake)))
    ante = _int(e.get("ante"))
    if ante and has_ante(e.get("game")):
        parts.append(t.ngettext("ante {n} chip", "ante {n} chips", ante).format(n=number(lang, ante)))
    rounds = _int(e.get("rounds"))
    if rounds:
        parts.append((t.ngettext("{n} deal", "{n} deals", rounds) if deals(e.get("game"))
                      else t.ngettext("{n} round", "{n} rounds", rounds)).format(n=rounds))
    bots = _int(e.get("bots"))
    if bots:
        parts.append(t.ngettext("{n} bot ({level})", "{n} bots ({level})", bots).format(
            n=bots, level=_level(t, e.get("bot_level"))))
    turn = e.get("turn_seconds")
    if isinstance(turn, int | float) and not isinstance(turn, bool) and turn > 0:
        parts.append(t.gettext("{n} s a turn").format(n=f"{turn:g}"))
    got = e.get("options")
    options: Mapping[str, object] = got if isinstance(got, Mapping) else {}
    cut = options.get("cut_window")
    if isinstance(cut, int | float) and not isinstance(cut, bool):
        parts.append(t.gettext("{n} s to cut").format(n=f"{cut:g}"))
    trade = options.get("trade_window")
    if isinstance(trade, int | float) and not isinstance(trade, bool):
        parts.append(t.gettext("{n} s to trade").format(n=f"{trade:g}"))
    if "rated" in e:
        parts.append(t.gettext("rated") if e.get("rated") else t.gettext("not rated"))
    if e.get("fill"):
        parts.append(t.gettext("bots fill the seats left if it lapses"))
    return ", ".join(parts)


@event("seek", seats=ANYONE)
def _ev_seek(t: T, lang: str, e: Push, names: Sequence[str], you: int | None, style: TermStyle) -> str | None:
    n = to_int(e.get("missing") or 0)
    if style.browser:  # the page lists the seeks with their Accept button
        return t.ngettext("{name} seeks {n} player: {terms}.", "{name} seeks {n} players: {terms}.", n).format(
            name=e.get("name") or "?", n=n, terms=seek_terms(lang, e))
    return t.ngettext(
        "{name} seeks {n} player: {terms} (accept {id}).",
        "{name} seeks {n} players: {terms} (accept {id}).", n,
    ).format(name=e.get("name") or "?", n=n, terms=seek_terms(lang, e), id=e.get("seek"))


@event("challenge", seats=ANYONE)
def _ev_challenge(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                  style: TermStyle) -> str | None:
    if style.browser:  # the page lists the challenge with Accept and Decline
        return t.gettext("{name} challenges you: {terms}.").format(name=e.get("name") or "?", terms=seek_terms(lang, e))
    return t.gettext("{name} challenges you: {terms}. Type accept or decline.").format(
        name=e.get("name") or "?", terms=seek_terms(lang, e))


@event("seek_accepted", seats=ANYONE)
def _ev_seek_accepted(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                      style: TermStyle) -> str | None:
    n = to_int(e.get("missing") or 0)
    return t.ngettext("{name} accepts your seek; {n} more player needed.",
                      "{name} accepts your seek; {n} more players needed.", n).format(name=e.get("name") or "?", n=n)


@event("seek_started", seats=ANYONE)
def _ev_seek_started(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
                     style: TermStyle) -> str | None:
    if e.get("challenge"):
        return t.gettext("The table of {name}'s challenge is open: room {room}, your seat {seat}.").format(
            name=e.get("name") or "?", room=e.get("room"), seat=e.get("seat"))
    return t.gettext("The table of {name}'s seek is open: room {room}, your seat {seat}.").format(
        name=e.get("name") or "?", room=e.get("room"), seat=e.get("seat"))


@event("seek_over", seats=ANYONE)
def _ev_seek_over(t: T, lang: str, e: Push, names: Sequence[str], you: int | None,
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
        text += " " + error_message(lang, str(e["code"]), style, reason=e.get("refused"), **params)
    return text

"""Replies to the social commands as a person reads them: tells, profiles, friends, seeks, ratings."""

from __future__ import annotations

from collections.abc import Sequence

from server.messages.kit import text_of, to_float, to_int
from server.messages.labels import ordinal, punct, table_name
from server.messages.social_events import seek_terms
from server.messages.terminal import BOLD, TermStyle, display_width, finish, fold_line, pad, paint, wrap_text
from server.messages.tournament_events import kind_name
from server.messages.translations import translation
from server.presenters.text.words import typed_word, verb
from server.protocol import JSONValue, Push, objects_in

COMMANDS = frozenset({"tell", "reply", "message", "finger", "bio", "hide", "friend", "unfriend", "friends",
                      "seek", "challenge", "seeks", "accept_seek", "decline_seek", "cancel_seek"})


def _when(value: JSONValue) -> str:
    return str(value or "")[:16].replace("T", " ")


def render_social(cmd: str, reply: Push, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    width = style.width
    if cmd in ("tell", "reply"):
        return finish(wrap_text(t.gettext("You tell {name}: {text}").format(name=reply.get("to"),
                                                                          text=reply.get("message", "")), width,
                                indent="  "), style)
    if cmd == "message":
        if reply.get("kept"):
            text = t.gettext("Message kept for {name}: they will read it at their next login.")
        else:
            text = t.gettext("{name} is online: your message was told at once.")
        return finish(wrap_text(text.format(name=reply.get("to")), width), style)
    if cmd == "finger":
        return _finger(reply, lang, style)
    if cmd == "bio":
        if not reply.get("bio"):
            text = t.gettext("Your bio is empty.") if not reply.get("set") else t.gettext("Bio cleared.")
            return finish(wrap_text(text, width), style)
        return finish(wrap_text(t.gettext("Your bio: {text}").format(text=reply["bio"]), width, indent="  "), style)
    if cmd == "hide":
        return finish(wrap_text(t.gettext("Your table is hidden from others now.") if reply.get("on")
                                else t.gettext("Others can see at which table you are."), width), style)
    if cmd in ("friend", "unfriend", "friends"):
        return _friends(cmd, reply, lang, style)
    if cmd in ("seek", "challenge", "seeks", "accept_seek", "decline_seek", "cancel_seek"):
        return _seeks(cmd, reply, lang, style)
    return ""


def _finger(reply: Push, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    name = str(reply.get("name"))
    lines = [paint(name, BOLD, style) + (" " + t.gettext("(guest)") if reply.get("guest") else "")]
    if reply.get("online"):
        where = t.gettext("online, in room {room}").format(room=reply["room"]) if reply.get("room") \
            else t.gettext("online")
        lines.append("  " + where)
    elif reply.get("last_seen"):
        lines.append("  " + t.gettext("last seen {when}").format(when=_when(reply["last_seen"])))
    if reply.get("registered"):
        lines.append("  " + t.gettext("registered {when}").format(when=_when(reply["registered"])))
    if reply.get("bio"):
        lines += fold_line("  " + t.gettext("Bio: {text}").format(text=reply["bio"]), style.width)
    for table in objects_in(reply.get("tables")):
        what = table_name(lang, text_of(table.get("game")), text_of(table.get("rules")))
        parts = [t.ngettext("{n} round", "{n} rounds", to_int(table.get("rounds") or 0)).format(n=table.get("rounds") or 0)]
        if table.get("matches"):
            m = to_int(table["matches"])
            parts.append(t.ngettext("{n} match", "{n} matches", m).format(n=m))
        if table.get("titles"):
            n = to_int(table["titles"])
            parts.append(t.ngettext("{n} time first", "{n} times first", n).format(n=n))
        if table.get("rating") is not None:
            parts.append(t.gettext("rating {rating} ({n} rated)").format(rating=f"{to_float(table['rating']):.1f}",
                                                                        n=table.get("rated_games") or 0))
        lines.append(f"  {what}{punct(lang, ':')} " + ", ".join(parts))
    lines += _finger_tournaments(reply, lang, style)
    if reply.get("friend"):
        lines.append("  " + t.gettext("On your friends list."))
    return finish(lines, style)


def _finger_tournaments(reply: Push, lang: str, style: TermStyle) -> list[str]:
    """The events a player entered, newest first, each with their place among its entrants
    (``e4 arène, Président classique : 1er sur 3``), under their best final place."""
    events = objects_in(reply.get("tournaments"))
    if not events:
        return []
    t = translation(lang)
    best = reply.get("tournament_best")
    if isinstance(best, int) and not isinstance(best, bool):
        head = t.gettext("Tournaments (best final place: {place}):").format(place=ordinal(lang, best))
    else:
        head = t.gettext("Tournaments:")
    lines = fold_line("  " + head, style.width)
    for e in events:
        what = f"{kind_name(t, e.get('kind'))}, {table_name(lang, text_of(e.get('game')), text_of(e.get('rules')))}"
        place = t.gettext("{place} of {n}").format(place=ordinal(lang, to_int(e.get("rank") or 0)),
                                                  n=to_int(e.get("entrants") or 0))
        if not e.get("final"):
            place += " " + t.gettext("(under way)")
        lines += fold_line(f"    {e.get('tournament') or '?'} {what}{punct(lang, ':')} {place}", style.width)
    return lines


def _friends(cmd: str, reply: Push, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    lines: list[str] = []
    if cmd == "friend":
        lines += wrap_text(t.gettext("{name} is on your friends list.").format(name=reply.get("name")), style.width)
    elif cmd == "unfriend":
        lines += wrap_text(t.gettext("{name} is off your friends list.").format(name=reply.get("name")), style.width)
    people: Sequence[Push] = objects_in(reply.get("friends"))
    if cmd == "friends":
        if not people:
            # someone at the reader's table when the server named one, else a placeholder: never the
            # reader's own name
            other = reply.get("suggest") or t.pgettext("placeholder", "NAME")
            lines += wrap_text(t.gettext("Your friends list is empty: {example}").format(
                example=f"{verb(lang, 'friend')} {other}"), style.width)
        else:
            lines.append(paint(t.gettext("Your friends:"), BOLD, style))
            name_w = min(max(display_width(str(p.get("name"))) for p in people), 16)
            for p in people:
                if p.get("room"):
                    state = t.gettext("online, in room {room}").format(room=p["room"])
                elif p.get("online"):
                    state = t.gettext("online")
                else:
                    state = t.gettext("offline")
                lines.append(f"  {pad(str(p.get('name')), name_w)}  {state}")
        lines += wrap_text(t.gettext("Notices when a friend logs in or sits down: on.") if reply.get("notify", True)
                           else t.gettext("Notices when a friend logs in or sits down: off."), style.width)
    return finish(lines, style)


def _seek_lines(s: Push, lang: str, style: TermStyle) -> list[str]:
    """One seek with every term it sets (wrapped, never cut)."""
    t = translation(lang)
    head = f"#{s.get('seek')} {s.get('name')}"
    if s.get("to"):
        head += " → " + str(s["to"]) if style.unicode else " -> " + str(s["to"])
    n = to_int(s.get("missing") or 0)
    body = t.ngettext("{terms}; {n} player missing", "{terms}; {n} players missing", n).format(
        terms=seek_terms(lang, s), n=n)
    return wrap_text(f"  {head}{punct(lang, ':')} {body}", style.width, indent="      ")


def _seeks(cmd: str, reply: Push, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    if cmd == "seeks":
        items = objects_in(reply.get("seeks"))
        if not items:
            return finish(wrap_text(t.gettext("No open seek or challenge. Seek players like this: {example}").format(
                example=f"{verb(lang, 'seek')} {typed_word(lang, 'president')} tdc 4 {typed_word(lang, 'stake')}=10"),
                style.width), style)
        return finish([paint(t.gettext("Open seeks and challenges:"), BOLD, style),
                       *[line for s in items for line in _seek_lines(s, lang, style)]], style)
    if cmd == "seek":
        text = t.gettext("Seek #{id} is open ({terms}); the lobby hears of it. Type {cancel} to withdraw it.")
    elif cmd == "challenge":
        text = t.gettext("Challenge #{id} sent to {to} ({terms}). Type {cancel} to withdraw it.")
    elif cmd == "accept_seek" and reply.get("room"):
        # the table opened at once: its seek_started event, which reached this person just before,
        # says so with their seat ("La table du défi de ann est ouverte : table r8, votre place 1.");
        # the reply saying it again came after the match had begun
        return ""
    elif cmd == "accept_seek":
        text = t.gettext("Seek #{id} accepted: the table opens when its seats are taken.")
    elif cmd == "decline_seek":
        text = t.gettext("Seek or challenge #{id} declined.")
    else:
        text = t.gettext("Seek or challenge #{id} withdrawn.")
    return finish(wrap_text(text.format(id=reply.get("seek"), to=reply.get("to"), room=reply.get("room"),
                                        cancel=verb(lang, "withdraw"), terms=seek_terms(lang, reply)),
                            style.width), style)

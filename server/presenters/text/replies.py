"""Replies to commands as a person reads them: rooms, who is online, accounts, history, leaderboards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.messages.games import deals
from server.messages.greetings import welcome_back
from server.messages.kit import T, text_of, to_float, to_int
from server.messages.labels import (
    game_name,
    number,
    ordinal,
    rules_name,
    title_name,
)
from server.messages.moderation import role_name
from server.messages.terminal import (
    BOLD,
    TermStyle,
    display_width,
    finish,
    pad,
    paint,
    wrap_items,
    wrap_text,
)
from server.messages.translations import N_, translation
from server.presenters.text import fair, social, tournaments
from server.presenters.text.draw import glue_seconds
from server.presenters.text.moderation import render_reply as render_staff
from server.presenters.text.tricks import render_tricks
from server.presenters.text.words import verb
from server.protocol import JSONValue, Result, items_in, objects_in


def render_rooms(rooms: Sequence[Result], lang: str, style: TermStyle, total: JSONValue = None,
                 page: JSONValue = None, pages: JSONValue = None) -> str:
    """The list of rooms: number, game, rules, players/seats, status; when the server sent one page of
    ``total`` rooms (those with a free seat first), which page it is and how to see the next."""
    t = translation(lang)
    if not rooms and isinstance(total, int) and total > 0:
        return finish(wrap_text(t.ngettext("{n} room is open.", "{n} rooms are open.", total).format(n=total),
                                style.width), style)
    if not rooms:
        return finish(
            wrap_text(t.gettext("No room is open. Create one, for example: {example}").format(
                example=_create_example(lang)
            ), style.width),
            style,
        )
    lines = [paint(t.gettext("Rooms:"), BOLD, style)]
    for r in rooms:
        game = game_name(lang, text_of(r.get("game")))
        rules = rules_name(lang, text_of(r.get("rules")))  # "" for a game with one table
        players = r.get("players")
        if isinstance(players, Sequence) and not isinstance(players, str):
            count = len(players)
            who = ", ".join(str(p.get("name") if isinstance(p, Mapping) else p) for p in players
                            if p is not None)  # (None: someone who hides where they sit)
        else:
            count = to_int(players or 0)
            who = ""
        seats = r.get("seats")
        status = _room_status(lang, r.get("status"))
        head = f"{r.get('room')!s:>3}  {game}" + (f" {rules}" if rules else "")
        if seats:
            head += f"  {count}/{seats}"
        if status:
            head += f"  {status}"
        if r.get("tournament"):
            head += "  " + t.gettext("tournament {tournament}").format(tournament=r.get("tournament"))
        lines.append(head)
        if who:
            lines += ["     " + w for w in wrap_text(who, style.width - 5)]  # every name, wrapped
    if isinstance(total, int) and total > len(rooms):
        lines += wrap_text(t.ngettext(
            "{shown} of {n} open room shown, those with a free seat first.",
            "{shown} of {n} open rooms shown, those with a free seat first.", total,
        ).format(shown=len(rooms), n=total), style.width)
        if isinstance(page, int) and isinstance(pages, int) and page < pages:
            lines += wrap_text(t.gettext("Page {page} of {pages}: type {command} for the next.").format(
                page=page, pages=pages, command=f"{verb(lang, 'rooms')} {page + 1}"), style.width)
    return finish(lines, style)


def _create_example(lang: str) -> str:
    from server.presenters.text.help import _word

    return f"{verb(lang, 'create')} {_word(lang, 'president')} {_word(lang, 'classic')} 4 bots=3"


def _room_status(lang: str, status: JSONValue) -> str:
    t = translation(lang)
    if status == "waiting":
        return t.pgettext("room status", "waiting for players")
    if status == "playing":
        return t.pgettext("room status", "playing")
    if status == "over":
        return t.pgettext("room status", "over")
    return str(status or "")


def render_reply(cmd: str, reply: Result, lang: str, style: TermStyle) -> str:
    """The reply to ``cmd`` for a person; ``""`` when the events and the state say it all."""
    staff = render_staff(cmd, reply, lang, style)  # running a community (presenters/text/staff.py)
    if staff is not None:
        return staff
    t = translation(lang)
    width = style.width
    if cmd in social.COMMANDS:
        return social.render_social(cmd, reply, lang, style)
    if cmd in fair.COMMANDS:
        return fair.render_fair(cmd, reply, lang, style)
    if cmd in tournaments.COMMANDS:
        return tournaments.render_tournaments(cmd, reply, lang, style)
    if cmd == "tricks":
        return render_tricks(reply, lang, style)
    if cmd == "rooms":
        return render_rooms(objects_in(reply.get("rooms")), lang, style, reply.get("total"),
                            reply.get("page"), reply.get("pages"))
    if cmd == "who":
        people = items_in(reply.get("players") or reply.get("who") or reply.get("people"))
        if not people:
            return finish([t.gettext("Nobody else is here.")], style)
        items = []
        for p in people:
            if isinstance(p, Mapping):
                item = str(p.get("name"))
                if p.get("room") is not None:
                    item += " " + t.gettext("(room {room})").format(room=p["room"])
            else:
                item = str(p)
            items.append(item)
        n = len(items)
        head = t.ngettext("{n} player online:", "{n} players online:", n).format(n=n)
        return finish(wrap_items([i + "," for i in items[:-1]] + items[-1:], width, indent="  ", first=head + " "), style)
    if cmd == "whoami":
        name = reply.get("name")
        parts = [t.gettext("You are {name}.").format(name=name)]
        if reply.get("guest"):
            parts.append(t.gettext("Guest (register to keep your chips)."))
            if reply.get("resume"):
                parts.append(t.gettext("Your resume code: {code} (it gives your seat back after a lost "
                                       "connection or a restart).").format(code=reply["resume"]))
        if reply.get("chips") is not None:
            n = to_int(reply["chips"])
            parts.append(t.ngettext("{n} chip.", "{n} chips.", abs(n)).format(n=number(lang, n)))
        at_stake = reply.get("at_stake")
        if isinstance(at_stake, int) and at_stake > 0:
            parts.append(t.ngettext("{n} more chip is at stake in this round.",
                                    "{n} more chips are at stake in this round.", at_stake).format(
                                        n=number(lang, at_stake)))
        if reply.get("role") in ("moderator", "admin"):
            parts.append(t.gettext("Role: {role}.").format(role=role_name(lang, reply["role"])))
        if reply.get("lang"):
            parts.append(t.gettext("Language: {lang}.").format(lang=reply["lang"]))
        return finish(wrap_text(" ".join(parts), width), style)
    if cmd == "create":
        return finish(wrap_text(t.gettext("Room {room} is open; you sit at it.").format(room=reply.get("room")), width), style)
    if cmd == "join":
        if reply.get("seat") is not None:
            text = t.gettext("You sit in room {room}, seat {seat}.").format(room=reply.get("room"), seat=reply["seat"])
        else:
            text = t.gettext("You sit in room {room}.").format(room=reply.get("room"))
        return finish(wrap_text(text, width), style)
    if cmd == "watch":
        return finish(wrap_text(t.gettext("You watch room {room}.").format(room=reply.get("room")), width), style)
    if cmd == "leave":
        if reply.get("until") == "round_end":
            n = to_int(reply.get("at_stake") or 0)
            if reply.get("deal"):  # a Speculation deal, called so on its table
                return finish(wrap_text(t.ngettext(
                    "You are back in the lobby. A bot plays your seat to the end of the deal with your stake "
                    "({n} chip); you will hear how it ends.",
                    "You are back in the lobby. A bot plays your seat to the end of the deal with your stake "
                    "({n} chips); you will hear how it ends.", n).format(n=n), width), style)
            return finish(wrap_text(t.ngettext(
                "You are back in the lobby. A bot plays your seat to the end of the round with your stake "
                "({n} chip); you will hear how it ends.",
                "You are back in the lobby. A bot plays your seat to the end of the round with your stake "
                "({n} chips); you will hear how it ends.", n).format(n=n), width), style)
        return finish(wrap_text(t.gettext("You are back in the lobby."), width), style)
    if cmd == "lang":
        from server.messages.translations import LANG_NAMES

        code = reply.get("lang")
        return finish([t.gettext("Language: {lang}.").format(lang=LANG_NAMES.get(str(code), str(code)))], style)
    if cmd == "login" and not reply.get("guest") and reply.get("chips") is not None:
        return finish(wrap_text(welcome_back(lang, str(reply.get("name")), to_int(reply["chips"])), width), style)
    if cmd in ("login", "register"):
        name = reply.get("name")
        text = (
            t.gettext("Account {name} created. Welcome!").format(name=name)
            if cmd == "register"
            else t.gettext("Hello {name}! Type help to see the commands.").format(name=name)
        )
        if reply.get("chips") is not None:
            n = to_int(reply["chips"])
            text += " " + t.ngettext("You have {n} chip.", "You have {n} chips.", abs(n)).format(n=number(lang, n))
        return finish(wrap_text(text, width), style)
    if cmd == "history":
        return _render_history(reply, lang, style)
    if cmd == "leaderboard":
        return _render_leaderboard(reply, lang, style)
    if cmd == "offer":
        return ""  # the table's "offered" event tells the buyer at once, with the price: said once
    if cmd in ("colour", "color"):
        return finish([t.gettext("Colours on.") if reply.get("on", style.color) else t.gettext("Colours off.")], style)
    if cmd == "reader":
        return finish([t.gettext("Screen reader mode on: cards and counts in words, one fact per line.")
                       if reply.get("on") else t.gettext("Screen reader mode off.")], style)
    if cmd == "unicode":
        return finish(
            [t.gettext("Unicode symbols on.") if reply.get("on", style.unicode) else t.gettext("Plain ASCII from now on.")],
            style,
        )
    if cmd == "autocut":
        return finish(
            [t.gettext("Automatic cut on.") if reply.get("on") else t.gettext("Automatic cut off.")], style
        )
    if cmd == "extend":  # seconds from the time bank
        n, left = round(to_float(reply.get("seconds") or 0)), round(to_float(reply.get("bank") or 0))
        return finish(wrap_text(glue_seconds(t.ngettext("{n} second more for you; {left} s left in your time bank.",
                                                        "{n} seconds more for you; {left} s left in your time bank.",
                                                        n).format(n=n, left=left), left), style.width), style)
    if cmd == "autopass":
        return finish(
            [t.gettext("Automatic pass on: when passing is all you can do, the server passes for you.")
             if reply.get("on") else t.gettext("Automatic pass off.")], style
        )
    if cmd == "width":
        return finish([t.gettext("Width: {n} columns.").format(n=reply.get("width", width))], style)
    if cmd == "addkey":
        return finish(wrap_text(t.gettext("Key added: you can now log in with it over SSH."), width), style)
    if cmd == "delkey":
        return finish(wrap_text(t.gettext("Key removed."), width), style)
    if cmd == "keys":
        keys = reply.get("keys") or []
        if isinstance(keys, int) or not keys:
            n = keys if isinstance(keys, int) else 0
            return finish([t.ngettext("{n} SSH key.", "{n} SSH keys.", n).format(n=n)], style)
        lines = [paint(t.gettext("Your SSH keys:"), BOLD, style)]
        lines += ["  " + str(k) for k in items_in(keys)]
        return finish(lines, style)
    if cmd == "passwd":
        return finish(wrap_text(t.gettext("Password changed."), width), style)
    if cmd == "balance":
        n = to_int(reply.get("chips") or 0)
        lines = wrap_text(t.ngettext("Balance: {n} chip.", "Balance: {n} chips.", n).format(n=n), width)
        for e in objects_in(reply.get("entries")):
            when = str(e.get("at") or "")[:16].replace("T", " ")
            delta = to_int(e.get("delta") or 0)
            lines.append(f"  {when}  {delta:+d}  {_ledger_kind(lang, e.get('kind'))}")
        return finish(lines, style)
    if cmd == "ping":
        return finish(["pong"], style)
    if cmd == "limits":
        items = [f"{k}={v}" for k, v in sorted(reply.items()) if k not in ("type", "id")]
        return finish(wrap_items(items, width, indent="  "), style)
    return ""


_LEDGER_KINDS = {
    # the ledger's kinds (server/storage/api.py), translated when shown
    "grant": N_("chips granted"),
    "retire": N_("chips retired"),
    "stake": N_("stake paid"),
    "payout": N_("winnings"),
    "refund": N_("refund"),
    "transfer": N_("transfer"),
}


def _ledger_kind(lang: str, kind: JSONValue) -> str:
    """A chip movement's kind in words."""
    msgid = _LEDGER_KINDS.get(str(kind or ""))
    return translation(lang).gettext(msgid) if msgid else str(kind or "")


def _chips_change(t: T, n: int) -> str:
    """``+4 chips``, ``-10 chips``, ``+1 chip``: a change, the plural chosen by its size."""
    return str(t.ngettext("{n:+d} chip", "{n:+d} chips", abs(n)).format(n=n))


def _render_history(reply: Result, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    items = objects_in(reply.get("history") or reply.get("matches"))
    name = reply.get("name")
    yours = reply.get("yours", True) or not name
    if not items:
        if yours:
            return finish(wrap_text(t.gettext("No finished game yet."), style.width), style)
        return finish(wrap_text(t.gettext("{name} has no finished game yet.").format(name=name), style.width), style)
    head = t.gettext("Your last games:") if yours else t.gettext("{name}'s last games:").format(name=name)
    lines = [paint(head, BOLD, style)]
    for m in items:
        game = game_name(lang, text_of(m.get("game")))
        when = str(m.get("ended") or m.get("when") or m.get("at") or "")[:16].replace("T", " ")
        parts = [when, game]
        if m.get("rules") and m.get("rules") != m.get("game"):
            parts.append(rules_name(lang, text_of(m["rules"])))
        if m.get("tournament"):  # a tournament table's game
            parts.append(t.gettext("tournament {tournament}").format(tournament=m["tournament"]))
        if m.get("match"):
            parts.append(t.pgettext("history", "whole match"))
        if m.get("place") is not None:
            parts.append(t.gettext("place {place}").format(place=ordinal(lang, to_int(m["place"]))))
        if m.get("title") and m.get("title") != "neutral":
            parts.append(title_name(lang, text_of(m["title"])))
        if m.get("points") is not None:
            p = to_int(m["points"])
            if m.get("match"):
                parts.append(t.ngettext("{n} pt", "{n} pts", p).format(n=p))  # the match's total
            else:
                parts.append(t.ngettext("+{n} pt", "+{n} pts", p).format(n=p))
        if m.get("chips") is not None:
            parts.append(_chips_change(t, to_int(m["chips"])))
        if m.get("won"):
            parts.append(t.pgettext("history", "winner") if m.get("match") else t.gettext("won"))
        if m.get("round") and not m.get("match"):
            parts.append(f"[{m['round']}]")  # what replay takes
        line = "  " + "  ".join(p for p in parts if p)
        # a line too wide wraps between its parts (a place, a round id stay whole), never cut
        lines += [line] if display_width(line) <= style.width else wrap_items(
            [p for p in parts if p], style.width, indent="    ", first="  ")
    return finish(lines, style)


def _render_leaderboard(reply: Result, lang: str, style: TermStyle) -> str:
    t = translation(lang)
    boards = reply.get("boards")
    if not isinstance(boards, Sequence) or isinstance(boards, str):
        boards = [reply]
    lines: list[str] = []
    for board in boards:
        if isinstance(board, Mapping) and (board.get("leaderboard") or board.get("players") or board.get("you")
                                           or board.get("provisional")):
            if lines:
                lines.append("")
            lines += _board_lines(board, lang, style)
    if not lines:
        if reply.get("by") == "rating":
            n = to_int(reply.get("min_games") or 0)
            return finish(wrap_text(t.ngettext("Nobody has a rating here yet (it takes {n} rated game).",
                                               "Nobody has a rating here yet (it takes {n} rated games).", n).format(n=n),
                                    style.width), style)
        return finish([t.gettext("Nobody is ranked yet.")], style)
    return finish(lines, style)


def _board_lines(reply: Result, lang: str, style: TermStyle) -> list[str]:
    t = translation(lang)
    items = objects_in(reply.get("leaderboard") or reply.get("players"))
    provisional = objects_in(reply.get("provisional"))
    you = got if isinstance(got := reply.get("you"), Mapping) else None
    game = reply.get("game")
    head = t.gettext("Leaderboard:")
    if game:
        rules = reply.get("rules")
        what = game_name(lang, text_of(game)) + (f" {rules_name(lang, text_of(rules))}" if rules and rules != game else "")
        head = t.gettext("Leaderboard, {what}:").format(what=what)
    lines = [paint(head, BOLD, style)]
    sample = (items or provisional or ([you] if you else [{}]))[0]
    by = text_of(reply.get("by")) or ("chips" if "chips" in sample else "points")
    if by == "rating":
        lines[0] = paint(t.gettext("Ratings, {what}:").format(
            what=game_name(lang, text_of(game)) + (f" {rules_name(lang, text_of(reply.get('rules')))}"
                                          if reply.get("rules") and reply.get("rules") != game else "")), BOLD, style)
    everyone = [*items, *provisional, *([you] if you else [])]
    name_w = min(max((display_width(str(p.get("name"))) for p in everyone), default=4), 16)
    if not items:
        lines += wrap_text("  " + t.gettext("Nobody is ranked yet."), style.width, indent="  ")
    for i, p in enumerate(items, 1):
        lines.append(_board_line(p, f"{i:>3}.", by, lang, style, name_w, game))
    if provisional:
        n = to_int(reply.get("min_games") or 0)
        lines += wrap_text(t.ngettext("Provisional (fewer than {n} rated game):",
                                      "Provisional (fewer than {n} rated games):", n).format(n=n), style.width)
        lines += [_board_line(p, "   ~", by, lang, style, name_w, game) for p in provisional]
    if you:
        lines.append(_board_line(you, "   ~" if you.get("provisional") else "   >", by, lang, style, name_w, game))
        if you.get("provisional"):
            lines += wrap_text("  " + t.gettext("Your standing is provisional: guests are not ranked. Register to "
                                                "be ranked."), style.width, indent="  ")
    return lines


def _board_line(p: Result, mark: str, by: str, lang: str, style: TermStyle, name_w: int,
                game: JSONValue = None) -> str:
    """One player's line on a board; ``mark``: the place (``  1.``), or ``~`` for a provisional line;
    ``game``: the board's game (a Speculation round is a deal: "3 donnes", as on its table)."""
    t = translation(lang)
    if by == "rating":
        g = to_int(p.get("games") or 0)
        return (f"{mark} {pad(str(p.get('name')), name_w)}  {to_float(p.get('rating') or 0):6.1f}  "
                + t.ngettext("{n} rated game", "{n} rated games", g).format(n=g))
    got = p.get("score") if p.get("score") is not None else p.get(by)
    n = to_int(got or 0)
    score = t.ngettext("{n} pt", "{n} pts", abs(n)).format(n=n) if by == "points" else _chips_change(t, n)
    line = f"{mark} {pad(str(p.get('name')), name_w)}  {score}"
    counts = []
    if p.get("rounds") is not None:
        r = to_int(p["rounds"])
        counts.append(t.ngettext("{n} deal", "{n} deals", r).format(n=r) if deals(game)
                      else t.ngettext("{n} round", "{n} rounds", r).format(n=r))
    if p.get("matches"):
        m = to_int(p["matches"])
        counts.append(t.ngettext("{n} match", "{n} matches", m).format(n=m))
    if counts:
        line += "  " + ", ".join(counts)
    return line

"""What people type to run a community, and what they read back: the staff's commands, ``ignore``,
``motd``.

:data:`HANDLERS` turn typed words into the protocol commands of :mod:`server.commands.moderation`
(registered into the parser by :mod:`server.presenters.text.parse`); :func:`render_reply` draws
their replies. Examples (the words of every language are in
:data:`server.presenters.text.words.VERBS`)::

    kick bob flooding               mute bob 10m insults           unmute bob
    ban bob 3d cheating             ban 198.51.100.0/24 forever    ban ssh-ed25519 AAAA… 1w stolen key
    unban bob   unban #12           bans                           announce Restart at 18:00!
    motd   motd set Tournament on Sunday   motd clear              shutdown in 5m upgrade   shutdown cancel
    grant bob moderator             revoke bob                     grant bob 500 tournament prize
    takeback bob 200 paid twice     (or grant bob -200 …)          resetpw bob   rename bob robert
    lock bob compromised            unlock bob                     modlog 20 bob   account bob
    ignore bob   ignore             unignore bob

A duration is ``10m``, ``2h``, ``3d``, ``1w`` (``2j``, ``3 jours``, ``1 semana``…) or ``forever``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.commands.roles import UNITS, is_address, is_key
from server.messages.kit import T
from server.messages.labels import number
from server.messages.moderation import role_name, span_text
from server.messages.terminal import BOLD, TermStyle, finish, paint, wrap_items, wrap_text
from server.messages.translations import translation
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.words import STAFF_WORDS, fold, verb
from server.protocol import JSONValue, parse_int

Handler = Callable[[str, Sequence[str], str, str, CommandContext], "Command | ParseError"]


def _usage(lang: str, cmd: str, example: str) -> ParseError:
    t = translation(lang)
    return ParseError("bad_argument", t.gettext("Type it like this: {example}").format(
        example=f"{verb(lang, cmd)} {example}"))


def _tail(text: str, words: int) -> str:
    """What follows the first ``words`` words of the line, as typed (a reason, an announcement)."""
    parts = text.split(None, words)
    return parts[words].strip() if len(parts) > words else ""


def _add_reason(args: dict[str, JSONValue], text: str, words: int) -> None:
    """The reason typed after the command's first ``words`` words, if any, into ``args``."""
    reason = _tail(text, words)
    if reason:
        args["reason"] = reason


def _number(token: str) -> int | None:
    tok = token.strip().rstrip(".,;")
    sign = -1 if tok.startswith("-") else 1
    n = parse_int(tok.lstrip("+-#"))
    return None if n is None else sign * n


def _duration(rest: Sequence[str], i: int) -> tuple[str | None, int]:
    """The duration at ``rest[i]`` (``10m``; also ``10 min``, two words) and the words it took."""
    if i >= len(rest):
        return None, 0
    if rest[i].isdigit() and i + 1 < len(rest) and fold(rest[i + 1]) in UNITS:
        return rest[i] + rest[i + 1], 2
    return rest[i], 1


def _name_reason(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return _usage(lang, cmd, "ana")
    args: dict[str, JSONValue] = {"name": rest[0]}
    _add_reason(args, text, 2)
    return Command(cmd, args)


def _name_only(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return _usage(lang, cmd, "ana")
    return Command(cmd, {"name": rest[0]})


def _mute(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    duration, took = _duration(rest, 1)
    if not rest or duration is None:
        return _usage(lang, cmd, "ana 10m")
    args: dict[str, JSONValue] = {"name": rest[0], "duration": duration}
    _add_reason(args, text, 2 + took)
    return Command(cmd, args)


def _target(rest: Sequence[str]) -> tuple[dict[str, JSONValue], int]:
    """A ban's target at the start of ``rest``: a public key (two words), an address, or a name."""
    if is_key(list(rest[:2])):
        return {"key": f"{rest[0]} {rest[1]}"}, 2
    if rest and is_address(rest[0]):
        return {"address": rest[0]}, 1
    return {"name": rest[0]}, 1


def _ban(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return _usage(lang, cmd, "ana " + _EXAMPLE_WORDS.get(lang, _EXAMPLE_WORDS["en"])["days"])
    args, took = _target(rest)
    duration, dtook = _duration(rest, took)
    if duration is None:
        return _usage(lang, cmd, "ana " + _EXAMPLE_WORDS.get(lang, _EXAMPLE_WORDS["en"])["days"])
    args["duration"] = duration
    _add_reason(args, text, 1 + took + dtook)
    return Command(cmd, args)


def _unban(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return _usage(lang, cmd, "ana")
    n = _number(rest[0])
    if n is not None and n > 0 and (rest[0].startswith("#") or rest[0].isdigit()):
        return Command(cmd, {"ban": n})
    args, _ = _target(rest)
    return Command(cmd, args)


def _announce(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    body = _tail(text, 1)
    if not body:
        return _usage(lang, cmd, "…")
    return Command(cmd, {"text": body})


def _motd(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return Command(cmd, {})
    word = fold(rest[0])
    if word in STAFF_WORDS["clear"] and len(rest) == 1:
        return Command(cmd, {"clear": True})
    if word in STAFF_WORDS["set"] and _tail(text, 2):
        return Command(cmd, {"text": _tail(text, 2)})
    return _usage(lang, cmd, "set …")


def _shutdown(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    words = list(rest)
    if len(words) == 1 and fold(words[0]) in STAFF_WORDS["cancel"]:
        return Command(cmd, {"cancel": True})
    skip = 1 if words and fold(words[0]) in STAFF_WORDS["in"] else 0
    delay, took = _duration(words, skip)
    if delay is None:
        return _usage(lang, cmd, "in 5m")
    args: dict[str, JSONValue] = {"delay": delay}
    _add_reason(args, text, 1 + skip + took)
    return Command(cmd, args)


def _grant(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    """``grant NAME ROLE`` (a role) or ``grant NAME 500 REASON`` (chips; ``-200`` retires them);
    ``takeback NAME 200 REASON`` (chips retired)."""
    if len(rest) < 2:
        return _usage(lang, cmd, "ana 500 …" if cmd == "retire" else "ana moderator")
    n = _number(rest[1])
    if n is not None and n != 0 and (cmd != "retire" or n > 0):
        args: dict[str, JSONValue] = {"name": rest[0], "amount": -n if cmd == "retire" else n}
        _add_reason(args, text, 3)
        return Command("chips", args)
    role = STAFF_WORDS["role"].get(fold(rest[1]))
    if cmd == "retire" or role is None:
        return _usage(lang, cmd, "ana 500 …" if cmd == "retire" else "ana moderator")
    args = {"name": rest[0], "role": role}
    _add_reason(args, text, 3)
    return Command("grant", args)


def _revoke(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return _usage(lang, cmd, "ana")
    skip = 1 if len(rest) > 1 and fold(rest[1]) in STAFF_WORDS["role"] else 0
    args: dict[str, JSONValue] = {"name": rest[0]}
    _add_reason(args, text, 2 + skip)
    return Command(cmd, args)


def _rename(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if len(rest) < 2:
        return _usage(lang, cmd, "ana anna")
    args: dict[str, JSONValue] = {"name": rest[0], "new": rest[1]}
    _add_reason(args, text, 3)
    return Command(cmd, args)


def _modlog(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    args: dict[str, JSONValue] = {}
    for raw in rest:
        n = _number(raw)
        if n is not None and n > 0:
            args["limit"] = n
        else:
            args["name"] = raw
    return Command(cmd, args)


def _ignore(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    if not rest:
        return Command(cmd, {}) if cmd == "ignore" else _usage(lang, cmd, "ana")
    return Command(cmd, {"name": rest[0]})


HANDLERS: dict[str, Handler] = {
    "kick": _name_reason,
    "lock": _name_reason,
    "unmute": _name_reason,
    "unlock": _name_reason,
    "mute": _mute,
    "ban": _ban,
    "unban": _unban,
    "announce": _announce,
    "motd": _motd,
    "shutdown": _shutdown,
    "grant": _grant,
    "retire": _grant,
    "revoke": _revoke,
    "resetpw": _name_only,
    "standing": _name_only,
    "rename": _rename,
    "modlog": _modlog,
    "ignore": _ignore,
    "unignore": _ignore,
}


# --------------------------------------------------------------------------- replies


def _line(text: str, style: TermStyle) -> str:
    return finish(wrap_text(text, style.width), style)


def _until(t: T, until: Any) -> str:
    return str(t.gettext("until {until}").format(until=until) if until else t.gettext("for good"))


def render_reply(cmd: str, reply: Mapping[str, Any], lang: str, style: TermStyle) -> str | None:
    """The reply to a staff command, ``ignore`` or ``motd`` for a person; None for other commands."""
    t = translation(lang)
    name = reply.get("name")
    if cmd == "kick":
        return _line(t.gettext("{name} is disconnected.").format(name=name), style)
    if cmd == "mute":
        return _line(t.gettext("{name} is muted until {until}: their chat reaches nobody.").format(
            name=name, until=reply.get("until")), style)
    if cmd == "unmute":
        return _line(t.gettext("{name} may chat again.").format(name=name), style)
    if cmd == "ban":
        n = int(reply.get("disconnected") or 0)
        text = t.gettext("Ban #{ban}: {target}, {until}.").format(ban=reply.get("ban"), target=reply.get("target"),
                                                                 until=_until(t, reply.get("until")))
        if n:
            text += " " + t.ngettext("{n} connection closed.", "{n} connections closed.", n).format(n=n)
        return _line(text, style)
    if cmd == "unban":
        return _line(t.gettext("Ban #{ban} lifted ({target}).").format(ban=reply.get("ban"),
                                                                      target=reply.get("target")), style)
    if cmd == "bans":
        return _bans(t, reply, style)
    if cmd == "announce":
        n = int(reply.get("sent") or 0)
        return _line(t.ngettext("Announcement sent to {n} person.", "Announcement sent to {n} people.", n).format(
            n=number(lang, n)), style)
    if cmd == "motd":
        text = str(reply.get("motd") or "")
        if not text:
            return _line(t.gettext("There is no message of the day."), style)
        return finish([paint(t.gettext("Message of the day:"), BOLD, style)]
                      + [w for line in text.splitlines() for w in wrap_text(line, style.width)], style)
    if cmd == "shutdown":
        if reply.get("cancelled"):
            return _line(t.gettext("The shutdown is called off."), style)
        return _line(t.gettext("The server shuts down in {delay} ({at}); everyone is warned.").format(
            delay=span_text(t, int(reply.get("in") or 0)), at=reply.get("at")), style)
    if cmd in ("grant", "revoke"):
        return _line(t.gettext("{name} is {role} now (was {was}).").format(
            name=name, role=role_name(lang, reply.get("role")), was=role_name(lang, reply.get("was"))), style)
    if cmd == "resetpw":
        return _line(t.gettext(
            "One-time code for {name}: {code} (until {until}). They log in with it instead of their password, "
            "then type passwd and give the code as the old password. Tell it to them privately: it is shown "
            "only this once.").format(name=name, code=reply.get("code"), until=reply.get("until")), style)
    if cmd == "rename":
        return _line(t.gettext("{name} is called {new} now.").format(name=name, new=reply.get("new")), style)
    if cmd == "lock":
        return _line(t.gettext("{name}'s account is locked.").format(name=name), style)
    if cmd == "unlock":
        return _line(t.gettext("{name}'s account is open again.").format(name=name), style)
    if cmd == "chips":
        delta, chips = int(reply.get("delta") or 0), int(reply.get("chips") or 0)
        text = (t.ngettext("{n} chip granted to {name}.", "{n} chips granted to {name}.", delta).format(
                    n=number(lang, delta), name=name) if delta > 0 else
                t.ngettext("{n} chip retired from {name}.", "{n} chips retired from {name}.", -delta).format(
                    n=number(lang, -delta), name=name))
        text += " " + t.ngettext("Balance: {n} chip.", "Balance: {n} chips.", chips).format(n=number(lang, chips))
        return _line(text, style)
    if cmd == "modlog":
        return _modlog_lines(t, reply, style)
    if cmd == "standing":
        return _standing(t, lang, reply, style)
    if cmd in ("ignore", "unignore"):
        return _ignores(t, lang, cmd, reply, style)
    return None


def _bans(t: T, reply: Mapping[str, Any], style: TermStyle) -> str:
    bans, mutes = reply.get("bans") or [], reply.get("mutes") or []
    if not bans and not mutes:
        return _line(t.gettext("No ban or mute is in force."), style)
    lines = []
    for b in bans:
        line = f"#{b.get('ban')}  {b.get('target')}  {_until(t, b.get('until'))}  ({b.get('by')})"
        if b.get("reason"):
            line += f"  {b['reason']}"
        lines.append(line)
    for m in mutes:
        line = t.gettext("{name} muted until {until}").format(name=m.get("name"), until=m.get("until"))
        line += f"  ({m.get('by')})" + (f"  {m['reason']}" if m.get("reason") else "")
        lines.append(line)
    return finish(lines, style)


def _modlog_lines(t: T, reply: Mapping[str, Any], style: TermStyle) -> str:
    entries = reply.get("log") or []
    if not entries:
        return _line(t.gettext("The moderation log is empty."), style)
    lines = []
    for e in entries:
        parts = [str(e.get("at") or "")[:16], str(e.get("by") or ""), str(e.get("action") or ""),
                 str(e.get("target") or "")]
        if e.get("reason"):
            parts.append(str(e["reason"]))
        lines.append("  ".join(p for p in parts if p))
    return finish(lines, style)


def _standing(t: T, lang: str, reply: Mapping[str, Any], style: TermStyle) -> str:
    head = [str(reply.get("name"))]
    if reply.get("guest"):
        head.append(t.gettext("guest"))
    elif reply.get("role"):
        head.append(role_name(lang, reply.get("role")))
    if reply.get("chips") is not None:
        n = int(reply["chips"])
        head.append(t.ngettext("{n} chip", "{n} chips", n).format(n=number(lang, n)))
    head.append(t.gettext("connected") if reply.get("online") else t.gettext("not connected"))
    lines = wrap_items([h + "," for h in head[:-1]] + head[-1:], style.width)
    if reply.get("address"):
        lines.append("  " + t.gettext("from {address} ({via})").format(address=reply["address"],
                                                                          via=reply.get("via")))
    if reply.get("room"):
        lines.append("  " + t.gettext("at room {room}").format(room=reply["room"]))
    if reply.get("locked") is not None:
        lines.append("  " + t.gettext("locked") + (f": {reply['locked']}" if reply["locked"] else ""))
    if reply.get("muted_until"):
        lines.append("  " + t.gettext("muted until {until}").format(until=reply["muted_until"]))
    if reply.get("banned"):
        lines.append("  " + t.gettext("banned") + " " + _until(t, reply.get("banned_until")))
    return finish(lines, style)


def _ignores(t: T, lang: str, cmd: str, reply: Mapping[str, Any], style: TermStyle) -> str:
    name = reply.get("name")
    if cmd == "unignore":
        return _line(t.gettext("You see {name}'s chat again.").format(name=name), style)
    if name:
        return _line(t.gettext("You no longer see {name}'s chat ({again}: again).").format(
            name=name, again=f"{verb(lang, 'unignore')} {name}"), style)
    ignored = reply.get("ignored") or []
    if not ignored:
        return _line(t.gettext("You ignore nobody."), style)
    return _line(t.gettext("You ignore: {names}.").format(names=", ".join(str(n) for n in ignored)), style)


STAFF_TOPICS = frozenset({"staff", "moderation", "moderator", "moderators", "admin", "admins", "equipe",
                          "moderateurs", "administrateurs", "equipo", "moderadores", "administradores"})
"""``help staff`` (and these words, folded): the staff's commands."""


_EXAMPLE_WORDS: dict[str, dict[str, str]] = {
    # the filler words of the examples in each language (the parser knows them all: STAFF_WORDS)
    "en": {"in": "in", "set": "set", "clear": "clear", "moderator": "moderator", "days": "3d"},
    "fr": {"in": "dans", "set": "mettre", "clear": "effacer", "moderator": "modérateur", "days": "3j"},
    "es": {"in": "en", "set": "poner", "clear": "borrar", "moderator": "moderador", "days": "3d"},
}


def staff_help(lang: str, style: TermStyle) -> str:
    """The commands of moderators and admins, with examples, in the person's words."""
    t = translation(lang)
    w = _EXAMPLE_WORDS.get(lang, _EXAMPLE_WORDS["en"])

    def v(cmd: str) -> str:
        return verb(lang, cmd)

    moderators = [
        (f"{v('kick')} ana …", t.gettext("disconnect someone now (the reason after the name)")),
        (f"{v('mute')} ana 10m …", t.gettext("no chat from them for 10 minutes (2h, 3d, 1w…)")),
        (f"{v('unmute')} ana", t.gettext("they may chat again")),
    ]
    admins = [
        (f"{v('ban')} ana {w['days']} …", t.gettext("ban an account, an address (192.0.2.7, 198.51.100.0/24) or an SSH "
                                           "key, for a time or forever")),
        (f"{v('unban')} ana", t.gettext("lift a ban (or {unban} #12); the list: {bans}").format(
            unban=v("unban"), bans=v("bans"))),
        (f"{v('announce')} …", t.gettext("a message to everyone, at every table")),
        (f"{v('motd')} {w['set']} … / {w['clear']}", t.gettext("the message of the day")),
        (f"{v('shutdown')} {w['in']} 5m …", t.gettext("stop the server in 5 minutes, warning everyone ({shutdown} cancel: "
                                               "call it off)").format(shutdown=v("shutdown"))),
        (f"{v('grant')} ana {w['moderator']}", t.gettext("give a role (player, moderator, admin); {revoke} ana: back to "
                                                  "player").format(revoke=v("revoke"))),
        (f"{v('grant')} ana 500 …", t.gettext("grant chips, with a reason ({retire} ana 200 …: retire them)").format(
            retire=v("retire"))),
        (f"{v('resetpw')} ana", t.gettext("a one-time code for someone who forgot their password")),
        (f"{v('rename')} ana anna", t.gettext("rename an account (its owner logged out)")),
        (f"{v('lock')} ana … / {v('unlock')} ana", t.gettext("lock an account, or open it again")),
        (f"{v('standing')} ana, {v('modlog')}", t.gettext("an account's standing; the moderation log")),
    ]
    lines = [paint(t.gettext("Moderators:"), BOLD, style)]
    lines += [item for cmd, text in moderators for item in _entry(cmd, text, style)]
    lines.append(paint(t.gettext("Admins, also:"), BOLD, style))
    lines += [item for cmd, text in admins for item in _entry(cmd, text, style)]
    lines += wrap_text(t.gettext("A moderator acts only on players; an admin on players and moderators; nobody "
                                 "on themselves. Every action goes to the moderation log."), style.width)
    return finish(lines, style)


def _entry(cmd: str, text: str, style: TermStyle) -> list[str]:
    return ["  " + paint(cmd, BOLD, style)] + ["    " + w for w in wrap_text(text, max(10, style.width - 4))]

"""The bridge from sessions to the localized texts of ``server.i18n`` and ``server.text``.

Sessions call only these functions, so how a message is worded and drawn
lives in the i18n/text modules, and the texts of the server's own events
(``hello``, ``notice``, ``chat``, ``joined``...) are written here with
literal msgids, translated per session at send time.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

VERSION = "0.1.0"
LANGS = ("en", "fr", "es")

try:  # the i18n helper's modules
    from server import i18n as _i18n
except ImportError:  # pragma: no cover - only while the catalogs are being written
    _i18n = None  # type: ignore[assignment]

try:
    from server.text import commands as _commands
    from server.text import render as _render
except ImportError:  # pragma: no cover
    _commands = None  # type: ignore[assignment]
    _render = None  # type: ignore[assignment]


def translation(lang: str) -> gettext.NullTranslations:
    if _i18n is not None:
        return _i18n.translation(lang)
    return gettext.NullTranslations()


def lang_from_env(env: Mapping[str, str] | None) -> str | None:
    """The language asked by LANG / LC_ALL / LC_MESSAGES / LANGUAGE, if one we speak."""
    if not env:
        return None
    if _i18n is not None:
        found: str | None = _i18n.lang_from_env(dict(env))
        return found
    for key in ("LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"):
        value = (env.get(key) or "").strip().lower()
        if value[:2] in LANGS:
            return value[:2]
    return None


def pick_lang(answer: str) -> str | None:
    """A language chosen at the telnet prompt: ``fr``, ``français``, ``2``..."""
    a = answer.strip().lower()
    if not a:
        return None
    for i, (code, words) in enumerate((("en", ("english", "anglais", "inglés", "ingles")),
                                      ("fr", ("français", "francais", "french", "francés")),
                                      ("es", ("español", "espanol", "spanish", "espagnol")))):
        if a == code or a == str(i + 1) or a in words:
            return code
    return None


def language_prompt(lang: str) -> str:
    # Shown before the language is known: every language at once.
    return ("donne — Président, trou du cul, Speculation\n"
            "Language / Langue / Idioma: 1 English, 2 Français, 3 Español [" + lang + "]: ")


@dataclass(frozen=True, slots=True)
class Parsed:
    cmd: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ParseError:
    code: str
    message: str


def term_style(width: int, unicode: bool, color: bool) -> Any:
    if _render is not None:
        from server.text.style import TermStyle

        return TermStyle(width=width, unicode=unicode, color=color)
    return (width, unicode, color)


def error_message(lang: str, code: str, **params: Any) -> str:
    if _i18n is not None:
        try:
            return str(_i18n.error_message(lang, code, **params))
        except Exception:  # an unknown code must not break the reply
            pass
    _ = translation(lang).gettext
    own = {
        "line_too_long": _("That line is too long."),
        "internal_error": _("Something went wrong on the server; nothing changed."),
        "name_in_use": _("Someone is already playing under this name."),
        "bad_name": _("That name cannot be used."),
    }
    return own.get(code, code)


def _names(names: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(names):
        return names[seat]
    return str(seat)


SERVER_EVENTS = frozenset({"hello", "notice", "chat", "joined", "left", "watching", "seat_taken",
                           "disconnected", "reconnected", "replaced", "room_closed", "room_created",
                           "shutdown", "commitment"})
"""Events the server itself emits (the engines emit the others)."""


def server_event_text(lang: str, event: Mapping[str, Any], names: Sequence[str]) -> str:
    _ = translation(lang).gettext
    kind = event.get("event")
    who = str(event.get("name", ""))
    room = str(event.get("room", ""))
    if kind == "hello":
        return _("Welcome to donne. Type help for the commands.")
    if kind == "chat":
        return f"{who}: {event.get('message', '')}"
    if kind == "joined":
        if event.get("seat") is None:
            return _("{name} is watching.").format(name=who)
        return _("{name} sits down at seat {seat}.").format(name=who, seat=event.get("seat"))
    if kind == "left":
        return _("{name} left.").format(name=who)
    if kind == "disconnected":
        return _("{name} lost the connection; the seat is kept for {seconds} s.").format(
            name=who, seconds=event.get("grace", ""))
    if kind == "reconnected":
        return _("{name} is back.").format(name=who)
    if kind == "replaced":
        return _("A bot now plays for {name}.").format(name=who)
    if kind == "room_created":
        return _("Room {room} is open.").format(room=room)
    if kind == "room_closed":
        return _("Room {room} is closed.").format(room=room)
    if kind == "shutdown":
        return _("The server is shutting down. Unfinished rounds are refunded. See you soon!")
    if kind == "commitment":
        return _("Deal commitment: {commitment}").format(commitment=event.get("commitment", ""))
    if kind == "notice":
        code = event.get("code")
        texts = {
            "login_timeout": _("Too slow to log in; goodbye."),
            "idle": _("Disconnected after a long time without activity."),
            "replaced": _("You logged in from somewhere else; this connection ends."),
            "flood": _("Too many commands; disconnected."),
            "room_closed": _("The room closed."),
            "match_started": _("The match starts."),
            "autocut_on": _("Automatic cut is on."),
            "autocut_off": _("Automatic cut is off."),
        }
        return texts.get(str(code), str(code))
    return ""


def event_text(lang: str, event: Mapping[str, Any], names: Sequence[str], you: int | None) -> str:
    if event.get("event") in SERVER_EVENTS:
        return server_event_text(lang, event, names)
    if _i18n is not None:
        try:
            return str(_i18n.event_text(lang, dict(event), list(names), you))
        except Exception:
            pass
    return str(event.get("event", ""))


def render_event(event: Mapping[str, Any], lang: str, style: Any, names: Sequence[str], you: int | None) -> str:
    if event.get("event") in SERVER_EVENTS:
        return server_event_text(lang, event, names)
    if _render is not None:
        return str(_render.render_event(dict(event), lang, style, list(names), you))
    return event_text(lang, event, names, you)


def render_state(state: Mapping[str, Any], lang: str, style: Any) -> str:
    if _render is not None:
        return str(_render.render_state(dict(state), lang, style))
    return str(dict(state))


def render_reply(cmd: str, reply: Mapping[str, Any], lang: str, style: Any) -> str:
    if _render is not None:
        return str(_render.render_reply(cmd, dict(reply), lang, style))
    fields = {k: v for k, v in reply.items() if k != "type"}
    return str(fields) if fields else translation(lang).gettext("Done.")


def welcome_text(lang: str, name: str) -> str:
    _ = translation(lang).gettext
    return _("Hello {name}! Type help for the commands.").format(name=name)


def parse_line(line: str, lang: str, ctx: Mapping[str, Any]) -> Parsed | ParseError:
    if _commands is not None:
        parsed = _commands.parse_line(line, lang, dict(ctx))
        if hasattr(parsed, "cmd"):
            return Parsed(parsed.cmd, dict(parsed.args))
        return ParseError(parsed.code, parsed.message)
    words = line.split()
    if not words:
        return ParseError("unknown_command", "")
    cmd, rest = words[0].lower(), words[1:]
    if cmd == "quit":
        return Parsed("quit", {})
    args: dict[str, Any] = {}
    for word in rest:
        if "=" in word:
            k, v = word.split("=", 1)
            args[k] = int(v) if v.isdigit() else v
    if cmd in ("play", "cut", "give"):
        args["cards"] = [w for w in rest if "=" not in w]
    elif cmd in ("join", "watch") and rest:
        args["room"] = rest[0]
    elif cmd == "say":
        args["text"] = " ".join(rest)
    elif cmd == "lang" and rest:
        args["lang"] = rest[0]
    return Parsed(cmd, args)

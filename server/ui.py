"""The bridge from sessions to the localized texts of ``server.i18n`` and ``server.text``.

Sessions call only these functions: how a message is worded and drawn lives
in the i18n/text modules (per session language, at send time). The few
events only the server core emits and i18n does not word (``hello``,
``notice``, ``replaced``, ``commitment``) are written here with
literal msgids, so Babel extracts them into the same catalogs.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping, Sequence
from typing import Any

from server import messages as i18n
from server.messages import translations
from server.terminal import TermStyle
from server.text import commands as text_commands
from server.text import render
from server.text.help import help_text as _help_text

VERSION = "0.1.0"
LANGS = i18n.LANGS

Parsed = text_commands.Command
ParseError = text_commands.CommandError


def translation(lang: str) -> gettext.NullTranslations:
    return translations.translation(lang)


def lang_from_env(env: Mapping[str, str] | None) -> str | None:
    """The language asked by LC_ALL / LC_MESSAGES / LANG / LANGUAGE, if one we speak."""
    if not env:
        return None
    return i18n.lang_from_env(dict(env))


def pick_lang(answer: str) -> str | None:
    """A language chosen at the telnet prompt: ``fr``, ``français``, ``2``..."""
    a = answer.strip().lower()
    if a in ("1", "2", "3"):
        return ("en", "fr", "es")[int(a) - 1]
    return translations.normalize_lang(a)


def language_prompt(lang: str) -> str:
    # Shown before the language is known, so in every language at once (not a catalog message).
    return ("donne — Président, trou du cul, Спекуляция\n"
            "Language / Langue / Idioma: 1 English, 2 Français, 3 Español [" + lang + "]: ")


def term_style(width: int, unicode: bool, color: bool) -> TermStyle:
    return TermStyle(width=width, unicode=unicode, color=color)


def error_message(lang: str, code: str, **params: Any) -> str:
    params.pop("style", None)
    try:
        return i18n.error_message(lang, code, **params)
    except Exception:  # a message must never break a reply
        return i18n.error_message(lang, code)


# -- the server's own events: a plain sentence, never drawn (messages.table_events words them)

OWN_EVENTS = frozenset({"hello", "notice", "replaced", "commitment"})


def _for_i18n(event: Mapping[str, Any]) -> dict[str, Any]:
    data = dict(event)
    if data.get("event") == "chat":
        data["text"] = data.get("message", "")
    return data


def event_text(lang: str, event: Mapping[str, Any], names: Sequence[str], you: int | None) -> str:
    return i18n.event_text(lang, _for_i18n(event), list(names), you)


def render_event(event: Mapping[str, Any], lang: str, style: TermStyle, names: Sequence[str],
                 you: int | None) -> str:
    if event.get("event") in OWN_EVENTS:
        return i18n.event_text(lang, event, list(names), you)
    return render.render_event(_for_i18n(event), lang, style, list(names), you) or ""


def render_state(state: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    return render.render_state(state, lang, style)


def fit_text(text: str, style: TermStyle) -> str:
    """Text mode: long lines wrapped to the terminal, no colour or non-ASCII it cannot show."""
    return render.fit_text(text, style)


def state_update(previous: Mapping[str, Any] | None, state: Mapping[str, Any], lang: str,
                 style: TermStyle) -> str:
    """Text mode: what to draw when a state arrives ("" when the events already say it all)."""
    return render.state_update(previous, state, lang, style)


def my_decision(state: Mapping[str, Any]) -> bool:
    """The reader must decide something now: their turn, their exchange choice, their card on sale."""
    you = state.get("you")
    if you is None or state.get("status") not in (None, "playing"):
        return False
    auction = state.get("auction")
    if isinstance(auction, Mapping):
        return bool(auction.get("seat") == you)
    return bool(state.get("turn") == you) or bool(text_commands.give_count(state))


def countdown_marks(total: float) -> tuple[int, ...]:
    return render.countdown_marks(total)


def countdown_line(lang: str, style: TermStyle, seconds: int) -> str:
    return render.countdown_line(lang, style, seconds, mine=True)


def render_reply(cmd: str, reply: Mapping[str, Any], lang: str, style: TermStyle) -> str:
    return render.render_reply(cmd, reply, lang, style)


def welcome_text(lang: str, name: str) -> str:
    _ = translation(lang).gettext
    return _("Hello {name}! Type help to see the commands.").format(name=name)


def goodbye_text(lang: str) -> str:
    return translation(lang).gettext("Goodbye!")


def parse_line(line: str, lang: str, state: Mapping[str, Any] | None, where: str) -> Parsed | ParseError:
    ctx = text_commands.context_from_state(state, where)
    return text_commands.parse_line(line, lang, ctx)


def help_text(lang: str, state: Mapping[str, Any] | None, where: str, style: TermStyle,
              topic: str | None = None) -> str:
    ctx = text_commands.context_from_state(state, where)
    return _help_text(lang, ctx, style, topic)

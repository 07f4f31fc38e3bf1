"""What people type to reach each other: tells, messages, profiles, friends, seeks, replays.

The handlers of :mod:`server.presenters.text.parse` for the social commands
(``server/commands/social.py``), added to its table when this package is imported.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.messages.translations import translation
from server.presenters.text.context import Command, CommandContext, ParseError
from server.presenters.text.parse import _HANDLERS, _h_create, _h_switch
from server.presenters.text.words import (
    ADD_WORDS,
    FILL_WORDS,
    REMOVE_WORDS,
    VERB_TABLES,
    fold,
    typed_word,
    verb,
)
from server.protocol import JSONValue


def _usage(lang: str, example: str) -> ParseError:
    return ParseError("bad_argument", translation(lang).gettext("Write it like this: {example}").format(
        example=example))


def _h_tell(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    """``tell NAME TEXT``, ``message NAME TEXT``: ``text`` is the line from the name on when the
    verb is already gone (``dire à``), else the whole line."""
    body = text.split(None, 2) if fold(text.split(None, 1)[0]) in VERB_TABLES[lang] else ["", *text.split(None, 1)]
    if len(rest) < 2 or len(body) < 3 or not body[2].strip():
        return _usage(lang, f"{verb(lang, cmd)} ana …")
    return Command(cmd, {"name": rest[0], "text": body[2].strip()})


def _h_text(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    body = text.split(None, 1)
    if len(body) < 2 or not body[1].strip():
        if cmd == "bio":
            return Command("bio", {})
        return _usage(lang, f"{verb(lang, cmd)} …")
    value = body[1].strip()
    return Command(cmd, {"text": "" if cmd == "bio" and value == "-" else value})


def _h_name(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    return Command(cmd, {"name": rest[0]} if rest else {})


def _h_friend(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    words = list(rest)
    which = "friend"
    if words and fold(words[0]) in ADD_WORDS:
        words = words[1:]
    elif words and fold(words[0]) in REMOVE_WORDS:
        which, words = "unfriend", words[1:]
    if len(words) != 1:
        return _usage(lang, f"{verb(lang, 'friend')} ana")
    return Command(which, {"name": words[0]})


def _h_friends(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    got = _h_switch(cmd, rest, text, lang, ctx)
    if isinstance(got, Command) and "on" in got.args:
        return Command("friends", {"notify": got.args["on"]})
    return got


def _h_seek(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    words = list(rest)
    args: dict[str, JSONValue] = {}
    if cmd == "challenge":
        if not words:
            return _usage(lang, f"{verb(lang, 'challenge')} ana {typed_word(lang, 'president')} "
                                f"{typed_word(lang, 'classic')} 4")
        args["name"], words = words[0], words[1:]
    if any(fold(w) in FILL_WORDS for w in words):
        args["fill"] = True
        words = [w for w in words if fold(w) not in FILL_WORDS]
    made = _h_create("create", words, text, lang, ctx)
    if isinstance(made, ParseError):
        return made
    return Command(cmd, {**made.args, **args})


def _h_replay(cmd: str, rest: Sequence[str], text: str, lang: str, ctx: CommandContext) -> Command | ParseError:
    return Command("replay", {"round": rest[0]} if rest else {})


_HANDLERS.update({
    "tell": _h_tell,
    "message": _h_tell,
    "reply": _h_text,
    "bio": _h_text,
    "finger": _h_name,
    "friend": _h_friend,
    "friends": _h_friends,
    "seek": _h_seek,
    "challenge": _h_seek,
    "replay": _h_replay,
})

"""The wire: how commands, replies and pushes are written, and the words they share.

Everything that crosses the boundary between donne and its clients is named here,
once: the JSON line encoding (``PROTOCOL.md``), the refusal type every layer raises
(:class:`CommandError`, a stable error code plus the parameters of its sentence),
the argument readers every command uses, and the names of the commands a table
understands. This module imports nothing of the server: transports, sessions,
presenters, the lobby, rooms and tables all import it, never the other way round.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import orjson

VERSION = "0.1.0"

# -- JSON ---------------------------------------------------------------------------------------

JSONValue: TypeAlias = str | int | float | bool | Sequence["JSONValue"] | Mapping[str, "JSONValue"] | None
"""A JSON value of whatever kind: what a client may send anywhere in a line, and what the server writes. Read it
by narrowing (``isinstance``, the ``arg_*`` readers below), never by trusting its shape."""

JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object as :func:`decode` reads it from a line."""

Args: TypeAlias = Mapping[str, JSONValue]
"""A command's arguments: whatever the client wrote (or the text parser made of a person's words)."""

Result: TypeAlias = Mapping[str, JSONValue]
"""A command's answer, as the server builds it for the presenters to encode or word."""

Push: TypeAlias = Mapping[str, JSONValue]
"""What the server pushes without being asked: an event (``event``: its name, then its fields), a
state (docs/protocol.md). Its readers narrow what they read of it, as they would a client's JSON."""

# -- encoding ----------------------------------------------------------------------------------

# orjson writes what the standard library's compact, non-ASCII encoder writes for everything the
# server sends (dicts, lists, str, int, float, bool, None; int keys as strings) in about a seventh of
# its time; the standard encoder stays for what orjson refuses (an int beyond 64 bits).
_encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)
_LINE = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
_dumps = orjson.dumps
_loads = orjson.loads
_LONG_DIGITS = re.compile(r"\d{19}").search  # a number orjson may not read as the standard library does
_SURROGATE = re.compile("[\ud800-\udfff]").search


def encode(obj: object) -> str:
    """One JSON line: compact UTF-8 text ending in ``\\n`` (PROTOCOL.md)."""
    try:
        return _dumps(obj, default=str, option=_LINE).decode()
    except TypeError:  # orjson.JSONEncodeError: an int beyond 64 bits
        return _encoder.encode(obj) + "\n"


def encode_value(obj: object) -> str:
    """``obj`` as :func:`encode` writes it inside a line (no line end)."""
    try:
        return _dumps(obj, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return _encoder.encode(obj)


def has_surrogate(text: str) -> bool:
    """True when ``text`` holds a lone surrogate (no UTF-8 for it: a client's text never may)."""
    return not text.isascii() and _SURROGATE(text) is not None


def decode(line: str) -> JSONObject | None:
    """The JSON object of a line, or ``None`` for anything else (bad JSON, a list, too deep, a lone
    surrogate anywhere in it, ``"\\ud800"`` written as an escape too: no text of a client may hold
    one, since nothing could store, hash or send it as UTF-8)."""
    try:
        if _LONG_DIGITS(line) is not None:
            raise ValueError("orjson reads an int beyond 64 bits as a float")
        obj = _loads(line)
    except ValueError:  # orjson refuses it (NaN, a lone surrogate, bad JSON) or would read it otherwise:
        try:  # the standard library's answer is the answer, unless it holds a lone surrogate
            obj = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if ("\\u" in line or has_surrogate(line)) and _holds_surrogate(obj):
            return None
    return obj if isinstance(obj, dict) else None


def _holds_surrogate(obj: JSONValue) -> bool:
    """A lone surrogate in a key or a string anywhere in ``obj`` (walked without recursion: the
    standard library reads nestings deeper than a recursive walk could follow)."""
    todo: list[JSONValue] = [obj]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return True
        elif isinstance(item, dict):
            todo.extend(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False


def plain_id(value: JSONValue) -> bool:
    """Ids echoed back: null, numbers, short strings (anything else is answered with id null)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return True
    return isinstance(value, str) and len(value) <= 200


def items_in(value: JSONValue) -> Sequence[JSONValue]:
    """The items of a JSON list (none for anything else)."""
    return value if isinstance(value, Sequence) and not isinstance(value, str) else ()


def strings_in(value: JSONValue) -> list[str]:
    """The strings of a JSON list, in order (card codes, names; anything else in it is skipped)."""
    return [v for v in items_in(value) if isinstance(v, str)]


def objects_in(value: JSONValue) -> list[Mapping[str, JSONValue]]:
    """The JSON objects of a list, in order (anything else in it is skipped)."""
    return [v for v in items_in(value) if isinstance(v, Mapping)]


# -- refusals ------------------------------------------------------------------------------------


class CommandError(Exception):
    """A refused command: ``code`` is a protocol error code, ``params`` fill its sentence.

    Raised anywhere below a session (argument checks, the lobby, a table); the
    session's presenter turns it into ``{"type": "error", ...}`` or a sentence in
    the reader's language. A refusal changes nothing.
    """

    def __init__(self, code: str, **params: Any) -> None:  # sentence parameters, spread into callers' keywords
        super().__init__(code)
        self.code = code
        self.params = params


# -- arguments -----------------------------------------------------------------------------------


def parse_int(text: str) -> int | None:
    """An integer written with ASCII digits (an optional ``-``), else ``None``.

    ``str.isdigit`` also accepts "²" or "٣", which ``int()`` then refuses or reads
    as another number: every number a client sends is read here instead.
    """
    body = text.strip()
    digits = body[1:] if body.startswith("-") else body
    if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        return None
    return int(body)


def arg_str(args: Args, key: str, *, default: str | None = None, limit: int = 200) -> str:
    value = args.get(key, default)
    if not isinstance(value, str) or not value or len(value) > limit:
        raise CommandError("bad_argument", arg=key)
    return value


def arg_int(args: Args, key: str, *, default: int | None = None,
            lo: int | None = None, hi: int | None = None) -> int:
    value = args.get(key, default)
    if isinstance(value, str):
        parsed = parse_int(value)
        if parsed is None:
            raise CommandError("bad_argument", arg=key)
        value = parsed
    if not isinstance(value, int) or isinstance(value, bool):
        raise CommandError("bad_argument", arg=key)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise CommandError("bad_argument", arg=key)
    return value


def arg_number(args: Args, key: str, *, default: float, lo: float, hi: float) -> float:
    """A number of seconds or a similar quantity (int or float, never a bool)."""
    value = args.get(key, default)
    if isinstance(value, str):
        parsed = parse_int(value)
        value = parsed if parsed is not None else value
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise CommandError("bad_argument", arg=key)
    return float(value)


_SWITCH_WORDS = {"on": True, "true": True, "yes": True, "1": True,
                 "off": False, "false": False, "no": False, "0": False}


def arg_bool(args: Args, key: str, *, default: bool | None = None) -> bool:
    value = args.get(key, default)
    if isinstance(value, str):
        value = _SWITCH_WORDS.get(value.lower(), value)
    if not isinstance(value, bool):
        raise CommandError("bad_argument", arg=key)
    return value


# -- names ---------------------------------------------------------------------------------------

PLAY_COMMANDS = frozenset({"play", "pass", "cut", "give", "bid", "sell", "keep", "turn", "offer", "accept",
                           "decline", "withdraw"})
"""Moves: forwarded to the player's table, checked by the engine (PROTOCOL.md)."""

AUTOMATIC = frozenset({"autocut", "autopass"})
"""Moves a person may ask the server to make for them: cut as soon as possible (T9), pass when
passing is all they can do."""

TABLE_COMMANDS = PLAY_COMMANDS | AUTOMATIC | {"join", "watch", "leave", "say", "state", "rematch", "tricks", "extend"}
"""Everything a table itself answers."""


# -- pushes ----------------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Shared:
    """One event pushed to many readers: its protocol fields and the seats' names.

    ``cache`` belongs to the presenters: they keep there what they made of it for one
    kind of reader (mode, language, terminal, and the reader's reading of the event:
    ``server.messages.kit.reading``, the seat when the words name it), so the words and
    the encoding are made once per kind. ``source`` is what it was made from (a table:
    the engine event's form shared by several seats).
    """

    event: Push
    names: tuple[str, ...] | None = None
    source: object = None
    cache: dict[Hashable, str] = field(default_factory=dict)

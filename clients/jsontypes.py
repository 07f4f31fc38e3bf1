"""JSON as the clients read it from the server and write it back (the clients import nothing of the
server: this is their own copy of the wire's JSON types, ``server/protocol.py``'s).

A value read from the server is read by narrowing (``isinstance``, the readers below), never by
trusting its shape: a client also talks to servers of other versions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSONValue: TypeAlias = str | int | float | bool | Sequence["JSONValue"] | Mapping[str, "JSONValue"] | None
"""A JSON value of whatever kind."""

JSONObject: TypeAlias = dict[str, JSONValue]
"""A JSON object as a line decodes to (a reply, a push, a state), or as a client builds one."""


def items_in(value: JSONValue) -> Sequence[JSONValue]:
    """The items of a JSON list (none for anything else)."""
    return value if isinstance(value, Sequence) and not isinstance(value, str) else ()


def strings_in(value: JSONValue) -> list[str]:
    """The strings of a JSON list, in order (anything else in it is skipped)."""
    return [v for v in items_in(value) if isinstance(v, str)]


def objects_in(value: JSONValue) -> list[Mapping[str, JSONValue]]:
    """The JSON objects of a list, in order (anything else in it is skipped)."""
    return [v for v in items_in(value) if isinstance(v, Mapping)]


def int_of(value: JSONValue, default: int = 0) -> int:
    """An integer (never a bool), else ``default``."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def number_of(value: JSONValue, default: float = 0.0) -> float:
    """A number (never a bool), else ``default``."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else default

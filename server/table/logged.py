"""Reading back what a table's log wrote (server.table.durable): its JSON, narrowed as it is read.

What the log would not have written raises ``TypeError``, as reading it unnarrowed did (``int()``,
``dict()``, ``tuple()`` of a wrong value): a stored table that does not fit is set aside
(``durable.Unreplayable``), never half restored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.protocol import JSONObject, JSONValue, items_in


def integer(value: JSONValue) -> int:
    """``int(value)`` of a number (or its text)."""
    if isinstance(value, int | float | str):
        return int(value)
    raise TypeError(f"not a number: {type(value).__name__}")


def number(value: JSONValue) -> float:
    """``float(value)`` of a number (or its text)."""
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"not a number: {type(value).__name__}")


def text(value: JSONValue) -> str | None:
    """A text, or None."""
    return None if value is None else str(value)


def listed(value: JSONValue) -> Sequence[JSONValue]:
    """The items of a list."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"not a list: {type(value).__name__}")
    return items_in(value)


def copied(value: JSONValue) -> JSONObject:
    """An object, copied."""
    if not isinstance(value, Mapping):
        raise TypeError(f"not an object: {type(value).__name__}")
    return dict(value)

"""A column's value read as the kind it holds: ``text(row["name"])``, ``integer(row[0])``.

A row gives :data:`~server.storage.sql.tx.SQLValue`; each reader says which kind it expects, at
the cost of one ``isinstance``. A value of another kind is a database this code did not write:
it raises ``TypeError`` instead of going on as a wrong kind. Nothing is converted: an integer read
as a :func:`number` stays an ``int``.
"""

from __future__ import annotations

from server.storage.sql.tx import SQLValue

_NUMBER = (int, float)


def _wrong(value: SQLValue, kind: str) -> TypeError:
    return TypeError(f"a column holds {type(value).__name__}, not {kind}")


def text(value: SQLValue) -> str:
    if isinstance(value, str):
        return value
    raise _wrong(value, "text")


def integer(value: SQLValue) -> int:
    if isinstance(value, int):
        return value
    raise _wrong(value, "an integer")


def number(value: SQLValue) -> float:
    """An integer or a real (an integral one stays an ``int``, as the row gave it)."""
    if isinstance(value, _NUMBER):
        return value
    raise _wrong(value, "a number")


def text_or_none(value: SQLValue) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _wrong(value, "text")


def integer_or_none(value: SQLValue) -> int | None:
    if value is None or isinstance(value, int):
        return value
    raise _wrong(value, "an integer")


def number_or_none(value: SQLValue) -> float | None:
    if value is None or isinstance(value, _NUMBER):
        return value
    raise _wrong(value, "a number")

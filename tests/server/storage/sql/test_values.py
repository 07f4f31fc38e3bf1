"""A column's value read as the kind it holds: the value itself, never converted; another kind raises.

And the two readers of rows around them: ``Tx.integer`` (a count or a sum, 0 for none) and
``api.first_result`` (an operation's result as the kind that operation gives).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from decimal import Decimal

import pytest

from server.storage.api import Account, RoundOpened, first_result
from server.storage.postgres import PgRow
from server.storage.settings import StoreSettings
from server.storage.sql.tx import SQLValue
from server.storage.sql.values import integer, integer_or_none, number, number_or_none, text, text_or_none
from server.storage.sqlite import SQLiteTx


def test_each_reader_gives_the_value_as_the_row_gave_it() -> None:
    assert text("ann") == "ann"
    assert integer(7) == 7
    assert integer(True) is True  # (a PostgreSQL comparison's column: a bool is an int)
    assert number(3) == 3 and type(number(3)) is int  # an integral real stays as the row gave it
    assert number(2.5) == 2.5
    assert text_or_none(None) is None and integer_or_none(None) is None and number_or_none(None) is None
    assert text_or_none("x") == "x" and integer_or_none(4) == 4 and number_or_none(1.5) == 1.5


@pytest.mark.parametrize(("reader", "value"), [
    (text, 1), (text, None), (text, b"ann"), (integer, "7"), (integer, 7.0), (integer, None),
    (number, "2.5"), (number, None), (text_or_none, 3), (integer_or_none, "3"), (number_or_none, b"1"),
])
def test_a_value_of_another_kind_raises_instead_of_going_on(reader: Callable[[SQLValue], object],
                                                            value: SQLValue) -> None:
    with pytest.raises(TypeError, match="a column holds"):
        reader(value)


def test_a_postgresql_row_gives_integral_sums_as_ints_and_is_read_by_name_and_position() -> None:
    row = PgRow([Decimal(12), "ann", Decimal("2.5"), None], {"total": 0, "name": 1, "half": 2, "none": 3})
    assert row["total"] == 12 and type(row[0]) is int
    assert row["name"] == "ann" and row[1] == "ann"
    assert row["half"] == 2.5 and type(row["half"]) is float
    assert list(row) == [12, "ann", 2.5, None] and len(row) == 4 and row.keys() == ["total", "name", "half", "none"]


def test_a_sqlite_transaction_reads_counts_sums_and_rows() -> None:
    conn = sqlite3.connect(":memory:")
    conn.row_factory = sqlite3.Row
    tx = SQLiteTx(conn, StoreSettings())
    tx.execute("CREATE TABLE t (name TEXT, n INTEGER, x REAL)")
    assert tx.integer("SELECT SUM(n) FROM t") == 0  # no rows: NULL, read as 0
    tx.execute("INSERT INTO t VALUES (?, ?, ?), (?, ?, ?)", ("ann", 2, 1.5, "bob", 3, 2.0))
    assert tx.integer("SELECT SUM(n) FROM t") == 5
    assert tx.integer("SELECT SUM(x) FROM t") == 3  # a real sum, made whole as before
    row = tx.one("SELECT * FROM t WHERE name = ?", ("bob",))
    assert row is not None and text(row["name"]) == "bob" and integer(row[1]) == 3 and number(row["x"]) == 2.0
    with pytest.raises(TypeError):
        tx.integer("SELECT name FROM t")


def test_an_operations_result_is_read_as_its_kind() -> None:
    account = Account(name="ann", guest=False, chips=10)
    assert first_result([account], Account) is account
    assert first_result([True, None], bool) is True
    assert first_result([3], int) == 3
    with pytest.raises(TypeError, match="an operation gave NoneType, not RoundOpened"):
        first_result([None], RoundOpened)

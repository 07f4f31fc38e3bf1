"""Reading back a table's log (server/table/logged.py): what the log writes reads as before, what it
would never write is a TypeError (a stored table set aside as unreplayable, never half restored)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from server.table.logged import copied, integer, listed, number, text


def test_what_the_log_writes_reads_back() -> None:
    assert integer(3) == 3 and integer("4") == 4 and number(2) == 2.0 and number(1.5) == 1.5
    assert text(None) is None and text("Zoé") == "Zoé"
    assert listed([1, None]) == [1, None] and listed((0, None)) == (0, None)
    got = {"a": 1}
    assert copied(got) == got and copied(got) is not got


@pytest.mark.parametrize(("reader", "value"), [(integer, None), (integer, [1]), (number, {}), (listed, "ab"),
                                               (listed, 3), (listed, None), (copied, [("a", 1)]), (copied, None)])
def test_what_the_log_never_writes_is_a_type_error(reader: Callable[[Any], object], value: Any) -> None:
    with pytest.raises(TypeError):
        reader(value)

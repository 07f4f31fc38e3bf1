"""Journal entries: every kind round trips through JSON."""

from __future__ import annotations

import json

import pytest

from server.tournaments.io import (
    Absent,
    ByeGiven,
    Ended,
    Entry,
    Item,
    Join,
    Leave,
    OpenTable,
    RoundStarted,
    Started,
    Stop,
    TableAborted,
    TableOver,
    TableScored,
    Tick,
)

ITEMS: list[Item] = [
    Join("ann", 12.5), Leave("ann"), TableOver("e.1", (1, 2, 2), (5, -2, -3)), TableAborted("e.2"),
    Absent("e.3", ("bob",)), Stop(), Tick(), Started(("ann", "bob")),
    OpenTable("e.4", 2, ("ann", None, "bob"), {"game": "speculation", "ante": 1}),
    RoundStarted(2, ("e.4",), ("cid",)), ByeGiven("cid", 2, 50), ByeGiven("dan", 1, 0, late=True),
    TableScored("e.4", 2, ("ann", None, "bob"), (1, 2, 3), (100, None, 0)), Ended("rounds"),
]


@pytest.mark.parametrize("item", ITEMS, ids=lambda i: type(i).__name__)
def test_an_entry_round_trips_through_json(item: Item) -> None:
    entry = Entry(17.25, item)
    assert Entry.from_dict(json.loads(json.dumps(entry.to_dict()))) == entry


def test_inputs_and_effects_are_told_apart() -> None:
    assert Entry(0, Join("a")).is_input and Entry(0, Tick()).is_input
    assert not Entry(0, Ended("time")).is_input
    assert OpenTable("t", 0, ("a", None, "b")).people == ("a", "b")


def test_an_unknown_entry_is_refused() -> None:
    with pytest.raises(ValueError):
        Entry.from_dict({"at": 0, "k": "nonsense"})

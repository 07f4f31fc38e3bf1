"""server/table/states.py: the seconds left that each reader's state shows (``deadline``)."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

from engine.api import Pending
from server.table.states import Dues


def reference(deadlines: dict[Any, float], seat: int | None, pending: list[Pending], turn: Any,
              now: float) -> float | None:
    """The rule, written plainly: the reader's own decision, else the turn's, else any."""
    mine = [p for p in pending if seat is not None and p.seat == seat]
    chosen = mine or [p for p in pending if p.seat is not None and p.seat == turn] or list(pending)
    dues = [deadlines[p.key] for p in chosen if p.key in deadlines]
    return round(max(0.0, min(dues) - now), 1) if dues else None


def test_the_deadline_each_reader_sees_is_its_own_else_the_turns_else_the_earliest() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        pending = [Pending(key=("k", i), kind=rng.choice(["turn", "give", "auction"]),
                           seat=rng.choice([None, 0, 1, 2, 3]), on_timeout=None)  # type: ignore[arg-type]
                   for i in range(rng.randrange(0, 5))]
        deadlines = {p.key: rng.uniform(0, 90) for p in pending if rng.random() < 0.7}
        table = SimpleNamespace(deadlines=deadlines)
        dues = Dues(table, pending)  # type: ignore[arg-type]
        now = rng.uniform(0, 60)
        for seat in (None, 0, 1, 2, 3):
            for turn in (None, 0, 1, 2, 3):
                assert dues.left(seat, turn, now) == reference(deadlines, seat, pending, turn, now)

"""A Président bot that picks uniformly among the legal actions (level "easy").

Deterministic from its seed (its own ``random.Random``, never the global
one). It covers every action type: plays, passes, the T12 ``give`` choice
and the optional T9 cut, which it takes with probability ``cut_rate``
(default one half) when nothing else is awaited from it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.api import Action, Event
from engine.president.actions import Cut


class RandomPresidentBot:
    """Uniform over ``legal``; returns ``None`` only when merely an optional cut is on offer and it declines."""

    def __init__(self, seat: int, seed: bytes, cut_rate: float = 0.5, **_: Any) -> None:
        self.seat = seat
        self.cut_rate = cut_rate
        self._rng = random.Random(int.from_bytes(bytes(seed)[:32] or b"\0", "big"))

    def decide(self, view: Any, legal: Sequence[Action]) -> Action | None:
        if not legal:
            return None
        if all(isinstance(a, Cut) for a in legal):
            # not awaited: the cut is optional (T9)
            if self._rng.random() < self.cut_rate:
                return legal[self._rng.randrange(len(legal))]
            return None
        return legal[self._rng.randrange(len(legal))]

    def observe(self, event: Event) -> None:
        """The random bot keeps no memory."""

"""Strategies that play a seat using only what that seat may see.

A bot is made per seat with its own seed (no global random) and answers
``decide(view, legal)`` with one of the legal actions, or ``None`` to do
nothing now (only allowed when the table is not waiting for this seat, e.g.
an optional cut or trade offer). ``observe(event)`` receives the events as the
seat sees them (``event.for_seat(seat)``), for bots that keep a memory.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

from engine.api import Action, Event

STRATEGIES: dict[tuple[str, str], tuple[str, str]] = {
    ("president", "random"): ("engine.bots.president_random", "RandomPresidentBot"),
    ("president", "greedy"): ("engine.bots.president_greedy", "GreedyPresidentBot"),
    ("president", "search"): ("engine.bots.search_president", "SearchPresidentBot"),
    ("speculation", "random"): ("engine.bots.speculation_random", "RandomSpeculationBot"),
    ("speculation", "greedy"): ("engine.bots.speculation_greedy", "GreedySpeculationBot"),
    ("speculation", "search"): ("engine.bots.search_speculation", "SearchSpeculationBot"),
}

LEVELS = {"easy": "random", "normal": "greedy", "hard": "search"}
"""Bot levels offered when creating a table, and the strategy behind each."""


class Bot(Protocol):
    seat: int

    def decide(self, view: Any, legal: Sequence[Action]) -> Action | None: ...

    def observe(self, event: Event) -> None: ...


def strategies(game: str) -> list[str]:
    return [s for (g, s) in STRATEGIES if g == game]


_CLASSES: dict[tuple[str, str], Any] = {}
"""The bot class of each ``(game, strategy)`` asked for, imported once (a simulator makes four
bots a match)."""


def make_bot(game: str, strategy: str, seat: int, seed: bytes, **options: Any) -> Bot:
    """A bot of ``strategy`` for ``game`` playing ``seat``, deterministic given ``seed``."""
    strategy = LEVELS.get(strategy, strategy)
    key = (game, strategy)
    cls = _CLASSES.get(key)
    if cls is None:
        try:
            module, name = STRATEGIES[key]
        except KeyError:
            raise KeyError(f"no strategy {strategy!r} for {game!r}") from None
        cls = _CLASSES[key] = getattr(importlib.import_module(module), name)
    bot: Bot = cls(seat, seed, **options)
    return bot

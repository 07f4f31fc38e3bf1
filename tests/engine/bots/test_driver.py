"""The driver's two loops play the same games (engine/bots/driver.py).

``_Driver.run`` plays the turns of play back to back through ``next_turn()`` (its fast loop: forced
moves applied without asking the bot, the common per-action work written out in the loop); with
``ask_forced`` or with per-action hooks it takes its plain loop (``turn_view``, ``pending``,
``_Driver.apply``). Seeded matches of both rule sets at every table size, through each: the same
actions, the same events, the same end.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.president import RULESETS, PresidentMatch
from engine.seeds import derive, seed_from_int


def _play(rules: str, seats: int, i: int, **how: Any) -> tuple[list[Any], list[str], Any]:
    seed = seed_from_int(1000 * seats + i)
    m = PresidentMatch(rules, seats=seats, stake=10, rounds=3)
    bots = [make_bot("president", "greedy", s, derive(seed, f"bot-{s}")) for s in range(seats)]
    events: list[str] = []
    stats = play_match(m, bots, seed, on_events=lambda evs: events.extend(repr(e) for e in evs), **how)
    return m.log(), events, (m.over, stats.actions, stats.deals, stats.timeouts)


@pytest.mark.parametrize("rules", ["classic", "tdc"])
def test_fast_and_plain_loops_play_the_same_games(rules: str) -> None:
    r = RULESETS[rules]
    for seats in range(r.min_seats, r.max_seats + 1):
        for i in range(2):
            fast = _play(rules, seats, i)
            asked = _play(rules, seats, i, ask_forced=True)
            hooked = _play(rules, seats, i, on_step=lambda action, events: None)
            assert fast[0] == asked[0] == hooked[0]  # the same actions
            assert fast[1] == asked[1] == hooked[1]  # the same events, in order
            assert fast[2] == asked[2] == hooked[2] and fast[2][0]

"""Whole seeded bot games pinned event for event (RULES invariant 3, across code versions).

The engine, the driver and the greedy and random bots are tuned for speed (``bench/README.md``,
simulate); none of that may change a game. Each case plays seeded matches through
:func:`engine.bots.driver.play_match` and hashes every applied action and every event
(``to_dict()``, JSON): the digests below were taken before the speed work, so any change of an
event, of a bot's decision or of the order of things fails here. An intended change of the rules
or of a bot's strategy updates them (say so in the commit).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import FrozenInstanceError, fields
from typing import Any

import pytest

from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.president import PresidentMatch
from engine.seeds import derive, seed_from_int

CASES = {
    # name: (rules, seats, rounds, strategies, seed) -> (digest, events)
    "classic-4-greedy": (("classic", 4, 200, ("greedy",) * 4, 1), ("3df639093adb23da", 16660)),
    "classic-5-mixed": (("classic", 5, 100, ("greedy", "random", "greedy", "random", "greedy"), 2), ("1bcb6ee9dbc4cd37", 10857)),
    "tdc-4-greedy": (("tdc", 4, 100, ("greedy",) * 4, 3), ("f25b13db9368d39e", 6776)),
    "tdc-3-mixed": (("tdc", 3, 60, ("greedy", "random", "greedy"), 4), ("79c1e370eadc7908", 3514)),
}  # fmt: skip


def digest(rules: str, seats: int, rounds: int, names: tuple[str, ...], seed: int) -> tuple[str, int]:
    """As ``donne simulate`` seeds them: 5-round classic matches, one long tdc match."""
    h = hashlib.sha256()
    count = 0
    base = seed_from_int(seed)
    for i in range(rounds // 5 if rules == "classic" else 1):
        match_seed = derive(base, f"match-{i}")
        m = PresidentMatch(rules, seats=seats, stake=10, rounds=5 if rules == "classic" else rounds)
        bots = [make_bot("president", names[s], s, derive(match_seed, f"bot-{s}")) for s in range(seats)]

        def step(action: Any, events: tuple[Any, ...]) -> None:
            nonlocal count
            h.update(json.dumps(action.to_dict()).encode())
            for e in events:
                h.update(json.dumps(e.to_dict()).encode())
                count += 1

        play_match(m, bots, match_seed, step, check_every=10)
    return h.hexdigest()[:16], count


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_bot_games_are_pinned_event_for_event(name: str) -> None:
    args, expected = CASES[name]
    assert digest(*args) == expected


def test_fast_record_constructors_build_equal_records() -> None:
    """engine._records fills the slots of the frozen events and actions the engine builds on its hot path."""
    from engine._records import record_maker
    from engine.api import Pending
    from engine.cards import parse_cards
    from engine.president import Deal, Dealt, Exchange, RoundOver, Timeout

    hands = (parse_cards("3c 4d"), ())
    samples: list[tuple[type, tuple[Any, ...]]] = [
        (Pending, (("turn", 1, 2), "turn", 3, Timeout(3))),
        (Dealt, (1, 2, (0, 1), (2, 0), hands, "ab", 4)),
        (Exchange, (0, 1, 2, parse_cards("5h 6s"), True)),
        (RoundOver, (1, (1, 0), ("president", "last"), (1, 0), (1, 0), None, hands, 0, "cd")),
        (Deal, (b"seed", (0, 1, 2), 4, None, None, None, (1,))),
    ]
    for cls, values in samples:
        made = record_maker(cls)(*values)
        plain = cls(*values)
        assert type(made) is cls and made == plain and repr(made) == repr(plain) and hash(made) == hash(plain)
        with pytest.raises(FrozenInstanceError):
            setattr(made, fields(cls)[0].name, 9)

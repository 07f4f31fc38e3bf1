"""Seeded bot games of every game pinned with everything a room or a bot can read (RULES invariant 3).

``test_pinned_games.py`` pins the actions and the global events of Président games; this module
pins more of the engine's surface, so that speed work on the engine, the driver or the bots cannot
change a game or what anyone sees of it. After every applied action of seeded matches played by
:func:`engine.bots.driver.play_match` (invariants checked every action) it hashes, as JSON:

* the action (``to_dict()``), i.e. every bot decision and every deal seed;
* every event, globally and as each seat and a spectator see it (``for_seat``);
* every seat's and the spectator's ``view(seat).to_dict()``;
* every seat's ``legal_actions(seat)`` and the table's ``pending()``;

and, at the end, the driver's figures (actions, checks, forced decisions...). The digests were
recorded on the engine as it was before its speed work; an intended change of the
rules or of a bot's strategy updates them (say so in the commit).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from engine import game_class
from engine.bots import make_bot
from engine.bots.driver import play_match
from engine.seeds import derive, seed_from_int

CASES: dict[str, tuple[dict[str, Any], tuple[str, int]]] = {
    # name: (configuration) -> (digest, actions)
    "classic-4-greedy": (
        {"game": "president", "rules": "classic", "seats": 4, "rounds": 200, "bots": ("greedy",) * 4, "seed": 11},
        ("0edfb4e9e372c970", 10888),
    ),
    "classic-5-mixed": (
        {"game": "president", "rules": "classic", "seats": 5, "rounds": 100,
         "bots": ("greedy", "random", "greedy", "random", "greedy"), "seed": 12},
        ("7cc774f8f87d86e3", 7505),
    ),
    "tdc-3-greedy": (
        {"game": "president", "rules": "tdc", "seats": 3, "rounds": 200, "bots": ("greedy",) * 3, "seed": 13},
        ("4612717747cad59e", 7971),
    ),
    "tdc-4-mixed": (
        {"game": "president", "rules": "tdc", "seats": 4, "rounds": 100,
         "bots": ("greedy", "random", "greedy", "random"), "seed": 14},
        ("14825357c073d3be", 5878),
    ),
    "speculation-5": (
        {"game": "speculation", "seats": 5, "rounds": 200,
         "bots": ("greedy", "greedy", "greedy", "random", "random"), "seed": 15},
        ("f91aba03f4b25737", 4748),
    ),
}  # fmt: skip


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _matches(config: dict[str, Any]) -> list[tuple[Any, int]]:
    """(match, index) pairs as ``donne simulate`` makes them: 5-round classic matches, one long
    tdc match at stake 10, one long Speculation table with a large bankroll."""
    cls = game_class(config["game"])
    seats, rounds = config["seats"], config["rounds"]
    if config["game"] == "speculation":
        return [(cls(seats=seats, chips=[10**9] * seats, ante=1, deals=rounds), 0)]
    if config["rules"] == "classic":
        return [(cls("classic", seats=seats, rounds=5), i) for i in range(rounds // 5)]
    return [(cls("tdc", seats=seats, stake=10, rounds=rounds), 0)]


def digest(config: dict[str, Any]) -> tuple[str, int]:
    h = hashlib.sha256()
    base = seed_from_int(config["seed"])
    actions = 0
    for match, i in _matches(config):
        match_seed = derive(base, f"match-{i}")
        seats = list(range(match.seats))
        bots = [make_bot(config["game"], config["bots"][s], s, derive(match_seed, f"bot-{s}")) for s in seats]

        def step(action: Any, events: tuple[Any, ...], match: Any = match, seats: list[int] = seats) -> None:
            h.update(b"A" + _dumps(action.to_dict()))
            for e in events:
                h.update(b"E" + _dumps(e.to_dict()))
                for s in [*seats, None]:
                    seen = e.for_seat(s)
                    h.update(b"e" + (b"-" if seen is None else _dumps(seen.to_dict())))
            for s in [*seats, None]:
                h.update(b"V" + _dumps(match.view(s).to_dict()))
            for s in seats:
                h.update(b"L" + _dumps([a.to_dict() for a in match.legal_actions(s)]))
            pending = [[repr(p.key), p.kind, p.seat, p.on_timeout.to_dict()] for p in match.pending()]
            h.update(b"P" + _dumps(pending))

        stats = play_match(match, bots, match_seed, step, check_every=1)
        figures = [stats.actions, stats.deals, stats.checks, stats.timeouts, stats.reactions, stats.forced]
        h.update(b"S" + _dumps(figures))
        actions += stats.actions
    return h.hexdigest()[:16], actions


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_games_events_and_views_are_pinned(name: str) -> None:
    config, expected = CASES[name]
    assert digest(config) == expected

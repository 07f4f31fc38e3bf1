"""Random whole games of the three tables, and every event each one pushed to many readers.

Each game is a real :class:`server.table.Table` driven by the table harness
(``tests.server.table.harness``): people who choose at random among their legal
moves (cuts, gives, bids, sales, offers, accepts... included), a bot, a
spectator, a chat line, a lost and found connection, a deal made fair
(``commitment``) in some of them, the clock playing for whoever waits. What is
kept is every :class:`server.protocol.Shared` the table sent, with its
recipients: the events the JSON ``text`` and the text news are worded from.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from server.protocol import Shared
from server.table import Send
from tests.server.table.harness import Harness, command_of

PEOPLE = ("alice", "bob", "carol", "dave")
SPECTATOR = "zoe"
Pushed = tuple[Shared, tuple[tuple[str, int | None], ...]]
"""One shared event and its readers (member key, seat or None for a spectator)."""


def random_people(keys: Sequence[str], rng: random.Random) -> Callable[[Harness], bool]:
    """People who, when a decision is theirs, pick any legal move; now and then one acts out of
    turn (a cut, an offer, an accept...), says something, or loses the connection and comes back."""
    told: set[str] = set()
    away: set[str] = set()

    def act(h: Harness) -> bool:
        match = h.table.match
        if match is None or h.table.status != "playing" or match.needs_deal():
            return False
        for key in away:  # back after one step of the clock
            away.discard(key)
            h.connected(key)
            return True
        awaited = {p.seat for p in match.pending()}
        auction = any(p.seat is None for p in match.pending())
        for key in rng.sample(list(keys), len(keys)):
            seat = h.table.seat_of(key)
            if seat is None:
                continue
            if key not in told and rng.random() < 0.01:
                told.add(key)
                h.ok(key, "say", text=f"{key} says hi")
                return True
            if rng.random() < 0.002:
                away.add(key)
                h.disconnected(key)
                return True
            legal = list(match.legal_actions(seat))
            mine = seat in awaited or (auction and rng.random() < 0.3)
            if not legal or (not mine and rng.random() > 0.05) or rng.random() < 0.1:
                continue  # let the clock (or the others) decide now and then
            choice = rng.choice(legal)
            cmd, args = command_of(choice)
            h.cmd(key, cmd, **args)
            return True
        return False

    return act


def _pushed(h: Harness) -> list[Pushed]:
    return [(item.msg, item.recipients) for item in h.items
            if isinstance(item, Send) and isinstance(item.msg, Shared)]


def play(rules: str, seed: int, *, fair: bool = False, people: int = 3, bots: int = 1,
         spectator: bool = True) -> tuple[Harness, list[Pushed]]:
    """One random match of ``rules`` (classic, tdc, speculation) at four seats; the harness, and what
    the table pushed to many readers."""
    rng = random.Random(f"{rules}-{seed}")
    settings: dict[str, Any] = {"entropy_window": 1.0} if fair else {}
    if rules == "speculation":
        settings["flip_seconds"] = 2
        h = Harness(rules, seats=4, bots=bots, rounds=3, ante=2, turn_seconds=5, settings=settings, fair=fair,
                    bot_seed=f"bots-{seed}".encode())
    else:
        create: dict[str, Any] = {"stake": 4} if rules == "tdc" else {}
        h = Harness(rules, seats=4, bots=bots, rounds=3, turn_seconds=20, settings=settings, fair=fair,
                    bot_seed=f"bots-{seed}".encode(), **create)
    keys = list(PEOPLE[:people])
    for key in keys:
        h.member(key, autocut=rng.random() < 0.5)
    if spectator:
        h.ok(SPECTATOR, "watch")
    h.join(*keys)
    h.run(lambda: h.table.status == "over", act=random_people(keys, rng), limit=50_000)
    h.ok(keys[0], "leave")
    return h, _pushed(h)


def games(count: int = 4) -> list[Pushed]:
    """``count`` random matches of each table, one of them with fair deals."""
    out: list[Pushed] = []
    for rules in ("classic", "tdc", "speculation"):
        for seed in range(count):
            out += play(rules, seed, fair=seed == 0)[1]
    return out

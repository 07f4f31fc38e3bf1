"""Search bots think in other processes (server/rooms/thinking.py): the bot, its view and the legal actions
travel there and back, a bot's memory comes back with its decision, a dead worker is replaced, the pool
ends with the server; and a real server's hard bots think there, not in its threads."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import threading
from typing import Any

import pytest

from engine.bots import make_bot
from server.rooms.thinking import Thinkers, adopt, think, worker_count
from server.table import Think
from tests.kits.servers import connect, play_simply, start_server
from tests.server.table.harness import Harness, simple_president

SEARCH = {"rollouts": 6, "budget_ms": 1}


class Travelled(Harness):
    """A table whose search bots think as the server's workers make them: pickled there and back."""

    thoughts = 0

    def think(self, effect: Think) -> Any:
        bot, view, legal = pickle.loads(pickle.dumps((effect.bot, effect.view, list(effect.legal))))
        action, thought = pickle.loads(pickle.dumps(think(bot, view, legal)))
        adopt(effect.bot, thought)
        self.thoughts += 1
        return action


def play(kind: type[Harness], rules: str) -> Harness:
    if rules == "speculation":
        h = kind("speculation", seats=3, bots=2, bot_level="hard", rounds=2, bot_options=SEARCH)
        h.join("alice")
        h.run(lambda: h.table.status == "over")
    else:
        extra = {"stake": 2} if rules == "tdc" else {}
        h = kind(rules, seats=4, bots=3, bot_level="hard", rounds=2, bot_options=SEARCH, **extra)
        h.join("alice")
        h.run(lambda: h.table.status == "over", act=simple_president(["alice"]))
    return h


@pytest.mark.parametrize("rules", ["classic", "tdc", "speculation"])
def test_a_bot_that_travels_decides_as_the_one_at_home(rules: str) -> None:
    """Every Think of a match pickled to a worker and back: the same match, move for move, as bots deciding
    in the server (their memory, which seeds their next decision, came back with each decision)."""
    home = play(Harness, rules)
    away = play(Travelled, rules)
    assert isinstance(away, Travelled) and away.thoughts == len(away.effects_of(Think)) > 10
    assert away.table.log == home.table.log
    assert [s.bot.__dict__.get("decisions") for s in away.table.seats if s.bot is not None] == \
        [s.bot.__dict__.get("decisions") for s in home.table.seats if s.bot is not None]


class Slotted:
    __slots__ = ("a", "b")


class Both(Slotted):
    def __init__(self) -> None:
        self.a = 1
        self.c = 3


def test_adopt_copies_attributes_and_slots_and_refuses_another_kind() -> None:
    bot, thought = Both(), Both()
    bot.b = 2
    thought.a, thought.c, thought.d = 10, 30, 40  # type: ignore[attr-defined]
    adopt(bot, thought)
    assert (bot.a, bot.c, getattr(bot, "d", None), hasattr(bot, "b")) == (10, 30, 40, False)
    with pytest.raises(TypeError):
        adopt(bot, Slotted())


def test_the_pool_is_sized_from_the_configuration() -> None:
    assert worker_count(3) == 3
    assert worker_count(0) == max(1, (os.cpu_count() or 2) - 1)
    assert Thinkers(2).processes == 2


def bot_and_turn() -> tuple[Any, Any, list[Any]]:
    h = Harness("classic", seats=3, bots=2, bot_level="hard", rounds=1, bot_options=SEARCH)
    h.join("alice")
    h.run(lambda: bool(h.effects_of(Think)), act=simple_president(["alice"]))
    effect = h.effects_of(Think)[0]
    return effect.bot, effect.view, list(effect.legal)


async def test_thinkers_start_at_the_first_decision_survive_a_dead_worker_and_end() -> None:
    thinkers = Thinkers(1)
    bot, view, legal = bot_and_turn()
    at_home = pickle.loads(pickle.dumps(bot))
    before = bot.decisions
    assert not thinkers.started  # lazily: no process before the first decision
    try:
        action = await thinkers.decide(bot, view, legal)
        assert action == at_home.decide(view, legal) and action in legal
        assert bot.decisions == at_home.decisions == before + 1 and thinkers.decisions == 1
        pool = thinkers._pool
        assert pool is not None
        pids = list(pool._processes)  # the worker, killed as the OOM killer would
        assert len(pids) == 1 and pids[0] != os.getpid()
        os.kill(pids[0], signal.SIGKILL)
        action = await thinkers.decide(bot, view, legal)  # the pool is replaced, the decision made
        assert action == at_home.decide(view, legal) and thinkers.restarts == 1
        assert bot.decisions == at_home.decisions == before + 2
    finally:
        await thinkers.shutdown()
    assert not thinkers.started
    with pytest.raises(RuntimeError):
        await thinkers.decide(bot, view, legal)


class Unpicklable:
    seat = 0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked = 0

    def decide(self, view: Any, legal: Any) -> Any:
        self.asked += 1
        return legal[-1]


async def test_a_bot_that_cannot_travel_thinks_in_a_thread() -> None:
    thinkers = Thinkers(1)
    bot = Unpicklable()
    try:
        assert await thinkers.decide(bot, None, ["a", "b"]) == "b"
    finally:
        await thinkers.shutdown()
    assert bot.asked == 1 and thinkers.fallbacks == 1 and thinkers.decisions == 0


class Failing:
    seat = 0

    def decide(self, view: Any, legal: Any) -> Any:
        raise ValueError("no idea")


async def test_a_decision_that_fails_in_the_worker_is_the_bots_failure() -> None:
    thinkers = Thinkers(1)
    try:
        with pytest.raises(ValueError, match="no idea"):
            await thinkers.decide(Failing(), None, ["a"])
        assert thinkers.fallbacks == 0 and thinkers.restarts == 0
        assert await thinkers.decide(make_bot("president", "random", 0, b"x"), None, []) is None  # still working
    finally:
        await thinkers.shutdown()


async def test_a_real_servers_hard_bots_think_in_its_processes(tmp_path: Any) -> None:
    server = await start_server(tmp_path, bot_processes=1)
    thinkers = server.lobby.thinkers
    alice = await connect(server, "alice")
    try:
        await alice.request("create", game="president", rules="classic", seats=3, bots=2, bot_level="hard",
                            rounds=1)
        final = await asyncio.wait_for(play_simply(alice, timeout=60), 120)
        assert final["status"] == "over"
        assert thinkers.started and thinkers.decisions > 5 and thinkers.fallbacks == 0
        pool = thinkers._pool
        assert pool is not None
        workers = list(pool._processes.values())
    finally:
        await alice.close()
        await server.stop()
    assert not thinkers.started and workers and all(not w.is_alive() for w in workers)  # ended with the server


async def test_a_decision_whose_worker_dies_unnoticed_by_the_pool_ends_as_a_broken_pool(monkeypatch: Any) -> None:
    """Python 3.11's pool can leave a decision pending for ever when its worker is killed just as it is
    submitted: the wait checks the workers and gives up on a dead one (the caller starts a new pool)."""
    from concurrent.futures.process import BrokenProcessPool

    from server.rooms import thinking

    class Gone:
        def is_alive(self) -> bool:
            return False

    class Pool:
        def __init__(self) -> None:
            self._broken = False
            self._processes = {1: Gone()}

    monkeypatch.setattr(thinking, "POOL_CHECK_SECONDS", 0.01)
    never: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    with pytest.raises(BrokenProcessPool):
        await asyncio.wait_for(thinking._answer(Pool(), never), 5)  # type: ignore[arg-type]
    assert never.cancelled()

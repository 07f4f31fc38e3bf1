"""A node's loops that talk to Redis end when cancelled, even when the cancel is lost on the way.

On Python 3.11 redis-py sends each command under ``asyncio.wait_for`` (it has a socket time-out),
and that ``wait_for`` returns the command's result instead of raising when the task is cancelled
just as the send finished: the cancel is lost, and a ``while True`` loop turned for ever (a node
that never stopped; a test that waited on its keep-alive task for more than eight minutes).
"""

from __future__ import annotations

import asyncio
import types

import pytest

from server.cluster.bus import Bus, still_wanted
from server.cluster.keepalive import KeepAlive

LOSING = {"on": True}


async def lost_cancel() -> None:
    """A step that loses a cancel, as redis-py's send does on Python 3.11."""
    try:
        await asyncio.sleep(0.01)
    except asyncio.CancelledError:
        if not LOSING["on"]:
            raise
        # what asyncio.wait_for does when the awaited send had just finished


async def ends_within(task: asyncio.Task[None], seconds: float) -> bool:
    """Whether ``task`` ends within ``seconds`` of its cancel (if not, it is ended for good)."""
    done, _ = await asyncio.wait([task], timeout=seconds)
    if task not in done:
        LOSING["on"] = False
        task.cancel()
        await asyncio.wait([task], timeout=seconds)
    LOSING["on"] = True
    return task in done


async def test_still_wanted_ends_a_loop_whose_cancel_was_lost():
    turns = 0

    async def loop() -> None:
        nonlocal turns
        while True:
            still_wanted()
            turns += 1
            await lost_cancel()

    task = asyncio.get_running_loop().create_task(loop())
    await asyncio.sleep(0.05)
    task.cancel()
    assert await ends_within(task, 2)
    assert task.cancelled()


async def test_the_keep_alive_loop_ends_when_its_cancel_is_lost_in_a_keep_alive():
    inside = asyncio.Event()

    async def keepalive() -> None:
        inside.set()
        await lost_cancel()

    node = types.SimpleNamespace(config=types.SimpleNamespace(keepalive_seconds=0.001))
    task = asyncio.get_running_loop().create_task(KeepAlive.run(node, keepalive))  # type: ignore[arg-type]
    await inside.wait()
    task.cancel()  # lands inside the keep-alive's Redis step, and is lost there
    assert await ends_within(task, 2), "the keep-alive went on after its cancel"


@pytest.mark.e2e
@pytest.mark.timeout(60)  # without the fix the bus never stops: the limit ends the test
async def test_a_bus_busy_sending_stops(redis_server):
    # with real Redis I/O the lost cancel is the common case (most cancels of a sending task)
    async def produce(bus: Bus, stop: asyncio.Event) -> None:
        while not stop.is_set():
            bus.send("n1", {"t": "chat", "ev": {"event": "chat", "message": "x" * 200}})
            await asyncio.sleep(0)

    for _ in range(20):
        bus = Bus(redis_server.url, "n0", lambda msg: None, lambda ok: None)
        await bus.start()
        stop = asyncio.Event()
        producer = asyncio.get_running_loop().create_task(produce(bus, stop))
        await asyncio.sleep(0.02)
        stopping = asyncio.get_running_loop().create_task(bus.stop())
        stopped = await ends_within(stopping, 5)
        stop.set()
        await producer
        assert stopped, "the bus's loops did not end"


class SlowStore:
    """A database whose answer to the probe never comes; ``busy``: it finishes other work meanwhile."""

    def __init__(self, busy: bool) -> None:
        self.busy = busy
        self.finished = 0
        self.accounts = self

    async def exists(self, name: str) -> bool:
        await asyncio.Event().wait()
        return False

    def progress(self) -> int:
        if self.busy:
            self.finished += 1
        return self.finished


@pytest.mark.parametrize("busy", [True, False])
async def test_a_database_that_answers_nothing_is_away_a_busy_one_is_not(busy):
    from server.cluster.lobby import ClusterLobby

    said: list[bool] = []
    node = types.SimpleNamespace(store=SlowStore(busy), _probe=None, _probe_at=0.0, _probe_done=None,
                                 config=types.SimpleNamespace(keepalive_seconds=0.1, service_timeout=0.3),
                                 _pg_health=lambda ok, exc=None: said.append(ok))
    node._store_done = types.MethodType(ClusterLobby._store_done, node)
    try:
        for _ in range(8):  # the keep-alive asks at every turn: 0.4 s and more, past service_timeout
            await ClusterLobby._probe_store(node)  # type: ignore[arg-type]
    finally:
        node._probe.cancel()
    assert said == ([] if busy else [False] * said.count(False)) and (busy or said)

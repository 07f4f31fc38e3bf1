"""The collector policy (server/operations/gcpolicy.py): the long-lived heap frozen, cycles among it freed by the
full collection, CPython's own policy back at stop. The timers are never waited for: the steps are
called directly."""

from __future__ import annotations

import gc
import weakref

from server.operations.gcpolicy import GcPolicy


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle(holder: list[Node] | None = None) -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    if holder is not None:
        holder.append(a)
    return weakref.ref(a)


async def test_frozen_cycles_wait_for_the_full_collection_and_stop_restores_the_collector() -> None:
    threshold = gc.get_threshold()
    policy = GcPolicy(freeze_seconds=1000.0, full_seconds=1000.0, young=12345)
    policy.start()
    try:
        assert gc.get_threshold()[0] == 12345 and gc.get_freeze_count() > 0
        dead = _cycle()  # garbage already, but a cycle: only the cyclic collector frees it
        policy.freeze()  # frozen as it is, without a collection first (no walk over the heap) ...
        gc.collect()
        assert dead() is not None  # ... so collections skip it
        kept = [Node() for _ in range(1000)]
        frozen = gc.get_freeze_count()
        policy.freeze()
        assert gc.get_freeze_count() >= frozen + 1000
        holder: list[Node] = []
        late = _cycle(holder)
        policy.freeze()  # alive now: frozen
        holder.clear()  # a garbage cycle among the frozen: collections skip it ...
        gc.collect()
        assert late() is not None
        policy.full()  # ... until the full collection
        assert late() is None and dead() is None and len(policy.full_pauses) == 1
        del kept
    finally:
        policy.stop()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold


async def test_off_leaves_the_collector_alone() -> None:
    threshold = gc.get_threshold()
    policy = GcPolicy(freeze_seconds=0.0, full_seconds=3600.0, young=10000)
    policy.start()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold
    policy.stop()
    assert gc.get_threshold() == threshold


async def test_enough_ended_connections_bring_the_full_collection_forward() -> None:
    ended = [0]
    policy = GcPolicy(freeze_seconds=1000.0, full_seconds=1000.0, young=10000, full_closed=3,
                      ended=lambda: ended[0])
    policy.start()
    try:
        holder: list[Node] = []
        gone = _cycle(holder)
        policy.freeze()
        holder.clear()  # a garbage cycle among the frozen, as an ended connection leaves
        ended[0] = 2
        policy.freeze()
        assert gone() is not None and policy.full_pauses == []  # two ended: not yet
        ended[0] = 3
        policy.freeze()
        assert gone() is None and len(policy.full_pauses) == 1  # the third: the full collection
        policy.freeze()
        assert len(policy.full_pauses) == 1  # counted again from there
    finally:
        policy.stop()


def test_the_open_sessions_count_those_that_ended() -> None:
    from server.start.app import Sessions

    sessions = Sessions()
    a, b = object(), object()
    sessions.add(a)
    sessions.add(b)
    sessions.discard(a)
    sessions.discard(a)  # twice: one ended
    assert sessions.ended == 1 and sessions == {b}

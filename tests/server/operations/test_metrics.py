"""server/operations/metrics.py: a command's server-side latency (``donne_command_seconds``) and its counters.

A fake clock, no server: a command is held by its handling, by the room's handling of what it
queued, and by every line queued for it until written; lines queued once it is done are not its
own. The three figures are kept as plain numbers and exposed exactly as prometheus_client's own
Counter and Histogram expose them (compared text for text).
"""

from __future__ import annotations

import asyncio
import collections
from types import SimpleNamespace
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.operations import metrics


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Clock]:
    """Fresh figures and a fake clock for metrics.py."""
    fresh = metrics._Latency()
    clock = Clock()
    monkeypatch.setattr(metrics, "_FIGURES", fresh)
    monkeypatch.setattr(metrics, "time", SimpleNamespace(perf_counter=clock.perf_counter))
    return fresh, clock


def _observed(fresh: Any, kind: str) -> list[int]:
    return [i for i, n in enumerate(fresh.buckets[kind]) for _ in range(n)]


def test_a_command_lasts_until_the_last_line_it_queued_is_written(figures):
    fresh, clock = figures
    with metrics.command(True, 100.0):
        first = metrics.line_queued()
        second = metrics.line_queued()
        assert first is second is metrics.current()
    assert fresh.commands == {"action": 1, "other": 0}
    assert _observed(fresh, "action") == []  # two lines not written yet
    assert first is not None
    clock.now = 100.003
    first.release()
    assert _observed(fresh, "action") == []
    clock.now = 100.02
    first.release()  # the last line: 20 ms after the read
    assert _observed(fresh, "action") == [metrics.LATENCY_BUCKETS.index(0.025)]
    assert fresh.sums["action"] == pytest.approx(0.02)
    assert metrics.line_queued() is None  # outside any command
    assert metrics.current() is None


def test_no_line_no_wait_and_the_read_time_defaults_to_now(figures):
    fresh, clock = figures
    with metrics.command(False):
        clock.now = 100.0004
    assert _observed(fresh, "other") == [0] and fresh.sums["other"] == pytest.approx(0.0004)
    assert fresh.commands == {"action": 0, "other": 1}


async def test_the_rooms_handling_and_its_lines_belong_to_the_command(figures):
    fresh, clock = figures
    queued: asyncio.Queue[metrics.Stamp | None] = asyncio.Queue()
    lines: list[metrics.Stamp | None] = []

    async def room() -> None:
        stamp = await queued.get()
        with metrics.handling(stamp):
            await asyncio.sleep(0)
            lines.append(metrics.line_queued())  # a state for some seat, queued by the room's task
        with metrics.handling(None):
            lines.append(metrics.line_queued())  # no command: a timer's
        lines.append(metrics.line_queued())

    task = asyncio.ensure_future(room())
    with metrics.command(True, 100.0):
        stamp = metrics.current()
        assert stamp is not None
        stamp.hold()  # as Room.submit does
        queued.put_nowait(stamp)
        await asyncio.sleep(0)
    await task
    assert lines[1:] == [None, None]
    assert lines[0] is stamp and not stamp.done  # its line is not written yet
    clock.now = 100.3
    stamp.release()
    assert stamp.done and _observed(fresh, "action") == [metrics.LATENCY_BUCKETS.index(0.5)]
    with metrics.handling(stamp):
        assert metrics.line_queued() is None  # done: later lines are not its own


async def test_two_commands_in_two_tasks_keep_their_own_stamps(figures):
    fresh, _clock = figures
    seen: dict[str, Any] = {}

    async def one(name: str, action: bool) -> None:
        with metrics.command(action, 100.0) as stamp:
            await asyncio.sleep(0)
            seen[name] = (stamp, metrics.current())

    await asyncio.gather(one("a", True), one("b", False))
    assert seen["a"][0] is seen["a"][1] and seen["b"][0] is seen["b"][1] and seen["a"][0] is not seen["b"][0]
    assert fresh.commands == {"action": 1, "other": 1}


def test_the_exposition_is_prometheus_clients_own(figures):
    """The same observations through the library's Counter and Histogram: the same text."""
    _fresh, clock = figures
    ref = CollectorRegistry()
    commands = Counter("donne_commands", metrics._COMMANDS_HELP, ["kind"], registry=ref)
    actions = Counter("donne_actions", metrics._ACTIONS_HELP, registry=ref)
    latency = Histogram("donne_command_seconds", metrics._LATENCY_HELP, ["kind"],
                        buckets=metrics.LATENCY_BUCKETS, registry=ref)
    for kind in ("action", "other"):
        commands.labels(kind)
        latency.labels(kind)
    for kind, seconds in [("action", 0.0005), ("action", 0.0004), ("other", 0.003), ("action", 7.0),
                          ("other", 1.0), ("action", 0.0), ("action", 0.01)]:
        commands.labels(kind).inc()
        if kind == "action":
            actions.inc()
        latency.labels(kind).observe(seconds)
        clock.now = seconds
        with metrics.command(kind == "action", 0.0):
            pass
    ours = CollectorRegistry()
    ours.register(metrics.CommandCollector())
    assert generate_latest(ours).decode() == generate_latest(ref).decode()


def _written(held: Any, upto: int) -> None:
    """What a session does once its lines up to ``upto`` are written."""
    while held and held[0][0] <= upto:
        held.popleft()[1].release()


def test_a_run_of_lines_of_one_command_is_one_hold_on_its_last_line(figures):
    fresh, clock = figures
    held: Any = collections.deque()
    with metrics.command(True, 100.0) as a:
        for line in (1, 2, 3):
            metrics.line_queued_to(held, line)
        assert list(held) == [(3, a)] and a.holds == 2  # its handling, and the session's one entry
        with metrics.command(False, 100.0) as b:
            metrics.line_queued_to(held, 4)  # another command's line in between ...
        metrics.line_queued_to(held, 5)  # ... then the first's again: an entry of its own
    assert list(held) == [(3, a), (4, b), (5, a)] and a.holds == 2
    metrics.line_queued_to(held, 6)  # no command
    assert len(held) == 3
    clock.now = 100.001
    _written(held, 3)
    assert not a.done and _observed(fresh, "action") == []  # its line 5 is not written yet
    clock.now = 100.004
    _written(held, 4)
    assert b.done and _observed(fresh, "other") == [metrics.LATENCY_BUCKETS.index(0.005)]
    clock.now = 100.04
    _written(held, 6)
    assert a.done and _observed(fresh, "action") == [metrics.LATENCY_BUCKETS.index(0.05)]
    assert not held


async def test_a_sessions_lines_hold_the_command_until_its_writer_wrote_them(figures):
    fresh, clock = figures
    from server.sessions.session import Session
    from tests.server.sessions.test_session import FakeConn, make_app

    app = make_app()
    conn = FakeConn()
    session = Session(app, conn)
    session.mode = "json"
    session.start()
    await asyncio.sleep(0)
    conn.written.clear()
    with metrics.command(True, 100.0):
        for i in range(3):
            session.send_raw(f"line {i}\n")
    assert _observed(fresh, "action") == [] and conn.written == []
    clock.now = 100.2
    await asyncio.sleep(0)  # the flush: one write of the three
    assert conn.written == ["line 0\nline 1\nline 2\n"]
    assert _observed(fresh, "action") == [metrics.LATENCY_BUCKETS.index(0.25)]
    session.close()
    await asyncio.wait_for(session.done.wait(), 5)

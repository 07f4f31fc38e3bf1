"""An event's asyncio shell (server/lobby/tournaments/shell.py) on a fake clock: journal first, then
effects; refusals change nothing; the director called off the loop; the task sleeps until ``wake``."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from server.lobby.tournaments.shell import EventShell, _Item
from server.storage.api import Op, OpResult
from server.storage.api_tournaments import TournamentClosed, TournamentLog
from server.tournaments import (
    ArenaConfig,
    ArenaDirector,
    Effect,
    Join,
    Leave,
    OpenTable,
    Started,
    Stop,
    SwissConfig,
    SwissDirector,
    TableOver,
    TournamentError,
)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Host:
    """Records every write and every effect, in order; a write may be made to fail."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail = False
        self.done: list[EventShell] = []

    async def write(self, tid: str, ops: Sequence[Op]) -> list[OpResult]:
        if self.fail:
            raise RuntimeError("the store is away")
        self.calls.append(("write", list(ops)))
        out: list[OpResult] = []
        for op in ops:
            out.append(op.seq + len(op.entries) if isinstance(op, TournamentLog) else True)
        return out

    async def perform(self, shell: EventShell, effect: Effect) -> None:
        self.calls.append(("perform", effect))

    def finished(self, shell: EventShell) -> None:
        self.done.append(shell)


def arena(clock: Clock, **kw: Any) -> ArenaDirector:
    return ArenaDirector(ArenaConfig(id="e1", seats=3, starts_at=clock.now + 10, length=100, seed="ab", **kw))


async def test_a_call_is_written_before_any_of_its_effects_is_performed() -> None:
    clock, host = Clock(), Host()
    shell = EventShell(arena(clock), host, clock)
    for name in ("ana", "bob", "cid"):
        await shell.step(_Item(Join(name)))
    assert [kind for kind, _ in host.calls] == ["write"] * 3 and shell.seq == 3
    clock.now += 10
    out = await shell.step(None)  # the start: a tick
    assert out is not None and [type(e) for e in out.effects] == [Started, OpenTable]
    kinds = [kind for kind, _ in host.calls[3:]]
    assert kinds == ["write", "perform", "perform"]
    log_op = host.calls[3][1][0]
    assert isinstance(log_op, TournamentLog) and log_op.seq == 3
    assert [e["k"] for e in log_op.entries] == ["tick", "started", "open"]
    assert shell.seq == 6


async def test_a_refused_input_changes_nothing_and_writes_nothing() -> None:
    clock, host = Clock(), Host()
    shell = EventShell(arena(clock), host, clock)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    await shell.step(_Item(Leave("nobody"), future))
    with pytest.raises(TournamentError) as err:
        future.result()
    assert err.value.code == "not_entered" and host.calls == [] and shell.seq == 0
    assert shell.director.event.journal == []


async def test_the_director_is_called_off_the_event_loop() -> None:
    clock, host = Clock(), Host()
    director = arena(clock)
    shell = EventShell(director, host, clock)
    threads = []
    handle = director.handle

    def spy(now: float, inp: Any) -> Any:
        threads.append(threading.get_ident())
        assert shell.seen() is shell._seen  # while it runs, others read the last copy
        return handle(now, inp)

    director.handle = spy  # type: ignore[method-assign]
    await shell.step(_Item(Join("ana")))
    assert threads and threads[0] != threading.get_ident()
    assert [line.name for line in shell.seen().standings.lines] == ["ana"]


async def test_the_end_closes_the_event_with_its_final_standings_in_the_same_write() -> None:
    clock, host = Clock(), Host()
    shell = EventShell(arena(clock), host, clock)
    for name in ("ana", "bob", "cid"):
        await shell.step(_Item(Join(name)))
    clock.now += 10
    out = await shell.step(None)
    assert out is not None
    table = next(e for e in out.effects if isinstance(e, OpenTable))
    await shell.step(_Item(Stop()))
    clock.now += 5
    out = await shell.step(_Item(TableOver(table.table, (1, 2, 3), (0, 0, 0))))
    assert out is not None and shell.over
    writes = [i for i, (kind, _) in enumerate(host.calls) if kind == "write"]
    last = host.calls[writes[-1]]
    assert [kind for kind, _ in host.calls[writes[-1]:]] == ["write", "perform", "perform"]  # scored, ended
    assert isinstance(last[1][1], TournamentClosed)
    closed = last[1][1]
    assert closed.status == "over" and closed.standings["final"] is True
    assert [line["name"] for line in closed.standings["lines"]] == [table.seats[0], table.seats[1], table.seats[2]]


async def test_the_task_sleeps_until_wake_then_ticks_and_ends_with_the_event() -> None:
    clock, host = Clock(), Host()
    director = SwissDirector(SwissConfig(id="e2", seats=3, rounds=1, starts_at=clock.now + 10, seed="cd"))
    shell = EventShell(director, host, clock)
    shell.start()
    for name in ("ana", "bob", "cid"):
        await shell.ask(Join(name))
    assert director.phase == "registering"
    clock.now += 10  # the start is due: the task's wait is over at once (no real sleep)
    await shell.ask(Join("dan"))  # (an input wakes the task; the tick comes with it)
    for _ in range(50):
        if director.phase == "running":
            break
        await asyncio.sleep(0)
    assert director.phase == "running"
    table = next(e for kind, e in host.calls if kind == "perform" and isinstance(e, OpenTable))
    shell.tell(TableOver(table.table, (1, 2, 3), (0, 0, 0)))
    for _ in range(200):
        if host.done:
            break
        await asyncio.sleep(0.001)
    assert host.done == [shell] and shell.over and not shell.jammed
    with pytest.raises(TournamentError):
        await shell.ask(Join("eve"))  # the task has ended: refused, never left waiting
    await shell.stop()


async def test_a_journal_that_cannot_be_written_stops_the_event_and_refuses_the_input() -> None:
    clock, host = Clock(), Host()
    shell = EventShell(arena(clock), host, clock)
    shell.start()
    host.fail = True
    with pytest.raises(TournamentError):
        await shell.ask(Join("ana"))
    for _ in range(50):
        if host.done:
            break
        await asyncio.sleep(0)
    assert shell.jammed and host.done == [shell] and host.calls == []
    await shell.stop()


async def test_inputs_queued_together_are_one_call_and_one_write_each_answered_in_order() -> None:
    clock, host = Clock(), Host()
    shell = EventShell(arena(clock), host, clock)
    shell.start()
    asks = [asyncio.ensure_future(shell.ask(Join(name))) for name in ("ana", "bob", "ana", "cid")]
    done = await asyncio.gather(*asks, return_exceptions=True)
    assert isinstance(done[2], TournamentError) and done[2].code == "already_entered"
    assert [type(d) for i, d in enumerate(done) if i != 2] == [type(done[0])] * 3
    writes = [ops for kind, ops in host.calls if kind == "write"]
    assert len(writes) == 1 and [e["name"] for e in writes[0][0].entries] == ["ana", "bob", "cid"]
    assert shell.seq == 3
    await shell.stop()


async def test_a_shutdown_lets_the_step_under_way_write_and_answer_first() -> None:
    clock, host = Clock(), Host()
    gate = asyncio.Event()
    write = host.write

    async def slow(tid: str, ops: Sequence[Op]) -> list[OpResult]:
        await gate.wait()
        return await write(tid, ops)

    host.write = slow  # type: ignore[method-assign]
    shell = EventShell(arena(clock), host, clock)
    shell.start()
    asked = asyncio.ensure_future(shell.ask(Join("ana")))
    for _ in range(100):
        if not shell._between.is_set():
            break
        await asyncio.sleep(0.001)
    stopping = asyncio.ensure_future(shell.stop())
    await asyncio.sleep(0.01)
    assert not stopping.done()  # it waits for the step: the journal is being written
    gate.set()
    await stopping
    assert (await asked).entries and [kind for kind, _ in host.calls] == ["write"]
    assert host.done == []  # stopped, not finished: the next start rebuilds it

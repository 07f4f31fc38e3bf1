"""server/sessions/outbox.py: one write a turn, waiting for a client that reads late, dropping a slow one."""

from __future__ import annotations

import asyncio

import pytest

from server.operations import metrics
from server.sessions.outbox import Outbox


class Sink:
    def __init__(self, stuck: bool = False) -> None:
        self.written: list[str] = []
        self.stuck = stuck
        self.unblock = asyncio.Event()

    def write(self, text: str) -> None:
        self.written.append(text)

    def backlog(self) -> int:
        return 1 if self.stuck else 0

    async def drain(self) -> None:
        if self.stuck:
            await self.unblock.wait()


class LinesSink(Sink):
    """A transport that writes a list of lines itself and says what it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def write_lines(self, lines: list[str]) -> int | None:
        self.calls.append(list(lines))
        self.written.append("".join(lines))
        return 0


def outbox(sink: Sink, limit: int = 100, drain_timeout: float = 30) -> tuple[Outbox, list[str]]:
    dropped: list[str] = []
    box = Outbox(sink, limit=limit, drain_timeout=drain_timeout, drop=dropped.append, name="t")
    return box, dropped


async def test_what_is_queued_in_one_turn_goes_out_at_the_next_in_one_write() -> None:
    sink = Sink()
    box, dropped = outbox(sink)
    box.put("a\n")
    box.put("")  # nothing: not a line
    box.start(asyncio.get_running_loop())  # what was queued before starting goes too
    box.put("b\n")
    assert sink.written == [] and box.due
    await asyncio.sleep(0)
    assert sink.written == ["a\nb\n"] and not box.due and dropped == []


async def test_text_gets_crlf_line_ends_when_asked() -> None:
    sink = Sink()
    box, _ = outbox(sink)
    box.crlf = True
    box.start(asyncio.get_running_loop())
    box.put("one\ntwo\r\nthree\n")
    await asyncio.sleep(0)
    assert sink.written == ["one\r\ntwo\r\nthree\r\n"]


async def test_a_transport_writing_lines_itself_is_given_the_list() -> None:
    sink = LinesSink()
    box, _ = outbox(sink)
    box.start(asyncio.get_running_loop())
    box.put("a\n")
    box.put("b\n")
    await asyncio.sleep(0)
    assert sink.calls == [["a\n", "b\n"]]


async def test_a_full_queue_drops_the_client_as_slow_and_queues_nothing_more() -> None:
    box, dropped = outbox(Sink(), limit=3)
    for i in range(5):
        box.put(f"{i}\n")
    assert box.lines == ["0\n", "1\n", "2\n"] and dropped == ["slow", "slow"]


async def test_a_client_reading_late_is_waited_for_and_gets_the_rest_in_one_write() -> None:
    sink = Sink(stuck=True)
    box, dropped = outbox(sink)
    box.start(asyncio.get_running_loop())
    box.put("a\n")
    await asyncio.sleep(0)
    assert sink.written == ["a\n"] and box.drainer is not None
    box.put("b\n")
    box.put("c\n")
    await asyncio.sleep(0)
    assert sink.written == ["a\n"]  # nothing more while the transport holds bytes
    sink.stuck = False
    sink.unblock.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert sink.written == ["a\n", "b\nc\n"] and box.drainer is None and dropped == []


async def test_a_client_that_stops_reading_is_dropped_after_the_drain_timeout() -> None:
    sink = Sink(stuck=True)
    box, dropped = outbox(sink, drain_timeout=0.01)
    box.start(asyncio.get_running_loop())
    box.put("a\n")
    await asyncio.sleep(0)
    assert box.drainer is not None
    await asyncio.wait_for(box.drainer, 5)
    assert dropped == ["slow"]


@pytest.mark.parametrize(("failure", "reason"), [(ConnectionResetError, "lost"), (RuntimeError, "error")])
async def test_a_failing_write_drops_the_client_with_its_reason(failure: type[Exception], reason: str) -> None:
    sink = Sink()

    def broken(text: str) -> None:
        raise failure("gone")

    sink.write = broken  # type: ignore[method-assign]
    box, dropped = outbox(sink)
    box.start(asyncio.get_running_loop())
    box.put("a\n")
    await asyncio.sleep(0)
    assert dropped == [reason]


@pytest.mark.parametrize(("reason", "written"), [("quit", ["last\n"]), ("slow", []), ("lost", [])])
async def test_after_a_stop_what_was_queued_goes_out_unless_the_client_cannot_take_it(
        reason: str, written: list[str]) -> None:
    sink = Sink()
    box, _ = outbox(sink)
    box.start(asyncio.get_running_loop())
    box.put("last\n")
    box.stop(reason)
    box.put("too late\n")
    await box.finish()
    assert sink.written == written and box.lines == []


async def test_a_commands_lines_hold_it_until_written_and_a_stop_lets_it_go() -> None:
    box, _ = outbox(Sink())
    with metrics.command(True, 0.0):
        box.put("a\n")
    assert len(box._stamps) == 1  # held until written
    box.stop("slow")
    await box.finish()  # never written: the command is done with it
    assert not box._stamps

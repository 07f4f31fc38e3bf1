"""server/rooms/inbox.py: a room's inputs in order, and the wait for the next one with a deadline."""

import asyncio

import pytest

from server.rooms.inbox import Inbox


async def test_items_come_out_in_order_and_a_waiting_reader_is_woken_by_the_first():
    inbox: Inbox[str] = Inbox()
    inbox.put_nowait("a")
    assert not inbox.empty() and await inbox.get(5.0) == "a" and inbox.empty()
    reader = asyncio.ensure_future(inbox.get(None))
    await asyncio.sleep(0)
    assert not reader.done()  # nothing there: it waits
    inbox.put_nowait("b")
    inbox.put_nowait("c")
    assert await reader == "b"
    assert inbox.get_nowait() == "c"
    with pytest.raises(IndexError):
        inbox.get_nowait()


async def test_the_wait_ends_with_none_when_its_time_runs_out():
    inbox: Inbox[int] = Inbox()
    assert await inbox.get(0.01) is None
    inbox.put_nowait(1)  # nobody waits now: it stays for the next reader
    assert await inbox.get(0.01) == 1
    reader = asyncio.ensure_future(inbox.get(3600))
    await asyncio.sleep(0)
    inbox.put_nowait(2)
    assert await reader == 2
    inbox.close()
    assert inbox._timer is None


async def test_one_timer_serves_waits_that_end_later_and_an_early_one_does_not_end_a_wait(monkeypatch):
    """A move puts the table's next wake later than the last: the timer armed for the earlier end is
    kept (no new timer per move); when it goes off before a wait's own end, the wait goes on."""
    inbox: Inbox[str] = Inbox()
    loop = asyncio.get_running_loop()
    armed = []
    real = loop.call_at
    monkeypatch.setattr(loop, "call_at", lambda when, cb, *a, **k: (armed.append(when), real(when, cb, *a, **k))[1])
    for i in range(5):  # each wait ends later than the one before, and an item comes first
        reader = asyncio.ensure_future(inbox.get(0.05 + i))
        await asyncio.sleep(0)
        inbox.put_nowait(f"move {i}")
        assert await reader == f"move {i}"
    assert len(armed) == 1  # the first wait's timer, kept
    started = loop.time()
    assert await inbox.get(0.2) is None  # the kept timer goes off after 0.05 s: the wait goes on to its own end
    assert loop.time() - started >= 0.2 - 0.01 and len(armed) == 2
    reader = asyncio.ensure_future(inbox.get(3600))  # an earlier end than an armed timer's: armed anew
    await asyncio.sleep(0)
    reader.cancel()
    short = asyncio.ensure_future(inbox.get(0.01))
    assert await short is None
    inbox.close()


async def test_a_reader_cancelled_while_waiting_takes_nothing_and_the_next_gets_it():
    inbox: Inbox[int] = Inbox()
    reader = asyncio.ensure_future(inbox.get(3600))
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait(7)
    assert await inbox.get(1.0) == 7

"""server/inbox.py: a room's inputs in order, and the wait for the next one with a deadline."""

import asyncio

import pytest

from server.inbox import Inbox


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


async def test_the_wait_ends_with_none_when_its_time_runs_out_and_leaves_no_timer_behind():
    inbox: Inbox[int] = Inbox()
    loop = asyncio.get_running_loop()
    assert await inbox.get(0.01) is None
    inbox.put_nowait(1)  # nobody waits now: it stays for the next reader
    assert await inbox.get(0.01) == 1
    reader = asyncio.ensure_future(inbox.get(3600))
    await asyncio.sleep(0)
    inbox.put_nowait(2)
    assert await reader == 2
    assert all(h.cancelled() for h in loop._scheduled if h._callback.__name__ == "_expire")  # type: ignore[attr-defined]


async def test_a_reader_cancelled_while_waiting_takes_nothing_and_the_next_gets_it():
    inbox: Inbox[int] = Inbox()
    reader = asyncio.ensure_future(inbox.get(3600))
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    inbox.put_nowait(7)
    assert await inbox.get(1.0) == 7

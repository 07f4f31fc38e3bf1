"""One timer for the earliest deadline (the lobby's seeks)."""

from __future__ import annotations

import asyncio

from server.lobby.alarm import Alarm


async def turns(n: int = 3) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_the_alarm_rings_once_at_the_time_last_set():
    rang: list[int] = []
    alarm = Alarm(lambda: rang.append(1))
    loop = asyncio.get_running_loop()
    alarm.set(loop.time() + 3600)  # far away: replaced below
    assert alarm.armed
    alarm.set(loop.time())  # due now
    await turns()
    assert rang == [1] and not alarm.armed
    await turns()
    assert rang == [1]


async def test_an_alarm_set_to_none_or_cancelled_never_rings():
    rang: list[int] = []
    alarm = Alarm(lambda: rang.append(1))
    now = asyncio.get_running_loop().time()
    alarm.set(now)
    alarm.set(None)
    assert not alarm.armed
    alarm.set(now)
    alarm.cancel()
    await turns()
    assert rang == []

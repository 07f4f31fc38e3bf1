"""``shutdown in 5m`` on a real server with a fake clock: everyone is warned at the announced moments
(now, 2 minutes, 1 minute, 30 and 10 seconds before), in their language, then the clean shutdown
(``Running.stop``); ``shutdown cancel`` calls it off and the server goes on."""

from __future__ import annotations

import asyncio

from server.app import Running
from tests.server.staffkit import Text, community, event_of, events, json_client


async def test_shutdown_warns_at_the_marks_then_stops_cleanly(server: Running) -> None:
    await community(server)
    slept: list[float] = []

    async def fake_sleep(delay: float) -> None:  # the fake clock: time passes at once, recorded
        slept.append(delay)
        await asyncio.sleep(0)

    ada = await json_client(server, "ada")
    pat = await json_client(server, "pat")
    fr = await Text.login(server, "bob", "fr")
    gate = asyncio.Event()

    async def held_sleep(delay: float) -> None:  # the first wait holds until the test has read the reply
        slept.append(delay)
        await gate.wait()
        server.sleep = fake_sleep

    server.sleep = held_sleep
    try:
        reply = await ada.request("shutdown", delay="5m", reason="upgrade")
        assert (reply["in"], reply["reason"]) == (300, "upgrade")
        first = await event_of(pat, "shutdown_soon")
        assert (first["seconds"], first["reason"]) == (300, "upgrade")
        assert first["text"] == "The server shuts down in 5 minutes; stakes in play will be given back. Reason: upgrade."
        await fr.expect(r"Le serveur s.arr.te dans 5 minutes")
        [entry] = await server.store.moderation.log(1)
        assert (entry.actor, entry.action, entry.reason, dict(entry.detail)) == ("ada", "shutdown", "upgrade",
                                                                                 {"in": 300.0})
        gate.set()
        await asyncio.wait_for(server.wait_stopped(), 20)
        assert slept == [180, 60, 30, 20, 10]  # 300 -> 120 -> 60 -> 30 -> 10 -> 0
        marks = [e["seconds"] for e in events(pat, "shutdown_soon")]
        assert marks == [120, 60, 30, 10]
        await asyncio.wait_for(pat.closed.wait(), 10)
        screen = await fr.closed()
        assert "10 secondes" in screen and "Le serveur" in screen
    finally:
        fr.close()
        await ada.close()
        await pat.close()


async def test_shutdown_cancel(server: Running) -> None:
    await community(server)
    waiting = asyncio.Event()

    async def never(delay: float) -> None:
        waiting.set()
        await asyncio.Event().wait()  # the clock never gets there: only a cancel ends the wait

    server.sleep = never
    ada = await json_client(server, "ada")
    pat = await json_client(server, "pat")
    try:
        assert (await ada.request_raw("shutdown", cancel=True))["code"] == "not_allowed"  # nothing planned
        await ada.request("shutdown", delay="1h")
        await asyncio.wait_for(waiting.wait(), 10)
        assert (await ada.request("shutdown", cancel=True))["cancelled"] is True
        told = await event_of(pat, "shutdown_cancelled")
        assert "goes on" in told["text"]
        assert (await pat.request("whoami"))["name"] == "pat"  # still running
        assert not server.stopping
        actions = [(e.action, dict(e.detail)) for e in await server.store.moderation.log(2)]
        assert actions == [("shutdown", {"cancel": True}), ("shutdown", {"in": 3600.0})]
        for wrong in ("soon", "forever", -5, "5"):
            assert (await ada.request_raw("shutdown", delay=wrong))["code"] == "bad_argument", wrong
    finally:
        await ada.close()
        await pat.close()

"""``shutdown in 5m`` on a real server with a fake clock: everyone is warned at the announced moments
(now, then 60, 30 and 10 seconds before), in their language, then the clean shutdown
(``Running.stop``); ``shutdown cancel`` calls it off and the server goes on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server.start.app import Running
from tests.kits.staffkit import Text, community, event_of, events, json_client


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
        first = await event_of(pat, "shutdown_warning")
        resume = bool(getattr(server.config, "durable_tables", False))  # tables that survive a restart
        assert (first["seconds"], first["reason"], first["resume"]) == (300, "upgrade", resume)
        assert first["text"] == ("The server restarts in 300 seconds: your tables will be back, where they were. "
                                 "(upgrade)" if resume else "The server shuts down in 300 seconds. (upgrade)")
        await fr.expect(r"Le serveur (s.arr.te|red.marre) dans 300 secondes")
        [entry] = await server.store.moderation.log(1)
        assert (entry.actor, entry.action, entry.reason, dict(entry.detail)) == ("ada", "shutdown", "upgrade",
                                                                                 {"in": 300.0})
        gate.set()
        await asyncio.wait_for(server.wait_stopped(), 20)
        assert slept == [240, 30, 20, 10]  # 300 -> 60 -> 30 -> 10 -> 0
        marks = [e["seconds"] for e in events(pat, "shutdown_warning")]
        assert marks == [60, 30, 10]
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
        assert "called off" in told["text"]
        assert (await pat.request("whoami"))["name"] == "pat"  # still running
        assert not server.stopping
        actions = [(e.action, dict(e.detail)) for e in await server.store.moderation.log(2)]
        assert actions == [("shutdown", {"cancel": True}), ("shutdown", {"in": 3600.0})]
        for wrong in ("soon", "forever", -5, "5"):
            assert (await ada.request_raw("shutdown", delay=wrong))["code"] == "bad_argument", wrong
    finally:
        await ada.close()
        await pat.close()


async def test_donne_serve_ends_after_a_planned_shutdown(tmp_path: Any) -> None:
    """``donne serve`` returns (exit 0) once the shutdown command stopped the server: no signal needed."""
    from server.start.app import serve
    from tests.kits.servers import test_config

    ready = tmp_path / "ready.json"
    task = asyncio.create_task(serve(test_config(tmp_path), ready))
    for _ in range(2000):
        if ready.exists() or task.done():
            break
        await asyncio.sleep(0.01)
    ports = json.loads(ready.read_text())
    from clients.client import Client
    from server.storage import open_store

    tool = await open_store(tmp_path / "data", recover=False, exclusive=False)
    try:
        await tool.accounts.register("ada", "ada-secret")
        await tool.moderation.set_role("ada", "admin", actor="console:test")
    finally:
        await tool.close()
    ada = await Client.connect_tcp("127.0.0.1", ports["telnet_port"], timeout=10)
    try:
        await ada.login("ada", "ada-secret")
        assert (await ada.request("shutdown", delay="now"))["in"] == 0
        await asyncio.wait_for(task, 20)
        assert not ready.exists()
    finally:
        await ada.close()
        if not task.done():
            task.cancel()

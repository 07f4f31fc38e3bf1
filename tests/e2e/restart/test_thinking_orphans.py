"""``kill -9`` of a real ``donne serve`` whose search bots think in worker processes: the workers and
multiprocessing's resource tracker end with it (``server.rooms.thinking.die_with_parent``); they once
stayed alive, orphaned, for as long as the machine ran."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from clients.client import Client
from clients.serverproc import LOAD_LIMITS, ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def children(pid: int) -> dict[int, str]:
    """The live (not zombie) processes whose parent is ``pid``: pid -> command line."""
    out: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out[int(entry.name)] = cmdline
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


async def test_the_thinking_workers_and_the_resource_tracker_die_with_a_killed_server() -> None:
    server = ServerProcess(LOAD_LIMITS, server_keys=("bot_processes = 1",))
    await server.start()
    client = None
    try:
        client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=10)
        await client.login("alice")
        await client.request("create", game="president", rules="classic", seats=3, bots=2, bot_level="hard",
                             turn_seconds=1)  # alice lets the clock play: the bots think soon
        deadline = time.monotonic() + 60
        kids: dict[int, str] = {}
        while time.monotonic() < deadline:  # the pool starts at the first search bot's decision
            kids = children(server.pid)
            if any("resource_tracker" in c for c in kids.values()) and \
                    any("resource_tracker" not in c for c in kids.values()):
                break
            await asyncio.sleep(0.1)
        assert any("resource_tracker" in c for c in kids.values()), kids
        assert any("resource_tracker" not in c for c in kids.values()), kids  # the worker
        os.kill(server.pid, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(alive(p) for p in kids):
            await asyncio.sleep(0.1)
        left = {p: c for p, c in kids.items() if alive(p)}
        for p in left:  # (the test cleans up what the server left: a failure must not leave them either)
            os.kill(p, signal.SIGKILL)
        assert left == {}
    finally:
        if client is not None:
            await client.close()
        await server.stop()

"""``kill -9`` of a real ``donne serve`` in the middle of a staked tdc round, then a restart.

The server runs as its own process (``python -m server.cli serve`` on port 0,
ports read from its log). A JSON client registers, sits at a tdc table with
two bots and a stake (T13), and waits until the round is dealt: the stakes
are in escrow. The server is SIGKILLed; a new server on the same data folder
refunds the round at start. Every balance is back to what it was before the
round (the player's and the house's, whose chips the bots played with), and
the audit holds (RULES invariant 4).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import sys
from pathlib import Path

import pytest

from server.clients.client import Client
from server.storage import open_store
from server.storage.api import HOUSE
from server.storage.cli import audit_file

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening: telnet [^:]+:(\d+), ssh [^:]+:(\d+)")

pytestmark = pytest.mark.e2e


class Server:
    def __init__(self, data: Path) -> None:
        self.data = data
        self.proc: asyncio.subprocess.Process | None = None
        self.log: list[str] = []
        self.telnet_port = 0
        self._drain: asyncio.Task[None] | None = None

    async def start(self) -> None:
        config = self.data.parent / "test.toml"
        config.write_text("[timers]\nbot_delay = 0.0\nround_pause = 0.0\nturn_seconds = 60\n")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "serve", "--data-dir", str(self.data),
            "--ssh-port", "0", "--telnet-port", "0", "--config", str(config), "--log-level", "INFO",
            cwd=ROOT, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )
        assert self.proc.stderr is not None
        while True:
            raw = await asyncio.wait_for(self.proc.stderr.readline(), 20)
            if not raw:
                pytest.fail("server ended before listening:\n" + "".join(self.log))
            line = raw.decode(errors="replace")
            self.log.append(line)
            m = LISTENING.search(line)
            if m:
                self.telnet_port = int(m.group(1))
                break
        self._drain = asyncio.get_running_loop().create_task(self._read_log())

    async def _read_log(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while raw := await self.proc.stderr.readline():
            self.log.append(raw.decode(errors="replace"))

    async def kill(self, sig: int) -> int:
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)
        rc = await asyncio.wait_for(self.proc.wait(), 20)
        if self._drain is not None:
            await asyncio.wait_for(self._drain, 5)
        return rc


async def test_T13_kill_9_of_the_server_mid_round_refunds_everything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Server(data)
    await first.start()
    try:
        async with await Client.connect_tcp("127.0.0.1", first.telnet_port, timeout=15) as c:
            await c.register("alice", "secret")
            audit0 = await c.request("audit")
            room = await c.request("create", game="president", rules="tdc", seats=3, bots=2, stake=10)
            state = await c.next_state(lambda s: bool(s.get("hand")) and s.get("round") == 1, timeout=15,
                                       current=True)
            assert state["room"] == room["room"]
            mid = await c.request("audit")
            assert mid["ok"] and mid["escrow"] == 30  # three stakes of 10 in escrow (T13)
            assert (await c.request("whoami"))["chips"] == 990
            assert await first.kill(signal.SIGKILL) == -signal.SIGKILL
    finally:
        if first.proc is not None and first.proc.returncode is None:
            await first.kill(signal.SIGKILL)

    second = Server(data)
    await second.start()
    try:
        async with await Client.connect_tcp("127.0.0.1", second.telnet_port, timeout=15) as c:
            await c.login("alice", "secret")
            assert (await c.request("whoami"))["chips"] == 1000
            audit = await c.request("audit")
            assert audit["ok"] and audit["escrow"] == 0
            assert (audit["balances"], audit["granted"], audit["retired"]) == (
                audit0["balances"], audit0["granted"], audit0["retired"])
    finally:
        assert await second.kill(signal.SIGTERM) == 0
    assert any("never settled" in line for line in second.log), "".join(second.log[-20:])
    assert audit_file(data).ok
    store = await open_store(data)
    try:
        assert await store.ledger.balance(HOUSE) == 1_000_000  # the bots' chips went home
        assert await store.ledger.balance("alice") == 1000
    finally:
        await store.close()

"""``kill -9`` of a real ``donne serve`` in the middle of a staked tdc round, then a restart.

The server runs as its own process (``python -m server.start.cli serve`` on port 0,
ports read from its log). A JSON client registers, sits at a tdc table with
two bots and a stake (T13), and waits until the round is dealt: the stakes
are in escrow. The server is SIGKILLed; a new server on the same data folder
rebuilds the table from its log (docs/restart.md): the stakes stay in escrow,
the player logs in again, hears that the table is back, finds the same hand
and plays the round to its end; the round settles once and the audit holds
(RULES invariant 4). Without durable tables the round is refunded at start
instead: every balance is back to what it was before the round.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from clients.client import Client
from server.storage import open_store
from server.storage.api import HOUSE
from server.storage.cli import audit_file
from tests.kits.restart_kit import ServerProcess
from tests.kits.servers import play_simply

pytestmark = pytest.mark.e2e


class Server(ServerProcess):
    """A real ``donne serve`` on ``data`` (:class:`tests.kits.restart_kit.ServerProcess`), its bots
    answering at once, quick cut windows, and ``round_pause`` between rounds."""

    def __init__(self, data: Path) -> None:
        super().__init__(data, "")

    async def start(self, extra: str = "", round_pause: float = 0.0) -> Server:  # type: ignore[override]
        self.config = (f"[timers]\nbot_delay = 0.0\ncut_window = 0.05\nround_pause = {round_pause}\n"
                       "turn_seconds = 60\n" + extra)
        await super().start()
        return self


async def _kill_mid_round(data: Path, extra: str = "") -> tuple[dict, dict]:
    """alice at a tdc table with two bots, the round dealt; then ``kill -9``. (audit before, state)"""
    first = Server(data)
    await first.start(extra)
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
    return audit0, state


async def test_T13_kill_9_of_the_server_mid_round_the_table_resumes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    audit0, before = await _kill_mid_round(data)
    second = Server(data)
    await second.start("[restart]\nresume_window = 0\n", round_pause=60)
    try:
        async with await Client.connect_tcp("127.0.0.1", second.telnet_port, timeout=15) as c:
            told = asyncio.ensure_future(c.next_event("resumed", timeout=15))
            await c.login("alice", "secret")
            back = await told
            assert back["room"] == before["room"] and back["seat"] == before["you"] and back["text"]
            state = await c.next_state(lambda s: s.get("room") == before["room"], timeout=15, current=True)
            assert (state["hand"], state["round"]) == (before["hand"], 1)  # the same hand, the same round
            assert (await c.request("whoami"))["chips"] == 990  # the stake is still in escrow: no refund
            assert (await c.request("audit"))["escrow"] == 30
            over = asyncio.ensure_future(c.next_event("round_over", timeout=60))
            try:
                await asyncio.wait_for(play_simply(c, until=lambda s: s.get("round", 1) > 1
                                                   or s.get("phase") != "play"), 60)
            except TimeoutError:
                raise AssertionError(f"the round did not end: {c.state}\n" + "".join(second.log[-40:])) from None
            result = await over
            assert (await c.request("whoami"))["chips"] == 1000 + result["chips"][before["you"]]
            audit = await c.request("audit")
            assert audit["ok"] and audit["escrow"] == 0 and audit["granted"] == audit0["granted"] and audit["retired"] == audit0["retired"]
    finally:
        assert await second.kill(signal.SIGTERM) == 0
    assert not any("never settled" in line for line in second.log), "".join(second.log[-20:])
    assert any("resumed" in line for line in second.log)
    assert audit_file(data).ok


async def test_T13_kill_9_without_durable_tables_refunds_everything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    off = "[restart]\ndurable_tables = false\n"
    audit0, _ = await _kill_mid_round(data, off)
    second = Server(data)
    await second.start(off)
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

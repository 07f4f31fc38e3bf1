"""``kill -9`` while a bot plays out the round a person left, the person already seated elsewhere.

T1, T13: a person who leaves a staked tdc round is free at once; a bot plays the seat to the end of
the round on their stake, while the person stakes at another table. The server is killed with
SIGKILL in the middle of that play-out. A new server on the same data folder rebuilds both tables
(the seat left holds no claim, so neither is set aside), the round left settles to its end, the
person's new table plays on with the person in it, and ``donne audit`` finds every chip: after the
kill, and at the end.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from clients.client import Client
from server.storage.cli import audit_file
from tests.kits.restart_kit import FAST_TIMERS, ServerProcess
from tests.kits.servers import play_simply

pytestmark = pytest.mark.e2e

CONFIG = FAST_TIMERS + "[restart]\nresume_window = 10\n"


async def _account(port: int, name: str, register: bool) -> Client:
    client = await Client.connect_tcp("127.0.0.1", port, timeout=20)
    if register:
        await client.register(name, f"pw-{name}-1")
    else:
        await client.login(name, f"pw-{name}-1")
    return client


async def test_kill_9_during_a_leavers_play_out_keeps_every_chip(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = await ServerProcess(data, CONFIG).start()
    names = ("alice", "bob", "carol")
    clients = {n: await _account(server.telnet_port, n, True) for n in names}
    alice, bob, carol = (clients[n] for n in names)
    r1 = (await alice.request("create", game="president", rules="tdc", seats=3, stake=10, rounds=1))["room"]
    await bob.request("join", room=r1)
    await carol.request("join", room=r1)
    await alice.next_state(lambda s: s.get("phase") == "play", timeout=20, current=True)
    left = await alice.request("leave")
    assert left["until"] == "round_end" and left["at_stake"] == 10
    r2 = (await alice.request("create", game="president", rules="tdc", seats=3, bots=2, stake=10,
                              rounds=1))["room"]
    await alice.next_state(lambda s: s.get("room") == r2 and s.get("phase") in ("play", "exchange"),
                           timeout=20, current=True)
    # the play-out goes on (bob and carol make a few moves), then the kill
    for c in (bob, carol):
        state = c.state
        if state and state.get("turn") == state.get("you") and state.get("phase") == "play":
            await c.request_raw("pass")
    for c in clients.values():
        await c.close()
    assert await server.kill(signal.SIGKILL) == -signal.SIGKILL
    after_kill = audit_file(data)
    assert after_kill.ok and after_kill.escrow == 2 * 3 * 10, after_kill  # both rounds' stakes held

    server = await ServerProcess(data, CONFIG).start()
    try:
        clients = {n: await _account(server.telnet_port, n, False) for n in names}
        alice, bob, carol = (clients[n] for n in names)
        assert (await alice.request("whoami"))["room"] == r2  # her seat is the new table's
        ends = await asyncio.wait_for(asyncio.gather(
            play_simply(bob, timeout=30), play_simply(carol, timeout=30), play_simply(alice, timeout=30)), 120)
        assert all(s.get("status") == "over" for s in ends), ends
        for c in clients.values():
            await c.close()
    finally:
        await server.kill(signal.SIGTERM)
    assert not server.errors(), "".join(server.errors())
    audit = audit_file(data)
    assert audit.ok and audit.escrow == 0 and not audit.tables_aside, audit
    assert audit.balances == audit.granted - audit.retired  # every chip is in an account again

"""A guest's seat on any node: the resume code is read from the table's log, wherever the login lands.

zoe, a guest, sits at a table node a owns, then loses her connection. At node b, a login as zoe
without the code, or with a wrong one, gets neither the seat nor its hand, and does not end zoe's
guest account; with the code, zoe plays on through node b (docs/restart.md).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.client import Client
from clients.errors import ClientError
from tests.e2e.cluster.conftest import settle
from tests.kits.servers import connect

pytestmark = pytest.mark.e2e


async def _refused(node: Any, code: str | None) -> tuple[str, list[dict[str, Any]]]:
    other = await Client.connect_tcp("127.0.0.1", node.telnet_port, timeout=10)
    seen: list[dict[str, Any]] = []
    other.on_push = seen.append
    try:
        with pytest.raises(ClientError) as refused:
            await other.login("zoe", resume=code)
        await asyncio.sleep(0.3)
    finally:
        await other.close()
    return refused.value.code, seen


async def test_a_guest_seat_at_another_nodes_table_comes_back_only_with_its_code(nodes: Any) -> None:
    a, b = await nodes(2, grace_seconds=60.0)
    zoe = await connect(a, "zoe", resume="")
    try:
        room = (await zoe.request("create", game="president", rules="classic", seats=3, bots=2))["room"]
        state = await zoe.next_state(lambda s: s.get("room") == room and s.get("hand"), timeout=10, current=True)
        code, hand, chips = zoe.resume, state["hand"], (await zoe.request("whoami"))["chips"]
        assert code
        await zoe.close()
        await settle([a, b])
        for attempt in (None, "AAAA-AAAA"):
            refusal, seen = await _refused(b, attempt)
            assert refusal == ("resume_needed" if attempt is None else "bad_resume_code")
            assert not [m for m in seen if m.get("type") == "state" or "hand" in m], seen
        assert (await a.store.accounts.get("zoe")) is not None  # her guest account lives on
        zoe = await connect(b, "zoe", resume=code)
        back = await zoe.next_state(lambda s: s.get("room") == room and s.get("hand"), timeout=15, current=True)
        assert back["you"] == 0 and set(back["hand"]) <= set(hand) | set(back.get("played") or [])
        assert (await zoe.request("whoami"))["chips"] == chips
    finally:
        await zoe.close()

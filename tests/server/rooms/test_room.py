"""A room acts only while its process surely owns the table, and a table whose log cannot be written
ends cleanly (``server/rooms/room.py``; ``docs/cluster.md``).

One process stands in for a cluster node: its lobby is told it no longer surely owns the table
(as a node paused past its lease finds by its monotonic clock), or its store refuses the table's
log (as a database that will not take it). T13: a round's stakes go back when it is voided;
RULES invariant 4: chips are never created, lost or left in escrow.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.rooms.room import Room
from server.storage.api import BadSequence, TableLog
from tests.kits.servers import connect, start_server


async def _playing(server: Any, client: Any) -> tuple[str, dict[str, Any]]:
    room = (await client.request("create", game="president", rules="tdc", seats=4, bots=3, stake=10,
                                 rounds=2))["room"]
    state = await client.next_state(lambda s: s.get("phase") == "play" and s.get("turn") == s.get("you"),
                                    timeout=30, current=True)
    return room, state


def _move(state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    if any(item.get("cards") for item in state.get("trick") or []):
        return "pass", {}
    return "play", {"cards": [state["hand"][0]]}


async def test_a_room_no_longer_surely_owned_acts_on_nothing_queued(tmp_path) -> None:
    server = await start_server(tmp_path, turn_seconds=1.0)
    alice = await connect(server, "alice")
    try:
        rid, state = await _playing(server, alice)
        room = server.lobby.rooms[rid]
        assert isinstance(room, Room)
        seq = room.journal.seq if room.journal is not None else -1
        stopped: list[Room] = []
        server.lobby.acting = lambda r: False  # as a node that woke up past its lease, and learnt that
        server.lobby.lost = lambda r: True  # another node holds it now
        server.lobby.stale = stopped.append
        await asyncio.sleep(0.3)  # what the room sent before (a bot's cut, say) arrives, then is set aside;
        while alice.next_push_nowait() is not None:  # anything made since would also move the journal
            pass
        cmd, args = _move(state)
        reply = await alice.request_raw(cmd, **args)
        assert reply["type"] == "error" and reply["code"] == "table_moved", reply
        await asyncio.sleep(1.5)  # past the turn's deadline: no time-out is played either
        assert alice.next_push_nowait() is None  # nothing pushed: no state, no event
        assert room.moved and stopped == [room]
        assert room.journal is not None and room.journal.seq == seq  # nothing more written
        again = await alice.request_raw("pass")
        assert again["type"] == "error" and again["code"] == "table_moved"
        audit = await server.store.ledger.audit()
        assert audit.ok and audit.escrow == 40  # the round is where it was: its stakes in escrow
    finally:
        await alice.close()
        await server.stop()


async def test_T13_a_table_whose_log_cannot_be_written_voids_its_round_and_closes(tmp_path) -> None:
    server = await start_server(tmp_path)
    alice = await connect(server, "alice")
    try:
        before = (await alice.request("whoami"))["chips"]
        rid, state = await _playing(server, alice)
        assert (await server.store.ledger.audit()).escrow == 40
        store = server.store
        apply = store.apply

        async def refusing(ops: Any) -> Any:
            if any(isinstance(op, TableLog) for op in ops):
                raise BadSequence(f"table {rid}: entries would leave an overlap")
            return await apply(ops)

        store.log_ahead = lambda op: None  # every step through apply
        store.apply = refusing
        closed = asyncio.ensure_future(alice.next_event("room_closed", timeout=30))
        cmd, args = _move(state)
        reply = await alice.request_raw(cmd, **args)
        assert reply["type"] == "error" and reply["code"] == "internal_error", reply
        event = await closed
        assert event["room"] == rid and event["reason"] == "trouble"
        assert "could not keep its record" in event["text"] and "given back" in event["text"]
        audit = await store.ledger.audit()
        assert audit.ok and audit.escrow == 0, audit
        assert [t for t, _ in audit.tables_aside] == [rid]
        assert (await alice.request("whoami"))["chips"] == before  # the stake is back
        assert rid not in server.lobby.rooms
    finally:
        await alice.close()
        await server.stop()


async def test_a_room_whose_lease_renewal_is_late_waits_for_it_acting_on_nothing(tmp_path) -> None:
    """A renewal late (a loop held back) but not refused: the table acts on nothing until its lease is
    surely held again, then goes on with what was queued — no failover for a late keep-alive."""
    server = await start_server(tmp_path)
    alice = await connect(server, "alice")
    try:
        rid, state = await _playing(server, alice)
        room = server.lobby.rooms[rid]
        sure = False
        server.lobby.acting = lambda r: sure
        server.lobby.lost = lambda r: False
        seq = room.journal.seq if room.journal is not None else -1
        await asyncio.sleep(0.3)  # what the room sent before (a bot's cut, say) arrives, then is set aside
        while alice.next_push_nowait() is not None:
            pass
        cmd, args = _move(state)
        reply = asyncio.ensure_future(alice.request_raw(cmd, **args))
        await asyncio.sleep(0.5)
        assert not reply.done() and alice.next_push_nowait() is None  # nothing done, nothing said
        assert room.journal is None or room.journal.seq == seq  # nor written
        sure = True  # the renewal came back
        assert (await asyncio.wait_for(reply, 10))["type"] == "ok"
        assert not room.moved and rid in server.lobby.rooms
    finally:
        await alice.close()
        await server.stop()

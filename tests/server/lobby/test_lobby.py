"""The lobby: rooms opened under ids that never repeat, news to the lobby only."""

from __future__ import annotations

from typing import Any

from tests.kits.servers import connect, start_server


async def test_room_ids_never_repeat_after_a_restart(tmp_path: Any) -> None:
    """History and replays name rooms: a room opened after a restart gets a new id, never an old one."""
    ids = []
    for turn in range(2):
        running = await start_server(tmp_path)
        alice = await connect(running, "alice")
        try:
            if turn:  # the table alice sat at is back after the restart (docs/restart.md), her seat too
                assert list(running.lobby.rooms) == [ids[-1]]
                assert (await alice.request("leave"))["room"] == ids[-1]
            ids.append((await alice.request("create", game="president", rules="classic", seats=4))["room"])
            await alice.request("leave")
            ids.append((await alice.request("create", game="president", rules="classic", seats=4))["room"])
        finally:  # the server stops while alice still sits at her table (then her client goes)
            await running.stop()
            await alice.close()
    assert len(set(ids)) == 4, ids

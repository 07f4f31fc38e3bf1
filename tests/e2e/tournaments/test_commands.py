"""The tournament_* commands over the JSON wire: who may open an event, refusals that change nothing,
joining and leaving, standings with the asker's line, watching the top table, stopping."""

from __future__ import annotations

import asyncio

import pytest

from clients.client import ClientError
from tests.kits.servers import assert_no_hand, connect, start_server
from tests.kits.tournamentkit import Entrant, account


async def _code(client, cmd, **args) -> tuple[str, dict]:
    with pytest.raises(ClientError) as err:
        await client.request(cmd, **args)
    return err.value.code, err.value.params if hasattr(err.value, "params") else {}


async def test_only_staff_open_events_by_default_and_never_a_guest(tmp_path):
    running = await start_server(tmp_path)
    clients = []
    try:
        ana = await account(running, "ana")
        guest = await connect(running, "visitor")
        clients = [ana, guest]
        args = {"kind": "arena", "game": "president", "seats": 3}
        reply = await ana.request_raw("tournament_create", **args)
        assert reply["code"] == "not_allowed" and reply.get("reason", "staff_only") == "staff_only"
        assert (await guest.request_raw("tournament_create", **args))["code"] == "not_allowed"
        await running.store.moderation.set_role("ana", "moderator", actor="test")
        made = await ana.request("tournament_create", **args)
        assert made["tournament"].startswith("e")
        assert (await guest.request_raw("tournament_join", tournament=made["tournament"]))["code"] == "not_allowed"
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)


async def test_refusals_name_what_was_wrong_and_change_nothing(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts")
    clients = []
    try:
        ana, bob, cid = clients = [await account(running, n) for n in ("ana", "bob", "cid")]
        for bad, name in (({"kind": "ladder"}, "kind"), ({"seats": 12}, "seats"), ({"game": "chess"}, "game"),
                          ({"scoring": "luck"}, "scoring"), ({"start": -5}, "start"),
                          ({"kind": "swiss", "event_rounds": 0}, "event_rounds"), ({"length": 0}, "length")):
            args = {"kind": "arena", "game": "president", "seats": 3, **bad}
            reply = await ana.request_raw("tournament_create", **args)
            assert reply["code"] == "bad_option", (name, reply)
        for bad in ({"kind": 5}, {"start": "soon"}, {"streak": "maybe"}, {"max_entrants": 0}, {"late": "half"},
                    {"kind": "swiss", "late": ["half"]}, {"kind": "swiss", "length": 60},
                    {"kind": "swiss", "min_seats": 2}, {"rounds": 0}, {"bot_wait": -1}):
            args = {"kind": "arena", "game": "president", "seats": 3, **bad}
            assert (await ana.request_raw("tournament_create", **args))["code"] == "bad_option", bad
        assert (await ana.request("tournaments"))["tournaments"] == []
        assert (await ana.request_raw("tournament_join", tournament="e999"))["code"] == "no_such_tournament"
        for weird in ({"x": 1}, [1], True, None, "e" * 500):
            reply = await ana.request_raw("tournament_standings", tournament=weird)
            assert reply["code"] == "no_such_tournament", weird
        tid = (await ana.request("tournament_create", kind="arena", game="president", seats=3, start=600,
                                 max_entrants=2))["tournament"]
        await ana.request("tournament_join", tournament=tid)
        assert (await ana.request_raw("tournament_join", tournament=tid))["code"] == "tournament_already_entered"
        assert (await bob.request_raw("tournament_leave", tournament=tid))["code"] == "tournament_not_entered"
        await bob.request("tournament_join", tournament=tid)
        assert (await cid.request_raw("tournament_join", tournament=tid))["code"] == "tournament_full"
        assert (await cid.request_raw("tournament_stop", tournament=tid))["code"] == "not_allowed"
        listed = (await bob.request("tournaments"))["tournaments"]
        assert listed[0]["phase"] == "waiting" and listed[0]["entrants"] == 2 and listed[0]["joined"]
        assert listed[0]["organiser"] == "ana" and listed[0]["scoring"]["mode"] == "place"  # P14: by place
        await bob.request("tournament_leave", tournament=tid)  # before the start: the entry taken back
        standings = await ana.request("tournament_standings", tournament=tid)
        assert [line["name"] for line in standings["lines"]] == ["ana"] and not standings["final"]
        ended = asyncio.ensure_future(ana.next_event("tournament_ended", timeout=10))
        await ana.request("tournament_stop", tournament=tid)
        assert (await ended)["reason"] == "stopped"
        assert (await ana.request_raw("tournament_join", tournament=tid))["code"] == "tournament_not_open"
        assert (await ana.request("tournaments"))["tournaments"][0]["phase"] == "over"
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)


async def test_news_of_an_event_and_its_top_table_to_watch(tmp_path):
    running = await start_server(tmp_path, tournament_create="accounts", commands_per_second=5000.0,
                                 command_burst=10000)
    clients = []
    try:
        names = ["ana", "bob", "cid"]
        clients = [await account(running, n) for n in names]
        watcher = await connect(running, "looker")
        clients.append(watcher)
        opened = asyncio.ensure_future(watcher.next_event("tournament_opened", timeout=10))
        started = asyncio.ensure_future(watcher.next_event("tournament_started", timeout=10))
        tid = (await clients[0].request("tournament_create", kind="swiss", game="president", seats=3, rounds=1,
                                        start=0.3, event_rounds=1))["tournament"]
        news = await opened
        assert news["tournament"] == tid and news["kind"] == "swiss" and news["organiser"] == "ana"
        entrants = [Entrant(c, n) for c, n in zip(clients[:3], names, strict=True)]
        for c in clients[:3]:
            await c.request("tournament_join", tournament=tid)
        assert (await started)["entrants"] == 3
        for _ in range(100):
            seated = [e for e in entrants[0].events if e["event"] == "tournament_seated"]
            if seated:
                break
            await asyncio.sleep(0.05)
        assert seated and seated[0]["seat"] in (0, 1, 2) and seated[0]["round"] == 1
        refused = await watcher.request_raw("tournament_watch", tournament=tid, table=[1])
        assert refused["code"] == "no_such_room" and refused["message"].startswith(f"Tournament {tid} has no table")
        rooms = {r["room"]: r for r in (await watcher.request("rooms"))["rooms"]}
        assert rooms[seated[0]["room"]]["tournament"] == tid  # listed as the event's table, to watch
        other = await connect(running, "other")  # a room of its own, which the watcher watches first
        clients.append(other)
        elsewhere = (await other.request("create", game="president", rules="classic", seats=3))["room"]
        await watcher.request("watch", room=elsewhere)
        seen: list[dict] = []
        watcher.on_push = seen.append
        watched = await watcher.request("tournament_watch", tournament=tid)  # a spectator moves
        assert watched["room"] == seated[0]["room"] and (await watcher.request("whoami"))["room"] == watched["room"]
        rooms = {r["room"]: r for r in (await other.request("rooms"))["rooms"]}
        assert rooms[elsewhere]["spectators"] == 0  # (the room it left)
        play = [asyncio.ensure_future(e.play(tid)) for e in entrants]
        ended = await asyncio.wait_for(asyncio.gather(*play), 30)
        assert_no_hand([m for m in seen if m.get("room") == watched["room"]])  # a spectator: no hidden card
        # its table over and its players gone, the spectator is back in the lobby, told why
        for _ in range(100):
            closed = [m for m in seen if m.get("event") == "room_closed" and m.get("room") == watched["room"]]
            if closed:
                break
            await asyncio.sleep(0.05)
        assert closed and closed[0]["reason"] == "over"
        assert (await watcher.request("whoami"))["room"] is None
        assert ended[0]["top"][0]["rank"] == 1 and len(ended[0]["top"]) == 3
        scored = [e for e in entrants[0].events if e["event"] == "tournament_scored"]
        assert len(scored) == 1 and sorted(r["points"] for r in scored[0]["results"]) in ([0, 50, 100], [0, 75, 75],
                                                                                          [25, 25, 100], [50, 50, 50])
    finally:
        for c in clients:
            await c.close()
        await asyncio.wait_for(running.stop(), 20)

"""A guest's seat is theirs: only the resume code takes it back (``server/people/resume.py``, docs/restart.md).

A bare guest name used to be enough to take a seat held for someone away — in the grace after a
lost connection and after a restart — with that seat's hand. Now each guest login gets a code;
the seat keeps its hash (and the table's log with it); a login under a guest name that holds a
seat needs the code. These tests drive the JSON mode over TCP against a real server.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from clients.client import Client
from clients.errors import ClientError
from server.people import resume
from tests.kits.servers import connect, start_server, strings_in

GAME = {"game": "president", "rules": "classic", "seats": 3, "bots": 1}  # alice, bob and a bot
ALONE = {**GAME, "bots": 2}


def _collect(client: Client) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    client.on_push = seen.append
    return seen


async def _seated(client: Client, room: str) -> dict[str, Any]:
    return await client.next_state(lambda s: s.get("room") == room and s.get("hand"), timeout=10, current=True)


async def _refused(running: Any, name: str, code: str | None,
                   local: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """A login under ``name`` that must be refused: its error code, and what the connection received."""
    other = await Client.connect_tcp("127.0.0.1", running.telnet_port, timeout=10, local_addr=local)
    seen = _collect(other)
    try:
        with pytest.raises(ClientError) as refused:
            await other.login(name, resume=code)
        await asyncio.sleep(0.2)  # anything the server would push after the refusal
        with pytest.raises(ClientError) as no_seat:
            await other.request("state")
        assert no_seat.value.code == "not_logged_in"
    finally:
        await other.close()
    return refused.value.code, seen


def _no_hand(seen: list[dict[str, Any]]) -> None:
    assert not [m for m in seen if m.get("type") == "state"], seen
    assert not [m for m in seen if "hand" in m], seen


# -- the code itself -------------------------------------------------------------------------------


def test_a_code_is_two_groups_of_four_characters_read_without_ambiguity() -> None:
    codes = {resume.new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        a, b = code.split("-")
        assert len(a) == len(b) == 4
        assert not set(a + b) & set("01OIL")
        assert resume.looks_like_code(code.lower().replace("-", " "))
    assert not resume.looks_like_code("alice") and not resume.looks_like_code("K7QX-M2PD-AAAA")


async def test_only_the_code_matches_its_hash() -> None:
    code = resume.new_code()
    stored = await resume.hash_code(code)
    assert code not in stored and resume.normalize(code) not in stored
    assert await resume.matches(code.lower(), stored)
    assert await resume.matches(code.replace("-", " "), stored)
    assert not await resume.matches(resume.new_code(), stored)
    assert not await resume.matches(code, None)


def test_wrong_codes_are_bounded_per_name_and_per_address() -> None:
    now = [0.0]
    attempts = resume.Attempts(limit=3, window=60.0, base=0.5, maximum=4.0, clock=lambda: now[0])
    assert [attempts.fail("zoe", "10.0.0.1") for _ in range(3)] == [0.5, 1.0, 2.0]
    assert attempts.blocked("zoe", "10.0.0.2")  # the name, from anywhere
    assert attempts.blocked("ana", "10.0.0.1")  # the address, for any name
    assert not attempts.blocked("ana", "10.0.0.2")
    assert not attempts.blocked("zoe", "10.0.0.2", by_name=False)  # the guest's own address
    now[0] = 61.0
    assert not attempts.blocked("zoe", "10.0.0.1")  # the window passed


# -- the grace after a lost connection ---------------------------------------------------------------


async def test_a_bare_guest_name_does_not_take_a_seat_held_in_the_grace(server: Any) -> None:
    alice = await connect(server, "alice", resume="")
    bob = await connect(server, "bob", resume="")
    try:
        login = await alice.request("whoami")
        code = login["resume"]
        assert code == alice.resume and resume.looks_like_code(code)
        room = (await alice.request("create", **GAME))["room"]
        await bob.request("join", room=room)
        hand = (await _seated(alice, room))["hand"]
        lost = asyncio.ensure_future(bob.next_event("disconnected", timeout=10))
        await alice.close()
        await lost
        refusal, seen = await _refused(server, "alice", None)
        assert refusal == "resume_needed"
        _no_hand(seen)
        refusal, seen = await _refused(server, "Alice", resume.new_code())  # any spelling of the name
        assert refusal == "bad_resume_code"
        _no_hand(seen)
        alice = await connect(server, "alice", resume=code.lower())
        fresh = await _seated(alice, room)
        assert fresh["you"] == 0 and set(fresh["hand"]) <= set(hand) | set(fresh["played"])
        assert (await alice.request("whoami"))["resume"] == code  # the same code, still
    finally:
        await alice.close()
        await bob.close()


async def test_the_code_takes_over_a_connection_still_open_and_a_bare_name_does_not(server: Any) -> None:
    alice = await connect(server, "alice", resume="")
    try:
        room = (await alice.request("create", **ALONE))["room"]
        await _seated(alice, room)
        told = asyncio.ensure_future(alice.next_event("notice", timeout=10))
        refusal, seen = await _refused(server, "alice", None)
        assert refusal == "resume_needed"
        _no_hand(seen)
        assert (await told)["code"] == "resume_tried"  # alice hears her seat stays hers
        replaced = asyncio.ensure_future(alice.next_event("notice", timeout=10))
        again = await connect(server, "alice", resume=alice.resume)
        try:
            assert (await replaced)["code"] == "replaced"
            assert (await _seated(again, room))["you"] == 0
        finally:
            await again.close()
    finally:
        await alice.close()


async def test_the_code_reaches_its_guest_only_never_a_spectator_nor_another_player(server: Any) -> None:
    alice = await connect(server, "alice", resume="")
    bob = await connect(server, "bob", resume="")
    carol = await connect(server, "carol", resume="")
    alice_seen, bob_seen, carol_seen = _collect(alice), _collect(bob), _collect(carol)
    try:
        room = (await alice.request("create", **GAME))["room"]
        await carol.request("watch", room=room)
        await bob.request("join", room=room)
        await _seated(bob, room)
        notices = [m for m in alice_seen if m.get("event") == "notice" and m.get("code") == "resume_code"]
        assert notices and notices[0]["resume"] == alice.resume and "alice" in notices[0]["text"]
        await asyncio.sleep(0.3)
        for seen, own in ((bob_seen, bob.resume), (carol_seen, carol.resume)):
            text = [s for m in seen for s in strings_in(m)]
            assert alice.resume is not None and not [s for s in text if alice.resume in s]
            assert [m for m in seen if m.get("code") == "resume_code"] == [] or own is not None
        assert not [m for m in carol_seen if m.get("code") == "resume_code"]  # watching is no seat
        assert "resume" not in (await bob.request("rooms"))
    finally:
        for c in (alice, bob, carol):
            await c.close()


async def test_wrong_codes_are_limited_then_refused_without_checking(server: Any) -> None:
    server.lobby.resume_attempts = resume.Attempts(limit=3, base=0.0)
    alice = await connect(server, "alice", resume="")
    try:
        room = (await alice.request("create", **ALONE))["room"]
        await _seated(alice, room)
        code = alice.resume
        await alice.close()
        for _ in range(3):
            assert (await _refused(server, "alice", "AAAA-AAAA"))[0] == "bad_resume_code"
        assert (await _refused(server, "alice", code))[0] == "rate_limited"  # even the right one, now
        server.lobby.resume_attempts = resume.Attempts(limit=3, base=0.0)  # the window passed
        alice = await connect(server, "alice", resume=code)
        assert (await _seated(alice, room))["you"] == 0
    finally:
        await alice.close()


async def test_strangers_trying_codes_do_not_lock_a_guest_out_of_their_seat(server: Any) -> None:
    """Wrong codes from other addresses lock the name for them (a brute force spread over many
    addresses gets nowhere), but the guest, back from their own address with their code, sits again."""
    server.lobby.resume_attempts = resume.Attempts(limit=3, base=0.0)
    alice = await connect(server, "alice", resume="")
    try:
        room = (await alice.request("create", **ALONE))["room"]
        await _seated(alice, room)
        code = alice.resume
        await alice.close()
        for i in range(4):
            got = (await _refused(server, "alice", "AAAA-AAAA", local=f"127.0.0.{20 + i}"))[0]
            assert got == ("bad_resume_code" if i < 3 else "rate_limited")
        assert (await _refused(server, "alice", code, local="127.0.0.30"))[0] == "rate_limited"  # a stranger
        alice = await connect(server, "alice", resume=code)  # from her own address
        assert (await _seated(alice, room))["you"] == 0
    finally:
        await alice.close()


async def test_the_code_is_never_written_to_the_log(server: Any, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    alice = await connect(server, "alice", resume="")
    try:
        room = (await alice.request("create", **ALONE))["room"]
        await _seated(alice, room)
        code = alice.resume
        assert code is not None
        await alice.close()
        await _refused(server, "alice", "AAAA-AAAA")
        alice = await connect(server, "alice", resume=code)
        await _seated(alice, room)
    finally:
        await alice.close()
    assert any("wrong resume code for alice" in r.getMessage() for r in caplog.records)
    for record in caplog.records:
        text = record.getMessage()
        assert code not in text and resume.normalize(code) not in text, text


# -- a restart ---------------------------------------------------------------------------------------


async def test_after_a_restart_only_the_code_gives_the_seat_and_its_hand_back(tmp_path: Any) -> None:
    running = await start_server(tmp_path)
    alice = await connect(running, "alice", resume="")
    try:
        room = (await alice.request("create", **ALONE))["room"]
        hand = (await _seated(alice, room))["hand"]
        code = alice.resume
    finally:
        await running.stop()
        await alice.close()
    again = await start_server(tmp_path)
    try:
        refusal, seen = await _refused(again, "alice", None)
        assert refusal == "resume_needed"
        _no_hand(seen)
        assert (await _refused(again, "alice", resume.new_code()))[0] == "bad_resume_code"
        alice = await connect(again, "alice", resume=code)
        fresh = await _seated(alice, room)
        assert sorted(fresh["hand"]) == sorted(hand)
        assert (await alice.request("whoami"))["resume"] == code
    finally:
        await alice.close()
        await again.stop()

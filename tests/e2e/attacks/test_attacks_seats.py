"""Attacks on seats and chips, against a real server: one account trying to hold two seats (two connections,
a leaver's round, a ghost in a waiting room), and a Speculation buyer whose open offer should outlive him.

Every connection is a real client (``clients/client.py``: JSON over telnet, or over SSH); the chips
are checked at the end with ``donne audit`` run as a program on the server's data folder (RULES invariant 4).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from clients.client import Client, ClientClosed
from server.rooms import room as room_module
from server.rooms.effects import Effects
from server.table.fair import ExplicitSeed
from tests.e2e.rooms.test_room_speculation import no_ace_seed
from tests.kits.servers import play_simply, start_server

PASSWORD = "a long password"


async def telnet(server: Any, name: str, *, register: bool = False) -> Client:
    client = await Client.connect_tcp("127.0.0.1", server.telnet_port, timeout=20)
    if register:
        await client.register(name, PASSWORD)
    else:
        await client.login(name, PASSWORD)
    return client


async def ssh(server: Any, name: str) -> Client:
    return await Client.connect_ssh("127.0.0.1", server.ssh_port, name, PASSWORD, timeout=20)


def donne_audit(server: Any) -> dict[str, Any]:
    """``donne audit --data-dir DIR`` beside the running server (read-only): exit 0 and its JSON."""
    proc = subprocess.run([sys.executable, "-m", "server.start.cli", "audit", "--data-dir", str(server.config.data_dir)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    assert result["ok"] and not result["problems"], result
    return result


def seats_of(server: Any, key: str) -> list[tuple[str, int]]:
    """Every seat of the server that ``key`` sits in (a seat they left, played by a bot to the end of
    its round on their stake, is not theirs any more: they are free, :func:`left_seats_of`)."""
    held = []
    for room in server.lobby.rooms.values():
        for seat in room.table.seats:
            if seat.member == key:
                held.append((room.id, seat.index))
    return held


def left_seats_of(server: Any, key: str) -> list[tuple[str, int]]:
    """The seats ``key`` left in the middle of a staked round, which bots play to the round's end."""
    return [(room.id, seat.index) for room in server.lobby.rooms.values() for seat in room.table.seats
            if seat.leaving and seat.departed == key]


@pytest.fixture
def watch_seats(monkeypatch: Any) -> Callable[[Any, str], list[list[tuple[str, int]]]]:
    """After everything any room delivers, note the seats ``key`` holds in the whole server: a probe,
    so "at most one seat" is checked at every moment, not only between the test's steps."""

    def install(server: Any, key: str) -> list[list[tuple[str, int]]]:
        seen: list[list[tuple[str, int]]] = []
        original = Effects._hand_out

        async def deliver(self: Effects, items: Any, readers: Any) -> None:
            await original(self, items, readers)
            seen.append(seats_of(server, key))

        monkeypatch.setattr(Effects, "_hand_out", deliver)
        return seen

    return install


CROSSINGS = 4
"""Both orders of the two joins, twice each."""


async def test_one_account_on_two_connections_joining_two_tables_at_once_gets_one_seat(
        tmp_path: Any, watch_seats: Any) -> None:
    """alice on telnet joins one tdc table and, while that join waits for the ledger (her chips are read
    after the seat is claimed), logs in over SSH (which ends the telnet session) and joins another: both
    joins are at their tables at once, each order twice (the events below force the crossing every
    time, so a repetition proves nothing new; the second of each order starts from a seat the first
    left). She never holds two seats, the claim names the table she sits at, the second join is
    refused with the first table's name."""
    server = await start_server(tmp_path)
    seen = watch_seats(server, "alice")
    ledger = server.store.ledger
    slow = asyncio.Event()  # the ledger is slow for alice while this is clear (the store, not the server)
    slow.set()
    read_available = ledger.available

    async def available(name: str) -> int:
        if name == "alice":
            await slow.wait()
        return int(await read_available(name))

    ledger.available = available
    claimed: dict[str, asyncio.Event] = {}
    claim_seat = server.lobby.seats.claim

    def claim(account: str, table: str) -> str | None:
        if account == "alice" and table in claimed:
            claimed[table].set()
        return claim_seat(account, table)

    server.lobby.seats.claim = claim  # type: ignore[method-assign]
    alice = await telnet(server, "alice", register=True)
    bob = await telnet(server, "bob", register=True)
    carol = await telnet(server, "carol", register=True)
    clients = [alice, bob, carol]
    try:
        r1 = (await bob.request("create", game="president", rules="tdc", seats=4, stake=2))["room"]
        r2 = (await carol.request("create", game="president", rules="tdc", seats=4, stake=2))["room"]
        for i in range(CROSSINGS):
            if i:
                alice = await telnet(server, "alice")
                clients.append(alice)
            first, second = (r1, r2) if i % 2 else (r2, r1)
            claimed.clear()
            claimed[first], claimed[second] = asyncio.Event(), asyncio.Event()
            slow.clear()
            alice.send("join", room=first)
            await asyncio.wait_for(claimed[first].wait(), 10)  # the seat is claimed; her chips are being read
            other = await ssh(server, "alice")  # the telnet session ends; its join goes on at its table
            clients.append(other)
            join = asyncio.ensure_future(other.request_raw("join", room=second))
            await asyncio.wait_for(claimed[second].wait(), 10)  # both joins at their tables now
            slow.set()
            reply = await join
            assert (reply.get("code"), reply.get("message")) == ("already_in_room",
                                                         f"You are already in room {first}; type leave to leave it first.")
            # the first join's messages leave once its log entries are written (durable tables):
            # whoami may need a moment to see that room
            for _ in range(500):
                where = (await other.request("whoami"))["room"]
                if where is not None:
                    break
                await asyncio.sleep(0.01)
            held = seats_of(server, "alice")
            assert where == first and held == [(first, held[0][1])] and server.lobby.seats.holder("alice") == first
            await other.request("leave")
            await other.close()
        # at every moment, in the whole server: probed after each delivery (each round's join, refused
        # join and leave at least)
        assert all(len(held) <= 1 for held in seen) and len(seen) >= 3 * CROSSINGS
        assert seats_of(server, "alice") == [] and server.lobby.seats.holder("alice") is None
    finally:
        slow.set()
        for c in clients:
            await c.close()
        await server.stop()


async def test_leaving_a_staked_round_frees_the_person_at_once(tmp_path: Any, watch_seats: Any) -> None:
    """A person who leaves a tdc round is back in the lobby and free at once: his seat (and his stake)
    plays on to the end of the round with a bot (T1), and he sits at a staked table elsewhere meanwhile;
    he hears how the round he left ended, and donne audit finds every chip."""
    server = await start_server(tmp_path, turn_seconds=1)
    seen = watch_seats(server, "alice")
    alice, bob, carol, dave = [await telnet(server, n, register=True) for n in ("alice", "bob", "carol", "dave")]
    try:
        r1 = (await alice.request("create", game="president", rules="tdc", seats=3, stake=2))["room"]
        await bob.request("join", room=r1)
        await carol.request("join", room=r1)
        r2 = (await dave.request("create", game="president", rules="tdc", seats=3, stake=2, bots=1))["room"]
        await alice.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        before = await server.store.ledger.balance("alice")
        left = await alice.request("leave")
        assert left["until"] == "round_end" and left["at_stake"] == 2
        assert (await alice.request("whoami"))["room"] is None
        ended = asyncio.ensure_future(alice.next_event("round_result", timeout=60))
        assert (await alice.request("join", room=r2))["seat"] == 1  # free: he sits at once
        assert seats_of(server, "alice") == [(r2, 1)]
        await alice.next_state(lambda s: s.get("room") == r2 and s.get("phase") in ("play", "exchange"),
                               timeout=10, current=True)
        # his stake at r2 came from what he had; r1's stake is still in r1's escrow
        assert await server.store.ledger.balance("alice") == before - 2
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("status") == "waiting")
                                                for c in (bob, carol))), 60)
        result = await ended
        assert result["room"] == r1 and isinstance(result["chips"], int)
        assert left_seats_of(server, "alice") == []
        assert seats_of(server, "alice") == [(r2, 1)] and server.lobby.seats.holder("alice") == r2
        assert all(len(held) <= 1 for held in seen)
        donne_audit(server)
    finally:
        for c in (alice, bob, carol, dave):
            await c.close()
        await server.stop()


async def test_a_challenge_accepted_after_leaving_a_staked_round_seats_both(tmp_path: Any) -> None:
    """Accepting a challenge right after leaving a staked round: the table opens with both people
    seated (never "could not open" and then "opened" with a free seat where the person should sit)."""
    server = await start_server(tmp_path, turn_seconds=1)
    alice, bob, carol, dave = [await telnet(server, n, register=True) for n in ("alice", "bob", "carol", "dave")]
    try:
        r1 = (await alice.request("create", game="president", rules="tdc", seats=3, stake=2))["room"]
        await bob.request("join", room=r1)
        await carol.request("join", room=r1)
        await alice.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        assert (await alice.request("leave"))["until"] == "round_end"
        made = await dave.request("challenge", name="alice", game="president", rules="tdc", seats=3, stake=2)
        refusals: list[dict[str, Any]] = []
        alice.on_push = lambda m: refusals.append(m) if m.get("event") == "seek_over" else None
        got = await alice.request("accept_seek", seek=made["seek"])
        room = got["room"]
        state = await alice.next_state(lambda s: s.get("room") == room and s.get("status") == "playing",
                                       timeout=10, current=True)
        assert [s["name"] for s in state["seats"]][:2] == ["dave", "alice"] and state["you"] == 1
        assert refusals == []
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("status") == "waiting")
                                                for c in (bob, carol))), 60)
        donne_audit(server)
    finally:
        for c in (alice, bob, carol, dave):
            await c.close()
        await server.stop()


async def test_a_ghost_in_a_waiting_room_is_gone_when_its_grace_ends(tmp_path: Any) -> None:
    """The last person at a tdc table that waits for players (the others left) drops his connection:
    the seat waits ``grace_seconds``, then ends, the room closes, nobody holds a seat or a slot."""
    server = await start_server(tmp_path, grace_seconds=0.3, turn_seconds=1)
    alice, bob = [await telnet(server, n, register=True) for n in ("alice", "bob")]
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=3, stake=2, bots=1))["room"]
        await bob.request("join", room=room)
        await alice.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        await bob.request("leave")
        state = await asyncio.wait_for(play_simply(alice, until=lambda s: s.get("status") == "waiting"), 60)
        assert state["status"] == "waiting" and state["seats"][1]["name"] is None
        table = server.lobby.rooms[room].table
        assert table.match is not None and server.lobby.seats.holder("alice") == room
        await alice.close()  # the ghost: a disconnected person in a waiting room
        for _ in range(400):
            if room not in server.lobby.rooms:
                break
            await asyncio.sleep(0.05)
        assert room not in server.lobby.rooms and table.closed == "empty"
        assert server.lobby.seats.holder("alice") is None and len(server.lobby.slots) == 0
        assert "alice" not in server.lobby.players  # forgotten: no connection, no seat
        audit = donne_audit(server)
        assert audit["escrow"] == 0 and audit["held"] == 0
    finally:
        await alice.close()
        await bob.close()
        await server.stop()


# -- a Speculation buyer whose offer should outlive him ------------------------------------------------


@pytest.fixture
def auction_seed(monkeypatch: Any) -> bytes:
    value = no_ace_seed()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(value))
    return value


async def speculation_at_trading_time(server: Any, names: tuple[str, ...]) -> tuple[list[Client], str, dict[str, Any]]:
    """Three people at a Speculation table, its first auction kept: a state in which offers may be made."""
    clients = [await telnet(server, n, register=True) for n in names]
    room = (await clients[0].request("create", game="speculation", seats=3, ante=1))["room"]
    for c in clients[1:]:
        await c.request("join", room=room)
    state = await clients[0].next_state(lambda s: s.get("auction"), timeout=10, current=True)
    owner = state["auction"]["seat"]
    await clients[owner].request("keep")
    state = await clients[0].next_state(lambda s: not s.get("auction") and s.get("turn") is not None,
                                        timeout=10, current=True)
    return clients, room, state


async def open_offer(server: Any, clients: list[Client], state: dict[str, Any], price: int) -> tuple[int, int, int]:
    """A player who is not on turn offers ``price`` for one face-down card of another: (buyer, seller, offer).

    Not the one on turn: a bot playing a leaver's seat makes only the moves the table waits for, so
    nothing but the table itself (the leaver's promises lapsing) can take the offer back."""
    buyer = next(s for s in range(3) if s != state["turn"])
    seller = next(s for s in range(3) if s != buyer and state["seats"][s]["facedown"] > 0)
    offer = (await clients[buyer].request("offer", to=seller, cards=1, price=price))["offer"]
    return buyer, seller, offer


async def test_a_buyer_who_leaves_takes_his_offer_with_him(tmp_path: Any, auction_seed: bytes) -> None:
    """S9: bob offers most of his chips for a card and leaves mid-deal to stake them at a tdc table; the
    seller then accepts. The offer lapsed when he left (its hold released), he sits and stakes at the tdc
    table at once (his ante plays on with a bot), the late acceptance is refused and moves nothing, and
    donne audit finds every chip."""
    server = await start_server(tmp_path, round_pause=60.0, flip_seconds=30.0, auction_seconds=30.0)
    clients, room, state = await speculation_at_trading_time(server, ("alice", "bob", "carol"))
    names = ["alice", "bob", "carol"]
    dave = await telnet(server, "dave", register=True)
    try:
        tdc = (await dave.request("create", game="president", rules="tdc", seats=3, stake=500, bots=1))["room"]
        ledger = server.store.ledger
        buyer, seller, offer = await open_offer(server, clients, state, price=800)
        who = names[buyer]
        balance = await ledger.balance(who)
        assert await ledger.available(who) == balance - 800  # the open offer holds its price
        withdrawn = asyncio.ensure_future(clients[seller].next_event("withdrawn", timeout=10))
        left = await clients[buyer].request("leave")
        assert left["until"] == "round_end" and (await withdrawn)["offer"] == offer
        assert await ledger.available(who) == balance and await ledger.balance(who) == balance
        # free at once: he stakes the chips the offer promised at the tdc table
        assert (await clients[buyer].request("join", room=tdc))["seat"] == 1
        before = {n: await ledger.balance(n) for n in names}
        late = await clients[seller].request_raw("accept", offer=offer)
        assert late["type"] == "error" and late["code"] in ("not_allowed", "no_such_offer", "illegal_play"), late
        assert {n: await ledger.balance(n) for n in names} == before  # the refusal moved nothing
        # the deal plays on without him (his cards turned for him); then his seat and claim end
        others = [c for i, c in enumerate(clients) if i != buyer]
        over = asyncio.ensure_future(clients[buyer].next_event("round_result", timeout=120))
        await asyncio.wait_for(asyncio.gather(*(turn_until_deal_over(c) for c in others)), 120)
        await over
        await clients[buyer].next_state(lambda s: s.get("room") == tdc and s.get("phase") in ("play", "exchange"),
                                        timeout=20, current=True)
        audit = donne_audit(server)
        assert audit["escrow"] == 3 * 500 and audit["held"] == 0  # the tdc round's stakes; nothing promised
        assert server.lobby.rooms[room].table.closed is None or server.lobby.rooms[room].table.closed != "error"
    finally:
        for c in (*clients, dave):
            await c.close()
        await server.stop()


async def turn_until_deal_over(client: Client) -> None:
    """Turn my top card whenever it is my turn, until the first deal is over."""
    acted_on = None

    def done(s: dict[str, Any]) -> bool:
        return not s.get("in_deal") or s.get("round", 0) > 1 or s.get("status") == "over"

    def ready(s: dict[str, Any]) -> bool:
        return s is not acted_on and (done(s) or (not s.get("auction") and s.get("turn") == s.get("you")) or
                                      bool(s.get("auction") and s["auction"]["seat"] == s.get("you")))

    while True:
        state = await client.next_state(ready, timeout=60, current=True)
        if done(state):
            return
        acted_on = state
        reply = await client.request_raw("keep" if state.get("auction") else "turn")
        assert reply["type"] == "ok" or reply["code"] in ("not_your_turn", "not_allowed"), reply


async def test_one_account_two_connections_cannot_keep_an_offer_alive_at_two_tables(
        tmp_path: Any, auction_seed: bytes, watch_seats: Any) -> None:
    """The one-account variant: a buyer's offer is open on telnet; he logs in over SSH too (the telnet session
    ends, his seat and offer stay: he is still at the table), tries the tdc table from there, then leaves
    and joins it, while the seller accepts. The Speculation table never fails, the chips add up."""
    server = await start_server(tmp_path, round_pause=60.0, flip_seconds=30.0, auction_seconds=30.0)
    clients, room, state = await speculation_at_trading_time(server, ("alice", "bob", "carol"))
    seen = watch_seats(server, ["alice", "bob", "carol"][next(s for s in range(3) if s != state["turn"])])
    names = ["alice", "bob", "carol"]
    dave = await telnet(server, "dave", register=True)
    extra: list[Client] = []
    try:
        tdc = (await dave.request("create", game="president", rules="tdc", seats=3, stake=500, bots=1))["room"]
        buyer, seller, offer = await open_offer(server, clients, state, price=800)
        who = names[buyer]
        bob2 = await ssh(server, who)
        extra.append(bob2)
        with pytest.raises(ClientClosed):
            await clients[buyer].request("whoami", timeout=5)  # the older session ended
        assert (await bob2.request("whoami"))["room"] == room  # the seat is still his
        assert (await bob2.request_raw("join", room=tdc)).get("code") == "already_in_room"
        both = await asyncio.gather(bob2.request_raw("leave"), clients[seller].request_raw("accept", offer=offer),
                                    bob2.request_raw("join", room=tdc))
        left, accepted, joined = both
        assert left["type"] == "ok" and joined["type"] == "ok", both  # free as soon as he left
        ledger = server.store.ledger
        if accepted["type"] == "ok":  # the acceptance came first: a trade made while he sat there
            assert await ledger.available(who) >= 0
        assert await ledger.available(who) == await ledger.balance(who)  # nothing promised any more
        assert all(len(held) <= 1 for held in seen)
        others = [c for i, c in enumerate(clients) if i != buyer]
        await asyncio.wait_for(asyncio.gather(*(turn_until_deal_over(c) for c in others)), 120)
        table = server.lobby.rooms[room].table
        assert table.closed is None and table.status in ("playing", "over")
        assert server.lobby.seats.holder(who) == tdc
        audit = donne_audit(server)
        assert audit["held"] == 0
    finally:
        for c in (*clients, dave, *extra):
            await c.close()
        await server.stop()


async def test_a_buyer_whose_connection_drops_loses_his_offer_when_his_grace_ends(
        tmp_path: Any, auction_seed: bytes) -> None:
    server = await start_server(tmp_path, round_pause=60.0, flip_seconds=30.0, auction_seconds=30.0,
                                grace_seconds=0.3)
    clients, room, state = await speculation_at_trading_time(server, ("alice", "bob", "carol"))
    names = ["alice", "bob", "carol"]
    try:
        buyer, seller, offer = await open_offer(server, clients, state, price=800)
        withdrawn = asyncio.ensure_future(clients[seller].next_event("withdrawn", timeout=20))
        await clients[buyer].close()  # gone: the seat waits, then ends
        assert (await withdrawn)["offer"] == offer
        ledger = server.store.ledger
        assert await ledger.available(names[buyer]) == await ledger.balance(names[buyer])
        late = await clients[seller].request_raw("accept", offer=offer)
        assert late["type"] == "error"
        assert server.lobby.rooms[room].table.closed is None
        assert donne_audit(server)["held"] == 0
    finally:
        for c in clients:
            await c.close()
        await server.stop()

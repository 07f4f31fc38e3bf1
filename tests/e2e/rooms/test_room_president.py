"""Rooms running Président matches end to end, with scripted JSON players on a real server."""

import asyncio
import hashlib

from engine.president import PresidentMatch
from tests.kits.servers import assert_no_hand, connect, play_simply, start_server


async def test_full_classic_match_among_scripted_json_players(server):
    names = ["alice", "bob", "carol"]
    clients = [await connect(server, n) for n in names]
    try:
        created = await clients[0].request("create", game="president", rules="classic", seats=3)
        room = created["room"]
        assert created["seat"] == 0
        rooms = (await clients[1].request("rooms"))["rooms"]
        assert rooms[0]["room"] == room and rooms[0]["status"] == "waiting" and rooms[0]["players"] == ["alice"]
        seen = []
        clients[0].on_push = seen.append
        over_events = [asyncio.ensure_future(c.next_event("match_over", timeout=60)) for c in clients]
        await clients[1].request("join", room=room)
        await clients[2].request("join", room=room)
        finals = await asyncio.wait_for(asyncio.gather(*(play_simply(c) for c in clients)), 60)
        over = [await e for e in over_events]
        assert over[0]["winners"] == over[1]["winners"] == over[2]["winners"]
        assert sum(over[0]["totals"]) == 5 * 3  # P14/P15: 5 rounds of 2 + 1 + 0 points
        assert over[0]["text"] and finals[0]["round"] == 5
        # each deal was committed before it was dealt and its seed revealed after the round
        dealt = [m for m in seen if m.get("event") == "dealt"]
        ends = [m for m in seen if m.get("event") == "round_over"]
        assert len(dealt) == len(ends) == 5
        for d, end in zip(dealt, ends, strict=True):
            assert hashlib.sha256(bytes.fromhex(end["seed"])).hexdigest() == d["commitment"]
        # every round is in the history and replays to the same result through the engine
        records = await server.store.history.recent("alice", limit=10)
        match, *records = records  # newest first: the match's own record, then its five rounds
        assert match.round_id.endswith("-match") and match.result == {k: over[0][k] for k in ("event", "winners", "totals")}
        assert len(records) == 5
        last = max(records, key=lambda r: r.finished_at)
        replayed, events = PresidentMatch.replay(last.config["match"], last.log)
        assert replayed.over and [e.to_dict() for e in events if e.name == "round_over"][-1] == dict(last.result)
        audit = await server.store.ledger.audit()
        assert audit.ok
    finally:
        for c in clients:
            await c.close()


async def test_spectator_never_sees_a_hand(server):
    alice = await connect(server, "alice")
    carol = await connect(server, "carol")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=4, bots=3,
                                    bot_level="easy"))["room"]
        await carol.request("watch", room=room)
        seen = []
        carol.on_push = seen.append
        alice_play = asyncio.ensure_future(play_simply(alice))
        await asyncio.wait_for(alice_play, 60)
        await carol.request("state")
        assert_no_hand(seen)
    finally:
        await alice.close()
        await carol.close()


async def test_disconnect_and_resume_mid_match(server):
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await bob.request("join", room=room)
        state = await alice.next_state(lambda s: s.get("phase") == "play" and s.get("hand"), timeout=10,
                                       current=True)
        hand = state["hand"]
        lost = asyncio.ensure_future(bob.next_event("disconnected", timeout=10))
        await alice.close()
        event = await lost
        assert event["name"] == "alice" and event["text"]
        back = asyncio.ensure_future(bob.next_event("reconnected", timeout=10))
        alice = await connect(server, "alice")  # same name within the grace period: the seat comes back
        fresh = await alice.next_state(lambda s: s.get("room") == room, timeout=10, current=True)
        assert fresh["you"] == 0 and fresh["hand"] and set(fresh["hand"]) <= set(hand) | set(fresh["played"])
        assert (await back)["name"] == "alice"
        seats = {s["name"]: s for s in fresh["seats"]}
        assert seats["alice"]["connected"] and seats["bob"]["connected"]
        who = (await alice.request("whoami"))
        assert (who["room"], who["seat"]) == (room, 0)
    finally:
        await alice.close()
        await bob.close()


async def test_after_the_grace_period_a_bot_takes_the_seat_P16(tmp_path):
    running = await start_server(tmp_path, grace_seconds=0.2)
    alice = await connect(running, "alice")
    bob = await connect(running, "bob")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await bob.request("join", room=room)
        await alice.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        replaced = asyncio.ensure_future(bob.next_event("replaced", timeout=10))
        await alice.close()
        event = await replaced
        assert event["name"] == "alice" and event["seat"] == 0
        state = await bob.next_state(lambda s: s["seats"][0]["bot"], timeout=10, current=True)
        assert state["seats"][0]["name"] == "alice"  # the points stay with the seat
        # alice comes back later: no seat any more, she is in the lobby
        alice = await connect(running, "alice")
        assert (await alice.request("whoami"))["room"] is None
        # bob plays on to the end against the bots
        final = await asyncio.wait_for(play_simply(bob), 60)
        assert final["status"] == "over"
    finally:
        await alice.close()
        await bob.close()
        await running.stop()


async def test_moves_out_of_turn_and_illegal_plays_change_nothing(server):
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    carol = await connect(server, "carol")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3))["room"]
        await bob.request("join", room=room)
        r = await bob.request_raw("join", room=room)
        assert r["code"] == "not_allowed"
        await carol.request("join", room=room)
        dave = await connect(server, "dave")
        r = await dave.request_raw("join", room=room)
        assert r["code"] == "room_full"
        await dave.close()
        states = {}
        for c in (alice, bob, carol):
            states[c] = await c.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        turn = states[alice]["turn"]
        on_turn = [alice, bob, carol][turn]
        other = [alice, bob, carol][(turn + 1) % 3]
        before = states[on_turn]
        r = await other.request_raw("play", cards=[states[other]["hand"][0]])
        assert r["code"] == "not_your_turn" and r["message"]
        r = await on_turn.request_raw("play", cards=["7c", "8d"])
        assert r["code"] in ("illegal_play", "bad_argument")
        r = await on_turn.request_raw("play", cards="nonsense")
        assert r["code"] == "bad_argument"
        r = await on_turn.request_raw("pass")
        assert r["code"] == "illegal_play"  # the leader must play (P5)
        stale = on_turn.state
        await on_turn.request("state")
        now = await on_turn.next_state(lambda s: s is not stale, timeout=10, current=True)
        assert now["hand"] == before["hand"] and now["trick"] == before["trick"] and now["turn"] == turn
    finally:
        for c in (alice, bob, carol):
            await c.close()


async def test_classic_time_out_passes_or_plays_for_the_player(tmp_path):
    running = await start_server(tmp_path)
    alice = await connect(running, "alice")
    bob = await connect(running, "bob")
    carol = await connect(running, "carol")
    try:
        room = (await alice.request("create", game="president", rules="classic", seats=3,
                                    turn_seconds=1))["room"]
        await bob.request("join", room=room)
        seen = []
        alice.on_push = seen.append
        # waiting from before the deal: the first time-out comes a second after it, however slowly
        # this test runs
        first_timeout = asyncio.ensure_future(alice.next_event("timeout", timeout=30))
        await carol.request("join", room=room)
        # nobody moves: the clock acts for the player on turn (a lead is a play, P5)
        ev = await first_timeout
        state = next(m for m in seen if m.get("type") == "state" and m.get("phase") == "play")  # the deal
        assert 0 < state["deadline"] <= 1
        assert ev["seat"] == state["turn"] and ev["passive"] is False and ev["text"]
        await alice.next_state(lambda s: s.get("turn") != state["turn"], timeout=10, current=True)
        moves = [m for m in seen if m.get("event") in ("played", "passed")]
        assert moves and moves[0]["seat"] == state["turn"] and moves[0]["event"] == "played"
    finally:
        for c in (alice, bob, carol):
            await c.close()
        await running.stop()


async def test_hard_bots_think_in_a_thread_and_play(server):
    alice = await connect(server, "alice")
    try:
        await alice.request("create", game="president", rules="classic", seats=3, bots=2, bot_level="hard",
                            rounds=1)
        final = await asyncio.wait_for(play_simply(alice, timeout=60), 120)
        assert final["status"] == "over"
    finally:
        await alice.close()


async def test_stopping_mid_round_at_a_classic_table_logs_no_error(tmp_path, caplog):
    """A classic round moves no chip, so the ledger has no round to void when it cannot finish:
    nothing to undo, and nothing for the operator to read in the log (no traceback per table)."""
    running = await start_server(tmp_path, durable_tables=False)
    try:
        alice = await connect(running, "alice")
        await alice.request("create", game="president", rules="classic", seats=4, bots=3)
        await alice.next_state(lambda s: bool(s.get("hand")), timeout=15, current=True)
        await alice.close()
    finally:
        with caplog.at_level("ERROR"):
            await running.stop()
    assert not [r for r in caplog.records if r.levelname == "ERROR"], [r.getMessage() for r in caplog.records]


async def test_a_move_is_answered_before_the_states_it_causes(server):
    """The ``ok`` of a play comes before the first state that shows it, in the order of the lines on
    the wire: a program knows its move was taken before it reads the table after it."""
    alice = await connect(server, "alice")
    wire: list[tuple[str, dict]] = []
    dispatch, write = alice.dispatch, alice._write

    def received(msg):
        wire.append(("in", msg))
        dispatch(msg)

    def sent(obj):
        wire.append(("out", {**obj, "hand": len((alice.state or {}).get("hand") or [])}))
        write(obj)

    alice.dispatch, alice._write = received, sent
    try:
        await alice.request("create", game="president", rules="classic", seats=4, bots=3, bot_level="easy",
                            rounds=1)
        await asyncio.wait_for(play_whenever_possible(alice), 60)
        plays = 0
        for i, (way, msg) in enumerate(wire):
            if way != "out" or msg.get("cmd") != "play":
                continue
            answer = next(j for j in range(i, len(wire)) if wire[j][0] == "in" and wire[j][1].get("id") == msg["id"])
            if wire[answer][1]["type"] != "ok":
                continue  # refused (a stale state): nothing changed
            plays += 1
            between = [m for w, m in wire[i:answer] if w == "in" and m.get("type") == "state"]
            assert all(len(m.get("hand") or []) == msg["hand"] for m in between), (msg, between)
            after = next(m for w, m in wire[answer:] if w == "in" and m.get("type") == "state")
            assert len(after["hand"]) < msg["hand"]  # and the next state shows the play
        assert plays >= 3
    finally:
        await alice.close()


async def play_whenever_possible(client):
    """Play the first legal play each turn (pass only when there is none) until the match ends."""
    acted_on: list[dict] = []

    def ready(s: dict) -> bool:
        return not (acted_on and s is acted_on[-1]) and (s.get("status") == "over" or (
            s.get("phase") == "play" and s.get("turn") == s.get("you") and bool(s.get("legal"))))

    while True:
        state = await client.next_state(ready, timeout=20, current=True)
        if state.get("status") == "over":
            return state
        acted_on.append(state)
        plays = state["legal"].get("plays") or []
        if plays:
            rank, k = plays[0]
            cards = [c for c in state["hand"] if c[0] == rank][:k]
            reply = await client.request_raw("play", cards=cards)
        else:
            reply = await client.request_raw("pass")
        assert reply["type"] == "ok" or reply.get("code") in ("not_your_turn", "illegal_play"), reply

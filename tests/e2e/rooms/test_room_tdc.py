"""tdc rooms: stakes through the ledger (T13), the cut (T9), automatic cuts, time-outs (T14)."""

import asyncio

import pytest

from engine.president import Play, PresidentMatch
from engine.seeds import seed_from_int
from server.rooms import room as room_module
from server.table.fair import ExplicitSeed
from tests.kits.servers import connect, play_simply, start_server


def cut_seed() -> tuple[bytes, int, str, int, list[str]]:
    """A seed whose first lead (weakest single of the Qh holder, T3) can be cut by another seat."""
    for i in range(5000):
        seed = seed_from_int(i)
        m = PresidentMatch("tdc", seats=3, stake=2)
        m.apply(m.deal_action(seed, present=(0, 1, 2), stake=2))
        leader = m.turn
        card = m.hand(leader)[0]
        m.apply(Play(leader, (card,)))
        options = m.cut_options()
        if options:
            cutter, cards = next(iter(options.items()))
            return seed, leader, str(card), cutter, [str(c) for c in cards]
    raise AssertionError("no seed with a cut in 5000")


@pytest.fixture
def fixed_seed(monkeypatch):
    seed, leader, card, cutter, cards = cut_seed()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(seed))
    return leader, card, cutter, cards


async def start_tdc(running, names, **create):
    clients = [await connect(running, n) for n in names]
    create.setdefault("stake", 2)
    room = (await clients[0].request("create", game="president", rules="tdc", seats=3, **create))["room"]
    for c in clients[1:]:
        await c.request("join", room=room)
    return clients, room


async def test_T9_cut_then_T14_time_out_makes_the_cutter_passive(tmp_path, fixed_seed):
    leader, card, cutter, cut_cards = fixed_seed
    running = await start_server(tmp_path, round_pause=60.0)
    clients, _room = await start_tdc(running, ["alice", "bob", "carol"], turn_seconds=3)
    try:
        dealt = [asyncio.ensure_future(c.next_state(lambda s: s.get("phase") == "play" and s.get("hand"),
                                                    timeout=10, current=True)) for c in clients]
        states = [await d for d in dealt]
        cut_seen = [asyncio.ensure_future(c.next_event("cut", timeout=10)) for c in clients]
        timeout_seen = asyncio.ensure_future(clients[leader].next_event("timeout", timeout=15))
        # the lead and the cut go first, well within their 3 s (nothing else in between)
        await clients[leader].request("play", cards=[card])
        await clients[cutter].request("cut", cards=cut_cards)
        assert states[0]["stake"] == 2 and [s["seat"] for s in states[0]["seats"]] == [0, 1, 2]
        # T13: every playing seat's stake went into the round's escrow (paid back when it ends)
        assert (await clients[0].request("whoami"))["chips"] == 198
        for fut in cut_seen:
            ev = await fut
            assert (ev["seat"], sorted(ev["cards"])) == (cutter, sorted(cut_cards)) and ev["text"]
        # the cutter leads now (T9) and lets the clock run out: passive for the round (T14)
        ev = await timeout_seen
        assert ev["seat"] == cutter and ev["passive"] is True
        state = await clients[leader].next_state(lambda s: s["seats"][cutter]["passive"], timeout=10,
                                                 current=True)
        assert state["turn"] != cutter
        # the two others play the round out; the passive seat's turns are skipped
        over = asyncio.ensure_future(clients[0].next_event("round_over", timeout=30))
        others = [c for i, c in enumerate(clients) if i != cutter]
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("phase") != "play")
                                                for c in others)), 30)
        result = await over
        assert len(result["ranking"]) == 3 and sum(result["chips"]) == 0
        # T13 payouts settled through the ledger: balances = 200 + change, nothing created or lost
        for i, c in enumerate(clients):
            assert (await c.request("whoami"))["chips"] == 200 + result["chips"][i]
        assert (await running.store.ledger.audit()).ok
        records = await running.store.history.recent("alice")
        assert len(records) == 1 and records[0].rules == "tdc" and records[0].result["chips"] == result["chips"]
    finally:
        for c in clients:
            await c.close()
        await running.stop()


async def test_T9_autocut_cuts_the_moment_it_becomes_possible(server, fixed_seed):
    leader, card, cutter, cut_cards = fixed_seed
    clients, _room = await start_tdc(server, ["alice", "bob", "carol"])
    try:
        assert (await clients[cutter].request("autocut", on=True)) ["on"] is True
        await clients[leader].next_state(lambda s: s.get("phase") == "play" and s.get("turn") == leader,
                                         timeout=10, current=True)
        cut_seen = asyncio.ensure_future(clients[leader].next_event("cut", timeout=10))
        await clients[leader].request("play", cards=[card])
        ev = await cut_seen
        assert ev["seat"] == cutter and sorted(ev["cards"]) == sorted(cut_cards)
        state = await clients[cutter].next_state(lambda s: s.get("turn") == cutter, timeout=10, current=True)
        assert not any(item.get("cards") for item in state["trick"])  # the cutter leads a new trick
    finally:
        for c in clients:
            await c.close()


async def test_seat_refused_without_enough_chips_T13(server):
    alice = await connect(server, "alice")
    bob = await connect(server, "bob")
    try:
        r = await alice.request_raw("create", game="president", rules="tdc", seats=3, stake=500)
        assert r["code"] == "insufficient_chips" and r["message"]
        r = await alice.request_raw("create", game="president", rules="tdc", seats=3, stake=3)
        assert r["code"] == "bad_argument"
        room = (await alice.request("create", game="president", rules="tdc", seats=3, stake=200))["room"]
        # bob has 200: enough to sit down
        await bob.request("join", room=room)
    finally:
        await alice.close()
        await bob.close()


async def test_tdc_with_bots_plays_rounds_and_conserves_chips(server):
    alice = await connect(server, "alice")
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=4, bots=3, stake=10,
                                    rounds=2))["room"]
        final = await asyncio.wait_for(play_simply(alice), 60)
        assert final["status"] == "over" and final["round"] == 2
        audit = await server.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
        records = await server.store.history.recent("alice")
        assert [r.result["event"] for r in records] == ["match_over", "round_over", "round_over"]
        assert room
    finally:
        await alice.close()


def pushed(client, name):
    """The pushed events named ``name`` the client received so far (consumed)."""
    out = []
    while (msg := client.next_push_nowait()) is not None:
        if msg.get("event") == name:
            out.append(msg)
    return out


async def test_T13_a_clean_restart_mid_round_keeps_the_stakes_in_escrow_and_the_round_goes_on(tmp_path):
    running = await start_server(tmp_path)
    clients, room = await start_tdc(running, ["alice", "bob", "carol"], stake=20)
    try:
        before = await clients[0].next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        assert (await clients[0].request("whoami"))["chips"] == 180
        assert (await running.store.ledger.audit()).escrow == 60
        told = [asyncio.ensure_future(c.next_event("shutdown", timeout=10)) for c in clients]
        await running.stop()
        for fut in told:
            assert (await fut)["resume"] is True
    finally:
        for c in clients:
            await c.close()
    # the same data folder: the table is back, its stakes still in escrow (no refund)
    again = await start_server(tmp_path, round_pause=60.0)
    try:
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.escrow == 60 and audit.tables_unfinished == (room,)
        assert room in again.lobby.rooms
        clients = [await connect(again, n) for n in ("alice", "bob", "carol")]
        states = [await c.next_state(lambda s: s.get("room") == room, timeout=10, current=True) for c in clients]
        for c, state in zip(clients, states, strict=True):
            assert [e["room"] for e in pushed(c, "resumed")] == [room]
            assert state["hand"] == before["hand"] or state["you"] != before["you"]
        assert states[0]["hand"] == before["hand"] and states[0]["round"] == 1
        assert (await clients[0].request("whoami"))["chips"] == 180
        over = asyncio.ensure_future(clients[0].next_event("round_over", timeout=30))
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("round", 1) > 1
                                                            or s.get("phase") != "play") for c in clients)), 30)
        result = await over
        for i, c in enumerate(clients):
            assert (await c.request("whoami"))["chips"] == 200 + result["chips"][i]
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.escrow == 0
    finally:
        for c in clients:
            await c.close()
        await again.stop()


async def test_without_durable_tables_a_shutdown_mid_round_refunds_the_stakes(tmp_path):
    running = await start_server(tmp_path, durable_tables=False)
    clients, _room = await start_tdc(running, ["alice", "bob", "carol"], stake=20)
    try:
        await clients[0].next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        assert (await running.store.ledger.audit()).escrow == 60
        await running.stop()
    finally:
        for c in clients:
            await c.close()
    # reopen the same data folder: the stakes went back (nothing was settled, nothing is lost)
    again = await start_server(tmp_path, durable_tables=False)
    try:
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.escrow == 0 and not again.lobby.rooms
    finally:
        await again.stop()


async def test_T1_leaving_mid_round_then_a_newcomer_sits_between_rounds(tmp_path):
    running = await start_server(tmp_path)
    clients, room = await start_tdc(running, ["alice", "bob", "carol"], turn_seconds=1)
    alice, bob, carol = clients
    dave = await connect(running, "dave")
    try:
        await carol.next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        assert (await carol.request("leave"))["room"] == room
        state = await alice.next_state(lambda s: s["seats"][2].get("leaving"), timeout=10, current=True)
        assert state["seats"][2]["name"] == "carol"  # still in this round (T1), played by the clock
        r = await dave.request_raw("join", room=room)
        assert r["code"] == "room_full"  # the seat is taken until the round ends
        waiting = asyncio.ensure_future(alice.next_state(lambda s: s.get("status") == "waiting", timeout=30,
                                                         current=True))
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("status") == "waiting")
                                                for c in (alice, bob))), 30)
        state = await waiting
        assert state["seats"][2]["name"] is None  # two players left: the table waits (T1)
        assert (await dave.request("join", room=room))["seat"] == 2
        state = await dave.next_state(lambda s: s.get("round") == 2 and s.get("phase") in ("play", "exchange"),
                                      timeout=10, current=True)
        assert state["you"] == 2 and state["hand"]
        assert (await running.store.ledger.audit()).ok
    finally:
        for c in (*clients, dave):
            await c.close()
        await running.stop()


async def test_T12_the_president_chooses_the_cards_given_back(tmp_path):
    running = await start_server(tmp_path)
    clients, _room = await start_tdc(running, ["alice", "bob", "carol"])
    try:
        seen = {c: [] for c in clients}
        for c in clients:
            c.on_push = seen[c].append
        await asyncio.wait_for(asyncio.gather(*(play_simply(c, until=lambda s: s.get("phase") == "exchange")
                                                for c in clients)), 30)
        states = [await c.next_state(lambda s: s.get("phase") == "exchange", timeout=10, current=True)
                  for c in clients]
        giver = next(i for i, s in enumerate(states) if s["give"])
        assert states[giver]["give"] == 2  # three players: only the Président and the last (P12, T12)
        assert states[giver]["seats"][giver]["title"] == "president"
        chosen = states[giver]["hand"][-2:]  # gives back his two strongest, by choice
        await clients[giver].request("give", cards=chosen)
        state = await clients[giver].next_state(lambda s: s.get("phase") == "play", timeout=10, current=True)
        assert not set(chosen) & set(state["hand"])
        receiver = next(i for i, s in enumerate(states) if s["seats"][i]["title"] == "last")
        other = ({0, 1, 2} - {giver, receiver}).pop()
        mine = [m for m in seen[clients[receiver]] if m.get("event") == "exchange" and m["from"] == giver]
        theirs = [m for m in seen[clients[other]] if m.get("event") == "exchange" and m["from"] == giver]
        assert sorted(mine[-1]["cards"]) == sorted(chosen) and mine[-1]["chosen"] is True
        assert "cards" not in theirs[-1] and theirs[-1]["count"] == 2  # the others never see the cards
    finally:
        for c in clients:
            await c.close()
        await running.stop()

"""Restarts of a server in this process (docs/restart.md): set aside, guests, offers, scheduled shutdowns.

A table whose stored log a changed engine no longer replays is set aside at start, its
stakes refunded, the operator told in the log and by the audit. Guests keep their seat
when they come back under the same name; who does not come back is handled as a
disconnection (classic: a bot for good, P16). A Speculation offer open at the restart
is still open after it, its price still held (S9). ``schedule_shutdown`` warns everyone
at 60, 30 and 10 s, then stops; ``cancel_shutdown`` calls it off.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path
from typing import Any

import pytest

from engine.president import PresidentMatch
from engine.president import rules as president_rules
from engine.seeds import seed_from_int
from server.rooms import room as room_module
from server.storage.api import HOUSE
from server.storage.cli import audit_file
from server.table.fair import ExplicitSeed
from tests.kits.servers import connect, start_server


async def _dealt(client: Any) -> dict[str, Any]:
    return await client.next_state(lambda s: bool(s.get("hand")) and s.get("round") == 1, timeout=15, current=True)


def _first_leads_differ() -> bytes:
    """A seed whose first tdc deal gives Qh (T3 leads) and 3c to different seats."""
    for i in range(100):
        m = PresidentMatch("tdc", seats=3, stake=20)
        m.apply(m.deal_action(seed_from_int(i), present=(0, 1, 2), stake=20))
        holder = {str(c): s for s in range(3) for c in m.hand(s)}
        if holder["Qh"] != holder["3c"]:
            return seed_from_int(i)
    raise AssertionError("no seed")


async def test_a_log_a_changed_engine_rule_no_longer_replays_is_set_aside_and_its_stakes_refunded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    seed = _first_leads_differ()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(seed))
    running = await start_server(tmp_path)
    alice = await connect(running, "alice")
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=3, bots=2, stake=20))["room"]
        await _dealt(alice)
        assert (await alice.request("whoami"))["chips"] == 180
        assert await running.store.ledger.balance(HOUSE) == 1_000_000 - 2000  # two bots funded
    finally:
        await alice.close()
        await running.stop()
    # T3 changed in the engine: the holder of 3c leads instead of the holder of Qh
    monkeypatch.setitem(president_rules.RULESETS, "tdc",
                        dataclasses.replace(president_rules.TDC, first_lead="3c"))
    caplog.set_level(logging.ERROR)
    again = await start_server(tmp_path)
    try:
        assert room not in again.lobby.rooms
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.escrow == 0 and not audit.tables_unfinished
        [(table_id, reason)] = audit.tables_aside
        assert table_id == room and reason.startswith("entry ")
        assert any(room in r.getMessage() and "set aside" in r.getMessage() for r in caplog.records)
        assert await again.store.ledger.balance(HOUSE) == 1_000_000  # the bots' chips, stakes too, went home
        alice = await connect(again, "alice")  # she is a guest again, with her chips back, free to play
        assert (await alice.request("whoami"))["chips"] == 200
        assert (await alice.request("create", game="president", rules="tdc", seats=3, bots=2, stake=20))["room"]
        await alice.close()
    finally:
        await again.stop()
    assert audit_file(tmp_path / "data").tables_aside == ((room, reason),)


async def test_tables_of_a_durable_run_are_set_aside_by_a_server_without_durable_tables(tmp_path: Path) -> None:
    running = await start_server(tmp_path)
    alice = await connect(running, "alice")
    try:
        room = (await alice.request("create", game="president", rules="tdc", seats=3, bots=2, stake=20))["room"]
        await _dealt(alice)
    finally:
        await alice.close()
        await running.stop()
    again = await start_server(tmp_path, durable_tables=False)
    try:
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.escrow == 0 and audit.tables_aside == ((room, "not resumed: durable_tables is off"),)
        assert not again.lobby.rooms
    finally:
        await again.stop()


async def test_a_guest_who_comes_back_keeps_the_seat_one_who_does_not_is_replaced_by_a_bot(tmp_path: Path) -> None:
    running = await start_server(tmp_path)
    gina, gus = await connect(running, "gina"), await connect(running, "gus")
    try:
        room = (await gina.request("create", game="president", rules="classic", seats=3, bots=1))["room"]
        await gus.request("join", room=room)
        before = await _dealt(gina)
    finally:
        await gina.close()
        await gus.close()
        await running.stop()
    again = await start_server(tmp_path, grace_seconds=0.5, resume_window=0.5)
    try:
        gina = await connect(again, "gina")
        state = await gina.next_state(lambda s: s.get("room") == room, timeout=10, current=True)
        assert state["hand"] == before["hand"] and state["you"] == before["you"]
        assert (await gina.request("whoami"))["guest"] is True
        # gus does not come back: after his grace, a bot plays his seat for the rest of the match (P16)
        replaced = await gina.next_event("replaced", timeout=10)
        assert replaced["name"] == "gus"
        state = await gina.next_state(lambda s: s["seats"][replaced["seat"]]["bot"], timeout=10, current=True)
        assert state["seats"][replaced["seat"]]["name"] == "gus"
        await gina.close()
    finally:
        await again.stop()


async def test_S9_an_offer_open_at_a_restart_is_still_open_and_its_price_still_held(tmp_path: Path) -> None:
    running = await start_server(tmp_path, flip_seconds=60.0, auction_seconds=60.0)
    names = ["ann", "ben", "cat"]
    clients = [await connect(running, n) for n in names]
    try:
        room = (await clients[0].request("create", game="speculation", seats=3, ante=1))["room"]
        for c in clients[1:]:
            await c.request("join", room=room)
        for _ in range(20):  # an auction opens with the deal (S7): its owner keeps the card
            state = await clients[0].next_state(lambda s: s.get("in_deal"), timeout=15, current=True)
            if state.get("auction") is None:
                break
            owner = next(c for c in clients if c.state and c.state.get("you") == state["auction"]["seat"])
            await owner.request_raw("keep")
            await clients[0].next_state(lambda s, a=state["auction"]: s.get("auction") != a, timeout=15,
                                        current=True)
        states = [await c.next_state(lambda s: s.get("in_deal") and s.get("auction") is None, timeout=15,
                                     current=True) for c in clients]
        buyer = states[0]["you"]
        seller = next(s["seat"] for s in states[0]["seats"] if s["seat"] != buyer and s.get("facedown"))
        offer = (await clients[0].request("offer", to=seller, cards=1, price=3))["offer"]
        held = (await running.store.ledger.audit()).held
        assert held == 3
        open_offers = (await clients[0].next_state(lambda s: bool(s.get("offers")), timeout=10, current=True))["offers"]
    finally:
        for c in clients:
            await c.close()
        await running.stop()
    again = await start_server(tmp_path, flip_seconds=60.0, auction_seconds=60.0)
    try:
        assert (await again.store.ledger.audit()).held == 3  # the hold survived the restart
        clients = [await connect(again, n) for n in names]
        states = [await c.next_state(lambda s: s.get("room") == room, timeout=10, current=True) for c in clients]
        # the offer put to a person is open again, with its full time to answer (server.table.clocks)
        assert [{**o, "left": None} for o in states[0]["offers"]] == [{**o, "left": None} for o in open_offers]
        assert states[0]["offers"][0]["left"] > 10
        seller_client = clients[[s["you"] for s in states].index(seller)]
        chips = (await clients[0].request("whoami"))["chips"]
        await seller_client.request("accept", offer=offer)
        assert (await clients[0].request("whoami"))["chips"] == chips - 3  # paid from the hold
        audit = await again.store.ledger.audit()
        assert audit.ok and audit.held == 0
        for c in clients:
            await c.close()
    finally:
        await again.stop()


async def test_a_scheduled_shutdown_warns_at_60_30_10_seconds_then_stops_and_can_be_called_off(
        tmp_path: Path) -> None:
    running = await start_server(tmp_path)
    slept: list[float] = []
    gate = asyncio.Event()

    async def fake_sleep(seconds: float) -> None:  # the countdown's clock, stepped by the test
        slept.append(seconds)
        await gate.wait()
        gate.clear()

    running.sleep = fake_sleep
    alice = await connect(running, "alice")
    try:
        warned: list[dict[str, Any]] = []
        alice.on_push = lambda m: warned.append(m) if str(m.get("event", "")).startswith("shutdown") else None
        running.schedule_shutdown(45, "upgrade")
        for _ in range(20):
            await asyncio.sleep(0.01)
            if slept:
                break
        assert running.shutdown_at is not None
        assert running.cancel_shutdown() is True and running.shutdown_at is None
        assert running.cancel_shutdown() is False
        await alice.next_event("shutdown_cancelled", timeout=5)
        # again, to the end: 90 s ahead -> warned at 90, 60, 30, 10
        slept.clear()
        running.schedule_shutdown(90, "upgrade")
        for _ in range(4):
            while len(slept) < _ + 1:
                await asyncio.sleep(0.01)
            gate.set()
        await asyncio.wait_for(running.wait_stopped(), 10)
        assert slept == [30.0, 30.0, 20.0, 10.0]
        warnings = [m for m in warned if m.get("event") == "shutdown_warning"]
        assert [m["seconds"] for m in warnings] == [45, 90, 60, 30, 10]
        assert all(m["reason"] == "upgrade" and m["resume"] is True and m["text"] for m in warnings)
        assert [m["event"] for m in warned][-1] == "shutdown"
    finally:
        await alice.close()
        await running.stop()

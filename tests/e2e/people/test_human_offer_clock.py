"""A person at a Speculation table over a real telnet client, in Spanish: an offer made to them
waits for their answer (S9).

The person is on turn when another player offers for their top face-down card. The table says
how long they have to answer, and their card is not turned for them meanwhile (turning it would
make the offer lapse, S12d) although their own flip time, short here, has long passed; they take
more time from their time bank (``prórroga``), then accept. The client is installed by ``make tools``; the test skips without it.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
from typing import Any

import pytest

from clients.errors import ClientTimeout
from engine.seeds import seed_from_int
from engine.speculation.match import SpeculationMatch
from server.messages.terminal import strip_ansi
from server.rooms import room as room_module
from server.table.fair import ExplicitSeed
from tests.e2e.people.test_human_table import _telnet
from tests.kits.servers import connect, start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: run make tools"),
]


def _the_bot_deals() -> bytes:
    """A first deal dealt by the bot on seat 2, no trump ace: after its auction the person on seat 0
    turns first (S8)."""
    for i in itertools.count():
        seed = seed_from_int(i)
        m = SpeculationMatch(seats=3, chips=[200, 200, 1000], ante=1, deals=2)
        events = m.apply(m.deal_action(seed, present=(0, 1, 2)))
        if m.view(None).dealer == 2 and events[-1].name == "auction":
            return seed
    raise AssertionError("unreachable")


async def test_S9_an_offer_to_a_person_waits_for_their_answer_over_telnet(tmp_path: Any, monkeypatch: Any) -> None:
    seed = _the_bot_deals()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(seed))
    running = await start_server(tmp_path, flip_seconds=2.0, offer_seconds=15.0, auction_seconds=1.0,
                                 bot_delay=0.1)
    child = await asyncio.to_thread(_telnet, running.telnet_port)
    bea = await connect(running, "bea")
    try:
        await asyncio.to_thread(child.sendline, "crear especulación 3 bots=1")
        await asyncio.to_thread(child.expect, r"Mesa (\S+) abierta")
        room = child.match.group(1).rstrip(":.")
        await bea.request("join", room=room)
        await bea.next_state(lambda s: s.get("turn") == 0 and not s.get("auction"), timeout=30, current=True)
        offer = (await bea.request("offer", to=0, cards=1, price=3))["offer"]
        await asyncio.to_thread(child.expect, r"Tienes 15\s+segundos\s+para\s+responder", 15)
        turned = asyncio.ensure_future(bea.next_event("turned", timeout=6))
        with pytest.raises(ClientTimeout):  # twice the flip time: the card is still the person's to keep
            await turned
        # more time, from the person's time bank: said to them, and to the others as an event
        extended = asyncio.ensure_future(bea.next_event("extended", timeout=10))
        await asyncio.to_thread(child.sendline, "prórroga")
        await asyncio.to_thread(child.expect, r"15 segundos más para ti; te quedan 45\s+s de reserva", 10)
        assert (await extended)["seat"] == 0
        await asyncio.to_thread(child.sendline, f"aceptar {offer}")
        traded = await bea.next_event("traded", timeout=10, predicate=lambda e: e.get("offer") == offer)
        assert traded["to"] == 0 and traded["from"] == 1 and traded["price"] == 3
        screen = strip_ansi(child.before or "")
        assert "cae" not in screen and "No es tu turno" not in screen
    finally:
        child.close(force=True)
        await bea.close()
        await running.stop()

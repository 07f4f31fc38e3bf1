"""A person at a trou-du-cul table over a real telnet client, in Spanish: the cut and leaving.

* The cut must be something a person can do: a bot's pause after a single is short, but a
  table where a person sits waits the cut window before any bot moves on (T9), and the
  person is shown the window's time, not the turn's.
* Leaving a staked round says what it costs and asks again; then the person is in the lobby
  at once, hears how the round ended for them, and no countdown follows them there.

Each test starts a real server (port 0, SQLite in a tmp dir), with the production bot pause
(0.8 s) and cut window (3 s). One seat is a scripted JSON player; the person is ``telnet``,
driven through pexpect. The client is installed by ``make tools``; the test skips without it.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from typing import Any

import pytest

from engine.president import Play, PresidentMatch
from engine.seeds import seed_from_int
from server import room as room_module
from server.table.fair import ExplicitSeed
from server.terminal import strip_ansi

from .conftest import connect, start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: run make tools"),
]


def _person_cuts_the_lead() -> tuple[bytes, str, list[str]]:
    """A 3-seat tdc deal: seat 1 (the scripted player) leads, its weakest single can be cut by seat 0
    (the person) only."""
    for i in range(20000):
        seed = seed_from_int(i)
        m = PresidentMatch("tdc", seats=3, stake=2)
        m.apply(m.deal_action(seed, present=(0, 1, 2), stake=2))
        if m.turn != 1:
            continue
        card = m.hand(1)[0]
        m.apply(Play(1, (card,)))
        options = m.cut_options()
        if set(options) == {0}:
            return seed, str(card), [str(c) for c in options[0]]
    raise AssertionError("no such deal")


def _telnet(port: int) -> Any:
    child = pexpect.spawn("telnet", ["127.0.0.1", str(port)], env={"TERM": "xterm", "PATH": "/usr/bin:/bin"},
                          encoding="utf-8", codec_errors="replace", dimensions=(40, 100), timeout=30)
    child.expect("Idioma")
    child.sendline("3")
    child.expect("Nombre")
    child.sendline("Ana")
    child.expect("Hola")
    return child


async def _table(tmp_path: Any, monkeypatch: Any, **config: Any) -> tuple[Any, Any, Any, str, str, list[str]]:
    seed, card, cut = _person_cuts_the_lead()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(seed))
    settings = {"bot_delay": 0.8, "cut_window": 3.0, "round_pause": 1.0, **config}
    running = await start_server(tmp_path, **settings)
    child = await asyncio.to_thread(_telnet, running.telnet_port)
    await asyncio.to_thread(child.sendline, "crear presidente tdc 3 bots=1 apuesta=10")
    await asyncio.to_thread(child.expect, r"Mesa (\S+) abierta")
    room = child.match.group(1).rstrip(":.")
    bea = await connect(running, "bea")
    await bea.request("join", room=room)
    return running, child, bea, room, card, cut


async def test_T9_a_person_has_time_to_cut_a_single_before_the_next_bot_plays(tmp_path: Any, monkeypatch: Any) -> None:
    running, child, bea, _room, card, cut = await _table(tmp_path, monkeypatch)
    try:
        await bea.next_state(lambda s: s.get("turn") == 1 and s.get("hand"), timeout=20, current=True)
        cut_seen = asyncio.ensure_future(bea.next_event("cut", timeout=20))
        await bea.request("play", cards=[card])  # the bot on seat 2 is next: 0.8 s would be its pause
        # the person is told they can cut, with the window's seconds (never the turn's 30)
        await asyncio.to_thread(child.expect, r"Puedes cortar! Escribe cortar\.\s*\((\d).s\)", 15)
        assert int(child.match.group(1)) <= 3
        await asyncio.to_thread(child.sendline, "cortar")
        await asyncio.to_thread(child.expect, r"Cortas con", 15)
        ev = await cut_seen
        assert ev["seat"] == 0 and sorted(ev["cards"]) == sorted(cut)
        screen = strip_ansi(child.before or "")
        assert "No puedes cortar" not in screen and "30 s" not in screen
    finally:
        child.close(force=True)
        await bea.close()
        await running.stop()


async def test_leaving_a_staked_round_asks_first_then_a_bot_plays_it_out(tmp_path: Any, monkeypatch: Any) -> None:
    # quick bots and windows: the round is played out after the person left, its pace does not matter
    running, child, bea, room, _card, _cut = await _table(tmp_path, monkeypatch, bot_delay=0.02, cut_window=0.05)
    try:
        await bea.next_state(lambda s: s.get("turn") == 1 and s.get("hand"), timeout=20, current=True)
        await asyncio.to_thread(child.sendline, "irse")
        await asyncio.to_thread(child.expect, re.compile(r"10 fichas tuyas en juego.*Escribe irse otra vez", re.S), 15)
        assert (await bea.request("state")) is not None
        state = await bea.next_state(timeout=10, current=True)
        assert state["seats"][0]["name"] == "Ana" and not state["seats"][0].get("leaving")  # nothing happened
        await asyncio.to_thread(child.sendline, "irse")
        await asyncio.to_thread(child.expect, re.compile(r"Has vuelto al vestíbulo\.\s+Un bot juega en\s+tu\s+lugar"), 15)
        state = await bea.next_state(lambda s: s["seats"][0].get("leaving"), timeout=10, current=True)
        assert state["seats"][0]["bot"] is True
        # bea plays the round out with the bots; the person hears how it ended, in the lobby
        over = asyncio.ensure_future(bea.next_event("round_over", timeout=120))
        while not over.done():
            s = await bea.next_state(lambda s: s.get("turn") == 1 or s.get("phase") != "play", timeout=60,
                                     current=True)
            if s.get("phase") == "play" and s.get("turn") == 1:
                legal = s.get("legal") or {}
                if legal.get("pass"):
                    await bea.request_raw("pass")
                elif legal.get("plays"):
                    rank = legal["plays"][0][0]
                    await bea.request_raw("play", cards=[c for c in s["hand"] if c[0] == rank][:1])
            await asyncio.sleep(0.05)
        await over
        await asyncio.to_thread(child.expect, re.compile(rf"La mano que dejaste en {room}\s+ha\s+terminado"), 30)
        lobby = strip_ansi(child.before or "")
        assert not re.search(r"segundos? para decidir", lobby)  # no countdown reached the lobby
        assert (await running.store.ledger.audit()).ok
    finally:
        child.close(force=True)
        await bea.close()
        await running.stop()

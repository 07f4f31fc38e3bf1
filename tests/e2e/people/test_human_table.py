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
from server.messages.terminal import strip_ansi
from server.rooms import room as room_module
from server.table.fair import ExplicitSeed
from tests.kits.servers import connect, start_server

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
        await asyncio.to_thread(child.expect, re.compile(rf"La ronda que dejaste en {room}\s+ha\s+terminado"), 30)
        lobby = strip_ansi(child.before or "")
        assert not re.search(r"segundos? para decidir", lobby)  # no countdown reached the lobby
        assert (await running.store.ledger.audit()).ok
    finally:
        child.close(force=True)
        await bea.close()
        await running.stop()


def _bot_cuts_a_bots_lead_before_the_person() -> bytes:
    """A 4-seat tdc deal (bots on seats 2 and 3): the bot on seat 3 leads a single or a pair (its
    greedy strategy is deterministic) that only the bot on seat 2 can cut, and does; the person on
    seat 0 is the next to play."""
    from engine.bots import make_bot
    from engine.president import Cut

    for i in range(20000):
        seed = seed_from_int(i)
        m = PresidentMatch("tdc", seats=4, stake=10)
        m.apply(m.deal_action(seed, present=(0, 1, 2, 3), stake=10))
        if m.turn != 3:
            continue
        lead = make_bot("president", "greedy", 3, bytes(16)).decide(m.view(3), m.legal_actions(3))
        if lead is None or lead.cmd != "play" or len(lead.cards) > 2:
            continue
        m.apply(lead)
        if set(m.cut_options()) != {2}:
            continue
        cuts = [a for a in m.legal_actions(2) if isinstance(a, Cut)]
        if make_bot("president", "greedy", 2, bytes(16)).decide(m.view(2), cuts) is not None:
            return seed
    raise AssertionError("no such deal")


async def test_T9_a_bots_cut_comes_inside_the_window_before_the_person_is_prompted(tmp_path: Any,
                                                                                   monkeypatch: Any) -> None:
    """The person is next after a bot's single or pair that another bot cuts: the screen says a cut may
    follow, the bot cuts within the window, and no turn prompt (with its bell) came before the cut."""
    seed = _bot_cuts_a_bots_lead_before_the_person()
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(seed))
    running = await start_server(tmp_path, bot_delay=0.8, cut_window=6.0, round_pause=1.0)
    child = await asyncio.to_thread(_telnet, running.telnet_port)
    bea = await connect(running, "bea")
    try:
        await asyncio.to_thread(child.sendline, "crear presidente tdc 4 bots=2 apuesta=10")
        await asyncio.to_thread(child.expect, r"Mesa (\S+) abierta")
        room = child.match.group(1).rstrip(":.")
        await bea.request("join", room=room)
        state = await bea.next_state(lambda s: s.get("hand"), timeout=20, current=True)
        assert state["you"] == 1 and state["seats"][2]["bot"] and state["seats"][3]["bot"]
        await asyncio.to_thread(child.expect, r"corta con", 30)
        screen = strip_ansi(child.before or "")
        after_lead = screen[screen.rindex(" juega "):]
        assert "Puede llegar un corte: 6 segundos" in after_lead
        assert "Te toca" not in after_lead and "\a" not in after_lead  # never prompted for the turn the cut took
    finally:
        child.close(force=True)
        await bea.close()
        await running.stop()

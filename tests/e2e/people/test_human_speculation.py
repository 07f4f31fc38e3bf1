"""A person plays a Speculation match over real SSH on a dumb terminal (plain ASCII, no colour).

English, TERM=dumb: the person turns cards when told, bids in other players' auctions, makes
an offer for face-down cards, and keeps or sells its own best trumps, all by typing the short
commands of docs/playing.md. The screen must stay pure ASCII without escape sequences, fit
60 columns, and show the end of the match.

The first deal is fixed (a bot deals, no trump ace among its cards) and the person bids only
once it has turned a card: it cannot hold the best trump before its first turn, and the deal
cannot end before it (S8, S10), so it is asked to turn whatever the timing. With random deals
it sometimes dealt, or bought the dealer's trump, held it to the end and never turned.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
from typing import Any

import pytest

from engine.seeds import seed_from_int
from engine.speculation.match import SpeculationMatch
from server.messages.terminal import display_width
from server.rooms import room as room_module
from server.table.fair import ExplicitSeed
from tests.e2e.people.test_human_play import Screen
from tests.kits.servers import start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.e2e

COLUMNS = 60
STEP = 60  # seconds allowed for one step of the match (it takes about one; only a hang reaches it)


def deal_cards(seed: bytes) -> tuple[int, set[str], str]:
    """The dealer, the ten cards dealt (trump card included) and the trump suit of a first deal
    with the test's chips; the deal is played out (every auction kept, every card turned) to see them."""
    match = SpeculationMatch(seats=3, chips=[200, 1000, 1000], ante=1, deals=2)
    events = list(match.apply(match.deal_action(seed, present=(0, 1, 2))))
    while match.pending():
        events += match.apply(match.pending()[0].on_timeout)
    dealer, cards, suit = -1, set(), ""
    for ev in (e.to_dict() for e in events):
        if ev["event"] == "dealt":
            dealer = ev["dealer"]
        elif ev["event"] == "trump":
            suit = ev["suit"]
        if "card" in ev:
            cards.add(ev["card"])
        for stack in ev.get("stacks", ()):
            cards.update(stack)
    return dealer, cards, suit


def first_deal_seed() -> bytes:
    """A first deal dealt by a bot (the person, seat 0, does not hold the first trump) without
    the trump ace (which would end the deal at once, S6/S12b)."""
    for i in itertools.count():
        seed = seed_from_int(i)
        dealer, cards, suit = deal_cards(seed)
        if dealer != 0 and "A" + suit not in cards:
            return seed
    raise AssertionError("unreachable")


def play(port: int) -> tuple[dict[str, int], Screen]:
    screen = Screen()
    child = pexpect.spawn(
        "ssh",
        [
            "-F", "/dev/null", "-tt", "-p", str(port),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "SendEnv=LANG", "-o", "BatchMode=yes", "-o", "IdentityFile=/dev/null",
            "ana@127.0.0.1",
        ],
        env={"LANG": "en_GB.UTF-8", "TERM": "dumb", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(30, COLUMNS),
        timeout=STEP,
    )
    child.logfile_read = screen
    seen = {"turned": 0, "kept": 0, "sold": 0, "bids": 0, "offers": 0}
    try:
        child.expect("Hello ana")
        child.sendline("create speculation 3 bots=2 rounds=2")
        child.expect(r"Room \S+ is open")
        patterns = [
            r"> Your turn: turn your top card",
            r"> Your card is on sale: sell or keep\.",
            r"puts \S+ up for auction: bid now",
            r"The match is over",
        ]
        while True:
            i = child.expect(patterns, timeout=STEP)
            if i == 3:
                break
            if i == 0:
                if seen["offers"] == 0:
                    child.sendline("offer bot1 1 1")  # answered by the table's "Offer #n: you offer…" or why not
                    seen["offers"] += 1
                child.sendline("t")
                seen["turned"] += 1
            elif i == 1:
                if "best bid" in child.before and seen["sold"] == 0:
                    child.sendline("sell")
                    seen["sold"] += 1
                else:
                    child.sendline("keep")
                    seen["kept"] += 1
            elif seen["turned"] and seen["bids"] < 2:  # before its first turn it must not buy the trump
                child.sendline("1" if seen["bids"] == 0 else "bid 2")
                seen["bids"] += 1
        child.sendline("quit")
        child.expect("Goodbye")
        child.expect(pexpect.EOF, timeout=STEP)
        return seen, screen
    finally:
        child.close(force=True)


def as_shown(line: str) -> str:
    """A line as the terminal shows it: a backspace moves the cursor left (the SSH line editor
    redraws typed input that way), later characters overwrite; the bell shows nothing."""
    cells: list[str] = []
    pos = 0
    for ch in line.replace("\a", ""):
        if ch == "\b":
            pos = max(0, pos - 1)
        elif pos < len(cells):
            cells[pos] = ch
            pos += 1
        else:
            cells.append(ch)
            pos += 1
    return "".join(cells)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client (ssh) not installed: run make tools")
async def test_human_plays_speculation_on_a_dumb_terminal(tmp_path: Any, monkeypatch: Any) -> None:
    seeds = itertools.chain([first_deal_seed()], (seed_from_int(10_000 + i) for i in itertools.count()))
    monkeypatch.setattr(room_module, "draw_seed", lambda: ExplicitSeed(next(seeds)))
    running = await start_server(tmp_path, turn_seconds=8.0, flip_seconds=8.0, auction_seconds=1.0,
                                 bot_delay=0.0, round_pause=0.0)
    try:
        seen, screen = await asyncio.wait_for(asyncio.to_thread(play, running.ssh_port), 300)
    finally:
        await asyncio.wait_for(running.stop(), 20)
    raw = "".join(screen.parts)
    assert "\x1b" not in raw, "no escape sequence on a dumb terminal"
    text = screen.text
    assert text.replace("\a", "").isascii(), [ch for ch in text if not ch.isascii()][:10]
    for line in text.split("\n"):
        assert display_width(as_shown(line)) <= COLUMNS, line
    assert seen["turned"] >= 1 and seen["offers"] == 1
    assert "offer bot1 1 1" in text and ("you offer 1 chip to bot1" in text or "face-down" in text)
    assert "Speculation | deal 1/2" in text and "trumps" in text
    assert "takes the pool" in text
    assert "Traceback" not in text

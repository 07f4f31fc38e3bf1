"""A person plays a whole classic Président match with real clients, reading the screen.

* in French with the OpenSSH client (``ssh``; the language comes from ``LANG`` sent with
  ``SendEnv``), on a colour terminal;
* in Spanish with a real ``telnet`` client (the language chosen at the first prompt), on a
  40-column terminal.

Each test starts a real server on port 0 (SQLite in a tmp dir), creates a table for 4 with
3 bots, and plays as a person would: it waits for the highlighted line that says it is its
turn, reads its hand on the table drawn above it, and types short commands in its language
(a typo included). It checks what appears on screen: the language, the alerts, the hand,
every line within the terminal width, and the end of the match. The clients are installed by
``make tools``; a test skips, saying so, when its client is missing.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from server.messages.terminal import display_width, strip_ansi
from tests.kits.servers import start_server

pexpect = pytest.importorskip("pexpect")

pytestmark = pytest.mark.e2e

COLUMNS = 100
NARROW = 40
"""The telnet player's terminal: the narrowest the tables are laid out for."""
RANKS = "3456789TJQKA2"


@dataclass
class Words:
    """What the person expects to read and types, in one language."""

    welcome: str
    create: str
    created: str
    typo: str
    suggestion: str
    hand: str
    lead: str
    beat: str
    that_or_nothing: str
    play: str
    pass_: str
    over: str
    quit: str
    goodbye: str
    letters: dict[str, str] = field(default_factory=dict)
    refusals: tuple[str, ...] = ()


FRENCH = Words(
    welcome=r"Bonjour Zoé",
    create="créer président classique 4 bots=3 manches=2",
    created=r"Table \S+ ouverte",
    typo="joeur 7",
    suggestion=r"Vouliez-vous\s+dire\W+jouer",
    hand=r"Votre main \((\d+)\)\s*:(.*)",
    lead=r"▶ À vous\W+vous\s+entamez",
    beat=r"▶ À vous\W+battez\s+([^(]+?)\s+\(\d\s+carte",
    that_or_nothing=r"▶ À vous\W+ça\s+ou\s+rien",
    play="jouer",
    pass_="passe",
    over=r"La partie est terminée",
    quit="quitter",
    goodbye=r"Au revoir",
    letters={"J": "v", "Q": "d", "K": "r", "A": "a"},
    refusals=("pas votre tour", "Trop faible", "ne le permettent pas", "Commande inconnue « jouer"),
)

SPANISH = Words(
    welcome=r"Hola, Ana",
    create="crear presidente clásica 4 bots=3 rondas=2",
    created=r"Mesa \S+ abierta",
    typo="jguar 7",
    suggestion=r"Querías\s+decir\W+jugar",
    hand=r"Tu mano \((\d+)\)\s*:(.*)",
    lead=r"▶ Te toca\W+abres\s+tú",
    beat=r"▶ Te toca\W+supera\s+([^(]+?)\s+\(\d\s+carta",
    that_or_nothing=r"▶ Te toca\W+o\s+eso\s+o\s+nada",
    play="jugar",
    pass_="paso",
    over=r"La partida ha terminado",
    quit="salir",
    goodbye=r"¡Adiós!",
    letters={"J": "j", "Q": "q", "K": "k", "A": "a"},
    refusals=("No es tu turno", "Demasiado baja", "no lo permiten", "Comando desconocido «jugar"),
)

LABELS = {"V": "J", "D": "Q", "R": "K", "J": "J", "Q": "Q", "K": "K", "A": "A", "10": "T"}


def rank_of(label: str) -> str:
    """``"D♥"`` → ``"Q"``; ``"10♣"`` → ``"T"``."""
    body = re.sub(r"[♣♦♥♠cdhs]$", "", label)
    return LABELS.get(body, body)


class Screen:
    """Everything the client printed, ANSI removed, for the checks at the end."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.typed: set[str] = set()
        """Lines the person typed: their echo is as wide as they made it."""

    def write(self, data: str) -> None:
        self.parts.append(data)

    def flush(self) -> None:
        pass

    @property
    def text(self) -> str:
        return strip_ansi("".join(self.parts)).replace("\r", "")


def play_as_a_person(child: Any, w: Words, screen: Screen) -> dict[str, int]:
    """From the lobby to the end of the match; returns what happened, for the asserts."""
    child.expect(w.welcome)
    screen.typed.add(w.create)
    child.sendline(w.create)
    child.expect(w.created)
    seen = {"turns": 0, "plays": 0, "passes": 0, "typo": 0}
    patterns = [w.lead, w.beat, w.that_or_nothing, w.over]
    while True:
        i = child.expect(patterns, timeout=60)
        if i == 3:
            break
        seen["turns"] += 1
        top_text = strip_ansi(child.match.group(1)) if i == 1 else ""
        before = strip_ansi(child.before)
        hands = list(re.finditer(w.hand, before))
        assert hands, f"no hand drawn before the alert:\n{before[-800:]}"
        count, cards = hands[-1].group(1), hands[-1].group(2)
        for more in before[hands[-1].end():].split("\n")[1:]:  # a narrow terminal wraps the hand
            if not more.startswith("  "):
                break
            cards += " " + more
        labels = cards.split()
        assert len(labels) == int(count), (count, labels)
        ranks = [rank_of(lab) for lab in labels]
        if seen["typo"] == 0:
            child.sendline(w.typo)
            child.expect(w.suggestion)
            seen["typo"] += 1
        if i == 0:  # lead the weakest card, typed as its rank only (suits are optional)
            move = w.letters.get(ranks[0], ranks[0].replace("T", "10")).lower()
            child.sendline(move if seen["plays"] % 2 else f"{w.play} {move}")
            seen["plays"] += 1
        elif i == 1:  # beat a single with the weakest stronger single, or pass
            top = [rank_of(x) for x in top_text.split()]
            better = [r for r in ranks if RANKS.index(r) >= RANKS.index(top[0])]
            if len(top) == 1 and better:
                child.sendline(w.letters.get(better[0], better[0].replace("T", "10")).lower())
                seen["plays"] += 1
            else:
                child.sendline(w.pass_ if seen["passes"] % 2 else "p")
                seen["passes"] += 1
        else:  # "that or nothing": pass
            child.sendline(w.pass_)
            seen["passes"] += 1
    child.sendline(w.quit)
    child.expect(w.goodbye)
    child.expect(pexpect.EOF, timeout=60)
    return seen


def check_screen(screen: Screen, w: Words, columns: int = COLUMNS) -> None:
    text = screen.text
    assert "\a" in "".join(screen.parts), "a bell rings on the player's turn"
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if re.search(w.welcome, line)), 0)  # after the login prompts
    for line in lines[start:]:
        line = line.replace("\a", "")
        if line.strip() in screen.typed:
            continue
        assert display_width(line) <= columns, line
    assert "Traceback" not in text
    for refusal in w.refusals:  # every move the person typed was understood and legal
        assert refusal not in text.replace("\u00a0", " "), refusal
    assert re.search(w.over, text)


def run_ssh(port: int) -> tuple[dict[str, int], Screen]:
    screen = Screen()
    child = pexpect.spawn(
        "ssh",
        [
            "-F", "/dev/null", "-tt", "-p", str(port),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
            "-o", "SendEnv=LANG", "-o", "BatchMode=yes", "-o", "IdentityFile=/dev/null",
            "Zoé@127.0.0.1",
        ],
        env={"LANG": "fr_FR.UTF-8", "TERM": "xterm-256color", "PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, COLUMNS),
        timeout=60,
    )
    child.logfile_read = screen
    try:
        return play_as_a_person(child, FRENCH, screen), screen
    finally:
        child.close(force=True)


def run_telnet(port: int) -> tuple[dict[str, int], Screen]:
    screen = Screen()
    child = pexpect.spawn(
        "telnet",
        ["127.0.0.1", str(port)],
        env={"TERM": "xterm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, NARROW),
        timeout=60,
    )
    child.logfile_read = screen
    try:
        child.expect("Idioma")
        child.sendline("3")
        child.expect("Nombre")
        child.sendline("Ana")
        return play_as_a_person(child, SPANISH, screen), screen
    finally:
        child.close(force=True)


async def _play(tmp_path: Any, runner: Any, port_of: str) -> tuple[dict[str, int], Screen, float]:
    # the person must never be overtaken by the clock (a late move would be refused, and the
    # screen is checked for refusals): 60 s a decision, where a move takes a few milliseconds
    running = await start_server(tmp_path, turn_seconds=60.0, bot_delay=0.0, round_pause=0.0)
    try:
        started = time.monotonic()
        seen, screen = await asyncio.wait_for(asyncio.to_thread(runner, getattr(running, port_of)), 300)
        return seen, screen, time.monotonic() - started
    finally:
        await asyncio.wait_for(running.stop(), 20)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH client (ssh) not installed: run make tools")
async def test_human_plays_a_classic_match_in_french_over_ssh(tmp_path):
    seen, screen, _ = await _play(tmp_path, run_ssh, "ssh_port")
    check_screen(screen, FRENCH)
    assert seen["turns"] >= 5 and seen["plays"] >= 2 and seen["typo"] == 1
    text = screen.text
    assert "Président · classique" in text
    assert "Fin de la manche 1" in text and "Fin de la manche 2" in text
    assert "Zoé" in text and "\x1b[" in "".join(screen.parts), "xterm gets colours"


@pytest.mark.skipif(shutil.which("telnet") is None, reason="telnet client not installed: run make tools")
async def test_human_plays_a_classic_match_in_spanish_over_telnet(tmp_path):
    seen, screen, _ = await _play(tmp_path, run_telnet, "telnet_port")
    check_screen(screen, SPANISH, NARROW)  # telnet tells the server its 40 columns (NAWS)
    assert seen["turns"] >= 5 and seen["plays"] >= 2 and seen["typo"] == 1
    text = screen.text
    assert "Presidente · clásica" in text
    assert "Fin de la ronda 1" in text and "Fin de la ronda 2" in text

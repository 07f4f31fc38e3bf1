"""``donne load --gmcp``: text players that decide from GMCP alone play whole matches against a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from clients.gmcpbot import choose, choose_from_text

ROOT = Path(__file__).resolve().parents[3]


def test_the_weakest_legal_play_or_a_pass_from_the_packages() -> None:
    table = {"you": 1, "turn": 1, "phase": "play", "legal": {"plays": [["K", 2], ["9", 2], ["9", 3]], "pass": False}}
    assert choose(table, ["9c", "Kd", "9h", "Ks", "2h"]) == "play 9c 9h"
    table["legal"] = {"plays": [["9", 2]], "pass": True}
    assert choose(table, ["9c", "9h"]) == "pass"  # a pass whenever the table allows one (RULES P8)
    table["turn"] = 2
    assert choose(table, ["3c"]) is None  # not this seat's move


def test_the_same_choice_from_the_text_prompt() -> None:
    assert choose_from_text("> Your turn: beat the play or pass. (60 s)", ["3c"]) == "pass"
    assert choose_from_text("> Your turn: you lead (for example 3). (60 s)", ["Kd", "10h", "4c", "2s"]) == "play 4c"


def _load(mode: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", "from server.start.cli import main; main()", "load", mode,
                          "--clients", "8", "--tables", "2", "--duration", "6"],
                         cwd=ROOT, capture_output=True, text=True, timeout=200, check=True)
    figures: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    print(figures)
    return figures


def test_gmcp_load_plays_and_prints_its_figures() -> None:
    figures = _load("--gmcp")
    assert figures["mode"] == "text+gmcp"
    assert figures["clients"] == figures["connected_at_end"] == 8
    assert int(figures["actions"]) > 20 and int(figures["card_moves"]) > 20  # type: ignore[call-overload]
    assert float(figures["rounds"]) >= 1  # type: ignore[arg-type]
    assert int(figures["gmcp_packages"]) > int(figures["actions"])  # type: ignore[call-overload]
    assert figures["errors"] == figures["disconnects"] == 0
    assert figures["server_cpu_ms_per_action"] is not None


def test_text_load_plays_the_same_way_without_gmcp() -> None:
    figures = _load("--text")
    assert figures["mode"] == "text"
    assert figures["clients"] == figures["connected_at_end"] == 8
    assert int(figures["actions"]) > 20 and float(figures["rounds"]) >= 1  # type: ignore[call-overload,arg-type]
    assert figures["gmcp_packages"] == 0  # GMCP refused: none sent
    assert figures["errors"] == figures["disconnects"] == 0

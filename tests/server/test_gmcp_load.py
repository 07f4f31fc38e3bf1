"""``donne load --gmcp``: text players that decide from GMCP alone play whole matches against a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from server.clients.gmcpbot import choose

ROOT = Path(__file__).resolve().parents[2]


def test_the_weakest_legal_play_or_a_pass_from_the_packages() -> None:
    table = {"you": 1, "turn": 1, "phase": "play", "legal": {"plays": [["K", 2], ["9", 2], ["9", 3]], "pass": True}}
    assert choose(table, ["9c", "Kd", "9h", "Ks", "2h"]) == "play 9c 9h"
    table["legal"] = {"plays": [], "pass": True}
    assert choose(table, ["3c"]) == "pass"
    table["turn"] = 2
    assert choose(table, ["3c"]) is None  # not this seat's move


def test_gmcp_load_plays_and_prints_its_figures() -> None:
    out = subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "load", "--gmcp", "--clients", "8", "--tables", "2",
                          "--duration", "6"], cwd=ROOT, capture_output=True, text=True, timeout=200, check=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    print(figures)
    assert figures["mode"] == "text+gmcp"
    assert figures["clients"] == figures["connected_at_end"] == 8
    assert figures["actions"] > 20 and figures["card_moves"] > 20 and figures["rounds"] >= 1
    assert figures["gmcp_packages"] > figures["actions"]
    assert figures["errors"] == figures["disconnects"] == 0
    assert figures["server_cpu_ms_per_action"] is not None

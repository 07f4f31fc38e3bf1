"""``donne load``: a short run completes and prints one JSON object with the figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.clients.load import LoadOptions, run_load

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"clients", "actions_per_s", "p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "disconnects",
        "server_rss_mb", "server_cpu_s"}


def test_only_loopback_targets() -> None:
    with pytest.raises(SystemExit):
        import asyncio

        asyncio.run(run_load(LoadOptions(host="10.0.0.1", port=2323)))


@pytest.mark.e2e
def test_donne_load_starts_its_server_and_prints_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server.cli", "load", "--clients", "8", "--tables", "2", "--duration", "1"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert set(result) >= KEYS
    assert result["clients"] == 8 and result["tables"] == 2
    assert result["actions_per_s"] > 0 and result["errors"] == 0 and result["disconnects"] == 0
    assert 0 < result["p50_ms"] <= result["p95_ms"] <= result["p99_ms"] <= result["max_ms"]
    assert result["server_rss_mb"] > 0 and result["server_cpu_s"] > 0


@pytest.mark.e2e
async def test_load_against_a_running_server_over_ssh(server: Any) -> None:
    result = await run_load(LoadOptions(clients=3, tables=1, duration=1.5, port=server.ssh_port, transport="ssh"))
    assert result["clients"] == 3 and result["actions"] > 0 and result["errors"] == 0
    assert result["server_rss_mb"] is None  # not our process: nothing read from /proc

"""``donne``'s command line (server/start/cli.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_a_reader_that_went_away_ends_the_command_quietly() -> None:
    """``donne simulate | head -c0``: the pipe's reader is gone before anything is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "server.start.cli", "simulate", "--rounds", "1"], cwd=ROOT,
                              stdout=write, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)
    assert done.returncode == 1
    assert b"Traceback" not in done.stderr and b"BrokenPipeError" not in done.stderr, done.stderr.decode()

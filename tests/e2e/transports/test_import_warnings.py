"""Starting the server prints no library warning: asyncssh's DSA type hints made cryptography warn
five times at every `make serve` (donne never offers DSA)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_importing_the_server_prints_no_deprecation_warning() -> None:
    done = subprocess.run([sys.executable, "-W", "default", "-c", "import server.start.cli, server.start.app, server.transports.ssh"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr


def test_dsa_is_never_offered() -> None:
    from server.config import load_config
    from server.transports.ssh import algorithms

    offered = algorithms(load_config())
    assert not any("ssh-dss" in alg for algs in offered.values() for alg in algs)

"""Attacks on the SSH front door, shared by the tests and the memory measurement below.

    python -m tests.kits.ssh_attack [--channels 300]

starts a real server in a child process twice — once with the limits of
before (``ssh_max_sessions`` 1000, asyncssh's 2 MB window, no byte budget
that bites, channels never closed) and once with the defaults — opens
``--channels`` session channels that never ask for a shell or a command and
fills each one's window, then prints the server's resident memory (RSS)
before and after each attack. Nothing is asserted: it prints.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import asyncssh
from asyncssh.channel import SSHClientChannel

ROOT = Path(__file__).resolve().parents[2]


async def bare_session(conn: asyncssh.SSHClientConnection) -> SSHClientChannel[bytes]:
    """A session channel opened without any pty, env, shell or exec request (asyncssh has no API for it)."""
    chan: SSHClientChannel[bytes] = SSHClientChannel(conn, asyncio.get_running_loop(), "strict", None,
                                                     "strict", 2**21, 32768)
    await chan._open(b"session")
    chan._session = asyncssh.SSHClientSession()
    chan._session.connection_made(chan)
    return chan


def send_window(chan: SSHClientChannel[bytes]) -> int:
    """How much the server lets this client send before it reads (its receive window)."""
    return int(chan._send_window)


async def fill_bare_sessions(port: int, channels: int, *, user: str = "flood") -> dict[str, int]:
    """Open ``channels`` bare sessions on one connection and fill each one's window."""
    opened = refused = sent = 0
    async with asyncssh.connect("127.0.0.1", port, username=user, known_hosts=None, client_keys=None,
                                agent_path=None) as conn:
        chans = []
        for _ in range(channels):
            try:
                chan = await bare_session(conn)
            except asyncssh.ChannelOpenError:
                refused += 1
                continue
            opened += 1
            window = send_window(chan)
            chan.write(b"x" * window)
            sent += window
            chans.append(chan)
        await asyncio.sleep(1.0)  # let the server take it all in
    return {"opened": opened, "refused": refused, "sent": sent}


def spawn_server(data_dir: Path, **config: Any) -> tuple[subprocess.Popen[str], int]:
    """``donne serve`` in a child process on free ports; returns it and its SSH port."""
    sections: dict[str, dict[str, Any]] = {"ssh": {}, "limits": {}}
    for key, value in config.items():
        sections["ssh" if key.startswith("ssh_") else "limits"][key] = value
    toml = data_dir / "attack.toml"
    lines = []
    for section, values in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {v!r}" for k, v in values.items()]
    toml.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.start.cli", "serve", "--config", str(toml), "--data-dir", str(data_dir),
         "--ssh-port", "0", "--telnet-port", "0", "--web-port", "0"],
        cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(r"listening: telnet \S+:\d+, ssh \S+:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise RuntimeError("the server did not start")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def measure(label: str, channels: int, **config: Any) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = spawn_server(Path(tmp), **config)
        try:
            await asyncio.sleep(0.5)
            before = rss_mb(proc.pid)
            result = await fill_bare_sessions(port, channels)
            after = rss_mb(proc.pid)
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
            if proc.poll() is None:
                proc.kill()
    return {"limits": label, **result, "rss_before_mb": round(before, 1), "rss_after_mb": round(after, 1),
            "rss_growth_mb": round(after - before, 1)}


BEFORE = {"ssh_max_sessions": 1000, "ssh_window": 2097152, "input_burst": 10**10, "login_timeout": 600.0}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--channels", type=int, default=300)
    args = p.parse_args()
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    for label, config in (("before", BEFORE), ("after (defaults)", {})):
        print(asyncio.run(measure(label, args.channels, **config)), flush=True)


if __name__ == "__main__":
    main()

"""The real ``donne serve`` in a subprocess, on free loopback ports, with a temporary data folder.

    async with ServerProcess() as srv:
        client = await Client.connect_tcp("127.0.0.1", srv.telnet_port)

:class:`ServerProcess` writes a configuration file (ports ``0``, the data
folder, the limits a load run lifts: :data:`LOAD_LIMITS`), starts
``python -m server.start.cli serve --config FILE --ready-file PATH`` (what the
``donne serve`` command runs) and waits for the ready file, in which the
server writes ``{"telnet_port", "ssh_port", "pid"}`` once it listens. It
reads the server's memory and CPU from ``/proc`` and stops it with SIGTERM
(a clean shutdown), SIGKILL only if that takes too long. With ``profile`` the
server runs under ``cProfile`` and its statistics land in that file when it
stops. Nothing of the server is imported here: it is reached as any user
reaches it, through its command line and its ports.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clients.figures import proc_cpu_s, proc_rss_mb

ROOT = Path(__file__).resolve().parents[1]

LOAD_LIMITS = """\
# written by donne load: one address opens every connection, bots play at once
[limits]
max_connections_per_address = 100000
max_rooms = 100000
rooms_per_account = 0
rooms_per_address = 0
guest_room_share = 1.0
commands_per_second = 1000.0
command_burst = 1000
outbound_queue = 100000
idle_timeout = 3600
login_timeout = 120

[timers]
round_pause = 0
bot_delay = 0
entropy_window = 0
turn_seconds = 60
close_after_over = 5
"""
"""The sections a load run adds to the server's configuration (any section but ``[server]``)."""


def server_config(data_dir: Path, limits: str = LOAD_LIMITS, log_level: str = "WARNING",
                  server_keys: tuple[str, ...] = ()) -> str:
    """The TOML configuration of a server on free loopback ports with its data in ``data_dir``;
    ``server_keys``: more ``KEY = VALUE`` lines of its ``[server]`` section."""
    return (
        "[server]\n"
        'host = "127.0.0.1"\n'
        "ssh_port = 0\n"
        "telnet_port = 0\n"
        + ("" if any(line.startswith("web_port") for line in server_keys) else "web_port = 0\n") +
        f"data_dir = {json.dumps(str(data_dir))}\n"  # a JSON string is a valid TOML basic string
        f"log_level = {json.dumps(log_level)}\n" + "".join(f"{line}\n" for line in server_keys) + "\n" + limits
    )


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A loopback port free now, taken below the kernel's ephemeral range: the outgoing connections of
    other programs, which draw from that range, cannot take it before the server binds it. Another
    program choosing the very same port in that moment remains possible; callers that start a server on
    it retry on ``EADDRINUSE``."""
    low, _ = _ephemeral_range()
    ports = list(range(max(1024, low - 12000), low))
    random.SystemRandom().shuffle(ports)
    for port in ports[:200]:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:  # everything below the range taken: let the kernel choose
        s.bind(("127.0.0.1", 0))
        chosen: int = s.getsockname()[1]
        return chosen


class ServerFailed(RuntimeError):
    """``donne serve`` exited, or wrote no ready file in time (the message ends with its log)."""


class ServerProcess:
    """``donne serve`` in a subprocess; :attr:`telnet_port`, :attr:`ssh_port`, :attr:`pid` once started."""

    def __init__(self, limits: str = LOAD_LIMITS, *, profile: str | None = None,
                 startup_timeout: float = 30.0, log_level: str = "WARNING",
                 server_keys: tuple[str, ...] = ()) -> None:
        self.limits = limits
        self.server_keys = server_keys
        self.profile = profile
        self.startup_timeout = startup_timeout
        self.log_level = log_level
        self.telnet_port = 0
        self.ssh_port = 0
        self.server_pid = 0
        self.metrics_port = 0  # the server's metrics endpoint (clients/scrape.py reads it)
        self.proc: subprocess.Popen[bytes] | None = None
        self.data_dir: Path | None = None
        self.log_path: Path | None = None
        self.ready_path: Path | None = None
        self._tmp: str | None = None

    @property
    def pid(self) -> int:
        """The server's process id (as its ready file says)."""
        if self.server_pid:
            return self.server_pid
        assert self.proc is not None, "not started"
        return self.proc.pid

    def command(self, config: Path, ready: Path) -> list[str]:
        serve = ["-m", "server.start.cli", "serve", "--config", str(config), "--ready-file", str(ready)]
        if self.profile:
            return [sys.executable, "-m", "cProfile", "-o", str(Path(self.profile).resolve()), *serve]
        return [sys.executable, *serve]

    async def start(self) -> ServerProcess:
        self._tmp = tempfile.mkdtemp(prefix="donne-serve-")
        tmp = Path(self._tmp)
        self.data_dir = tmp / "data"
        config = tmp / "serve.toml"
        self.metrics_port = free_port()
        config.write_text(server_config(self.data_dir, self.limits + f"\n[metrics]\nport = {self.metrics_port}\n",
                                        self.log_level, self.server_keys))
        self.ready_path = tmp / "ready.json"
        self.log_path = tmp / "server.log"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                                             if p)}
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.command(config, self.ready_path), stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp, env=env,
                                         start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        try:
            while time.monotonic() < deadline:
                if self._read_ready(self.ready_path):
                    return self
                if self.proc.poll() is not None:
                    raise ServerFailed(f"donne serve exited with {self.proc.returncode}: {self.log_tail()}")
                await asyncio.sleep(0.05)
            raise ServerFailed(f"donne serve wrote no ready file in {self.startup_timeout}s: {self.log_tail()}")
        except BaseException:
            await self.stop()
            raise

    def _read_ready(self, ready: Path) -> bool:
        try:
            info = json.loads(ready.read_text())
            self.telnet_port = int(info["telnet_port"])
            self.ssh_port = int(info["ssh_port"])
            self.server_pid = int(info["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return False  # not written yet (the server writes it whole, by a rename)
        return True

    def log_tail(self, n: int = 2000) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")[-n:]

    def rss_mb(self) -> float | None:
        return proc_rss_mb(self.pid)

    def cpu_s(self) -> float | None:
        return proc_cpu_s(self.pid)

    async def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, wait (``timeout``), SIGKILL if needed; remove the temporary folder. Idempotent.

        Returns the server's exit status (``None`` when it was not running).
        """
        proc, self.proc = self.proc, None
        code: int | None = None
        if proc is not None:
            if proc.poll() is None:
                proc.terminate()
                deadline = time.monotonic() + timeout
                while proc.poll() is None and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            code = proc.returncode
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        return code

    async def __aenter__(self) -> ServerProcess:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


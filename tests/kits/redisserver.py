"""A private redis-server for the tests: on a free loopback port, nothing written to disk.

``redis-server --port P --bind 127.0.0.1 --save "" --appendonly no`` in a subprocess (it runs as
root without complaint), ready when ``PING`` answers; stopped by its pid. :meth:`RedisServer.restart`
stops it and starts it again on the same port, empty (the cluster tests' "Redis restarted").
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from clients.serverproc import free_port


def find_redis() -> str | None:
    return shutil.which("redis-server")


class RedisServer:
    def __init__(self, binary: str) -> None:
        self.binary = binary
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="donne-redis-"))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--dir", str(self.folder), "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            if self.ping():
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer")

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def command(self, *words: str) -> bytes:
        """One command in the inline protocol (``FLUSHALL``…): the first line of the answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            s.sendall((" ".join(words) + "\r\n").encode())
            return s.recv(4096)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

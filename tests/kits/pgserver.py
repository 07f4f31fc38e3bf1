"""A private PostgreSQL for the tests: its own cluster in a temporary folder, on a free loopback port.

``initdb`` and ``postgres`` refuse to run as root, so as root they run as the
``postgres`` user (``runuser``), in a folder that user owns. The binaries come
from ``pg_config --bindir`` or ``/usr/lib/postgresql/*/bin``. One cluster per
test session (about a second to start), a fresh database per test, made from
a template that already has the schema (``CREATE DATABASE … TEMPLATE``),
made a few ahead in a thread while the tests run.
The cluster runs with ``fsync=off``: the tests kill clients, never this
server, and PostgreSQL still rolls back every transaction a dead client left.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from clients.serverproc import free_port


def find_bindir() -> Path | None:
    candidates: list[Path] = []
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "pg_ctl").is_file():
            return bindir
    return None


class PgServer:
    """Start with :meth:`start`, stop with :meth:`stop` (by its pid file, through pg_ctl)."""

    USER = "donne"

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.folder = Path(tempfile.mkdtemp(prefix="donne-pg-"))
        self.data = self.folder / "pg"
        self.port = free_port()
        self._names = itertools.count(1)
        self._file_copy: bool | None = None
        self._lock = threading.Lock()  # names from two threads
        self._stopping = threading.Event()
        self._filler: threading.Thread | None = None
        self._template = ""
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        out = subprocess.run([*self._as, *args], capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {out.stdout}{out.stderr}")

    def start(self) -> None:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.USER,
                  "-E", "UTF8", "--no-sync", "--locale=C")
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options,
                  "-l", str(self.folder / "log"), "-w", "-t", "30", "start")

    def prefetch(self, template: str, ahead: int = 3) -> None:
        """Create databases from ``template`` ahead, in a thread, while the tests run (the other core)."""
        self._ready: queue.Queue[str] = queue.Queue(maxsize=ahead)
        self._template = template

        def fill() -> None:
            while not self._stopping.is_set():
                try:
                    url = self._create(template)
                except Exception:
                    return  # the server is going away: take() creates its own
                while not self._stopping.is_set():
                    with contextlib.suppress(queue.Full):
                        self._ready.put(url, timeout=0.2)
                        break

        self._filler = threading.Thread(target=fill, name="pg-prefetch", daemon=True)
        self._filler.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._filler is not None:
            self._filler.join(10)
        with contextlib.suppress(Exception):
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as conn:
            conn.execute(statement.encode())

    def new_database(self, template: str = "template1") -> str:
        """A fresh database; its URL (one made ahead when :meth:`prefetch` runs for that template)."""
        if self._filler is not None and template == self._template and self._filler.is_alive():
            with contextlib.suppress(queue.Empty):
                return self._ready.get(timeout=30)
        return self._create(template)

    def _create(self, template: str) -> str:
        """FILE_COPY (PostgreSQL 15+) copies a small template faster."""
        import psycopg

        with self._lock:
            name = f"t{os.getpid()}_{next(self._names)}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            if self._file_copy is None:
                self._file_copy = conn.info.server_version >= 150000
            strategy = " STRATEGY FILE_COPY" if self._file_copy else ""
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"{strategy}'.encode())
        return self.url(name)

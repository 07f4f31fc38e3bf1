"""Shared test configuration.

Temporary folders in memory: when ``TMPDIR`` is not set and the machine has a
roomy ``/dev/shm`` (tmpfs), every temporary folder of the run is made there:
pytest's ``tmp_path`` (the SQLite data folders), the private PostgreSQL and
Redis (tests/kits/pgserver.py, redisserver.py), and those of the processes
the tests start. SQLite runs with ``synchronous=FULL`` and PostgreSQL makes a
database of about 9 MB per test: on a disk those writes took most of the run.
What the tests prove does not change: a process killed with ``kill -9`` leaves
the same files on tmpfs as on a disk (the kernel keeps what was written); only
a power cut, which no test makes, would tell them apart. Set ``TMPDIR`` to run
on a disk instead.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

MEMORY = "/dev/shm"
ROOM = 4 << 30
"""A full run holds about 1.5 GB there at its peak (the PostgreSQL databases)."""


def _memory_tmp() -> str | None:
    if os.environ.get("TMPDIR") or not os.path.isdir(MEMORY) or not os.access(MEMORY, os.W_OK):
        return None
    with contextlib.suppress(OSError):
        stat = os.statvfs(MEMORY)
        if stat.f_bavail * stat.f_frsize >= ROOM:
            return MEMORY
    return None


_where = _memory_tmp()
if _where is not None:
    os.environ["TMPDIR"] = _where
    tempfile.tempdir = _where


# The fixtures every folder's tests use: a real server on port 0 (tests/kits/servers.py) and
# storage on both back-ends (tests/kits/storefixtures.py).
from tests.kits.servers import server  # noqa: E402, F401
from tests.kits.storefixtures import postgres, where  # noqa: E402, F401

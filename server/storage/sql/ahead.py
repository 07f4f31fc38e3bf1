"""Tables' steps written ahead of the database: a table goes on without waiting for its commit.

A step that moves no chip is most of a table's writes (a play, a pass). Its row is
appended to a file beside the database (``donne.sqlite3-ahead.N``: one line a step,
one ``write`` each) and the same row handed to the database thread, which writes it
with the other tables' of the moment; the table's messages leave as soon as the line
is written, without waiting for that commit (two or three turns of a busy event loop
and the database thread's turn for the GIL). The line is in the kernel's cache when
``append`` returns: a crash or ``kill -9`` of the server loses none of it, as for a
relaxed commit; a power cut may lose a table's last moves, never a chip (chip
movements still wait for their own fsync, with their step in the same transaction).

At start, before anything reads the tables, :func:`replay` puts into the database
every line it does not hold yet (a table at that very sequence number), in order,
and the files are removed. While the server runs, a file that has grown past
:data:`ROTATE_BYTES` is closed and a new one opened; the old one is removed by the
database thread after every row before it is committed (its jobs run in order).
A clean stop removes them all, once the database thread has written everything.

A line: ``table_id TAB seq TAB count TAB row`` and a newline, ``row`` being the
step's JSON as ``table_log`` stores it (JSON escapes every control character: a
row never holds a tab or a newline; a table id that does is written the usual
way). A line torn by a power cut (the last one of a file) is skipped at replay.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

log = logging.getLogger("donne.storage")

ROTATE_BYTES = 8 << 20
"""A file this big is closed and a new one begun (the old one is removed once written)."""

_NAME = re.compile(r"-ahead\.(\d+)$")


def files(db: Path) -> list[Path]:
    """The ahead files of the database ``db``, oldest first."""
    found = []
    for path in db.parent.glob(db.name + "-ahead.*"):
        m = _NAME.search(path.name)
        if m is not None:
            found.append((int(m.group(1)), path))
    return [path for _, path in sorted(found)]


def records(path: Path) -> Iterator[tuple[str, int, int, str]]:
    """The steps of one file, in order: (table id, sequence number, entries, row)."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines[-1]:  # no newline after it: torn by a power cut, and its step never left the server
        log.warning("%s: a torn last line, skipped (%d bytes)", path.name, len(lines[-1]))
    for line in lines[:-1]:
        if not line:
            continue
        try:
            table_id, seq, count, row = line.decode("utf-8").split("\t", 3)
            json.loads(row)
            yield table_id, int(seq), int(count), row
        except ValueError:  # a write cut short (a full disk), ended by a newline of its own
            log.warning("%s: a line that is no step, skipped (%d bytes)", path.name, len(line))


def fits(table_id: str) -> bool:
    """Whether a table's steps can go ahead (its id holds no tab or line break)."""
    return "\t" not in table_id and "\n" not in table_id and "\r" not in table_id


class AheadLog:
    """The file this server appends tables' steps to (the event loop's thread alone writes it)."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._fd: int | None = None
        self._path: Path | None = None
        self._number = 0
        self._size = 0

    def open(self) -> None:
        """Begin a new file (after :func:`replay` emptied the folder of old ones)."""
        existing = files(self.db)
        last = _NAME.search(existing[-1].name) if existing else None
        self._number = int(last.group(1)) if last else 0
        self._begin()

    def _begin(self) -> None:
        self._number += 1
        self._path = self.db.parent / f"{self.db.name}-ahead.{self._number}"
        self._fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)
        self._size = 0

    def append(self, table_id: str, seq: int, count: int, row: str) -> Path | None:
        """Write one step; returns the file just closed when this one made it full (to remove once
        its rows are committed), else None. Raises OSError when the line could not be written whole."""
        if self._fd is None:
            raise OSError("the ahead log is closed")
        line = f"{table_id}\t{seq}\t{count}\t{row}\n".encode()
        written = os.write(self._fd, line)
        if written != len(line):  # a full disk: end the torn line, and let the caller stop using the file
            os.write(self._fd, b"\n")
            raise OSError(f"{self._path}: {written} of {len(line)} bytes written")
        self._size += written
        if self._size < ROTATE_BYTES:
            return None
        full = self._path
        os.close(self._fd)
        self._begin()
        return full

    def close(self) -> list[Path]:
        """Stop writing; the files to remove once the database thread has written everything."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        return files(self.db)


def remove(paths: Sequence[Path]) -> None:
    """Ahead files whose rows are all committed (in the database thread, after them)."""
    for path in paths:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("%s could not be removed: %s", path, exc)

"""Files only their owner reads, written without a predictable name (``donne backup``, ``donne export``).

A backup holds password hashes; an export of a Speculation deal holds its seed. Both are written to
a temporary file made in the target's own folder with ``O_CREAT | O_EXCL`` and mode 0600 under a
random name (:func:`tempfile.mkstemp`), then renamed over the target: nobody else can read it,
nobody can have placed a file or a link there first (in a folder others may write to, a fixed
``FILE.partial`` could be replaced by a symlink between its removal and its opening), and the
target is never seen half written.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def private_temp(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A new, empty, private (0600) file beside ``target``, removed unless the caller renames it
    (:func:`publish`) inside the ``with``."""
    dst = Path(target)
    fd, name = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.", suffix=".partial")
    os.close(fd)
    path = Path(name)
    try:
        yield path
    finally:
        for leftover in (path, path.with_name(path.name + "-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def publish(temp: Path, target: str | os.PathLike[str]) -> None:
    """``temp`` (made by :func:`private_temp`), made 0600 again and renamed to ``target`` at once."""
    os.chmod(temp, 0o600)
    os.replace(temp, target)


def write_private(target: str | os.PathLike[str], text: str) -> None:
    """``text`` in UTF-8 as the whole of ``target``, readable by its owner only (0600)."""
    with private_temp(target) as temp:
        with open(temp, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        publish(temp, target)

"""``donne backup --to FILE``: a consistent copy of the SQLite database, even while the server runs.

SQLite's online backup API (:meth:`sqlite3.Connection.backup`) copies the whole database in ONE
step, inside one read transaction: the copy is the database as it was at one moment, between two
commits — a round being settled is in it either not at all or entirely, never half paid. The server
is not stopped and not slowed beyond that read (WAL: writers go on while it reads).

The copy is written next to FILE in a private file (0600: it holds password hashes) created
exclusively under a random name (:mod:`server.storage.private`), made a single self-contained file
(no ``-wal``), checked (``PRAGMA integrity_check`` and the full audit of the ledger, RULES
invariant 4), then renamed to FILE, so FILE is never half written::

    donne backup --data-dir data --to /var/backups/donne/donne-2025-01-31.sqlite3

It prints a JSON report (``ok``, ``file``, ``bytes``, ``integrity``, ``audit``) and exits 0 when the
copy is sound and its ledger holds, 1 when the copy was made but its audit or integrity check fails
(the file is kept: it is what the database held), 2 on a refusal (no database, FILE exists without
``--force``, a PostgreSQL URL: use ``pg_dump``). Restoring is in ``docs/operators.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from server.protocol import JSONValue
from server.storage.api import ToolRefused
from server.storage.private import private_temp, publish
from server.storage.sqlite import audit_connection, db_path, private_umask


def backup(source: str | os.PathLike[str], target: str | os.PathLike[str], *, force: bool = False) -> dict[str, JSONValue]:
    """Copy the database of ``source`` (a data folder or the file) to ``target``; the report."""
    from server.storage import is_postgres_url

    if is_postgres_url(str(source)):
        raise ToolRefused("a PostgreSQL database is backed up with its own tools: pg_dump (docs/operators.md)")
    src_file = db_path(source)
    if not src_file.exists():
        raise ToolRefused(f"no database at {src_file}")
    dst = Path(target)
    if dst.exists() and not force:
        raise ToolRefused(f"{dst} exists; choose another file or pass --force")
    if dst.resolve() == src_file.resolve():
        raise ToolRefused("the backup cannot replace the database itself")
    dst.parent.mkdir(parents=True, exist_ok=True)
    with private_temp(dst) as partial:  # 0600, created exclusively under a random name beside FILE
        src = sqlite3.connect(f"{src_file.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
        try:
            src.execute("PRAGMA busy_timeout=10000")
            with private_umask():  # (SQLite's own journal beside it)
                out = sqlite3.connect(str(partial), isolation_level=None)
            try:
                src.backup(out)  # pages=-1: the whole database in one step, one read transaction
                out.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                integrity = str(out.execute("PRAGMA integrity_check").fetchone()[0])
                out.row_factory = sqlite3.Row
                out.execute("BEGIN")
                try:
                    audit = audit_connection(out)
                finally:
                    out.execute("ROLLBACK")
            finally:
                out.close()
        finally:
            src.close()
        publish(partial, dst)
    return {
        "ok": integrity == "ok" and audit.ok,
        "file": str(dst),
        "bytes": dst.stat().st_size,
        "integrity": integrity,
        "audit": asdict(audit),
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", default="data",
                        help="the server's data folder, or the SQLite file itself (default: data)")
    parser.add_argument("--to", dest="target", required=True, metavar="FILE", help="the backup file to write")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")


def run(args: argparse.Namespace) -> int:
    try:
        report = backup(args.data_dir, args.target, force=args.force)
    except (ToolRefused, sqlite3.Error, OSError) as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="donne backup", description=(__doc__ or "").splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``donne audit``: prove that no chip was created or lost (RULES invariant 4).

Opens the store read-only (safe beside a running server: the audit is one
read transaction and nothing is recovered or changed), prints the figures as
JSON — with the tables set aside (and why) and the unfinished ones — and
exits 0 when the ledger holds, 1 otherwise, 2 when there is nothing to read::

    donne audit --data-dir data
    donne audit --url postgresql://donne@db.example/donne
    python -m server.storage.cli --data-dir data
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path

from server.storage.api import Audit, StorageError
from server.storage.sql.audit import STUCK_AFTER
from server.storage.sqlite import audit_connection, db_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--data-dir",
        default="data",
        help="the server's data folder, or the SQLite file itself (default: data)",
    )
    where.add_argument("--url", help="a postgresql:// URL instead of a data folder")
    parser.add_argument("--stuck-after", type=float, default=STUCK_AFTER, metavar="SECONDS",
                        help=f"report a round open for longer than this (default: {STUCK_AFTER:g}; 0: none)")


@contextlib.contextmanager
def read_only_sqlite(path: str | Path) -> Iterator[sqlite3.Connection]:
    """A data folder's (or a file's) SQLite database opened read-only, inside one transaction that
    is rolled back at the end, beside a running server (the file must exist)."""
    file = db_path(path)
    if not file.exists():
        raise FileNotFoundError(f"no database at {file}")
    conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True, timeout=10.0)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA busy_timeout=10000")
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def audit_file(path: str | Path, stuck_after: float | None = None) -> Audit:
    """The audit of a SQLite database file, read-only (the file must exist)."""
    with read_only_sqlite(path) as conn:
        return audit_connection(conn, stuck_after)


def audit_location(where: str | Path, stuck_after: float | None = None) -> Audit:
    """The audit of a data folder, a SQLite file or a ``postgresql://`` URL; ``stuck_after``: an
    open round older than that many seconds is a problem (``Audit.rounds_stuck``)."""
    from server.storage import is_postgres_url

    if is_postgres_url(str(where)):
        from server.storage.postgres import audit_url

        return audit_url(str(where), stuck_after)
    return audit_file(where, stuck_after)


def run(args: argparse.Namespace) -> int:
    where = args.url or args.data_dir
    try:
        result = audit_location(where, args.stuck_after or None)
    except (FileNotFoundError, sqlite3.Error, StorageError) as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), file=sys.stderr)
        return 2
    print(json.dumps(asdict(result), indent=2))
    return 0 if result.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="donne audit", description=(__doc__ or "").splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``donne migrate``: copy a community from one store to another, and prove no chip was lost.

::

    donne migrate --from sqlite:data/donne.sqlite3 --to postgresql://donne@db/donne
    donne migrate --from postgresql://donne@db/donne --to sqlite:backup/donne.sqlite3

Copies every account (with its password hash and role), SSH key, ledger entry, escrow
(rounds and stakes), hold, round receipt, history record, table (with its
log), the counters, the registration window, bans, mutes, the moderation
log, admins' chip entries, ignore lists and notes, rows and ids as they are, in
ONE transaction on the target. The source must not be in use (its server
stopped: the same lock a server takes) and its audit must hold; the target
must be empty (a fresh database or file; its schema is created). Then both
sides are audited: the command prints both audits as JSON and exits 0 only
when both hold and their totals (balances, escrow, holds, granted, retired)
are equal; 1 otherwise (the target transaction is rolled back when the copy
itself fails), 2 on a refusal (non-empty target, source in use, ...).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from typing import IO, TYPE_CHECKING

from server.storage.api import Audit, StorageError, ToolRefused
from server.storage.settings import StoreSettings
from server.storage.sql import audit as _audit
from server.storage.sql.tx import Tx

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow

# Tables in an order that satisfies their foreign keys, with the columns both schemas share.
TABLES: list[tuple[str, tuple[str, ...]]] = [
    ("accounts", ("id", "name", "key", "skeleton", "kind", "live", "password", "balance", "created", "closed",
                  "role", "locked", "reset_hash", "reset_until")),
    ("ssh_keys", ("account_id", "key", "comment", "added")),
    ("rounds", ("round_id", "state", "escrow", "opened", "closed", "table_id")),
    ("stakes", ("round_id", "account_id", "amount")),
    ("entries", ("id", "ts", "account_id", "delta", "kind", "round_id", "ref", "note")),
    ("history", ("round_id", "game", "rules", "seats", "config", "log", "result", "commitment", "finished_at",
                 "extra", "log_base", "log_start", "log_len", "log_hash", "match_key")),
    ("history_seats", ("round_id", "seat", "name", "key", "registered", "points", "chips", "president")),
    ("holds", ("hold_id", "account_id", "amount", "round_id", "created")),
    ("round_flows", ("round_id", "account_id", "net")),
    ("registrations", ("id", "address", "ts")),
    ("tables", ("table_id", "config", "status", "reason", "opened_at", "closed_at", "next_seq")),
    ("table_log", ("table_id", "seq", "entry")),
    ("tournaments", ("tournament_id", "config", "organiser", "status", "created_at", "closed_at", "next_seq",
                     "standings")),
    ("tournament_log", ("tournament_id", "seq", "entry")),
    ("tournament_tables", ("table_id", "tournament_id", "round", "position")),
    ("counters", ("name", "value")),
    ("profiles", ("key", "bio", "hide_where", "notify", "last_seen")),
    ("friends", ("key", "friend", "name", "added")),
    ("mail", ("id", "recipient", "sender", "sender_key", "text", "sent")),
    ("ratings", ("key", "name", "kind", "game", "rules", "mu", "sigma", "games", "updated")),
    ("rating_history", ("id", "round_id", "key", "game", "rules", "seat", "score", "mu_before", "sigma_before",
                        "mu_after", "sigma_after", "ts")),
    ("bans", ("id", "kind", "account_id", "target", "reason", "actor", "created", "until", "lifted", "lifted_by")),
    ("mutes", ("id", "account_id", "reason", "actor", "created", "until", "lifted", "lifted_by")),
    ("modlog", ("id", "ts", "actor", "action", "target", "reason", "detail")),
    ("admin_chips", ("entry_id", "actor", "reason")),
    ("ignores", ("account_id", "other_key", "other_name", "added")),
    ("notes", ("name", "value")),
]
TOTALS = ("balances", "escrow", "held", "granted", "retired")
CHUNK = 1000


def _parse(where: str) -> tuple[str, str]:
    if where.startswith(("postgresql://", "postgres://")):
        return "postgresql", where
    if where.startswith("sqlite:"):
        where = where[len("sqlite:"):]
    return "sqlite", where


class Side:
    """One end of the copy: a connection, a transaction handle, and how to write in bulk."""

    def __init__(self, kind: str, where: str, *, target: bool) -> None:
        self.kind = kind
        self.where = where
        self.target = target
        self._lock: IO[bytes] | None = None
        self.lite: sqlite3.Connection | None = None  # the connection of one kind or the other
        self.pg: psycopg.Connection[TupleRow] | None = None
        self.tx: Tx

    def open(self) -> None:
        settings = StoreSettings()
        if self.kind == "sqlite":
            from server.storage.sqlite import SQLiteTx, _lock_data, connect, db_path
            from server.storage.sqlite.schema import migrate as migrate_sqlite

            file = db_path(self.where)
            if not self.target and not file.exists():
                raise ToolRefused(f"no database at {file}")
            self._lock = _lock_data(file)  # no server may use it meanwhile
            self.lite = connect(file)
            migrate_sqlite(self.lite)
            self.tx = SQLiteTx(self.lite, settings)
        else:
            from server.storage.postgres import LOCK_KEY, PgTx, pg_connect
            from server.storage.postgres import migrate as migrate_pg

            self.pg = pg_connect(self.where)
            migrate_pg(self.pg)
            row = self.pg.execute("SELECT pg_try_advisory_lock(%s)", (LOCK_KEY,)).fetchone()
            if not (row and row[0]):
                raise ToolRefused("the PostgreSQL database is in use by a server")
            self.tx = PgTx(self.pg, settings)

    def begin(self) -> None:
        if self.kind == "sqlite":
            self.tx.execute("BEGIN IMMEDIATE" if self.target else "BEGIN")
        else:
            self.tx.execute("BEGIN" if self.target else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")

    def rows(self, table: str, columns: Sequence[str]) -> Iterator[list[tuple[object, ...]]]:
        cols = list(columns)
        order = ""
        if table == "history":
            cols.append(f"{self.tx.rowid} AS seq")
            order = f" ORDER BY {self.tx.rowid}"
        cur = self.tx.execute(f"SELECT {', '.join(cols)} FROM {table}{order}")
        while True:
            chunk = cur.fetchmany(CHUNK)
            if not chunk:
                return
            yield [tuple(r) for r in chunk]

    def insert(self, table: str, columns: Sequence[str], rows: list[tuple[object, ...]]) -> None:
        cols = list(columns)
        if table == "history":
            cols.append(self.tx.rowid)
        marks = ", ".join("?" for _ in cols)
        sql = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})"
        if self.lite is not None:
            self.lite.executemany(sql, rows)
        elif self.pg is not None:
            from server.storage.postgres import pg_sql

            with self.pg.cursor() as cur:
                cur.executemany(pg_sql(sql), rows)

    def count(self, table: str) -> int:
        return self.tx.integer(f"SELECT COUNT(*) FROM {table}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.pg is not None:  # the lock is given back now, not once PostgreSQL reads the goodbye
                self.pg.execute("SELECT pg_advisory_unlock_all()")
                self.pg.close()
            elif self.lite is not None:
                self.lite.close()
        if self._lock is not None:
            self._lock.close()


def copy(source: str, target: str) -> dict[str, object]:
    """Copy the community; returns the report (``ok``, both audits, rows copied per table)."""
    src = Side(*_parse(source), target=False)
    dst = Side(*_parse(target), target=True)
    try:
        src.open()
        dst.open()
        src.begin()
        before = _audit.audit(src.tx)
        if not before.ok:
            raise ToolRefused("the source's audit fails; fix it before copying: " + "; ".join(before.problems))
        dst.begin()
        try:
            moved = dst.tx.integer(
                "SELECT COUNT(*) FROM ledger_totals WHERE balances != 0 OR escrow != 0 OR held != 0 "
                "OR granted != 0 OR retired != 0"
            )
            busy = [t for t, _ in TABLES if dst.count(t)] + (["ledger_totals"] if moved else [])
            if busy:
                raise ToolRefused(f"the target is not empty ({', '.join(busy)}): copy into a fresh database")
            copied: dict[str, int] = {}
            for table, columns in TABLES:
                n = 0
                for chunk in src.rows(table, columns):
                    dst.insert(table, columns, chunk)
                    n += len(chunk)
                copied[table] = n
            totals = src.tx.one(f"SELECT {', '.join(f'SUM({k})' for k in TOTALS)} FROM ledger_totals")
            dst.tx.execute("DELETE FROM ledger_totals")  # rows of zeros a new schema may have
            dst.tx.execute(
                f"INSERT INTO ledger_totals (shard, {', '.join(TOTALS)}) VALUES (0, ?, ?, ?, ?, ?)",
                [int(v or 0) for v in (totals or (0,) * len(TOTALS))],
            )
            if dst.kind == "postgresql":
                from server.storage.postgres.schema import IDENTITY_COLUMNS

                for table, column in IDENTITY_COLUMNS.items():
                    dst.tx.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                        f"COALESCE(MAX({column}), 1), MAX({column}) IS NOT NULL) FROM {table}"
                    )
            after = _audit.audit(dst.tx)
            dst.tx.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(Exception):
                dst.tx.execute("ROLLBACK")
            raise
        finally:
            with contextlib.suppress(Exception):
                src.tx.execute("ROLLBACK")
    finally:
        src.close()
        dst.close()
    same = all(getattr(before, k) == getattr(after, k) for k in TOTALS)
    return {
        "ok": before.ok and after.ok and same,
        "source": _figures(before),
        "target": _figures(after),
        "rows": copied,
    }


def _figures(audit: Audit) -> dict[str, object]:
    return asdict(audit)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--from", dest="source", required=True,
                        help="sqlite:PATH (a data folder or the file), or a postgresql:// URL")
    parser.add_argument("--to", dest="target", required=True,
                        help="a postgresql:// URL, or sqlite:PATH; must be empty")


def _errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (StorageError, sqlite3.Error, OSError)
    with contextlib.suppress(ImportError):
        import psycopg

        errors += (psycopg.Error,)
    return errors


def run(args: argparse.Namespace) -> int:
    try:
        report = copy(args.source, args.target)
    except _errors() as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="donne migrate", description=(__doc__ or "").splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


"""``donne export``: hand histories as self-contained JSON records the engine replays byte for byte.

::

    donne export --round r12-3fa9c2d1-4 --format json          # one round (or deal)
    donne export --player alice --last 20 --format json        # a player's last 20 rounds
    donne export --url postgresql://donne@db/donne --round ...

Each record (``server.community.replays.export_record``, format ``donne-round/1``, described in
``docs/protocol.md``) holds the table's options, the engine configuration, the round's
seed and commitment, every action of the match up to the round's end (``log``; the
round's own start at ``start``), its result and the events the engine gives for the
round, with their SHA-256. ``--check`` replays each record first and refuses (exit 1)
one the engine does not reproduce. An operator's tool: it reads the store read-only,
beside a running server. A Speculation deal's record holds its seed, which shows the
undealt cards (never published to players, RULES S12h): keep such exports private.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable
from typing import TypeVar

from server.community.replays import RoundExport, export_record, verify_record
from server.games import ADAPTERS
from server.storage.api import RoundRecord, StorageError
from server.storage.private import write_private
from server.storage.settings import StoreSettings
from server.storage.sql.history import read_recent, read_record
from server.storage.sql.tx import Tx

T = TypeVar("T")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", default="data", help="the server's data folder, or its SQLite file")
    where.add_argument("--url", help="a postgresql:// URL instead of a data folder")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--round", help="a round id (history and replay name them)")
    what.add_argument("--player", help="a player's latest rounds")
    parser.add_argument("--last", type=int, default=10, help="with --player: how many rounds (default 10)")
    parser.add_argument("--format", choices=["json"], default="json")
    parser.add_argument("--out", help="write to this file instead of standard output")
    parser.add_argument("--check", action="store_true", help="replay each record through the engine first")


def read_only(where: str, fn: Callable[[Tx], T]) -> T:
    """``fn(tx)`` in one read-only transaction of a data folder, a SQLite file or a PostgreSQL URL."""
    from server.storage import is_postgres_url

    if is_postgres_url(where):
        from server.storage.postgres import PgTx, pg_connect

        conn = pg_connect(where)
        try:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                return fn(PgTx(conn, StoreSettings()))
            finally:
                conn.execute("ROLLBACK")
        finally:
            conn.close()
    from server.storage.cli import read_only_sqlite
    from server.storage.sqlite import SQLiteTx

    with read_only_sqlite(where) as lite:
        return fn(SQLiteTx(lite, StoreSettings()))


def _export(record: RoundRecord, check: bool) -> RoundExport:
    adapter = ADAPTERS[record.rules]
    out = export_record(record, adapter)
    if check and not verify_record(out, adapter):
        raise ValueError(f"round {record.round_id}: the engine does not reproduce its record")
    return out


def run(args: argparse.Namespace) -> int:
    where = args.url or args.data_dir
    try:
        if args.round:
            record = read_only(where, lambda tx: read_record(tx, args.round))
            if record is None:
                print(json.dumps({"error": f"no round {args.round}"}), file=sys.stderr)
                return 2
            document: object = _export(record, args.check)
        else:
            records = read_only(where, lambda tx: read_recent(tx, args.player, max(1, args.last)))
            document = {"format": "donne-rounds/1", "player": args.player,
                        "rounds": [_export(r, args.check) for r in records]}
    except (FileNotFoundError, sqlite3.Error, StorageError, KeyError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 1
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    if args.out:
        write_private(args.out, text)  # 0600: a Speculation record holds the deal's seed
    else:
        sys.stdout.write(text)
    return 0

"""``donne export``: hand histories as self-contained JSON records the engine replays byte for byte.

::

    donne export --round r12-3fa9c2d1-4 --format json          # one round (or deal)
    donne export --player alice --last 20 --format json        # a player's last 20 rounds
    donne export --url postgresql://donne@db/donne --round ...
    donne export --tournament e12 --check                      # an event: its record, tables, rounds


Each record (``server.community.replays.export_record``, format ``donne-round/1``, described in
``docs/protocol.md``) holds the table's options, the engine configuration, the round's
seed and commitment, every action of the match up to the round's end (``log``; the
round's own start at ``start``), its result and the events the engine gives for the
round, with their SHA-256. ``--check`` replays each record first and refuses (exit 1)
one the engine does not reproduce. An event (``--tournament``, format ``donne-tournament/1``) is
its record — configuration and journal, from which every seating follows — its status, final
standings, tables and their rounds' ids; ``--check`` rebuilds it from its record
(``server.tournaments.replay``: the same tables, seats, byes and scores) and recomputes its
standings, refusing (exit 1) an event whose record does not give what was stored. An operator's tool: it reads the store read-only,
beside a running server. A Speculation deal's record holds its seed, which shows the
undealt cards (never published to players, RULES S12h): keep such exports private.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable, Mapping
from typing import TypeVar

from server.community.replays import RoundExport, export_record, verify_record
from server.games import ADAPTERS
from server.protocol import JSONValue
from server.storage.api import RoundRecord, StorageError
from server.storage.private import write_private
from server.storage.settings import StoreSettings
from server.storage.sql.history import read_recent, read_record
from server.storage.sql.tournaments import export as tournament_export
from server.storage.sql.tx import Tx
from server.tournaments import EventRecord, ReplayError, replay, standings

T = TypeVar("T")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", default="data", help="the server's data folder, or its SQLite file")
    where.add_argument("--url", help="a postgresql:// URL instead of a data folder")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--round", help="a round id (history and replay name them)")
    what.add_argument("--player", help="a player's latest rounds")
    what.add_argument("--tournament", help="a tournament's id (tournaments list them)")
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


def check_event(event: Mapping[str, JSONValue]) -> None:
    """Raise unless the event's record rebuilds it (:func:`server.tournaments.replay`) and, once over,
    gives its stored final standings again."""
    raw = event.get("record")
    if not isinstance(raw, Mapping):
        raise ValueError(f"tournament {event.get('tournament')}: no record")
    try:
        record = EventRecord.from_dict(raw)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"tournament {event.get('tournament')}: an unreadable record ({exc})") from None
    director = replay(record)
    again = standings(record)
    if again != director.standings():
        raise ValueError(f"tournament {event.get('tournament')}: its standings differ from their recomputation")
    stored = event.get("standings")
    if event.get("status") == "over" and stored != json.loads(json.dumps(again.to_dict())):
        raise ValueError(f"tournament {event.get('tournament')}: its stored standings are not its record's")


def run(args: argparse.Namespace) -> int:
    where = args.url or args.data_dir
    try:
        if args.tournament:
            event = read_only(where, lambda tx: tournament_export(tx, args.tournament))
            if event is None:
                print(json.dumps({"error": f"no tournament {args.tournament}"}), file=sys.stderr)
                return 2
            if args.check:
                check_event(event)
            document: object = {"format": "donne-tournament/1", **event}
        elif args.round:
            record = read_only(where, lambda tx: read_record(tx, args.round))
            if record is None:
                print(json.dumps({"error": f"no round {args.round}"}), file=sys.stderr)
                return 2
            document = _export(record, args.check)
        else:
            records = read_only(where, lambda tx: read_recent(tx, args.player, max(1, args.last)))
            document = {"format": "donne-rounds/1", "player": args.player,
                        "rounds": [_export(r, args.check) for r in records]}
    except (FileNotFoundError, sqlite3.Error, StorageError, KeyError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 2
    except (ValueError, ReplayError) as exc:
        print(json.dumps({"error": str(exc)}), file=sys.stderr)
        return 1
    text = json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    if args.out:
        write_private(args.out, text)  # 0600: a Speculation record holds the deal's seed
    else:
        sys.stdout.write(text)
    return 0

"""Accounts, chips, history and tables behind the Protocols of :mod:`server.storage.api`.

``store = await open_store(where)`` opens (or creates) the store: a data folder
or a ``.sqlite3`` file (SQLite, the default), or a ``postgresql://`` URL. It
migrates the schema, makes sure the house account exists, then recovers from
any crash: unsettled rounds are voided (stakes back, their transfers
reversed), holds released, guests left over retired, bots' chips sent back
to the house. ``await store.close()`` when done. ``docs/storage.md`` tells more.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping

from server.storage.api import HOUSE, Store
from server.storage.settings import StoreSettings
from server.storage.sql.store import SQLStore
from server.storage.sqlite import DB_FILE, SQLiteStore, db_path, ensure_private_dir, open_sqlite

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(where: str | os.PathLike[str]) -> bool:
    return isinstance(where, str) and where.startswith(POSTGRES_SCHEMES)


async def open_store(
    where: str | os.PathLike[str],
    settings: StoreSettings | Mapping[str, object] | None = None,
    *,
    recover: bool = True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    clock: Callable[[], float] = time.time,
    exclusive: bool = True,
    lock_wait: float = 15.0,
) -> SQLStore:
    """The store for a data folder, a ``.sqlite3``/``.db`` file path, or a ``postgresql://`` URL.

    ``settings``: a :class:`StoreSettings` or a config mapping with any of its
    keys (``starting_chips``, ``guest_chips``, ``house_chips``, ``house_account``,
    ``registrations_per_hour``, ...). ``recover=False`` skips the start-up
    recovery (tests, maintenance tools). One server per store: SQLite takes an
    exclusive lock on ``donne.sqlite3.lock`` (dropped by the kernel even on
    ``kill -9``), PostgreSQL a session advisory lock (``exclusive=False``
    skips it: tools and tests that share a database, and ``donne admin`` beside a
    running server, whose writes the database serialises; ``lock_wait``: how long to
    wait for a killed server's connection to go); a second ``open_store``
    raises :class:`~server.storage.api.StorageError`. ``donne audit`` reads
    without them, beside a live server.
    """
    if settings is not None and not isinstance(settings, StoreSettings):
        settings = StoreSettings.from_mapping(settings)
    if is_postgres_url(where):
        from server.storage.postgres import open_postgres

        return await open_postgres(
            str(where), settings, recover=recover, sleep=sleep, clock=clock, exclusive=exclusive, lock_wait=lock_wait
        )
    return await open_sqlite(where, settings, recover=recover, sleep=sleep, clock=clock, exclusive=exclusive)


__all__ = [
    "DB_FILE",
    "HOUSE",
    "SQLStore",
    "SQLiteStore",
    "Store",
    "StoreSettings",
    "db_path",
    "ensure_private_dir",
    "is_postgres_url",
    "open_store",
]

"""Accounts, chips and history behind the Protocols of :mod:`server.storage.api`.

``store = await open_store(data_dir)`` opens (or creates) ``data_dir/donne.sqlite3``,
migrates its schema, makes sure the house account exists, then recovers from
any crash: open escrows go back to their payers, guests left over are retired,
bots' chips go back to the house. ``await store.close()`` when done.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from server.storage.api import HOUSE, Store
from server.storage.sqlite import DB_FILE, SQLiteStore, StoreSettings, db_path, open_sqlite


async def open_store(
    path: str | os.PathLike[str],
    settings: StoreSettings | Mapping[str, Any] | None = None,
    *,
    recover: bool = True,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> SQLiteStore:
    """The store for a data folder (or a ``.sqlite3``/``.db`` file path).

    ``settings``: a :class:`StoreSettings` or a config mapping with any of its
    keys (``starting_chips``, ``guest_chips``, ``house_chips``, ``house_account``, ...).
    ``recover=False`` skips the start-up recovery (tests, maintenance tools).
    A data folder is used by one store at a time (an exclusive lock on
    ``donne.sqlite3.lock``, dropped by the kernel even on ``kill -9``): a
    second ``open_store`` raises :class:`~server.storage.api.StorageError`.
    ``donne audit`` reads the file without it, beside a live server.
    """
    if settings is not None and not isinstance(settings, StoreSettings):
        settings = StoreSettings.from_mapping(settings)
    return await open_sqlite(path, settings, recover=recover, sleep=sleep)


__all__ = ["DB_FILE", "HOUSE", "SQLiteStore", "Store", "StoreSettings", "db_path", "open_store"]

"""Fixtures that run the storage tests on both back-ends (imported by tests/kits/servers.py).

``postgres``: one private PostgreSQL per test session (skipped, with the reason,
when its binaries are missing; ``make test`` installs them). ``where``: where a
test's store lives, once per back-end: a fresh SQLite data folder, or a fresh
PostgreSQL database (made from a template that already has the schema).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kits.pgserver import PgServer, find_bindir

BACKENDS = ["sqlite", "postgresql"]
TEMPLATE = "donne_template"


@pytest.fixture(scope="session")
def postgres() -> Iterator[PgServer]:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL binaries not found (pg_config --bindir, /usr/lib/postgresql/*/bin): "
                    "`make tools` installs them")
    try:
        import psycopg  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency of the project
        pytest.skip("psycopg is not installed")
    server = PgServer(bindir)
    try:
        server.start()
    except Exception as exc:  # pragma: no cover - a machine that cannot run it
        server.stop()
        pytest.skip(f"could not start PostgreSQL: {exc}")
    try:
        server.sql(f'CREATE DATABASE "{TEMPLATE}"')
        from server.storage.postgres import migrate, pg_connect

        conn = pg_connect(server.url(TEMPLATE))
        try:
            migrate(conn)
        finally:
            conn.close()
        server.prefetch(TEMPLATE)
        yield server
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh location for a store: a data folder (SQLite) or a database URL (PostgreSQL)."""
    if request.param == "sqlite":
        return str(tmp_path / "data")
    server: PgServer = request.getfixturevalue("postgres")
    return server.new_database(TEMPLATE)


def audit_args(where: str) -> list[str]:
    """``donne audit`` arguments for a location."""
    return ["--url", where] if where.startswith("postgresql://") else ["--data-dir", where]


def is_pg(where: str) -> bool:
    return where.startswith("postgresql://")

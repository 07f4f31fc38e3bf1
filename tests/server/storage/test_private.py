"""server/storage/private.py: backups and exports are private files (0600) created exclusively under a
random name beside their target, then renamed; a fixed name others could prepare is never used."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from server.start.cli import main as donne
from server.storage import StoreSettings, open_store
from server.storage.backup import backup
from server.storage.private import write_private

FAST = StoreSettings(scrypt_n=2**10, house_chips=10_000)


@pytest.fixture
def open_umask():
    old = os.umask(0o022)  # what a shell usually has: files 0644
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_write_private_makes_an_owner_only_file_and_leaves_nothing_beside_it(tmp_path: Path, open_umask) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o644)
    write_private(target, "{\"seed\": \"ab\"}\n")
    assert target.read_text() == "{\"seed\": \"ab\"}\n" and mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_prepared_partial_name_is_never_followed_or_touched(tmp_path: Path, open_umask) -> None:
    """In a folder others may write to, ``FILE.partial`` could be a link to someone's file, placed
    there between the removal of a leftover and its opening: the backup never uses that name."""
    data = tmp_path / "data"

    async def make() -> None:
        s = await open_store(data, FAST)
        await s.accounts.register("alice", "alice-secret")
        await s.close()

    asyncio.run(make())
    shared = tmp_path / "shared"
    shared.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious")
    trap = shared / "b.sqlite3.partial"
    trap.symlink_to(victim)
    report = backup(data, shared / "b.sqlite3")
    assert report["ok"]
    assert trap.is_symlink() and victim.read_text() == "precious"
    assert mode(shared / "b.sqlite3") == 0o600
    assert sorted(p.name for p in shared.iterdir()) == ["b.sqlite3", "b.sqlite3.partial"]


def test_export_out_is_private(tmp_path: Path, open_umask, capsys) -> None:
    """A Speculation record holds the deal's seed (the undealt cards): ``--out`` writes it 0600."""
    data = tmp_path / "data"

    async def make() -> None:
        s = await open_store(data, FAST)
        await s.close()

    asyncio.run(make())
    out = tmp_path / "rounds.json"
    assert donne(["export", "--data-dir", str(data), "--player", "alice", "--last", "5", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["rounds"] == [] and mode(out) == 0o600

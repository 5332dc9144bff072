"""The journal, its lock and the local pool are created owner-only (0600) whatever the umask: a
daemon or a command started from a shell (umask 0022) must not leave them world-readable."""

from __future__ import annotations

import asyncio
import os
import re
import stat
from pathlib import Path

import pytest

from tabled.host.files import DIR_MODE, FILE_MODE
from tabled.journal.store import Journal, lock_path
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings


@pytest.fixture
def shell_umask():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_journal_and_its_files_are_owner_only(tmp_path, shell_umask):
    path = tmp_path / "state" / "journal.db"
    with Journal.open(path, exclusive=True) as j:
        j.append("wager", {"spot": 1, "cents": 500})
        files = [path, path.with_name("journal.db-wal"), path.with_name("journal.db-shm"), lock_path(path)]
        assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    assert mode(path.parent) == 0o700


def test_the_local_pool_and_its_files_are_owner_only(tmp_path, shell_umask):
    path = tmp_path / "state" / "pool-main.db"

    async def open_and_contribute():
        pool = await LocalPool.open(path, "main", "T01", PoolSettings(1000, 1_000_000))
        try:
            await pool.contribute("T01", "T01-000001", 1, 100)
            return {f.name: mode(f) for f in path.parent.iterdir()}
        finally:
            await pool.close()

    modes = asyncio.run(open_and_contribute())
    assert {"pool-main.db", "pool-main.db-wal", "pool-main.db-shm"} <= set(modes)
    assert modes == {name: 0o600 for name in modes}


def test_an_existing_journal_keeps_the_mode_it_was_given(tmp_path, shell_umask):
    path = tmp_path / "journal.db"
    Journal.open(path).close()
    path.chmod(0o640)  # a group the operator chose to let read it
    Journal.open(path).close()
    assert mode(path) == 0o640


def test_the_unit_the_docs_and_the_code_agree_on_the_state_directorys_mode():
    root = Path(__file__).resolve().parents[2]
    unit = (root / "systemd" / "tabled.service").read_text()
    (unit_mode,) = re.findall(r"^StateDirectoryMode=(\d+)$", unit, re.M)
    (row,) = [ln for ln in (root / "docs" / "operations.md").read_text().splitlines()
              if ln.startswith("| journal, ")]
    assert f"StateDirectoryMode={unit_mode}" in row and f"tabled:tabled {unit_mode} " in row
    assert int(unit_mode, 8) == DIR_MODE and "files 0600" in row and FILE_MODE == 0o600

"""The start banner's pool line says what is wrong with the pool as the 14.13 fault says it: a
linked pool's database without tabled's schema is the administrator's to migrate, not a lost link."""

from __future__ import annotations

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.daemon.controller import Table
from tabled.journal.store import Journal
from tabled.daemon.report import pool_line
from tests.integration.test_restart_sim import sim_config

NO_SCHEMA = ("pool main: the pool database has no tabled schema; this tabled needs version 3: the administrator"
             " runs `tabled pool migrate --dsn ...` (a table never changes it)")


def _core(tmp_path, *records):
    cfg = load_config(sim_config(tmp_path))
    with Journal.open(tmp_path / "journal.db") as j:
        for kind, payload in records:
            j.append(kind, payload)
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        core, _, _ = Table.replay(j, lambda snap: make_core(cfg, snap))
    return cfg, core


def test_a_pool_without_its_schema_is_named_as_such_in_the_banner_14_13(tmp_path):
    cfg, core = _core(tmp_path, ("equipment.fault", {"equipment": "pool", "reason": NO_SCHEMA}))
    line = pool_line(cfg, core)
    assert line.endswith(f": not available (14.13): {NO_SCHEMA}")
    assert "cannot be reached" not in line and "tabled pool migrate" in line


def test_a_pool_that_answered_shows_the_meter(tmp_path):
    cfg, core = _core(tmp_path, ("pool.meter", {"balance_cents": 1_000_000, "seq": 1, "change": "open"}))
    assert pool_line(cfg, core).endswith(": $10,000.00")

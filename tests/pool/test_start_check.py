"""At start (and when a pool answers again) the table compares what the pool answered it since the
journal's last checkpoint with what the pool holds now (tabled/pool/rounds.py: check_table): a pool
changed behind the table stops the start for an inspector."""

from __future__ import annotations

import asyncio

import pytest

from tabled.daemon.assemble import CannotStart, check_pools
from tabled.journal.store import Journal
from tabled.pool.base import PoolError
from tabled.pool.local import LocalPool
from tabled.pool.rounds import check_table

from tests.commands.test_pool_rewrite import played_table
from tests.pool.tamper import rewrite


def _check(tmp_path, *, primary: bool = True) -> None:
    async def run() -> None:
        pool = await LocalPool.open(tmp_path / "pool.db", "main", "T01")
        journal = Journal.open(tmp_path / "journal.db")
        try:
            await check_table(pool, "T01", journal, primary=primary)
        finally:
            journal.close()
            await pool.close()
    asyncio.run(run())


def test_an_untouched_pool_passes_the_start_check(tmp_path):
    played_table(tmp_path)
    _check(tmp_path)


def test_a_pool_whose_balances_were_lowered_stops_the_start(tmp_path):
    db, _ = played_table(tmp_path)
    rewrite(db, "UPDATE ledger SET balance_after_cents = balance_after_cents - 10000",
             "UPDATE ledger SET delta_cents = delta_cents - 10000 WHERE kind = 'open'",
             "UPDATE pools SET balance_cents = balance_cents - 10000")
    with pytest.raises(PoolError) as found:
        _check(tmp_path)
    assert str(found.value).startswith(
        "pool main does not hold what it answered table T01 since the journal's last checkpoint (record 0): the meter"
        " read 1000000 cents at ledger row 1, the ledger now holds 990000 cents there (and ")
    assert "the start stops for an inspector" in str(found.value)

    async def start() -> None:  # tabled run: one line, the daemon does not start
        pool = await LocalPool.open(db, "main", "T01")
        journal = Journal.open(tmp_path / "journal.db")
        try:
            await check_pools("T01", journal, [pool])
        finally:
            journal.close()
            await pool.close()
    with pytest.raises(CannotStart, match="cannot start the table: pool main does not hold what it answered"):
        asyncio.run(start())


def test_a_contribution_raised_by_a_cent_stops_the_start(tmp_path):
    db, _ = played_table(tmp_path)
    rewrite(db, "UPDATE contributions SET pool_cents = pool_cents + 1 WHERE round_id = 'R2' AND spot = 4")
    with pytest.raises(PoolError, match="round R2 spot 4: the pool answered 70 cents to the pool, its ledger now"
                                        " holds 71 cents"):
        _check(tmp_path, primary=False)  # not the primary: its meter readings are not this pool's

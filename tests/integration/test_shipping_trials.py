"""Shipping trials with 20 tables: shipping daemons killed (-9) and database connections cut at
random moments while the tables play; afterwards every record is on the central server exactly
once and `tabled audit compare` agrees for every table. benchmarks/bench_shipping.py runs more
trials and prints the figures (docs/verification.md)."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.trials import Trials

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]
TABLES = 20
TRIALS = 40


@pytest.mark.slow
def test_kills_and_cut_connections_lose_nothing_and_repeat_nothing(tmp_path, pg_dsn):
    trials = Trials(pg_dsn, tmp_path, TABLES, seed=11)

    async def go() -> None:
        try:
            await trials.start()
            await trials.run(TRIALS)
        finally:
            trials.stop()
        await trials.catch_up()

    asyncio.run(go())
    o = trials.check()
    assert o.trials == TRIALS and o.kills > 0 and o.cuts > 0
    assert o.records > TABLES * 10 and o.shipped == o.records  # every record, and nothing more
    assert o.duplicates == 0 and o.missing == 0
    assert o.compare_disagree == []

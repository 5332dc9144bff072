"""The throwaway PostgreSQL the tests start on a machine where none answers (initdb as the
``postgres`` user, a free port, a temporary directory removed afterwards)."""

from __future__ import annotations

import asyncio

import pytest

from tabled.pool.postgresql import PostgresPool

from .pgserver import ThrowawayPostgres, create_database, dsn_for, reachable, server_bindir
from .test_contract import MAIN

pytestmark = pytest.mark.postgres


def test_a_throwaway_server_starts_serves_a_pool_and_is_removed():
    assert server_bindir() is not None, "run .ci/ensure-postgres.sh"
    server = ThrowawayPostgres().start()
    try:
        assert reachable(server.dsn)
        dsn = dsn_for(server.dsn, create_database(server.dsn))

        async def use():
            pool = await PostgresPool.open(dsn, "main", "T01", MAIN)
            await pool.contribute("T01", "R1", 1, 1000)
            assert (await pool.verify()).ok and await pool.balance() == 1_000_700
            await pool.close()
        asyncio.run(use())
    finally:
        server.stop()
    assert not server.root.exists()
    assert not reachable(server.dsn)

"""The throwaway PostgreSQL the tests start for themselves (initdb as the ``postgres`` user, a free
port, a password of its own, a temporary directory removed afterwards, also when it fails)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tabled.pool.postgresql import PostgresPool

from .pgserver import ThrowawayPostgres, create_database, dsn_for, migrate_pool, reachable, server_bindir
from .test_contract import MAIN

pytestmark = pytest.mark.postgres


def test_a_throwaway_server_starts_serves_a_pool_and_is_removed():
    assert server_bindir() is not None, "run .ci/ensure-postgres.sh"
    server = ThrowawayPostgres().start()
    try:
        assert reachable(server.dsn)
        dsn = dsn_for(server.dsn, create_database(server.dsn))
        migrate_pool(dsn)

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


def test_the_pool_tests_use_a_server_of_their_own(pg_admin_dsn):
    """Never the machine's PostgreSQL (5432, whoever answers as superuser): a server this session
    started, in its own temporary directory, that answers only to its own password."""
    parts = urlsplit(pg_admin_dsn)
    assert parts.port != 5432 and parts.password
    with psycopg.connect(pg_admin_dsn) as conn:
        data_dir = conn.execute("SHOW data_directory").fetchone()[0]
    assert Path(data_dir).parent.name.startswith("tabled-pg-")
    assert Path(data_dir).is_relative_to(tempfile.gettempdir())
    assert not reachable(urlunsplit(parts._replace(netloc=f"postgres@127.0.0.1:{parts.port}")))  # no password


def test_a_server_that_cannot_start_leaves_nothing_behind():
    """Its port taken: the start fails, and neither a process nor the temporary directory remains."""
    server = ThrowawayPostgres()
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        taken.bind(("127.0.0.1", server.port))
        taken.listen()
        with pytest.raises(subprocess.CalledProcessError):
            server.start()
    assert not server.root.exists()
    assert not reachable(server.dsn)

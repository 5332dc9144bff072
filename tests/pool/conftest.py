"""Fixtures for the pool tests: a harness that opens pools of either backend, on the session's own
PostgreSQL (tests/conftest.py). No test touches a server it did not start."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from tabled.pool.local import LocalPool
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings

from .pgserver import migrate_pool



class StepClock:
    """An injectable clock: each reading is one millisecond after the one before."""

    def __init__(self) -> None:
        self.t = datetime(2025, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(milliseconds=1)
        return self.t


class Harness:
    """Opens pools of one backend in one database; closes them all at the end of the scenario."""

    def __init__(self, backend: str, where: str) -> None:
        self.backend = backend
        self.where = where   # a SQLite file, or a PostgreSQL dsn
        self.clock = StepClock()
        self.opened: list = []

    async def open(self, name: str = "main", table_id: str = "T01", settings: PoolSettings | None = None,
                   **kw):
        if self.backend == "local":
            pool = await LocalPool.open(self.where, name, table_id, settings, clock=self.clock, **kw)
        else:  # the administrator migrates (a table never does), then the table opens
            await asyncio.to_thread(migrate_pool, self.where)
            pool = await PostgresPool.open(self.where, name, table_id, settings, clock=self.clock, **kw)
        self.opened.append(pool)
        return pool

    @property
    def refusal(self) -> type[Exception]:
        """What the backend's database raises when it refuses a statement."""
        return sqlite3.IntegrityError if self.backend == "local" else psycopg.Error

    def execute(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Run ``sql`` (``%s`` placeholders) on the pool's database directly, as another program
        could, and commit; the rows it returns."""
        if self.backend == "local":
            conn = sqlite3.connect(self.where)
            try:
                with conn:
                    return conn.execute(sql.replace("%s", "?"), args).fetchall()
            finally:
                conn.close()
        with psycopg.connect(self.where) as pg:
            cursor = pg.execute(sql, args or None)
            return cursor.fetchall() if cursor.description else []

    def run(self, scenario: Callable[[Harness], Awaitable[None]], hang_bound_s: float = 300) -> None:
        """Run ``scenario``; ``hang_bound_s`` only bounds a hang (generous: a busy machine is slow)."""
        async def main() -> None:
            try:
                await asyncio.wait_for(scenario(self), hang_bound_s)
            finally:
                for pool in self.opened:
                    await pool.close()
        asyncio.run(main())


@pytest.fixture(params=["local", pytest.param("postgresql", marks=pytest.mark.postgres)])
def harness(request, tmp_path):
    if request.param == "local":
        return Harness("local", str(tmp_path / "pool.db"))
    return Harness("postgresql", request.getfixturevalue("pg_empty_dsn"))


@pytest.fixture
def pg_harness(pg_dsn):
    return Harness("postgresql", pg_dsn)

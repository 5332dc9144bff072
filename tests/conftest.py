"""Run ``async def`` tests on a fresh asyncio loop each (no plugin needed), bounded in time, so a
hung link or table fails its test instead of hanging the suite. A real PostgreSQL of the session's
own (tests/pool/pgserver.py: started for the tests, removed after them) for every test that needs
one, with a fresh database per test."""

import asyncio
import inspect

import pytest

from tests.pool.pgserver import ThrowawayPostgres, create_database, drop_database, dsn_for

ASYNC_TEST_LIMIT = 60.0  # seconds


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}

        async def bounded():
            await asyncio.wait_for(pyfuncitem.obj(**args), ASYNC_TEST_LIMIT)

        asyncio.run(bounded())
        return True
    return None


@pytest.fixture(scope="session")
def pg_admin_dsn():
    with ThrowawayPostgres() as server:
        yield server.dsn


@pytest.fixture
def pg_dsn(pg_admin_dsn):
    name = create_database(pg_admin_dsn)
    try:
        yield dsn_for(pg_admin_dsn, name)
    finally:
        drop_database(pg_admin_dsn, name)

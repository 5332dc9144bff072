"""Run ``async def`` tests on a fresh asyncio loop each (no plugin needed), bounded in time, so a
hung link or table fails its test instead of hanging the suite. A real PostgreSQL of the session's
own (tests/pool/pgserver.py: started for the tests, removed after them) for every test that needs
one, with a fresh database per test, its pool schema made as the administrator makes it. The
recorded journals (tests/fixtures/journals), unpacked once per test session, for the reports and
the command that prints them."""

import asyncio
import gzip
import inspect
import shutil
from pathlib import Path

import pytest

from tests.pool.pgserver import ThrowawayPostgres, create_database, drop_database, dsn_for, migrate_pool

# a bound on a hang, never a speed claim: generous on a busy machine; a test that plays many rounds
# raises it with @pytest.mark.timeout(seconds), which pytest-timeout also reads
ASYNC_TEST_LIMIT = 300.0  # seconds
JOURNALS = Path(__file__).parent / "fixtures" / "journals"
SESSIONS = ("simulated", "scripted", "buttons")


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        # funcargs also holds the autouse fixtures the test does not name: pass it the ones it names
        args = {name: pyfuncitem.funcargs[name] for name in inspect.signature(pyfuncitem.obj).parameters
                if name in pyfuncitem.funcargs}

        marker = pyfuncitem.get_closest_marker("timeout")
        limit = float(marker.args[0]) if marker and marker.args else ASYNC_TEST_LIMIT

        async def bounded():
            await asyncio.wait_for(pyfuncitem.obj(**args), limit)

        asyncio.run(bounded())
        return True
    return None


@pytest.fixture(scope="session")
def pg_admin_dsn():
    with ThrowawayPostgres() as server:
        yield server.dsn


@pytest.fixture
def pg_empty_dsn(pg_admin_dsn):
    """A fresh database of the session's server, with no schema in it (the administrator's dsn)."""
    name = create_database(pg_admin_dsn)
    try:
        yield dsn_for(pg_admin_dsn, name)
    finally:
        drop_database(pg_admin_dsn, name)


@pytest.fixture
def pg_dsn(pg_empty_dsn):
    """A fresh database with the pool schema, migrated by the administrator (tabled pool migrate)."""
    migrate_pool(pg_empty_dsn)
    return pg_empty_dsn


@pytest.fixture(scope="session")
def journals(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("journals")
    out = {}
    for name in SESSIONS:
        path = folder / f"{name}.db"
        with gzip.open(JOURNALS / name / "journal.db.gz", "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out[name] = path
    return out

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

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.daemon.controller import NOTES_VERSION, Table
from tabled.journal.store import Journal
from tests.pool.pgserver import ThrowawayPostgres, create_database, drop_database, dsn_for, migrate_pool

# a bound on a hang, never a speed claim: generous on a busy machine; a test that plays many rounds
# raises it with @pytest.mark.timeout(seconds), which pytest-timeout also reads
ASYNC_TEST_LIMIT = 300.0  # seconds
JOURNALS = Path(__file__).parent / "fixtures" / "journals"
ROOT = Path(__file__).resolve().parents[1]
SESSIONS = ("simulated", "scripted", "buttons", "notes")


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


def upgraded(config: Path) -> int:
    """The journal of ``config`` as a start of today's daemon leaves it: the notes this version's
    fold writes and an older journal lacks, written once (late), then a checkpoint. The number of
    notes written."""
    cfg = load_config(config)
    with Journal.open(cfg.journal.path, readonly=True) as journal:
        last_s = journal.record(journal.head[0]).time_us / 1e6
    # the start that upgrades it comes a second after the session's last record
    with Journal.open(cfg.journal.path, clock=lambda: last_s + 1) as journal:
        core, missing, _ = Table.replay(journal, lambda snap: make_core(cfg, snap))
        if missing:
            journal.append_many([(n.kind, n.payload, n.round_id) for n in missing])
            journal.checkpoint({**core.snapshot(), "notes": NOTES_VERSION})
    return len(missing)


@pytest.fixture(scope="session")
def journals(tmp_path_factory) -> dict[str, Path]:
    """Each recorded journal, upgraded as today's daemon's first start over it upgrades it."""
    folder = tmp_path_factory.mktemp("journals")
    out = {}
    for name in SESSIONS:
        here = folder / name
        here.mkdir()
        with gzip.open(JOURNALS / name / "journal.db.gz", "rb") as src, open(here / "journal.db", "wb") as dst:
            shutil.copyfileobj(src, dst)
        shutil.copy(JOURNALS / name / "config.toml", here / "config.toml")
        shutil.copy(ROOT / "config" / "sim-staff.toml", here / "sim-staff.toml")
        upgraded(here / "config.toml")
        out[name] = here / "journal.db"
    return out

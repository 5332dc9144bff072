"""The central server failing over mid-play: a primary and a standby of the test's own
(tests/pool/replica.py, synchronous replication), a handful of light tables shipping their journals
and feeding the linked pool through a connection string naming both servers, and the floor
reading it; the primary is killed (``-m immediate``) and the standby promoted, a few times, at
random moments. Every record and every pool operation a table had confirmed is on the new primary
exactly once, ``tabled audit compare`` agrees for every table, and the floor shows each table's
journal to its end. A connection string naming only a standby is refused in one clear line."""

from __future__ import annotations

import asyncio
import io
import random
import time
from contextlib import redirect_stderr

import psycopg
import pytest

from tabled.cli import main
from tabled.daemon import shipping
from tabled.floor.config import FloorConfig
from tabled.floor.service import Floor, floor_connector
from tabled.host.dsn import dsn_problem
from tabled.pool.base import PoolUnavailable
from tabled.pool.postgresql import PostgresPool
from tabled.sim.light import Pace
from tests.floor.lightfloor import LightFloor, with_role
from tests.pool.replica import ReplicatedPostgres, replicated_database

pytestmark = pytest.mark.postgres

#: a casino's pace a hundred times faster: a round every 0.45 to 0.9 s
FAST = Pace().scaled(100)


@pytest.fixture
def pair():
    with ReplicatedPostgres(synchronous=True) as servers:
        yield servers


@pytest.mark.slow
def test_nothing_is_lost_or_counted_twice_across_promotions(pair, tmp_path):
    casino = replicated_database(pair)
    floor_ = LightFloor(casino, tmp_path, 4, FAST, retry_s=0.1)
    rng = random.Random(7)
    promoted: list[float] = []

    async def scenario() -> None:
        await floor_.create_pool()
        floor = Floor(FloorConfig(central=casino, poll_s=0.2), floor_connector(casino))
        stop = asyncio.Event()
        playing = asyncio.create_task(floor_.play(stop))
        watching = asyncio.create_task(floor.run())
        try:
            for _ in range(3):
                await asyncio.sleep(rng.uniform(1.0, 2.5))  # a random moment of play
                promoted.append(time.time())
                await asyncio.to_thread(pair.failover)
            await asyncio.sleep(1.5)                        # play on the last primary
        finally:
            stop.set()
            await asyncio.wait_for(playing, 300)            # bounds a hang only
        heads = {t.table_id: t.shipper.local_head for t in floor_.tables}
        async with asyncio.timeout(120):                    # bounds a hang only
            while {t: w.head for t, w in floor.tables.items() if t in heads} != heads:
                await floor.polled()
        watching.cancel()
        await floor.stop()

    asyncio.run(scenario())
    assert pair.failovers == 3
    o = floor_.check()
    assert o.records > 0 and o.shipped == o.records
    assert (o.duplicates, o.missing) == (0, 0)
    assert o.contributions > 0
    assert (o.pool_duplicates, o.pool_missing) == (0, 0)
    assert o.compare_disagree == []
    with psycopg.connect(casino + " target_session_attrs=read-write") as conn:
        # play went on after the last promotion: records reached the last primary after it
        after = conn.execute("SELECT count(*) FROM journal_records WHERE received_at > to_timestamp(%s)",
                             (promoted[-1],)).fetchone()[0]
    assert after > 0


def test_a_connection_string_naming_only_a_standby_is_refused_clearly(pair, tmp_path, capsys, monkeypatch):
    casino = replicated_database(pair)
    floor_ = LightFloor(casino, tmp_path, 1, FAST)
    standby = f"host=127.0.0.1 port={pair.standby.port} dbname=casino"

    async def scenario() -> None:
        pool = await PostgresPool.open(with_role(standby, "tabled_t001", "pw-t001"), "main", "T001",
                                       wait_for_link=True)
        with pytest.raises(PoolUnavailable, match="is a standby, which takes no writes: name the primary"):
            await pool.balance()
        await pool.close()
        connect = shipping.connector(with_role(standby, "tabled_t001"),
                                     {"CREDENTIALS_DIRECTORY": str(floor_.tables[0].credentials)})
        with pytest.raises(shipping.ShippingError, match=f"127.0.0.1:{pair.standby.port}.* is a standby"):
            await connect()

    asyncio.run(scenario())
    with redirect_stderr(io.StringIO()) as err:
        code = main(["pool", "status", "--dsn", with_role(standby, "postgres", pair.password)])
    said = err.getvalue() + capsys.readouterr().err
    assert code != 0
    assert f"every server the connection string names (127.0.0.1:{pair.standby.port}) is a standby" in said
    monkeypatch.setenv("PGPASSWORD", pair.password)  # the administrator's, as at a shell
    code = main(["pool", "migrate", "--dsn", with_role(standby, "postgres")])
    said = capsys.readouterr().err
    assert code != 0
    assert f"--dsn: every server the connection string names (127.0.0.1:{pair.standby.port}) is a standby" in said


@pytest.mark.parametrize("attrs", ["read-only", "standby", "prefer-standby"])
def test_a_writer_asking_for_a_standby_is_refused(attrs):
    problem = dsn_problem(f"host=127.0.0.1,127.0.0.1 port=5432,5433 target_session_attrs={attrs}", "x")
    assert problem == (f"target_session_attrs={attrs} asks for a server that does not take writes: a writer "
                       "connects only to the primary (leave it out, or target_session_attrs=read-write)")

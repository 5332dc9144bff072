"""Twenty tables play many rounds at once against one linked pool while their connections are cut
(pg_terminate_backend) and their daemons killed at random moments. Afterwards the pool
equals reset value + contributions - reversals - awards (+ reset funding) to the cent, no
contribution is missing or doubled, and every hit appears once, in order."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
from collections import Counter, defaultdict

import psycopg
import pytest

from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.pool.base import PoolError, PoolUnavailable
from tabled.pool.postgresql import PostgresPool
from tabled.pool.records import result_from_json
from tabled.pool.settings import PoolSettings

from tests.pool.test_contract import NSW

pytestmark = pytest.mark.postgres

TABLES, ROUNDS, RESET, BP = 20, 20, 1_000_000, 7000


def plan_for(table_id: str, rounds: int, rng: random.Random) -> list[tuple]:
    """The table's journal, written before anything is sent: what the pool must end up holding."""
    ops: list[tuple] = []
    for r in range(rounds):
        round_id = f"R{r:03}"
        spots = sorted(rng.sample(range(1, 8), rng.randint(1, 7)))
        wagers = {s: rng.choice((100, 500, 1000, 2500)) for s in spots}
        ops += [("contribute", round_id, s, wagers[s]) for s in spots]
        luck = rng.random()
        if luck < 0.10:    # 14.4 misdeal: the round is void, every contribution comes back
            ops += [("reverse", round_id, s, 0) for s in spots]
        elif luck < 0.30:  # a qualifying hand (12.1); now and then a royal empties the pool
            category = Category.ROYAL_FLUSH if rng.random() < 0.1 else Category.STRAIGHT_FLUSH
            ops.append(("awards", round_id, rng.choice(spots), category))
    return ops


Connections = dict[str | None, list[psycopg.AsyncConnection]]


@pytest.fixture
def connections(monkeypatch) -> Connections:
    """Every connection opened while the test runs, by its application name ("tabled T01 main")."""
    opened: Connections = defaultdict(list)
    connect = psycopg.AsyncConnection.connect

    async def recording(*args, **kwargs) -> psycopg.AsyncConnection:
        conn = await connect(*args, **kwargs)
        opened[kwargs.get("application_name")].append(conn)
        return conn

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", recording)
    return opened


def shut(conn: psycopg.AsyncConnection) -> None:
    """The connection's socket shut as a dying process's is (not closed: the event loop of the
    pool still watches the descriptor)."""
    with contextlib.suppress(OSError, ValueError, psycopg.Error):
        sock = socket.socket(fileno=os.dup(conn.pgconn.socket))
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.close()


class SimTable:
    def __init__(self, table_id: str, dsn: str, rng: random.Random, connections: Connections) -> None:
        self.table_id = table_id
        self.dsn = dsn
        self.connections = connections
        self.journal = plan_for(table_id, ROUNDS, rng)
        self.done = 0           # the journal's position the table knows the pool confirmed
        self.restarts = 0
        self.unavailable = 0
        self.generation = 0

    async def play(self, generation: int) -> None:
        """Run (or, after a kill, resume) the journal: re-send from the first unconfirmed entry."""
        pool = None
        try:
            while self.generation == generation and self.done < len(self.journal):
                try:
                    if pool is None:
                        pool = await PostgresPool.open(self.dsn, "main", self.table_id, op_timeout=5)
                    if self.generation != generation:
                        return  # killed while connecting
                    await self._send(pool, self.journal[self.done])
                    if self.generation == generation:
                        self.done += 1
                except PoolUnavailable:
                    self.unavailable += 1  # 14.13: wait for the link, then re-send the same entry
                    await asyncio.sleep(0.005)
        finally:
            if pool is not None:
                await asyncio.shield(pool.close())

    async def _send(self, pool: PostgresPool, op: tuple) -> None:
        kind, round_id, spot, arg = op
        if kind == "contribute":
            await pool.contribute(self.table_id, round_id, spot, arg)
        elif kind == "reverse":
            await pool.reverse(self.table_id, round_id, spot, "14.4 misdeal")
        else:
            await pool.apply_awards(self.table_id, round_id, [ProgressiveHit(spot, arg)], NSW,
                                    hands={spot: "As Ks Qs Js Ts" if arg is Category.ROYAL_FLUSH else None})

    def kill(self) -> None:
        """kill -9 of the daemon: it stops wherever it is (the caller cancels its task) and its
        socket dies with it; whatever the server was doing for it finishes or rolls back on its own."""
        self.generation += 1
        self.restarts += 1
        for conn in self.connections[f"tabled {self.table_id} main"]:
            if not conn.closed:
                shut(conn)


async def chaos(dsn: str, tables: list[SimTable], tasks: dict[str, asyncio.Task], rng: random.Random,
                stats: Counter, dead: list[asyncio.Task]) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
        while any(not t.done() for t in tasks.values()):
            await asyncio.sleep(rng.uniform(0.002, 0.02))
            if rng.random() < 0.5:   # cut a random table's connection at whatever moment it is in
                cur = await admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                                          " AND application_name LIKE 'tabled T%%'")
                pids = [r[0] for r in await cur.fetchall()]
                if pids:
                    await admin.execute("SELECT pg_terminate_backend(%s)", (rng.choice(pids),))
                    stats["terminated"] += 1
            else:                    # kill a random table's daemon mid-operation, then restart it
                table = rng.choice(tables)
                task = tasks[table.table_id]
                if task.done():
                    continue
                task.cancel()
                table.kill()
                dead.append(task)  # not waited for: a killed process is simply gone
                tasks[table.table_id] = asyncio.create_task(table.play(table.generation))
                stats["killed"] += 1


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_twenty_tables_with_cut_connections_and_killed_daemons(pg_harness, connections):
    rng = random.Random(20250101)

    async def scenario(h):
        first = await h.open(settings=PoolSettings(BP, RESET))
        tables = [SimTable(f"T{i:02}", h.where, random.Random(rng.random()), connections) for i in range(1, TABLES + 1)]
        tasks = {t.table_id: asyncio.create_task(t.play(0)) for t in tables}
        stats: Counter = Counter()
        dead: list[asyncio.Task] = []
        await chaos(h.where, tables, tasks, rng, stats, dead)
        for task in tasks.values():
            await task  # raises if a table failed for a reason other than link loss
        for outcome in await asyncio.gather(*dead, return_exceptions=True):
            assert outcome is None or isinstance(outcome, (asyncio.CancelledError, PoolUnavailable)), outcome
        print(f"chaos: {dict(stats)}, link-loss retries {sum(t.unavailable for t in tables)}")
        assert stats["terminated"] >= 10 and stats["killed"] >= 10, stats
        assert sum(t.unavailable for t in tables) > 0

        # --- nothing missing, nothing doubled -------------------------------------------------
        with psycopg.connect(h.where) as db:
            got = db.execute("SELECT table_id, round_id, spot, wager_cents, pool_cents FROM contributions").fetchall()
            want = [(t.table_id, r, s, w) for t in tables for k, r, s, w in t.journal if k == "contribute"]
            assert sorted(g[:4] for g in got) == sorted(want)
            assert all(pc == w * BP // 10_000 for *_, w, pc in got)  # 11.6, no overflow configured
            reversed_keys = db.execute("SELECT table_id, round_id, spot, cents FROM reversals").fetchall()
            assert sorted(k[:3] for k in reversed_keys) == sorted(
                (t.table_id, r, s) for t in tables for k, r, s, _ in t.journal if k == "reverse")
            rounds = db.execute("SELECT table_id, round_id, result FROM award_rounds").fetchall()
            assert sorted(r[:2] for r in rounds) == sorted(
                (t.table_id, r) for t in tables for k, r, _, _ in t.journal if k == "awards")
            hits = db.execute("SELECT hit_seq, table_id, round_id, spot, from_pool_cents, pool_after_cents"
                              " FROM hits ORDER BY hit_seq").fetchall()
            awards_in_ledger = db.execute("SELECT table_id, round_id, spot, balance_after_cents FROM ledger"
                                          " WHERE kind = 'award' ORDER BY seq").fetchall()
            balance = db.execute("SELECT balance_cents FROM pools WHERE name = 'main'").fetchone()[0]

        # --- every hit once, in order ---------------------------------------------------------
        assert [h_[0] for h_ in hits] == list(range(1, len(hits) + 1))
        assert Counter((h_[1], h_[2]) for h_ in hits) == Counter((r[0], r[1]) for r in rounds)
        assert [(h_[1], h_[2], h_[3], h_[5]) for h_ in hits if h_[4]] == [tuple(a) for a in awards_in_ledger]

        # --- the pool to the cent -------------------------------------------------------------
        results = [result_from_json(r[2]) for r in rounds]
        expected = (RESET + sum(g[4] for g in got) - sum(k[3] for k in reversed_keys)
                    - sum(h_[4] for h_ in hits) + sum(r.reset_funding_cents for r in results))
        assert balance == expected
        print(f"{len(got)} contributions, {len(reversed_keys)} reversals, {len(hits)} hits,"
              f" {sum(r.reset for r in results)} resets; pool {balance} cents")
        auditor = await h.open(table_id="AUDIT")  # the first connection may have been cut too
        report = await auditor.verify()
        assert report.ok, report.problems
        assert await auditor.balance() == expected
        assert first.name == auditor.name

    pg_harness.run(scenario, hang_bound_s=900)  # twenty tables on two busy cores


def test_a_killed_table_never_leaves_a_half_applied_round(pg_harness):
    # the awards of a round are one transaction: cancelled at any await, all or nothing is recorded
    async def scenario(h):
        pool = await h.open(settings=PoolSettings(BP, RESET))
        hits = [ProgressiveHit(s, Category.STRAIGHT_FLUSH) for s in (1, 3, 5)]
        for attempt in range(30):
            victim = await PostgresPool.open(h.where, "main", "T09")
            task = asyncio.create_task(victim.apply_awards("T09", f"R{attempt}", hits, NSW))
            await asyncio.sleep(random.Random(attempt).uniform(0, 0.01))
            task.cancel()
            outcome = await asyncio.gather(task, return_exceptions=True)
            await victim.close()
            recorded = [x for x in await pool.history(100) if x.round_id == f"R{attempt}"]
            assert len(recorded) in (0, 3), (outcome, recorded)
            assert isinstance(outcome[0], (asyncio.CancelledError, PoolError)) or len(recorded) == 3
        assert (await pool.verify()).ok
    pg_harness.run(scenario)

"""The floor at scale (measured, not asserted): ``--tables`` light tables (tabled/sim/light.py: a
real journal, shipper and linked pool client each, no devices, a round every 45 to 90 s with bursts)
on a central PostgreSQL primary with a synchronous streaming standby that this benchmark starts
(tests/pool/replica.py: initdb, pg_basebackup, free ports on loopback), the floor service reading it,
and ``--failovers`` promotions at random moments: each time the primary is killed ``-m immediate``,
the standby promoted, and the old primary brought back as the new standby. Every connection string
names both servers (libpq finds the primary).

It prints: records journaled and shipped, pool contributions and awards confirmed, duplicates and
missing (journal records and pool operations, checked on the last primary after every failover has
happened) and ``tabled audit compare`` for every table; promotion time and reconnect time p50/p99
(from the kill to a table's first record on the new primary, for the tables that journaled while
there was none); shipping lag p50/p99 (the server's receipt minus the table's commit, one machine,
one clock) outside the failovers and during them; the floor's record-to-page p50/p99 (a record's
commit at its table to the floor's page that first showed it); the central server's load: CPU
(both servers, their backends included), transactions and statements a second, per table. It ends
with one line:

    floor: T tables, K failovers, duplicates D, missing M, shipping lag p99 X s, page p99 Y s

    .venv/bin/python benchmarks/bench_floor.py --tables 200 --failovers 10 --seconds 600 [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import logging
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.floor.config import FloorConfig
from tabled.floor.service import Floor, floor_connector
from tabled.sim.light import Pace
from tests.floor.lightfloor import LightFloor, play_for
from tests.pool.replica import ReplicatedPostgres, replicated_database

SETTLE_S = 5.0  # after the standby is back, a failover's effects are over


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Load:
    """The central servers' CPU, transactions and statements, summed over each primary's term."""

    def __init__(self, pair: ReplicatedPostgres, dbname: str) -> None:
        self.pair, self.dbname = pair, dbname
        self.cpu_s = self.xacts = self.calls = 0.0
        self._start = (0.0, 0.0, 0.0, 0.0)

    def _read(self) -> tuple[float, float, float, float]:
        cpu = sum(self.pair.cpu_s(n) for n in self.pair.nodes)
        with psycopg.connect(self.pair.dsn_of(self.pair.primary, self.dbname), autocommit=True) as conn:
            xacts = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
                                 (self.dbname,)).fetchone()[0]
            calls = conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements").fetchone()[0]
        return cpu, float(xacts), float(calls), time.monotonic()

    def begin(self) -> None:
        self._start = self._read()

    def end(self) -> None:
        cpu, xacts, calls, _ = self._read()
        self.cpu_s += cpu - self._start[0]
        self.xacts += xacts - self._start[1]
        self.calls += calls - self._start[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--failovers", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=600.0, help="of play, the failovers among them")
    ap.add_argument("--workers", type=int, default=2, help="processes the tables play in")
    ap.add_argument("--poll-ms", type=int, default=500, help="the floor's poll")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    logging.getLogger("psycopg").setLevel(logging.CRITICAL)
    rng = random.Random(args.seed)
    with ReplicatedPostgres(synchronous=True, count_statements=True) as pair, \
            tempfile.TemporaryDirectory() as tmp:
        casino = replicated_database(pair)
        with psycopg.connect(pair.dsn_of(pair.primary, "casino"), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION pg_stat_statements")
        floor_ = LightFloor(casino, Path(tmp), args.tables, Pace())
        asyncio.run(floor_.create_pool())
        load = Load(pair, "casino")
        # the failovers at random moments after the first 30 s (each after the one before is over)
        span = max(args.seconds - 60, 1.0)
        moments = sorted(rng.uniform(30, 30 + span) for _ in range(args.failovers))
        windows: list[tuple[float, float, float]] = []  # (kill, taking writes, standby back) POSIX times

        async def run() -> Floor:
            floor = Floor(FloorConfig(central=casino, poll_s=args.poll_ms / 1000), floor_connector(casino))
            watching = asyncio.create_task(floor.run())
            slices = [floor_.tables[i::args.workers] for i in range(args.workers)]
            with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) \
                    as workers:
                loop = asyncio.get_running_loop()
                playing = [loop.run_in_executor(workers, play_for, s, args.seconds) for s in slices]
                t0 = time.monotonic()
                load.begin()
                for at in moments:
                    await asyncio.sleep(max(0.0, t0 + at - time.monotonic()))
                    load.end()
                    kill = time.time()
                    await asyncio.to_thread(pair.kill_primary)
                    await asyncio.to_thread(pair.promote)
                    writable = time.time()
                    pair.failovers += 1
                    load.begin()
                    await asyncio.to_thread(pair.rejoin)
                    windows.append((kill, writable, time.time()))
                results = await asyncio.gather(*playing)
                load.end()
            for confirmed in results:
                for t in floor_.tables:
                    if t.table_id in confirmed:
                        t.confirmed = confirmed[t.table_id]
            await asyncio.sleep(2 * args.poll_ms / 1000)  # the floor's last polls
            watching.cancel()
            await floor.stop()
            return floor

        started = time.time()
        floor = asyncio.run(run())
        played_s = time.time() - started
        o = floor_.check()

        def in_failover(t: float) -> bool:
            return any(kill <= t <= back + SETTLE_S for kill, _, back in windows)

        with psycopg.connect(casino + " target_session_attrs=read-write") as conn:
            rows = conn.execute("SELECT table_id, time_us / 1e6::float8, extract(epoch FROM received_at)::float8 "
                                "FROM journal_records ORDER BY table_id, seq").fetchall()
        lag_out = [r - t for _, t, r in rows if not in_failover(t)]
        lag_in = [r - t for _, t, r in rows if in_failover(t)]
        reconnect = []
        for kill, writable, _ in windows:
            first: dict[str, float] = {}
            for table_id, t, r in rows:
                if kill <= t <= writable and table_id not in first:
                    first[table_id] = r - kill
            reconnect += first.values()
        page_out = [d for t, d in floor.record_to_page if not in_failover(t)]
        page_all = [d for _, d in floor.record_to_page]
        promotion = [w - k for k, w, _ in windows]
        dup, miss = o.duplicates + o.pool_duplicates, o.missing + o.pool_missing
        n = args.tables
        print(f"{n} tables, {len(windows)} failovers (the primary killed -m immediate, the standby promoted, the old "
              f"primary back as standby), {played_s:.0f} s of play in {args.workers} processes, "
              "synchronous replication")
        print(f"records: {o.records} journaled, {o.shipped} on the last primary; duplicates {o.duplicates}, missing "
              f"{o.missing}; audit compare agrees for {n - len(o.compare_disagree)} of {n} tables")
        print(f"pool: {o.contributions} rounds' contributions and {o.awards} awards confirmed to the tables; "
              f"duplicates {o.pool_duplicates}, missing {o.pool_missing}")
        print(f"promotion (kill to the new primary taking writes): p50 {pct(promotion, .5):.2f} s, p99 "
              f"{pct(promotion, .99):.2f} s; reconnect (kill to the table's first record on the new primary, "
              f"{len(reconnect)} table-failovers): p50 {pct(reconnect, .5):.2f} s, p99 {pct(reconnect, .99):.2f} s")
        print(f"shipping lag outside failovers ({len(lag_out)} records): p50 {pct(lag_out, .5):.3f} s, p99 "
              f"{pct(lag_out, .99):.3f} s, max {max(lag_out, default=float('nan')):.3f} s; during failovers "
              f"({len(lag_in)} records): p99 {pct(lag_in, .99):.2f} s, max {max(lag_in, default=float('nan')):.2f} s")
        print(f"floor record-to-page outside failovers ({len(page_out)} records): p50 {pct(page_out, .5):.3f} s, "
              f"p99 {pct(page_out, .99):.3f} s; all records: p99 {pct(page_all, .99):.2f} s "
              f"(poll every {args.poll_ms} ms)")
        print(f"central server: CPU {load.cpu_s:.1f} s in {played_s:.0f} s ({100 * load.cpu_s / played_s:.1f}% of "
              f"one core; {1000 * load.cpu_s / played_s / n:.2f} ms/s per table); {load.xacts / played_s:.1f} "
              f"transactions/s, {load.calls / played_s:.1f} statements/s ({load.calls / played_s / n:.2f} per table)")
        print(f"floor: {n} tables, {len(windows)} failovers, duplicates {dup}, missing {miss}, "
              f"shipping lag p99 {pct(lag_out, .99):.2f} s, page p99 {pct(page_out, .99):.2f} s")


if __name__ == "__main__":
    main()

"""Progressive pool speed and scale. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_pool.py [--dsn postgresql://postgres@127.0.0.1:5432/postgres]
                                              [--tables 20] [--seconds 5] [--changes 200] [--processes 2]

Against a real PostgreSQL (the one --dsn names; when it does not answer, a throwaway server is
started as in the tests), in a fresh database dropped afterwards:

1. contributions/s sustained by N tables, each its own connection and its own asyncio task, each
   sending one round's 7 spots after another: each contribution its own committed transaction
   (``contribute``), then each round's spots in one transaction (``contribute_round``, what
   "no more bets" locks at once, 7.2.1); the pool row is locked FOR UPDATE in every transaction.
   The tables run in this one process (its CPU is then the limit: in life each table is its own
   PC), and, for the per-spot case, also spread over --processes processes;
   target >= 1,000/s. The local SQLite pool is timed too.
2. hit-to-reset latency: a royal flush's one transaction (lock, award_progressive, award rows,
   reset, NOTIFY, commit), on an idle pool and while the N tables contribute.
3. meter propagation across tables: N tables each LISTEN on the pool's channel; one table changes
   the pool; the delay from the start of the change's transaction to each table's receipt of the
   new amount; p50/p99/max; target p99 < 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.game.progressive import ProgressiveHit, ProgressiveSchedule
from tabled.game.ranking import Category
from tabled.pool.local import LocalPool
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings
from tests.pool.pgserver import (DEFAULT_DSN, ThrowawayPostgres, create_database, drop_database,
                                 dsn_for, migrate_pool, reachable)

NSW = ProgressiveSchedule(1_000_000, 100, 100_000, 10)
SETTINGS = PoolSettings(7000, 1_000_000)
ROYAL = [ProgressiveHit(7, Category.ROYAL_FLUSH)]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _load_in_process(dsn: str, first: int, tables: int, seconds: float, per_round: bool, start_at: float,
                     out: multiprocessing.Queue) -> None:
    out.put(asyncio.run(contribution_load(dsn, tables, seconds, False, per_round, first=first, start_at=start_at)))


def contribution_load_processes(dsn: str, tables: int, seconds: float, per_round: bool,
                                processes: int) -> tuple[int, float]:
    """The tables spread over several processes (a table PC each, in life), started together."""
    out: multiprocessing.Queue = multiprocessing.Queue()
    start_at = time.time() + 2.0  # after every process has connected its tables
    share = [tables // processes + (i < tables % processes) for i in range(processes)]
    firsts = [sum(share[:i]) for i in range(processes)]
    procs = [multiprocessing.Process(target=_load_in_process, args=(dsn, f, n, seconds, per_round, start_at, out))
             for f, n in zip(firsts, share)]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(r[0] for r in results), max(r[1] for r in results)


async def contribution_load(dsn: str, tables: int, seconds: float, hitter: bool,
                            per_round: bool = False, first: int = 0,
                            start_at: float | None = None) -> tuple[int, float, list[float]]:
    pools = [await PostgresPool.open(dsn, "main", f"T{first + i:02}", SETTINGS) for i in range(tables)]
    if start_at is not None:
        await asyncio.sleep(max(0.0, start_at - time.time()))
    stop = time.perf_counter() + seconds
    counts = [0] * tables
    hit_latencies: list[float] = []

    async def table(i: int) -> None:
        r = 0
        while time.perf_counter() < stop:
            r += 1
            if per_round:  # all the round's spots lock at "no more bets" (7.2.1): one transaction
                await pools[i].contribute_round(pools[i].table_id, f"L{r}", {s: 500 for s in range(1, 8)})
                counts[i] += 7
                continue
            for spot in range(1, 8):
                await pools[i].contribute(pools[i].table_id, f"L{r}", spot, 500)
                counts[i] += 1

    async def hits() -> None:
        p = await PostgresPool.open(dsn, "main", "HIT", SETTINGS)
        n = 0
        while time.perf_counter() < stop:
            n += 1
            t = time.perf_counter()
            await p.apply_awards("HIT", f"H{n}", ROYAL, NSW)
            hit_latencies.append(time.perf_counter() - t)
            await asyncio.sleep(0.05)
        await p.close()

    started = time.perf_counter()
    await asyncio.gather(*(table(i) for i in range(tables)), *([hits()] if hitter else []))
    elapsed = time.perf_counter() - started
    for p in pools:
        await p.close()
    return sum(counts), elapsed, hit_latencies


async def idle_hits(dsn: str, n: int) -> list[float]:
    pool = await PostgresPool.open(dsn, "main", "IDLE", SETTINGS)
    out = []
    for i in range(n):
        await pool.contribute("IDLE", f"I{i}", 1, 500)
        t = time.perf_counter()
        await pool.apply_awards("IDLE", f"I{i}", ROYAL, NSW)
        out.append(time.perf_counter() - t)
    await pool.close()
    return out


async def meter_propagation(dsn: str, tables: int, changes: int) -> list[float]:
    writer = await PostgresPool.open(dsn, "main", "WRITER", SETTINGS)
    watchers = [await PostgresPool.open(dsn, "main", f"M{i:02}", SETTINGS) for i in range(tables)]
    feeds = [w.subscribe_meter() for w in watchers]
    for f in feeds:
        await anext(f)
    started: list[float] = []
    delays: list[float] = []

    async def watch(feed) -> None:
        for k in range(changes):
            await anext(feed)
            delays.append(time.perf_counter() - started[k])

    watching = [asyncio.create_task(watch(f)) for f in feeds]
    for k in range(changes):
        started.append(time.perf_counter())
        await writer.contribute("WRITER", f"W{k}", 1, 500)
        await asyncio.sleep(0.005)
    await asyncio.wait_for(asyncio.gather(*watching), 30)
    for f in feeds:
        await f.aclose()
    for p in [writer, *watchers]:
        await p.close()
    return delays


async def local_rate(seconds: float) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as d:
        pool = await LocalPool.open(Path(d) / "pool.db", "main", "T01", SETTINGS)
        n, stop, t = 0, time.perf_counter() + seconds, time.perf_counter()
        while time.perf_counter() < stop:
            n += 1
            await pool.contribute("T01", f"R{n // 7}", n % 7 + 1, 500)
        elapsed = time.perf_counter() - t
        await pool.close()
    return n, elapsed


async def main(args: argparse.Namespace) -> None:
    server = None
    admin = args.dsn
    if not reachable(admin):
        print(f"{admin} does not answer: starting a throwaway PostgreSQL")
        server = ThrowawayPostgres().start()
        admin = server.dsn
    name = create_database(admin)
    dsn = dsn_for(admin, name)
    try:
        migrate_pool(dsn)  # what the administrator's `tabled pool migrate` does
        await (await PostgresPool.open(dsn, "main", "SETUP", SETTINGS)).close()
        n, elapsed, _ = await contribution_load(dsn, args.tables, args.seconds, hitter=False)
        print(f"contributions: {args.tables} tables, {n} in {elapsed:.2f} s = {n / elapsed:,.0f}/s"
              f" (target >= 1,000/s), one committed transaction per spot (contribute)")
        if args.processes > 1:
            n, elapsed = contribution_load_processes(dsn, args.tables, args.seconds, False, args.processes)
            print(f"contributions: {args.tables} tables in {args.processes} processes, {n} in {elapsed:.2f} s ="
                  f" {n / elapsed:,.0f}/s, one committed transaction per spot (contribute)")
        n, elapsed, _ = await contribution_load(dsn, args.tables, args.seconds, hitter=False, per_round=True)
        print(f"contributions: {args.tables} tables, {n} in {elapsed:.2f} s = {n / elapsed:,.0f}/s"
              f" (target >= 1,000/s), one committed transaction per round of 7 spots (contribute_round)")
        n, elapsed, under_load = await contribution_load(dsn, args.tables, args.seconds, hitter=True, per_round=True)
        print(f"  the same with a royal flush every 50 ms from another table: {n / elapsed:,.0f} contributions/s")
        idle = await idle_hits(dsn, 100)
        print(f"hit-to-reset (royal: lock, award, reset, notify, commit): idle p50 {ms(pct(idle, 50))}"
              f" p99 {ms(pct(idle, 99))}; under {args.tables}-table load p50 {ms(pct(under_load, 50))}"
              f" p99 {ms(pct(under_load, 99))} ({len(under_load)} hits)")
        delays = await meter_propagation(dsn, args.tables, args.changes)
        print(f"meter propagation to {args.tables} tables ({len(delays)} readings, from the start of the"
              f" change's transaction): p50 {ms(pct(delays, 50))} p99 {ms(pct(delays, 99))}"
              f" max {ms(max(delays))} (target p99 < 100 ms)")
        n, elapsed = await local_rate(min(args.seconds, 3))
        print(f"local SQLite pool (WAL, synchronous=FULL), one table: {n / elapsed:,.0f} contributions/s")
    finally:
        drop_database(admin, name)
        if server is not None:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", default=DEFAULT_DSN, help="an admin connection to PostgreSQL")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--processes", type=int, default=2,
                        help="also run the per-spot load with the tables spread over this many processes")
    asyncio.run(main(parser.parse_args()))

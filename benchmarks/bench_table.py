"""Table benchmark (measured, not asserted): whole rounds per second with seven simulated spots
through the real controller (journal with synchronous=FULL, local SQLite pool), in-process
simulated devices (no ptys yet), and input-to-effects latency including the durable commit.

    .venv/bin/python benchmarks/bench_table.py [ROUNDS]
"""

from __future__ import annotations

import asyncio
import io
import sys
import tempfile
import time
from pathlib import Path

from tabled.commands.run import run_table
from tabled.config import load_config
from tabled.table import Table


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    cfg = load_config(None)
    latencies: list[float] = []
    original = Table.process

    async def timed(self, batch):
        t0 = time.perf_counter()
        await original(self, batch)
        latencies.append((time.perf_counter() - t0) * 1000)

    Table.process = timed
    import structlog, logging
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as d:
        import dataclasses
        pools = tuple(dataclasses.replace(p, path=Path(d) / "pool.db") for p in cfg.pools)
        cfg = dataclasses.replace(cfg, pools=pools)
        t0 = time.perf_counter()
        asyncio.run(run_table(cfg, rounds, out=io.StringIO(), quiet=True, journal_path=Path(d) / "j.db"))
        elapsed = time.perf_counter() - t0
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"rounds: {rounds} with 7 spots in {elapsed:.2f} s = {rounds / elapsed:.1f} rounds/s")
    print(f"batches: {len(latencies)}; input batch -> durable commit -> effects done: "
          f"p50 {p(0.5):.2f} ms, p99 {p(0.99):.2f} ms, max {latencies[-1]:.2f} ms")


if __name__ == "__main__":
    main()

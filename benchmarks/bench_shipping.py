"""Shipping benchmark (measured, not asserted): 20 tables shipping their journals to a central
PostgreSQL this benchmark starts (tests/pool/pgserver.py), in four parts:

1. shipping lag under 20 tables: each table a process journaling rounds copied from the recorded
   session and shipping them with the daemon's Shipper (tests/integration/trials.py), left alone
   for ``--steady-s`` seconds; the lag of a record is the server's receipt time minus the time the
   table journaled it (one machine, one clock), p50 and p99;
2. trials: ``--trials`` random blows at random moments while the tables play: a table's daemon
   killed (-9) and started again, its connection cut (the server ends its backend), or every
   table's connection cut at once;
3. afterwards, a shipper started again for each table catches up; then per table: records in the
   journal, records on the central server, duplicates, missing, and `tabled audit compare`;
4. event-to-effect (benchmarks/bench_table.py's measure: a device event handed to the table until
   its effects are carried out) of the whole simulated table over ptys, with the journal shipped
   to the same server and without, in the same run (alternated: without, with, with, without).

    .venv/bin/python benchmarks/bench_shipping.py [--tables 20] [--trials 120] [--steady-s 10] [--rounds 100]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_table import Bench, pct
from tabled.commands.run import Seams, run_table
from tabled.daemon import shipping
from tabled.daemon.config import load_config
from tests.integration.trials import Trials
from tests.pool.pgserver import ThrowawayPostgres, create_database, dsn_for


def table_over_ptys(d: Path, rounds: int, ship_to: str | None) -> Bench:
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools),
                              journal=dataclasses.replace(cfg.journal, ship_to=ship_to),
                              screen=dataclasses.replace(cfg.screen, enabled=False))
    bench = Bench(rounds)
    asyncio.run(run_table(cfg, 0, out=io.StringIO(),
                          seams=Seams(journal_path=d / "journal.db", state_dir=d / "dev", hooks=bench)))
    return bench


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--trials", type=int, default=120)
    ap.add_argument("--steady-s", type=float, default=10.0)
    ap.add_argument("--rounds", type=int, default=100, help="rounds of each event-to-effect run")
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    logging.getLogger("psycopg").setLevel(logging.CRITICAL)
    with ThrowawayPostgres() as server, tempfile.TemporaryDirectory() as tmp:
        admin = dsn_for(server.dsn, create_database(server.dsn))
        d = Path(tmp)
        (d / "trials").mkdir()
        trials = Trials(admin, d / "trials", args.tables, seed=1)

        async def shipping_under_blows() -> tuple[list[float], float]:
            try:
                await trials.start()
                t0 = time.time()
                await asyncio.sleep(args.steady_s)
                steady = time.time()
                t1 = time.perf_counter()
                await trials.run(args.trials)
                took = time.perf_counter() - t1
            finally:
                trials.stop()
            lag = trials.lag_ms(t0, steady)
            await trials.catch_up()
            return lag, took

        lag, took = asyncio.run(shipping_under_blows())
        o = trials.check()
        print(f"shipping lag, {args.tables} tables left alone for {args.steady_s:.0f} s: {len(lag)} records, "
              f"p50 {pct(lag, .5):.1f} ms, p99 {pct(lag, .99):.1f} ms, max {max(lag):.1f} ms")
        print(f"trials: {o.trials} in {took:.1f} s ({o.kills} daemons killed -9 and started again, "
              f"{o.cuts} connections cut by the server)")
        print(f"records: {o.records} in the {args.tables} journals, {o.shipped} on the central server; "
              f"duplicates {o.duplicates}, missing {o.missing}; audit compare agrees for "
              f"{args.tables - len(o.compare_disagree)} of {args.tables} tables"
              + (f" (not: {', '.join(o.compare_disagree)})" if o.compare_disagree else ""))

        # event-to-effect with and without shipping, the same table, alternated
        with psycopg.connect(admin, autocommit=True) as conn:
            role = "tabled_bench_" + admin.rsplit("_", 1)[-1][:8]
            shipping.register_table(conn, "SIM01", role, "bench-pw")
        credentials = d / "credentials"
        credentials.mkdir()
        (credentials / shipping.PASSWORD_CREDENTIAL).write_text("bench-pw\n")
        os.environ["CREDENTIALS_DIRECTORY"] = str(credentials)
        ship_to = f"postgresql://{role}@{admin.split('@', 1)[1]}"
        runs: dict[str, list[float]] = {"without shipping": [], "with shipping": []}
        for n, name in enumerate(["without shipping", "with shipping", "with shipping", "without shipping"]):
            folder = d / f"table{n}" if name == "without shipping" else d / "shipped"
            folder.mkdir(exist_ok=True)
            runs[name] += table_over_ptys(folder, args.rounds // 2, ship_to if name == "with shipping" else None) \
                .latency_ms
        for name, ms in runs.items():
            print(f"event -> effects {name}: {len(ms)} inputs, p50 {pct(ms, .5):.2f} ms, "
                  f"p99 {pct(ms, .99):.2f} ms")
        ratio = pct(runs["with shipping"], .99) / pct(runs["without shipping"], .99)
        with psycopg.connect(admin) as conn:
            shipped = conn.execute("SELECT count(*) FROM journal_records WHERE table_id = 'SIM01'").fetchone()[0]
        print(f"event -> effects p99 with / without shipping = {ratio:.2f} ({shipped} records of the shipped "
              f"table on the server)")


if __name__ == "__main__":
    main()

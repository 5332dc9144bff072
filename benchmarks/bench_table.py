"""Table benchmark (measured, not asserted), the whole daemon over real ports:

1. whole rounds per second with seven spots: the daemon's drivers, the shuffler, bet-spot board and
   meter simulators each in its own process on a pty, the shoe and panel behind the simulated pyusb
   backend, the simulated players and dealer acting through them, the journal with
   synchronous=FULL and the local SQLite pool;
2. event-to-effect latency: a device event handed to the table (the driver's consumer submits it
   as the frame is decoded) until its effects are carried out (folded, journaled with its notes in
   one group commit, the frame acknowledged, the dealer's lines shown, the device commands handed to
   their writers), p50 and p99; and the device commands' own time on the wire (queued to answered);
   and, right after, the floor under it: a bare durable SQLite commit (WAL, synchronous=FULL, one
   small record, in the same folder as the journal) timed as many times as there were inputs, and
   the event-to-effect p99 as a ratio of the bare commit's p99 (target 1.5 or less);
3. restart time with a journal of 100,000 rounds: open and verify from the last checkpoint, replay.

    .venv/bin/python benchmarks/bench_table.py [--rounds 300] [--restart-rounds 100000]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import io
import logging
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabled.commands.run import Seams, run_table
from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.journal.store import Journal
from tabled.daemon.controller import Table
from tabled.table.kinds import KEY, SEAL


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Bench:
    """Hooks into run_table: times rounds and every input from submit to effects done."""

    def __init__(self, rounds: int, warm_up: int = 5) -> None:
        self.rounds, self.warm_up = rounds, warm_up
        self.latency_ms: list[float] = []
        self.command_ms: list[float] = []
        self.elapsed = 0.0

    async def started(self, *, table, devices, sims, floor) -> None:
        self.table, self.devices, self.floor = table, devices, floor
        stamps: collections.deque[float] = collections.deque()
        submit, process = table.submit, table.process

        def timed_submit(kind, payload, ack=None):
            stamps.append(time.perf_counter())
            submit(kind, payload, ack)

        async def timed_process(batch):
            t0 = [stamps.popleft() for _ in batch if stamps]  # (the stop tick is not submitted)
            await process(batch)
            t1 = time.perf_counter()
            self.latency_ms += [(t1 - t) * 1000 for t in t0]

        table.submit, table.process = timed_submit, timed_process
        run = devices._run

        async def timed_run(cmd):
            t = time.perf_counter()
            await run(cmd)
            self.command_ms.append((time.perf_counter() - t) * 1000)
        devices._run = timed_run

    async def play(self) -> None:
        await self.floor.play(self.warm_up)
        self.latency_ms.clear()
        self.command_ms.clear()
        t0 = time.perf_counter()
        await self.floor.play(self.rounds)
        self.elapsed = time.perf_counter() - t0


def rounds_over_ptys(rounds: int, d: Path, screen: bool = True):
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools))
    if not screen:  # the table alone, as before it had a screen: the same work as an older tabled
        cfg = dataclasses.replace(cfg, screen=dataclasses.replace(cfg.screen, enabled=False))
    bench = Bench(rounds)
    asyncio.run(run_table(cfg, 0, out=io.StringIO(),
                          seams=Seams(journal_path=d / "journal.db", state_dir=d / "dev", hooks=bench)))
    return cfg, bench


def bare_commits(d: Path, samples: int) -> list[float]:
    """Milliseconds per commit of one small record in a plain SQLite database in ``d`` (WAL,
    synchronous=FULL, as the journal): the least one durable write can cost on this disk."""
    conn = sqlite3.connect(d / "bare.db", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE records (seq INTEGER PRIMARY KEY, kind TEXT, payload TEXT)")
        payload = '{"spot": 3, "area": "ante", "cents": 500, "frame_seq": 0}'
        out: list[float] = []
        for _ in range(samples):
            t = time.perf_counter()
            conn.execute("INSERT INTO records (kind, payload) VALUES ('betspots.wager', ?)", (payload,))
            out.append((time.perf_counter() - t) * 1000)
        return out
    finally:
        conn.close()
        for suffix in ("", "-wal", "-shm"):
            (d / f"bare.db{suffix}").unlink(missing_ok=True)


def build_long_journal(src: Path, dst: Path, rounds: int) -> int:
    """A journal of ``rounds`` rounds: copies of real rounds from ``src`` (round ids renamed), with a
    checkpoint every 100 rounds as the daemon writes them, ending with the whole real journal
    (so the restart replays a real tail after a real checkpoint). Returns the record count."""
    with Journal.open(src, readonly=True) as j:  # the seals are the journal's own: the copy is not sealed
        real = [r for r in j.records_after(0) if r.kind not in (SEAL, KEY)]
    real_rounds = len({r.round_id for r in real if r.round_id})
    by_round: dict[str, list] = collections.defaultdict(list)
    for r in real:
        if r.round_id and r.kind != "checkpoint":
            by_round[r.round_id].append(r)
    templates = [recs for rid, recs in sorted(by_round.items()) if any(x.kind == "round.finished" for x in recs)]
    checkpoint = next(r for r in reversed(real) if r.kind == "checkpoint").payload["snapshot"]
    with Journal.open(dst) as out:
        batch: list = []
        filler = max(0, rounds - real_rounds)
        for n in range(filler):
            rid = f"FILL-{n:07d}"
            batch += [(r.kind, r.payload, rid) for r in templates[n % len(templates)]]
            if (n + 1) % 100 == 0:
                out.append_many(batch)
                out.checkpoint(checkpoint)
                batch = []
        if batch:
            out.append_many(batch)
        for r in real:  # the real table's own history, checkpoints included
            if r.kind == "checkpoint":
                out.checkpoint(r.payload["snapshot"])
            else:
                out.append(r.kind, r.payload, r.round_id)
        return out.count()


def restart_time(cfg, journal: Path, tries: int = 5) -> tuple[float, int]:
    best, replayed = float("inf"), 0
    for _ in range(tries):
        t0 = time.perf_counter()
        j = Journal.open(journal)  # verified from the last checkpoint
        core, missing, replayed = Table.replay(j, lambda snap: make_core(cfg, snap))
        best = min(best, time.perf_counter() - t0)
        j.close()
    return best, replayed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--restart-rounds", type=int, default=100_000)
    ap.add_argument("--no-screen", action="store_true", help="without the dealer's screen (docs/screen.md)")
    args = ap.parse_args()
    every = load_config(None).journal.checkpoint_every_rounds
    if args.rounds < every:
        ap.error(f"--rounds must be at least {every}: the restart measure starts from the checkpoint "
                 f"the table writes every {every} rounds")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cfg, b = rounds_over_ptys(args.rounds, d, screen=not args.no_screen)
        print(f"rounds over ptys{' (no screen)' if args.no_screen else ''}: {args.rounds} with 7 spots in "
              f"{b.elapsed:.2f} s = "
              f"{args.rounds / b.elapsed:.1f} rounds/s (serial sims in 3 processes, USB sims on SimBackend, "
              f"board polled every 50 ms and at once when the simulated players move chips)")
        print(f"event -> effects (fold, group commit synchronous=FULL, ack, display, commands queued): "
              f"{len(b.latency_ms)} inputs, p50 {pct(b.latency_ms, .5):.2f} ms, p99 {pct(b.latency_ms, .99):.2f} ms, "
              f"max {max(b.latency_ms):.2f} ms")
        bare = bare_commits(d, len(b.latency_ms))
        ratio = pct(b.latency_ms, .99) / pct(bare, .99)
        print(f"bare durable commit (plain SQLite in the journal's folder, WAL, synchronous=FULL, one small record): "
              f"{len(bare)} commits, p50 {pct(bare, .5):.2f} ms, p99 {pct(bare, .99):.2f} ms, max {max(bare):.2f} ms")
        print(f"event -> effects p99 / bare commit p99 = {ratio:.2f} (target <= 1.5: "
              f"{'met' if ratio <= 1.5 else 'not met'})")
        print(f"device commands (queued -> answered over the pty/USB): {len(b.command_ms)}, "
              f"p50 {pct(b.command_ms, .5):.2f} ms, p99 {pct(b.command_ms, .99):.2f} ms")
        t0 = time.perf_counter()
        n = build_long_journal(d / "journal.db", d / "long.db", args.restart_rounds)
        size = os.path.getsize(d / "long.db") / 1e6
        print(f"journal of {args.restart_rounds:,} rounds: {n:,} records, {size:.0f} MB "
              f"(built in {time.perf_counter() - t0:.0f} s)")
        for name, path in (("short", d / "journal.db"), ("100k", d / "long.db")):
            best, replayed = restart_time(cfg, path)
            print(f"restart ({name} journal): open + verify from the last checkpoint + replay "
                  f"{replayed} records: {best * 1000:.1f} ms (best of 5)")


if __name__ == "__main__":
    main()

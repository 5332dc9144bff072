"""Continuous verification benchmark (measured, not asserted; tabled/daemon/watchdog.py):

1. detection: a copy of every installed file the table checks (tabled, its profiles, every library
   it runs on) watched by the watchdog in its worker process at ``--interval`` (the simulated
   table's 30 s); ``--changes`` single-byte changes, each at a random moment, in a random file at a
   random offset, each put back once a check named it. For each, the time from the change to the
   check that named it, against the interval;
2. the table beside it, in the same run: the event-to-effect latency of the whole daemon
   (benchmarks/bench_table.py's measure) in alternating stretches of rounds with no verification
   running and with verification running back to back over the whole installed tree, p50 and p99.

    .venv/bin/python benchmarks/bench_watch.py [--changes 200] [--interval 30] [--rounds 120]

The last line is the summary.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import logging
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_table import Bench, pct

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import SoftwareConfig, load_config
from tabled.daemon.watchdog import Scope, Watchdog, Worker
from tabled.host import software

DEVELOPMENT = SoftwareConfig(development=True)


def copy_installed(root: Path) -> int:
    files = software.installed_files()
    for f in files:
        target = root / f.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f.path, target)
    return len(files)


async def detection(root: Path, changes: int, interval: float, seed: int) -> tuple[list[float], list[float]]:
    """Seconds from each change to the check naming it, and each check's duration."""
    rng = random.Random(seed)
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.stat().st_size > 0)
    named: dict[str, float] = {}
    durations: list[float] = []
    arrived = asyncio.Event()

    def submit(kind: str, payload: dict) -> None:
        if kind == "software.checked":
            durations.append(payload["duration_ms"] / 1000)
            for problem in payload.get("problems", []):
                named.setdefault(problem.removeprefix("changed: "), time.monotonic())
            arrived.set()

    dog = Watchdog(Scope(DEVELOPMENT, root), submit, interval)
    task = asyncio.create_task(dog.run())
    latencies: list[float] = []
    try:
        while not durations:  # the baseline: the start's check
            await arrived.wait()
            arrived.clear()
        victims = rng.sample(files, changes)
        pending: dict[str, tuple[Path, bytes, float]] = {}
        per_interval = max(1, changes // 10)
        for n, path in enumerate(victims):
            await asyncio.sleep(rng.uniform(0, 2 * interval / per_interval))  # a random moment
            data = path.read_bytes()
            at = rng.randrange(len(data))
            path.write_bytes(data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:])
            pending[path.relative_to(root).as_posix()] = (path, data, time.monotonic())
            latencies += put_back(pending, named)
            if n % 20 == 19:
                print(f"  {n + 1} changes made, {len(latencies)} found", flush=True)
        while pending:
            await arrived.wait()
            arrived.clear()
            latencies += put_back(pending, named)
    finally:
        task.cancel()
    return latencies, durations


def put_back(pending: dict[str, tuple[Path, bytes, float]], named: dict[str, float]) -> list[float]:
    found = []
    for name in [n for n in pending if n in named and named[n] >= pending[n][2]]:
        path, data, changed_at = pending.pop(name)
        path.write_bytes(data)
        found.append(named.pop(name) - changed_at)
    for name in [n for n in named if n not in pending]:
        del named[name]
    return found


class Alternating(Bench):
    """Rounds in stretches: without verification, then with a check of the whole installed tree
    running back to back, again and again; the latency of each input filed by its stretch."""

    def __init__(self, rounds: int, stretches: int) -> None:
        super().__init__(rounds)
        self.stretches = stretches
        self.by: dict[str, list[float]] = {"without": [], "with": []}
        self.scans = 0

    async def play(self) -> None:
        await self.floor.play(self.warm_up)
        runner = Worker()
        try:
            for n in range(2 * self.stretches):
                running = n % 2 == 1
                dog = task = None
                if running:
                    dog = Watchdog(Scope(DEVELOPMENT), lambda kind, payload: None, 0.0, runner=runner)
                    task = asyncio.create_task(dog.run())
                    while dog.checks == 0:  # under way: its first check done, the next running
                        await asyncio.sleep(0.05)
                self.latency_ms.clear()
                await self.floor.play(self.rounds // self.stretches)
                self.by["with" if running else "without"] += self.latency_ms
                if task is not None and dog is not None:
                    self.scans += dog.checks
                    task.cancel()
                    await asyncio.gather(task, return_exceptions=True)
        finally:
            runner.close()


def table_beside(rounds: int, stretches: int, d: Path) -> Alternating:
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools))
    bench = Alternating(rounds, stretches)
    asyncio.run(run_table(cfg, 0, out=io.StringIO(), seams=Seams(
        journal_path=d / "journal.db", state_dir=d / "dev", hooks=bench, verify_every_s=10 ** 6)))
    return bench


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--changes", type=int, default=200)
    ap.add_argument("--interval", type=float, default=30.0, help="seconds between checks (the simulated table's)")
    ap.add_argument("--rounds", type=int, default=120)
    ap.add_argument("--stretches", type=int, default=3)
    ap.add_argument("--seed", type=int, default=24)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        b = table_beside(args.rounds, args.stretches, d)
        without, with_ = b.by["without"], b.by["with"]
        print(f"event -> effects without verification: {len(without)} inputs, p50 {pct(without, .5):.2f} ms, "
              f"p99 {pct(without, .99):.2f} ms")
        print(f"event -> effects with verification running ({b.scans} whole checks of the installed tree, "
              f"back to back, in the worker process): {len(with_)} inputs, p50 {pct(with_, .5):.2f} ms, "
              f"p99 {pct(with_, .99):.2f} ms")
        root = d / "installed"
        count = copy_installed(root)
        print(f"installed tree copied: {count} files")
        latencies, durations = asyncio.run(detection(root, args.changes, args.interval, args.seed))
        within = sum(1 for s in latencies if s <= args.interval)
        print(f"checks: {len(durations)}, each {pct(durations, .5):.2f} s p50, {max(durations):.2f} s max")
        print(f"detection: {len(latencies)} single-byte changes, p50 {pct(latencies, .5):.1f} s, "
              f"p99 {pct(latencies, .99):.1f} s, max {max(latencies):.1f} s")
        print(f"SUMMARY: {within}/{args.changes} single-byte changes detected within the {args.interval:g} s "
              f"interval (max {max(latencies):.1f} s); event->effect p99 {pct(without, .99):.2f} ms without "
              f"verification, {pct(with_, .99):.2f} ms with it running")


if __name__ == "__main__":
    main()

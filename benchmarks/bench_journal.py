"""Journal speed: durable commits/s, group-commit records/s, restart time with a long journal.

    .venv/bin/python benchmarks/bench_journal.py                 # 100,000 rounds (a few minutes)
    .venv/bin/python benchmarks/bench_journal.py --rounds 10000  # quicker

Measured, not asserted. Everything runs in a temporary directory on the same disk as /tmp (or
--dir), with synchronous=FULL: each commit waits for fsync.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tabled.daemon.journal import Journal


def round_records(round_no: int, per_round: int) -> list[tuple[str, dict, str]]:
    """About ``per_round`` records shaped like a seven-spot round's (wagers, cards, decisions, settlement)."""
    rid = f"T01-{round_no:07d}"
    out: list[tuple[str, dict, str]] = [("round.opened", {"table": "T01", "shoe": "A"}, rid)]
    spot = 0
    while len(out) < per_round - 2:
        spot = spot % 7 + 1
        out.append(("betspots.wager", {"spot": spot, "area": "ante", "cents": 500, "token_cents": 0,
                                       "frame_seq": len(out)}, rid))
        out.append(("card.read", {"spot": spot, "card": (round_no * 7 + len(out)) % 52, "source": "shuffler"}, rid))
    out.append(("round.settled", {"spots": [{"spot": s, "net_cents": 500 * (s % 3 - 1)} for s in range(1, 8)],
                                  "pool": {"before_cents": 1_234_567, "after_cents": 1_234_742}}, rid))
    out.append(("round.closed", {}, rid))
    return out[:per_round]


def bench_commits(directory: Path, n: int) -> float:
    with Journal.open(directory / "commits.db") as j:
        t0 = time.perf_counter()
        for i in range(n):
            j.append("bench.event", {"i": i, "spot": 1 + i % 7, "cents": 500}, round_id="T01-0000001")
        return n / (time.perf_counter() - t0)


def bench_group(directory: Path, group: int, n_records: int) -> tuple[float, float]:
    """(records/s, commits/s) with ``group`` records per transaction."""
    with Journal.open(directory / f"group{group}.db") as j:
        batch = [("bench.event", {"i": i, "spot": 1 + i % 7, "cents": 500}, "T01-0000001") for i in range(group)]
        commits = max(1, n_records // group)
        t0 = time.perf_counter()
        for _ in range(commits):
            j.append_many(batch)
        dt = time.perf_counter() - t0
        return commits * group / dt, commits / dt


def build_long_journal(path: Path, rounds: int, per_round: int, checkpoint_every: int) -> float:
    t0 = time.perf_counter()
    with Journal.open(path) as j:
        for first in range(0, rounds, checkpoint_every):
            last = min(rounds, first + checkpoint_every)
            j.append_many([rec for r in range(first, last) for rec in round_records(r, per_round)])
            j.checkpoint({"table": "T01", "rounds_played": last, "faults": [], "pool_cents": 1_234_742,
                          "shoe": {"deck_in_play": "A", "cards_seen": list(range(0, 52, 3))}})
        # a round in progress after the last checkpoint: what a restart replays
        j.append_many(round_records(rounds, per_round // 2))
    return time.perf_counter() - t0


def restart(path: Path) -> tuple[float, int]:
    """Open (checks the chain from the last checkpoint), read the snapshot, replay the records after it."""
    t0 = time.perf_counter()
    with Journal.open(path) as j:
        cp = j.last_checkpoint()
        snapshot = cp.payload["snapshot"] if cp else {}
        replayed = sum(1 for _ in j.records_after(cp.seq if cp else 0))
        assert snapshot and j.recovery is not None and j.recovery.ok
    return time.perf_counter() - t0, replayed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--records-per-round", type=int, default=30)
    parser.add_argument("--checkpoint-every", type=int, default=100)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--full-verify", action="store_true", help="also time `audit verify` of the whole journal")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        d = Path(tmp)
        print(f"journal benchmark in {d} (SQLite WAL, synchronous=FULL)")
        print(f"single-record commits:     {bench_commits(d, args.commits):8.0f} commits/s")
        for group in (7, 30, 100):
            rps, cps = bench_group(d, group, 30_000)
            print(f"group commit of {group:3d}:      {rps:8.0f} records/s ({cps:.0f} commits/s)")

        path = d / "long.db"
        n = args.rounds * args.records_per_round
        print(f"building a journal of {args.rounds:,} rounds x {args.records_per_round} records "
              f"= {n:,} records, a checkpoint every {args.checkpoint_every} rounds ...", flush=True)
        built = build_long_journal(path, args.rounds, args.records_per_round, args.checkpoint_every)
        size = sum(p.stat().st_size for p in d.glob("long.db*"))
        print(f"  built in {built:.1f} s ({n / built:,.0f} records/s), {size / 1e6:,.0f} MB")
        times = []
        for _ in range(7):
            dt, replayed = restart(path)
            times.append(dt)
        print(f"restart (open + check from last checkpoint + replay {replayed} records): "
              f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms")
        if args.full_verify:
            with Journal.open(path, readonly=True, verify=False) as j:
                t0 = time.perf_counter()
                result = j.verify()
                dt = time.perf_counter() - t0
            print(f"audit verify (whole chain, {result.count:,} records): {dt:.1f} s "
                  f"({result.count / dt:,.0f} records/s), ok={result.ok}")


if __name__ == "__main__":
    main()

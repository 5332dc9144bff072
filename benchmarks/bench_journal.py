"""Journal speed and size: durable commits/s, group-commit records/s, restart time with a long
journal, bytes per round of real rounds in both on-disk formats, `audit verify` time per million.

    .venv/bin/python benchmarks/bench_journal.py                 # 100,000 rounds (a few minutes)
    .venv/bin/python benchmarks/bench_journal.py --rounds 10000  # quicker
    .venv/bin/python benchmarks/bench_journal.py --only-seal     # what sealing every commit costs

The seal's cost (--only-seal, also run by default): the Ed25519 signature of one commit's seal alone;
the CPU time of a commit (the process's, which leaves out the wait for fsync) of 1 and of 7 records
without a key and sealed with one, the difference being what the seal adds; durable commits/s both
ways; and the start's check of a sealed journal (open with the key: the seals from the last
checkpoint checked with it) against an open without the key, on a journal of --seal-rounds rounds
of 30 commits each, a checkpoint every --checkpoint-every rounds and the tail after the last one.

Bytes per round: the simulated table (config/sim.toml, seed 1, seven spots) plays --real-rounds
rounds with `tabled run --pace-ms 0` in its own process, journal in format 2 (what a new journal
is); then the same records -- same numbers, times, payloads, so the same hashes, checked by the
head hash -- are written again through the journal's API into a format 1 journal (as tabled wrote
before format 2) and a format 2 journal. Size is the file on disk after close (WAL folded in).
`audit verify` per million: a journal of --verify-records records made of those real rounds again
and again (a checkpoint every 100 rounds), in each format, checked whole; the figure per million
records is extrapolated from it; on the same journal, restart time and the reports' reading (the
records of the kinds a report reads, as `tabled report` reads them), CPU time.

Measured, not asserted. Everything runs in a temporary directory on the same disk as /tmp (or
--dir), with synchronous=FULL: each commit waits for fsync.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabled.journal.store import Journal, Record
from tabled.reports.rounds import REPORT_KINDS
from tabled.table.kinds import CHECKPOINT, JOURNAL_RECORDS

ROOT = Path(__file__).resolve().parents[1]


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


def seal_key():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tabled.journal.seals import SigningKey
    pem = Ed25519PrivateKey.generate().private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                     serialization.NoEncryption())
    return SigningKey.from_pem(pem, "bench")


def commit_cpu_us(directory: Path, key, group: int, n: int) -> dict[str, tuple[float, float, float]]:
    """For a journal without a key and one sealed with ``key``: (median CPU us per commit, p99,
    commits/s wall) of ``n`` commits of ``group`` records each, the two taking turns commit by
    commit (a machine whose load changes weighs on both alike)."""
    batch = [("bench.event", {"i": i, "spot": 1 + i % 7, "cents": 500}, "T01-0000001") for i in range(group)]
    cpu: dict[str, list[float]] = {"unsealed": [], "sealed": []}
    wall = dict.fromkeys(cpu, 0.0)
    with Journal.open(directory / f"plain{group}.db") as plain, \
            Journal.open(directory / f"sealed{group}.db", seal_with=key) as sealed:
        for _ in range(n):
            for name, journal in (("unsealed", plain), ("sealed", sealed)):
                t, c = time.perf_counter(), time.process_time()
                journal.append_many(batch)
                cpu[name].append((time.process_time() - c) * 1e6)
                wall[name] += time.perf_counter() - t
    out = {}
    for name, times in cpu.items():
        times.sort()
        out[name] = (statistics.median(times), times[min(n - 1, int(0.99 * n))], n / wall[name])
    return out


def bench_seal(directory: Path, n: int, rounds: int, checkpoint_every: int) -> None:
    import base64

    from tabled.journal.store import fingerprint
    from tabled.journal.seals import message
    key = seal_key()
    marks = [fingerprint(i, 1_800_000_000_000_000, "T01-0000001", "bench.event", '{"cents":500}') for i in (1, 2, 3)]
    times, checks = [], []
    public = key.private.public_key()
    for i in range(n):
        t = time.process_time()
        seal = key.seal_payload(i, i + 2, "ab" * 32, marks)
        times.append((time.process_time() - t) * 1e6)
        signed = message(i + 2, "ab" * 32, i, marks)
        signature = base64.b64decode(seal["signature"])
        t = time.process_time()
        public.verify(signature, signed)
        checks.append((time.process_time() - t) * 1e6)
    print(f"one seal over 3 records (Ed25519 signature, payload made), CPU time: median "
          f"{statistics.median(times):.1f} us, p99 {sorted(times)[int(0.99 * n)]:.1f} us; its check "
          f"(signature verified): median {statistics.median(checks):.1f} us ({n} seals)")
    for group in (1, 7):
        both = commit_cpu_us(directory, key, group, n)
        plain, sealed = both["unsealed"], both["sealed"]
        print(f"commit of {group} record{'s' if group > 1 else ''}, CPU time: unsealed median {plain[0]:.0f} us "
              f"(p99 {plain[1]:.0f}), sealed median {sealed[0]:.0f} us (p99 {sealed[1]:.0f}): the seal adds "
              f"{sealed[0] - plain[0]:.0f} us; durable commits/s {plain[2]:.0f} unsealed, {sealed[2]:.0f} sealed")
    path = directory / "sealed-rounds.db"
    with Journal.open(path, seal_with=key) as j:
        for r in range(rounds):
            for rec in round_records(r, 30):
                j.append_many([rec])  # one input a commit, as a table's devices deliver them
            if (r + 1) % checkpoint_every == 0 and r + 1 < rounds:
                j.checkpoint({"table": "T01", "rounds_played": r + 1, "faults": []})
        count = j.count()
    opened: dict[str, list[tuple[float, float]]] = {"without the key": [], "with the key": []}
    for _ in range(5):
        for name, with_key in (("without the key", None), ("with the key", key)):
            t0, c0 = time.perf_counter(), time.process_time()
            with Journal.open(path, seal_with=with_key) as j:
                assert j.recovery is not None and j.recovery.ok
            opened[name].append(((time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000))
    tail = rounds % checkpoint_every or checkpoint_every
    print(f"start's check of a sealed journal ({rounds} rounds, {count:,} records, {tail} rounds = "
          f"{tail * 30} sealed commits after the last checkpoint): "
          + ", ".join(f"{name} median {statistics.median(w for w, _ in v):.0f} ms "
                      f"(CPU {statistics.median(c for _, c in v):.0f} ms)" for name, v in opened.items()))


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


def play_real_rounds(directory: Path, rounds: int) -> Path:
    """The simulated table's journal after ``rounds`` rounds played as `tabled run` plays them."""
    config = (ROOT / "config" / "sim.toml").read_text()
    config = config.replace('"../var/journal.db"', f'"{directory / "played.db"}"')
    config = config.replace('"../var/pool-main.db"', f'"{directory / "pool.db"}"')
    (directory / "sim.toml").write_text(config)
    subprocess.run([sys.executable, "-m", "tabled", "run", "--config", str(directory / "sim.toml"), "--rounds",
                    str(rounds), "--pace-ms", "0", "--quiet"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return directory / "played.db"


def commits(records: list[Record]) -> list[list[Record]]:
    """The records as they were committed (one group commit shares one time)."""
    return [list(group) for _, group in itertools.groupby(records, key=lambda r: (r.time_us, r.kind == CHECKPOINT))]


def write_again(path: Path, records: list[Record], fmt: int) -> str:
    """The same records through the journal's API, in format ``fmt``: each commit at its own time,
    so every record hashes the same. Returns the head hash."""
    now = [0]
    with Journal.open(path, clock=lambda: now[0] / 1_000_000, format=fmt) as j:
        for group in commits(records):
            now[0] = group[0].time_us
            if group[0].kind == CHECKPOINT:
                j.checkpoint(group[0].payload["snapshot"])
            else:
                j.append_many([(r.kind, r.payload, r.round_id) for r in group])
        return j.head[1]


def file_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if not p.name.endswith(".lock"))


def bench_real_rounds(directory: Path, rounds: int) -> list[Record]:
    played = play_real_rounds(directory, rounds)
    with Journal.open(played, readonly=True) as j:
        records = list(j.records_after(0))
        head = j.head[1]
        finished = sum(1 for r in records if r.kind == "round.finished")
    skipped = [r for r in records if r.kind in JOURNAL_RECORDS and r.kind != CHECKPOINT]
    assert not skipped, "seals are not written again here: run the simulated table without a signing key"
    print(f"bytes per round, {finished} rounds of the simulated table ({len(records):,} records, "
          f"{len(records) / finished:.1f} a round):")
    print(f"  as the daemon wrote it (format 2):  {file_bytes(played) / finished:8,.0f} B/round")
    sizes = {}
    for fmt in (1, 2):
        again = directory / f"again{fmt}.db"
        assert write_again(again, records, fmt) == head, "the records written again hash differently"
        sizes[fmt] = file_bytes(again) / finished
        print(f"  the same records in format {fmt}:     {sizes[fmt]:8,.0f} B/round")
    print(f"  format 2 / format 1: {sizes[2] / sizes[1]:.2f}")
    return records


def bench_verify(directory: Path, records: list[Record], n: int) -> None:
    """`audit verify` (the whole chain) over ``n`` records made of the real rounds again and again."""
    rounds: dict[str, list[Record]] = {}
    for r in records:
        if r.round_id is not None and r.kind not in JOURNAL_RECORDS:
            rounds.setdefault(r.round_id, []).append(r)
    shapes = list(rounds.values())
    for fmt in (1, 2):
        path = directory / f"long{fmt}.db"
        written, number = 0, 0
        t0 = time.perf_counter()
        with Journal.open(path, format=fmt) as j:
            while written < n:
                batch = []
                for shape in shapes[number % len(shapes):] + shapes[:number % len(shapes)]:
                    number += 1
                    rid = f"SIM01-{number:07d}"
                    batch += [(r.kind, r.payload, rid) for r in shape]
                    if number % 100 == 0:
                        break
                j.append_many(batch)
                j.checkpoint({"rounds": number, "faults": []})
                written += len(batch) + 1
        built = time.perf_counter() - t0
        with Journal.open(path, readonly=True, verify=False) as j:
            t0, c0 = time.perf_counter(), time.process_time()
            result = j.verify()
            dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert result.ok
        print(f"audit verify, format {fmt}: {result.count:,} records ({file_bytes(path) / 1e6:,.0f} MB, built in "
              f"{built:.0f} s) in {dt:.1f} s ({cpu:.1f} s CPU) = {result.count / dt:,.0f} records/s; per million "
              f"(extrapolated): {dt / result.count * 1e6:.1f} s, {cpu / result.count * 1e6:.1f} s CPU")
        times = [restart(path)[0] for _ in range(5)]
        print(f"  restart (open + check from the last checkpoint): median {statistics.median(times) * 1000:.1f} ms")
        with Journal.open(path, readonly=True, verify=False) as j:
            head, best, read = j.head[0], float("inf"), 0
            for _ in range(3):
                t0 = time.process_time()
                read = sum(len(j.records_between(first, min(first + 4999, head), REPORT_KINDS))
                           for first in range(1, head + 1, 5000))
                best = min(best, time.process_time() - t0)
        print(f"  the reports' reading (their kinds, 5,000 records at a time): {read:,} records in "
              f"{best * 1000:.0f} ms CPU, best of 3")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--records-per-round", type=int, default=30)
    parser.add_argument("--checkpoint-every", type=int, default=100)
    parser.add_argument("--commits", type=int, default=3000)
    parser.add_argument("--full-verify", action="store_true", help="also time `audit verify` of the whole journal")
    parser.add_argument("--real-rounds", type=int, default=500, help="rounds the simulated table plays for bytes/round")
    parser.add_argument("--verify-records", type=int, default=200_000,
                        help="records of real rounds per format for `audit verify` per million")
    parser.add_argument("--only-size", action="store_true", help="only bytes per round and audit verify per million")
    parser.add_argument("--only-seal", action="store_true", help="only what sealing every commit costs")
    parser.add_argument("--seal-commits", type=int, default=2000, help="commits timed each way for the seal's cost")
    parser.add_argument("--seal-rounds", type=int, default=199,
                        help="rounds of the sealed journal whose start check is timed")
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        d = Path(tmp)
        print(f"journal benchmark in {d} (SQLite WAL, synchronous=FULL)")
        bench_seal(d, args.seal_commits, args.seal_rounds, args.checkpoint_every)
        if args.only_seal:
            return
        records = bench_real_rounds(d, args.real_rounds)
        bench_verify(d, records, args.verify_records)
        if args.only_size:
            return
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

"""Committed journal records lost to a damaged write-ahead log, and whether a start finds the loss.

Each trial: a writer process appends rounds of records to a journal as the daemon does (a commit per
input, the head marked after each commit and durably at each round's end: tabled/daemon/heads.py)
and reports each commit; after a random time it is killed with SIGKILL; one random bit of the
journal's write-ahead log is flipped (SQLite then discards that frame and every frame after it);
the journal is opened again and :func:`tabled.daemon.heads.lost_records` asked, as the start asks it.

    .venv/bin/python benchmarks/bench_lost_tail.py [--trials 40] [--seed 1]

Prints, per trial, the records committed, those the journal still holds and whether the start
refused it; then the totals: trials that lost records, and how many of those the start found.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tabled.daemon.heads import HeadMark, lost_records, read_head  # noqa: E402
from tabled.journal.store import Journal, JournalError  # noqa: E402
from tabled.table.effects import Note  # noqa: E402


def writer(path: Path, seed: int) -> None:
    """The daemon's pattern of commits: inputs, each committed and its head marked; round ends."""
    rng = random.Random(seed)
    with Journal.open(path) as journal:  # a journal in use: its history in the file, the last commits in the log
        journal.append_many([("tick", {"history": i}, None) for i in range(50)])
    with Journal.open(path) as journal:
        mark = HeadMark(journal, path)
        mark.mark()
        n = 0
        while True:
            n += 1
            for _ in range(rng.randint(5, 15)):
                journal.append_many([("tick", {"round": n, "pad": "x" * rng.randint(10, 400)}, None)
                                     for _ in range(rng.randint(1, 3))])
                mark([])
                print(journal.head[0], flush=True)
            mark([Note("round.finished", {"round_id": f"R{n}"}, f"R{n}")])


def trial(folder: Path, rng: random.Random) -> tuple[int, int, bool]:
    path = folder / "journal.db"
    child = subprocess.Popen([sys.executable, __file__, "--writer", str(path), str(rng.randint(0, 10**9))],
                             stdout=subprocess.PIPE, text=True)
    committed = 0
    stop = time.monotonic() + rng.uniform(2.0, 6.0)
    assert child.stdout is not None
    while time.monotonic() < stop:
        line = child.stdout.readline()
        if not line:
            break
        committed = int(line)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    head, _ = read_head(path)
    committed = max(committed, head.seq if head else 0)  # a commit marked but not yet reported
    wal = path.with_name(path.name + "-wal")
    size = wal.stat().st_size if wal.exists() else 0
    if size > 32:
        offset = rng.randrange(32, size)
        with wal.open("r+b") as f:
            f.seek(offset)
            byte = f.read(1)[0]
            f.seek(offset)
            f.write(bytes([byte ^ (1 << rng.randrange(8))]))
    try:
        with Journal.open(path, readonly=True) as journal:
            held = journal.count()
            refused = lost_records(journal, path)[0] is not None
    except JournalError:  # the start refuses a journal it cannot open, naming it
        return committed, 0, True
    return committed, held, refused


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--writer":
        writer(Path(sys.argv[2]), int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    lost_trials = found = false_alarms = 0
    for i in range(1, args.trials + 1):
        with tempfile.TemporaryDirectory() as tmp:
            committed, held, refused = trial(Path(tmp), rng)
        lost = committed - held
        lost_trials += lost > 0
        found += lost > 0 and refused
        false_alarms += lost <= 0 and refused
        print(f"trial {i:2}: committed {committed:5}, the journal holds {held:5}, lost {max(lost, 0):4};"
              f" the start {'REFUSES it' if refused else 'plays on'}")
    print(f"{lost_trials} of {args.trials} trials lost committed records; the start found {found} of them;"
          f" {false_alarms} refusal(s) of a journal that lost nothing")


if __name__ == "__main__":
    main()

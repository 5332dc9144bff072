"""``tabled report day`` on a busy table's day: 2,000 rounds of seven spots (about 80,000 records).

    .venv/bin/python benchmarks/bench_report.py                # 2,000 rounds
    .venv/bin/python benchmarks/bench_report.py --rounds 500
    .venv/bin/python benchmarks/bench_report.py --peer /tmp/base   # also a checkout of another commit

The journal is written first (not timed): each round as the table journals it -- round.started,
the wagers, the shuffler's hands, round.dealt, the decisions on the panel, the pool's
contributions, round.settled (computed by the game core), round.finished -- 43 seconds apart from
06:00 UTC. Then ``tabled report day`` runs as its own process (interpreter start and imports
included), best of --repeat, and twice more in this process: the first time builds the exact
counting tables, the second is the report alone. With --peer, the same command from another
checkout of tabled (its own code, this interpreter and packages) runs on the same journal in the
same run, alternating with ours, and the ratio of the CPU times is printed. Each figure is given
as elapsed time and as CPU time (user + system): on a machine shared with other work the CPU time
is the steadier figure.
Target: under 2 s. Measured, not asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from tabled.cli import main as tabled_main
from tabled.journal.store import Journal
from tabled.game.cards import hand_text
from tabled.game.ranking import Category, hand_value
from tabled.game.round_facts import RoundFacts, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle, settlement_as_dict
from tabled.profiles import load_profile

START = datetime(2026, 11, 30, 6, 0, tzinfo=UTC).timestamp()
ROUND_SECONDS = 43


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


def round_records(n: int, rng: random.Random, profile, pool_cents: int) -> list[tuple[str, dict, str]]:
    rid = f"T01-{n:06d}"
    deck = rng.sample(range(52), 40)
    dealer = tuple(deck[35:40])
    out: list[tuple[str, dict, str]] = [("round.started", {"deck": "A", "back": "red", "progressive_offline": False},
                                         rid)]
    spots = []
    for number in range(1, 8):
        ante = Wager(rng.choice([500, 1000, 2500]))
        progressive = Wager(100) if rng.random() < 0.6 else Wager()
        cards = tuple(deck[5 * (number - 1):5 * number])
        out.append(("wager", {"area": "ante", "cents": ante.cents, "spot": number, "stacks": 1, "token_cents": 0}, rid))
        if progressive:
            out.append(("wager", {"area": "progressive", "cents": 100, "spot": number, "stacks": 1, "token_cents": 0},
                        rid))
        raises = hand_value(cards).category >= Category.ONE_PAIR
        spots.append(SpotFacts(number, SpotStatus.PLAYED if raises else SpotStatus.FOLDED, ante,
                               Wager(2 * ante.cents) if raises else Wager(), progressive, cards))
    out.append(("panel", {"action": "no_more_bets", "key": "dealer"}, rid))
    for s in spots:
        out.append(("shuffler.hand", {"cards": list(s.cards), "up": 4}, rid))
        if s.progressive:
            out.append(("pool.contributed", {"pool_cents": 25, "retained_cents": 75, "round_id": rid, "spot": s.spot,
                                             "wager_cents": 100, "pool": "main", "balance_cents": pool_cents}, rid))
    out.append(("shuffler.hand", {"cards": list(dealer), "up": 4}, rid))
    out.append(("round.dealt", {"dealer": hand_text(dealer), "dealer_up": [hand_text(dealer[4:])],
                                "spots": {str(s.spot): hand_text(s.cards) for s in spots}}, rid))
    for s in spots:
        if s.status is SpotStatus.FOLDED:
            out.append(("panel", {"action": "fold", "key": "dealer", "spot": s.spot}, rid))
        else:
            out.append(("wager", {"area": "bet", "cents": s.bet.cents, "spot": s.spot, "stacks": 1, "token_cents": 0},
                        rid))
    out.append(("panel", {"action": "reveal", "key": "dealer"}, rid))
    out.append(("panel", {"action": "settle", "key": "dealer"}, rid))
    st = settle(RoundFacts(7, dealer, tuple(spots), pool_cents), profile)
    out.append(("round.settled", dict(settlement_as_dict(st)), rid))
    out.append(("round.finished", {"phase": "complete"}, rid))
    return out


def build(path: Path, rounds: int) -> int:
    rng = random.Random(7)
    profile = load_profile("nsw")
    clock = Clock()
    with Journal.open(path, clock=clock) as journal:
        journal.append("panel", {"action": "open_table", "key": "supervisor"})
        for n in range(1, rounds + 1):
            clock.now = START + 60 + n * ROUND_SECONDS
            journal.append_many(round_records(n, rng, profile, 1_000_000))
        return journal.head[0]


class Timing:
    """The best elapsed and CPU (user + system) times of a command's runs as its own process."""

    def __init__(self) -> None:
        self.elapsed = self.cpu = float("inf")

    def run(self, command: list[str], **options) -> subprocess.CompletedProcess:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=True, **options)
        self.elapsed = min(self.elapsed, time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpu = min(self.cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        return done

    def __str__(self) -> str:
        return f"{self.elapsed:.2f} s elapsed, {self.cpu:.2f} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer", type=Path, help="a checkout of another commit of tabled to time beside this one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.db"
        t0 = time.perf_counter()
        records = build(path, args.rounds)
        print(f"journal: {args.rounds:,} rounds, {records:,} records, written in {time.perf_counter() - t0:.1f} s")
        command = [sys.executable, "-m", "tabled", "report", "day", "--journal", str(path), "--from", "2026-11-30"]
        ours = Timing()
        peer = Timing() if args.peer else None
        for _ in range(args.repeat):
            done = ours.run(command)
            if peer is not None:
                # the peer's package first on the path: ``-m`` puts the working directory first
                env = dict(os.environ, PYTHONPATH=str(args.peer))
                theirs = peer.run(command, cwd=args.peer, env=env)
                if theirs.stdout != done.stdout:
                    print("the peer's report differs from ours")
        settled = next(line for line in done.stdout.splitlines() if line.startswith("play:"))
        print(settled)
        load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        print(f"tabled report day, its own process: {ours} (best of {args.repeat}); target < 2 s; {load}")
        if peer is not None:
            print(f"the same from {args.peer}: {peer}; ours takes {ours.cpu / peer.cpu:.2f} x its CPU time")
        for what in ("in this process, the exact tables built", "in this process, the report alone"):
            t0, c0 = time.perf_counter(), time.process_time()
            with contextlib.redirect_stdout(io.StringIO()):
                tabled_main(command[3:])
            print(f"{what}: {time.perf_counter() - t0:.2f} s elapsed, {time.process_time() - c0:.2f} s CPU")


if __name__ == "__main__":
    main()

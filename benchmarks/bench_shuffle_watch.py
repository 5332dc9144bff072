"""The shuffle watch's false alarms on a working device, and how soon it catches each fault.
Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_shuffle_watch.py [--shuffles 1000000] [--seed 1]

False alarms: a working device's shuffles are independent, uniformly random permutations, so the
watch's statistics are computed for many of them at once in NumPy (the same statistics as
tabled.game.shuffle_watch, checked against it on the first shuffles) and compared with its
thresholds. Detection: devices that fail each way of drivers/sim/mixing.py from their first shuffle,
judged by the watch itself. The per-shuffle cost of the watch is timed too. Last, the simulated
null of the report's positions test (tabled/reports/positions.py) for several numbers of shuffles,
beside the chi-square approximations it replaces, and the time it takes.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from tabled.game import shuffle_watch as sw
from tabled.reports import positions
from tabled_drivers.sim import mixing

CHUNK = 100_000


def thresholds() -> tuple[int, int, list[int]]:
    """The largest rising-sequence count, the smallest pairs-kept count and, for each window w, the
    smallest sum of pairs kept that raise an alarm."""
    watch_r = max(r for r in range(1, 53) if sw.ShuffleWatch().judge(list(range(52)), _rising(r)).p_rising < sw.ALPHA)
    tables = sw.tail_tables()
    kept = min(k for k in range(52) if tables.kept_at_least[k] < sw.ALPHA)
    windows = [min(s for s, p in enumerate(tail) if p < sw.ALPHA / sw.WINDOW) for tail in tables.window_sum_at_least]
    return watch_r, kept, windows


def _rising(r: int) -> list[int]:
    """An order of 52 with exactly r rising sequences relative to 0..51."""
    runs = [list(range(i, 52, r)) for i in range(r)]
    return [c for run in reversed(runs) for c in run] if r > 1 else list(range(52))


def false_alarms(n: int, seed: int) -> tuple[int, float, float]:
    r_max, kept_min, windows = thresholds()
    rng = np.random.default_rng(seed)
    alarms, done, total_seen, history = 0, 0, 0, np.zeros(0, dtype=np.int64)
    started = time.perf_counter()
    while done < n:
        m = min(CHUNK, n - done)
        pos = np.argsort(rng.random((m, 52)), axis=1)  # where each card of the old order went
        rising = 1 + (pos[:, 1:] < pos[:, :-1]).sum(axis=1)
        kept = (pos[:, 1:] == pos[:, :-1] + 1).sum(axis=1)
        if done == 0:  # the NumPy statistics are the watch's
            for row in pos[:50]:
                after = [0] * 52
                for card, where in enumerate(row):
                    after[where] = card
                v = sw.ShuffleWatch().judge(list(range(52)), after)
                assert (v.rising, v.kept) == (1 + int((row[1:] < row[:-1]).sum()), int((row[1:] == row[:-1] + 1).sum()))
        bad = (rising <= r_max) | (kept >= kept_min)
        chain = np.concatenate([history, kept])
        sums = np.concatenate([[0], np.cumsum(chain)])
        seen = total_seen + np.arange(1, m + 1)       # shuffles judged so far, this one included
        idx = np.arange(m) + len(history) + 1
        for w, limit in enumerate(windows, start=1):
            window = sums[idx] - sums[np.maximum(idx - w, 0)]
            bad |= (seen >= w) & (window >= limit)
        alarms += int(bad.sum())
        history = chain[-sw.WINDOW:]
        total_seen += m
        done += m
    return alarms, time.perf_counter() - started, 3 * sw.ALPHA


def detection(fault: str, devices: int = 200) -> tuple[int, float, int]:
    delays = []
    for seed in range(devices):
        rng = random.Random(seed)
        watch, deck = sw.ShuffleWatch(), mixing.random_order(list(range(52)), rng)
        for shuffle in range(1, 1000):
            new = mixing.MIXERS[fault](deck, rng)
            if watch.judge(deck, new).alarm:
                delays.append(shuffle)
                break
            deck = new
    return min(delays), sum(delays) / len(delays), max(delays)


def positions_null(shuffles: int) -> str:
    """One row of docs/mathematics.md's table: the simulated null's moments and points, the tails
    the textbook chi-square(2,601) and the scaled (52/51) chi-square(2,601) give at its 95% point, and
    the time the simulation took."""
    started = time.perf_counter()
    chi = positions.simulated_squares(shuffles) * 52 / shuffles - 52 * shuffles
    seconds = time.perf_counter() - started
    q = [float(np.quantile(chi, p)) for p in (0.05, 0.5, 0.95, 0.99)]
    tails = positions.chi_square_tail(q[2], 51 * 51), positions.chi_square_tail(q[2] * 51 / 52, 51 * 51)
    return (f"| {shuffles:,} | {chi.mean():,.0f} | {chi.std():.0f} | " + " | ".join(f"{x:,.0f}" for x in q)
            + f" | {tails[0]:.3f} | {tails[1]:.3f} | {seconds:.2f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shuffles", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    alarms, seconds, bound = false_alarms(args.shuffles, args.seed)
    print(f"working device: {alarms} false alarms in {args.shuffles:,} shuffles "
          f"(bound {bound:.1e} a shuffle, i.e. {bound * args.shuffles:.2f} expected at most); {seconds:.1f} s")
    for fault in ("cut", "riffle", "partial_riffle", "stuck_gate"):
        lo, mean, hi = detection(fault)
        print(f"{fault:15} caught after {lo} / {mean:.2f} / {hi} shuffles (min / mean / max over 200 devices)")
    rng, deck, watch = random.Random(3), list(range(52)), sw.ShuffleWatch()
    orders = [mixing.random_order(deck, rng) for _ in range(20_000)]
    started = time.perf_counter()
    for new in orders:
        watch.judge(deck, new)
        deck = new
    print(f"the watch judges a shuffle in {(time.perf_counter() - started) / len(orders) * 1e6:.0f} us")
    print(f"positions test, simulated null ({positions.REPLICATES} sets): shuffles | mean | sd | 5% | 50% | 95% | 99% "
          "| chi-square(2,601) tail at the 95% point | (52/51) chi-square(2,601) tail there | time")
    for shuffles in (60, 300, 1000, 7000):
        print(positions_null(shuffles))


if __name__ == "__main__":
    main()

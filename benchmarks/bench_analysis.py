"""The exact analysis (target: at most 10 minutes). Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_analysis.py [--profile us-standard]

Times, in a fresh process: the rank-pattern tables, the 1,121,471 situations with their exact
dealer counts (every one of the 19,933,230,517,200 deals accounted for), and the par sheets of
all six strategies; then one on-demand optimal decision (what a simulated player asks).
"""

from __future__ import annotations

import argparse
import time

from tabled.game.cards import parse_card, parse_cards
from tabled.math import analysis, counting
from tabled.math.paytable import load_paytable
from tabled.math.strategy import STRATEGIES, decide


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", default="us-standard")
    args = ap.parse_args()
    paytable = load_paytable(args.profile)
    t0 = time.perf_counter()
    counting.plain_tables()
    counting.plain_below()
    t1 = time.perf_counter()
    sit = analysis.situations()
    t2 = time.perf_counter()
    sheets = analysis.analyze(paytable).sheets
    t3 = time.perf_counter()
    hand, up = parse_cards("Ah Kd Qc 7s 6h"), parse_card("5d")
    decide("optimal", hand, up, paytable)
    t4 = time.perf_counter()
    n = 200
    for _ in range(n):
        decide("optimal", hand, up, paytable)
    t5 = time.perf_counter()
    print(f"profile {args.profile}: {len(sit.value):,} situations, {analysis.DEALS:,} deals")
    print(f"rank-pattern tables (plain values, inclusion-exclusion terms): {t1 - t0:6.2f} s")
    print(f"situations and exact dealer counts:                           {t2 - t1:6.2f} s")
    print(f"par sheets of {len(STRATEGIES)} strategies:                                   {t3 - t2:6.2f} s")
    print(f"whole exact analysis:                                         {t3 - t0:6.2f} s")
    print(f"one on-demand optimal decision: {(t5 - t4) / n * 1e3:.2f} ms (first call {t4 - t3:.2f} s)")
    print(f"optimal total {sheets['optimal'].total_units:,} units, house edge "
          f"{sheets['optimal'].house_edge:.4%}")


if __name__ == "__main__":
    main()

"""Simulator speed (target: at least 10 million player hands in under 60 seconds).

    .venv/bin/python benchmarks/bench_simulate.py [--hands 10000000] [--spots 7] [--strategy optimal]

Deals and settles the hands through tabled.math.simulator (progressive wagers on every spot) and
prints hands per second. For ``optimal`` the one-off table of exact decisions is built first and
timed separately (it is the exact analysis's situations, a few seconds).
"""

from __future__ import annotations

import argparse
import time

from tabled.profiles import load_profile
from tabled.math import simulator
from tabled.math.paytable import Paytable
from tabled.math.strategy import STRATEGIES, _optimal_table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=10_000_000)
    ap.add_argument("--spots", type=int, default=7)
    ap.add_argument("--profile", default="nsw")
    ap.add_argument("--strategy", default="optimal", choices=list(STRATEGIES))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    profile = load_profile(args.profile)
    t0 = time.perf_counter()
    if args.strategy == "optimal":
        _optimal_table(Paytable.from_profile(profile))
    t1 = time.perf_counter()
    rounds = -(-args.hands // args.spots)
    sim = simulator.simulate(profile, rounds, args.spots, args.seed, args.strategy)
    t2 = time.perf_counter()
    print(f"{sim.hands:,} hands ({rounds:,} rounds x {args.spots} spots), {args.profile}, "
          f"{args.strategy}: {t2 - t1:.2f} s = {sim.hands / (t2 - t1) / 1e6:.2f} M hands/s "
          f"(+ {t1 - t0:.2f} s decision table); with the table {t2 - t0:.2f} s in all")
    print(f"return per ante {sim.return_per_ante:+.5f} +- {1.96 * sim.standard_error:.5f}; "
          f"rounds settled by the game core (pool awards): {sim.core_rounds}")


if __name__ == "__main__":
    main()

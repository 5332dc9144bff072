"""Hand ranking speed: tabled against treys. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_ranking.py [--hands 200000] [--seed 1]

Both sides rank the same random hands through their public single-hand function, on cards
already in their own native representation (tabled: a tuple of five card ints, what the daemon
holds; treys: ``Evaluator().evaluate`` on treys' integers). Parsing text into each native form is
timed separately. The batch path (tabled.game.batch.evaluate_batch) is timed on every one of the
2,598,960 hands and on 10 million random hands, and checked against the single-hand function.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from treys import Card, Evaluator

from tabled.game.batch import all_hands, evaluate_batch
from tabled.game.cards import card_text, parse_hand
from tabled.game.ranking import evaluate


def best_of(fn, repeats=5):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    hands = [tuple(rng.sample(range(52), 5)) for _ in range(args.hands)]
    texts = [[card_text(c) for c in h] for h in hands]
    # treys' native form: its card integers, split into the hand (2) and board (3) it takes
    treys_hands = [([Card.new(t) for t in h[:2]], [Card.new(t) for t in h[2:]]) for h in texts]
    evaluator = Evaluator()

    # agreement first: treys ranks 1 (best) .. 7462, tabled 7462 (best) .. 1
    assert all(evaluate(a) == 7463 - evaluator.evaluate(h, b) for a, (h, b) in zip(hands, treys_hands))

    def run_tabled():
        for h in hands:
            evaluate(h)

    def run_treys():
        ev = evaluator.evaluate
        for h, b in treys_hands:
            ev(h, b)

    t_tabled = best_of(run_tabled)
    t_treys = best_of(run_treys)
    n = len(hands)
    print(f"single hand, {n:,} random hands, best of 5")
    print(f"  tabled.evaluate        {n / t_tabled / 1e6:8.2f} M hands/s")
    print(f"  treys Evaluator.evaluate {n / t_treys / 1e6:6.2f} M hands/s")
    print(f"  ratio tabled/treys     {t_treys / t_tabled:8.2f} x   (target >= 3x)")

    joined = [" ".join(t) for t in texts]
    t_parse_tabled = best_of(lambda: [parse_hand(s) for s in joined], 3)
    t_parse_treys = best_of(lambda: [[Card.new(c) for c in t] for t in texts], 3)
    print("parsing text into the native form (not part of the ranking figures)")
    print(f"  tabled.parse_hand      {n / t_parse_tabled / 1e6:8.2f} M hands/s (checks cards, duplicates, count)")
    print(f"  treys Card.new x5      {n / t_parse_treys / 1e6:8.2f} M hands/s (no checks)")

    every = all_hands()
    t_all = best_of(lambda: evaluate_batch(every), 3)
    values = evaluate_batch(every)
    single = np.fromiter((evaluate(h) for h in every.tolist()), dtype=np.int16, count=len(every))
    agree = bool(np.array_equal(values, single))
    print(f"batch path, all 2,598,960 hands: {len(every) / t_all / 1e6:.1f} M hands/s "
          f"(agrees with single-hand function on every hand: {agree}; target >= 20 M/s)")
    gen = np.random.default_rng(args.seed)
    big = np.argsort(gen.random((10_000_000 // 10, 52)), axis=1)[:, :5].astype(np.uint8)
    big = np.tile(big, (10, 1))
    t_big = best_of(lambda: evaluate_batch(big), 3)
    print(f"batch path, 10,000,000 random hands: {len(big) / t_big / 1e6:.1f} M hands/s")


if __name__ == "__main__":
    main()

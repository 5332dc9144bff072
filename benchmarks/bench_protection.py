"""Game protection: power and false alarms of the decision test. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_protection.py [--sessions 10000] [--rounds 500] [--pool 3000]

Deals a pool of rounds with three adjacent spots (A, B, C) and the dealer, and weighs spot B's
decision in each exactly (tabled.math.protection: the informed decision for every first hole
card and every pair the spot cannot see; the hypotheses of sharing hands with A, C or both over
their real hands and 31 exchangeable deals). Sessions then draw their rounds from the pool with replacement, and for
each round fresh hidden cards (:func:`informed_draws`), so the honest null is exact on the pool's
deals; the pool is the sample of visible cards.

* honest sessions: spot B plays one of the honest strategies (tabled.math.strategy, and
  ``hunch``: bet at random, half the time), cycling over them;
* hole-carders at B who see one, two or all four hole cards every round and play the strategy
  optimal for what they see;
* three colluders who pool their hands and each play the joint optimum, each drawing its own
  deals from the pool (as B, its two partners A and C); the session is flagged when any of the
  three is.

A session is flagged at the first round its evidence (the weighted mean over hypotheses and eps
of the products of the decisions' factors, tabled.math.protection.WEIGHTS) reaches 1 / ALERT_ALPHA.
benchmarks/bench_collusion.py seats colluders among honest players at a full table. Prints the power curves, the share
of rounds where each hypothesis's cards flip the decision, the honest false alarms, and last:

    protection: false alarms F in S honest sessions; flagged within 300 rounds: one hole card P1%; ...
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.game.batch import evaluate_batch
from tabled.math import protection, strategy
from tabled.math.counting import QUALIFYING_VALUE
from tabled.math.paytable import load_paytable
from benchmarks.detection import curve, first_hit, session_arguments

HONEST = [*strategy.STRATEGIES, "hunch"]
CHECKPOINTS = (25, 50, 100, 200, 300, 500)
CHUNK = 400  # sessions weighed at once (bounds memory)


HYP = list(protection.HYPOTHESES)
SHARING = list(protection.SHARING)


@dataclass
class Pool:
    """The pool's deals weighed exactly, spot B's side: for each deal r, the informed decision for
    every possible first hole card (46) and pair of hole cards (1,035), for each sharing
    hypothesis in the real deal of A's and C's hands and 31 draws (32), each hypothesis's exact
    share of bets (NaN where it is not weighed), the visible margin, the cards the spot cannot see,
    the up card and the spot's hand value."""

    hole1: np.ndarray       # (R, 46) bool
    hole2: np.ndarray       # (R, 1035) bool
    sharing: np.ndarray     # (R, len(SHARING), 32) bool
    share: np.ndarray       # (R, H)
    visible: np.ndarray     # (R,)
    unseen: np.ndarray      # (R, 46)
    up: np.ndarray          # (R,)
    value: np.ndarray       # (R,)


def weigh(hands, up, holes, seats, paytable, rng) -> Pool:
    parts: list[dict[str, np.ndarray]] = []
    shares = []
    for start in range(0, len(up), 250):
        sl = slice(start, start + 250)
        t: dict[str, np.ndarray] = {}
        ds = protection.decisions(hands[sl], up[sl], holes[sl], seats[sl], paytable, rng, tables=t)
        shares += [[d.share.get(h, np.nan) for h in HYP] for d in ds]
        parts.append(t)

    def cat(key: str) -> np.ndarray:
        return np.concatenate([t[key] for t in parts])
    sharing = np.stack([cat(h) > 0 for h in SHARING], axis=1)
    return Pool(cat("hole-1") > 0, cat("hole-2") > 0, sharing, np.array(shares), cat("visible"),
                cat("unseen"), up, evaluate_batch(hands).astype(np.int64))


def informed_draws(pool: Pool, r: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(..., H) informed decisions for pool deals ``r`` with fresh hidden cards: four hole cards
    dealt from the 46 the spot cannot see (exact for hole-1 and hole-2 from the tables, hole-4 by
    evaluating the dealer's hand) and one of the 32 exchangeable deals of the other hands."""
    shape = r.shape
    flat = r.ravel()
    pos = np.argsort(rng.random((len(flat), 46)), axis=1)[:, :4]
    f1 = pool.hole1[flat, pos[:, 0]]
    a, b = np.minimum(pos[:, 0], pos[:, 1]), np.maximum(pos[:, 0], pos[:, 1])
    f2 = pool.hole2[flat, protection.pair_index(a, b)]
    dealer = np.concatenate([pool.up[flat, None], pool.unseen[flat[:, None], pos]], axis=1)
    dv = evaluate_batch(dealer).astype(np.int64)
    # all four seen: bet unless the dealer qualifies (9.1) and beats the hand (9.4.1.2)
    f4 = ~((dv >= QUALIFYING_VALUE) & (dv > pool.value[flat]))
    deal = rng.integers(0, pool.sharing.shape[2], size=len(flat))
    fs = pool.sharing[flat, :, deal]                                   # (n, len(SHARING))
    return np.concatenate([np.stack([f1, f2, f4], axis=1), fs], axis=1).reshape(*shape, len(HYP))


def flagged_at(pool: Pool, decide, rng: np.random.Generator, sessions: int, rounds: int,
               spots: int = 1) -> np.ndarray:
    """First round (1-based) at which each session's evidence reached the alert level, or 0.
    ``decide(r, informed)``: the bets at pool deals r given the informed decisions there; with
    several spots, each draws its own deals and the session is flagged when any spot is."""
    threshold = np.log(1 / protection.ALERT_ALPHA)
    weights = protection.cell_log_weights()
    first = np.zeros(sessions, dtype=np.int64)
    for start in range(0, sessions, CHUNK):
        n = min(CHUNK, sessions - start)
        hit = np.zeros((n, rounds), dtype=bool)
        for _ in range(spots):
            r = rng.integers(0, len(pool.up), size=(n, rounds))
            f = informed_draws(pool, r, rng)
            share = pool.share[r]
            lf = protection.log_factors(decide(r, f)[..., None], f, np.nan_to_num(share))   # (n, rounds, H, E)
            lf = np.where(np.isnan(share)[..., None], 0.0, lf)  # a hypothesis not weighed: factor 1
            hit |= protection.log_mean(np.cumsum(lf, axis=1), weights) >= threshold
        first[start:start + n] = first_hit(hit)
    return first


def main() -> None:
    args = session_arguments(__doc__ or "", "bench_protection", pool=3000, sessions=10_000,
                             pool_help="rounds dealt and weighed exactly")
    paytable = load_paytable("nsw")
    rng = np.random.default_rng(args.seed)
    R = args.pool
    deck = np.argsort(rng.random((R, 52)), axis=1)
    spots = [deck[:, 0:5], deck[:, 5:10], deck[:, 10:15]]
    up, holes = deck[:, 15], deck[:, 16:20]
    t0 = time.perf_counter()
    seats = protection.no_seats(R)
    seats[:, protection.seat(-1)], seats[:, protection.seat(1)] = spots[0], spots[2]
    pool = weigh(spots[1], up, holes, seats, paytable, rng)
    took = time.perf_counter() - t0
    print(f"weighed {R} deals exactly in {took:.0f} s ({1000 * took / R:.1f} ms a deal)")
    hyp = HYP
    real = informed_draws(pool, np.arange(R), rng)
    for i, h in enumerate(hyp):
        if np.isnan(pool.share[:, i]).all():
            continue  # no hand at those seats
        flips = (real[:, i] != (pool.visible > 0)).mean()
        can = ((pool.share[:, i] > 0) & (pool.share[:, i] < 1)).mean()
        gain = protection.expected_log_factor(pool.share[:, i]).mean(axis=0).max()
        print(f"{h:>10}: flips the optimal decision in {100 * flips:5.2f}% of rounds; could flip in "
              f"{100 * can:5.1f}%; a full cheat adds {gain:.3f} nats a round, the alert needs at most "
              f"{protection.alert_ln(h):.1f}")

    honest_first = []
    per = -(-args.sessions // len(HONEST))
    print(f"honest sessions ({args.rounds} rounds, {per} per strategy): flagged")
    for name in HONEST:
        n = min(per, args.sessions - sum(len(f) for f in honest_first))
        if n <= 0:
            break
        if name == "hunch":
            def decide(r, f):
                return rng.random(r.shape) < 0.5
        else:
            bets = pool.visible > 0 if name == "optimal" else strategy.raises(name, pool.value, pool.up >> 2)

            def decide(r, f, bets=bets):
                return bets[r]
        first = flagged_at(pool, decide, rng, n, args.rounds)
        honest_first.append(first)
        print(f"  {name:>13}: {int((first > 0).sum())} of {n}")
    alarms = int(sum((f > 0).sum() for f in honest_first))
    print("power: sessions flagged within N rounds")
    personas = {}
    for h in ("hole-1", "hole-2", "hole-4"):
        k = hyp.index(h)
        first = flagged_at(pool, lambda r, f, k=k: f[..., k], rng, args.sessions, args.rounds)
        personas[h] = first
        print(f"  hole-carder sees {h[-1]}: {curve(first, CHECKPOINTS)}")
    k = hyp.index("spots-1+1")  # B plays the joint optimum with A's and C's hands
    first = flagged_at(pool, lambda r, f: f[..., k], rng, args.sessions, args.rounds, spots=3)
    personas["colluders"] = first
    print(f"  three colluders: {curve(first, CHECKPOINTS)}")

    def pct(first: np.ndarray, within: int) -> str:
        return f"{100 * ((first > 0) & (first <= within)).mean():.1f}"

    print(f"protection: false alarms {alarms} in {sum(len(f) for f in honest_first)} honest sessions; "
          f"flagged within 300 rounds: one hole card {pct(personas['hole-1'], 300)}%; within 50: four hole "
          f"cards {pct(personas['hole-4'], 50)}%; within 500: three colluders {pct(personas['colluders'], 500)}%")


if __name__ == "__main__":
    main()

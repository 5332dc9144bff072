"""Game protection: power and false alarms of the decision test. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_protection.py [--sessions 10000] [--rounds 500] [--pool 20000]

Deals a pool of rounds with three adjacent spots (A, B, C) and the dealer, and weighs every
spot's decision in each exactly (tabled.math.protection: one, two and four hole cards exactly
over every card the spot cannot see; the neighbours hypothesis over the neighbours' real hands and
31 exchangeable draws). Sessions then draw their rounds from the pool with replacement, so the
figures are for the pool's deals (each round's weighing is exact; the pool is the sample).

* honest sessions: spot B plays one of the honest strategies (tabled.math.strategy, and
  ``hunch``: bet at random, half the time), cycling over them;
* hole-carders at B who see one, two or all four hole cards every round and play the strategy
  optimal for what they see;
* three colluders at A, B and C who pool their hands and each play the joint optimum; the
  session is flagged when any of the three is.

A session is flagged at the first round its evidence (mean over hypotheses and eps of the
products of the decisions' factors) reaches 1 / ALERT_ALPHA. Prints the power curves, the share
of rounds where each hypothesis's cards flip the decision, the honest false alarms, and last:

    protection: false alarms F in S honest sessions; flagged within 300 rounds: one hole card P1%; ...
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.game.batch import evaluate_batch  # noqa: E402
from tabled.math import protection, strategy  # noqa: E402
from tabled.math.informed import completion_counts, raise_margin  # noqa: E402
from tabled.math.paytable import load_paytable  # noqa: E402

HONEST = [*strategy.STRATEGIES, "hunch"]
CHECKPOINTS = (25, 50, 100, 200, 300, 500)
CHUNK = 400  # sessions weighed at once (bounds memory)


def weigh(hands, up, holes, nb, paytable, rng):
    """Per pool round r and hidden draw j (the neighbours' hands of draw j, the dealer's hole cards
    dealt from what is left): the informed decision of each hypothesis (R, S+1, H), each
    hypothesis's share of bets over the hidden cards (R, H) and the visible margin (R,)."""
    hyp = list(protection.HYPOTHESES)
    R = len(up)
    S1 = protection.SAMPLES + 1
    informed = np.zeros((R, S1, len(hyp)), dtype=bool)
    share = np.zeros((R, len(hyp)))
    visible = np.zeros(R)
    for start in range(0, R, 250):
        sl = slice(start, min(start + 250, R))
        t: dict[str, np.ndarray] = {}
        ds = protection.decisions(hands[sl], up[sl], holes[sl], nb[sl], paytable, rng, tables=t)
        n = len(ds)
        share[sl] = [[d.share[h] for h in hyp] for d in ds]
        visible[sl] = t["visible"]
        unseen, draws = t["unseen"], t["draws"]
        # each draw's hole cards: four of the unseen cards not in that draw's neighbours' hands
        rest = np.ones((n, S1, 52), dtype=bool)
        rest[np.arange(n)[:, None, None], np.arange(S1)[None, :, None], draws] = False
        visible_cards = np.concatenate([hands[sl], up[sl, None]], axis=1)
        rest[np.arange(n)[:, None, None], np.arange(S1)[None, :, None], visible_cards[:, None, :]] = False
        keys = np.where(rest, rng.random((n, S1, 52)), 2.0)
        hole = np.argsort(keys, axis=2)[:, :, :4]                                  # (n, S1, 4)
        hole[:, 0] = holes[sl]                                                      # the real deal
        pos = np.argmax(unseen[:, None, None, :] == hole[..., None], axis=3)        # (n, S1, 4)
        informed[sl, :, 0] = np.take_along_axis(t["hole-1"], pos[:, :, 0], axis=1) > 0
        a, b = np.minimum(pos[:, :, 0], pos[:, :, 1]), np.maximum(pos[:, :, 0], pos[:, :, 1])
        informed[sl, :, 1] = np.take_along_axis(t["hole-2"], protection.pair_index(a, b), axis=1) > 0
        rep = np.repeat(np.arange(n), S1)
        value = evaluate_batch(hands[sl]).astype(np.int64)
        known = np.concatenate([up[sl][rep, None], hole.reshape(-1, 4)], axis=1)
        m4 = raise_margin(completion_counts(value[rep], hands[sl][rep], known), value[rep], paytable)
        informed[sl, :, 2] = (m4 > 0).reshape(n, S1)
        informed[sl, :, 3] = t["neighbours"] > 0
    return informed, share, visible


def flagged_at(log_factors: np.ndarray, rng: np.random.Generator, sessions: int, rounds: int,
               spots: int = 1) -> np.ndarray:
    """First round (1-based) at which each session's evidence reached the alert level, or 0.
    log_factors: (spots, R, S+1, H, E); each session round draws a pool round and a hidden draw,
    each spot its own."""
    threshold = np.log(1 / protection.ALERT_ALPHA)
    cells = log_factors.shape[3] * log_factors.shape[4]
    first = np.zeros(sessions, dtype=np.int64)
    for start in range(0, sessions, CHUNK):
        n = min(CHUNK, sessions - start)
        hit = np.zeros((n, rounds), dtype=bool)
        for s in range(spots):
            r = rng.integers(0, log_factors.shape[1], size=(n, rounds))
            j = rng.integers(0, log_factors.shape[2], size=(n, rounds))
            cum = np.cumsum(log_factors[s][r, j].reshape(n, rounds, cells), axis=1)
            # ln of the mean over cells of exp(cum), stably
            top = cum.max(axis=2)
            lme = top + np.log(np.exp(cum - top[..., None]).mean(axis=2))
            hit |= lme >= threshold
        any_hit = hit.any(axis=1)
        first[start:start + n] = np.where(any_hit, hit.argmax(axis=1) + 1, 0)
    return first


def curve(first: np.ndarray) -> str:
    return "  ".join(f"{r}:{100 * ((first > 0) & (first <= r)).mean():5.1f}%" for r in CHECKPOINTS)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--pool", type=int, default=20_000, help="rounds dealt and weighed exactly")
    ap.add_argument("--seed", type=int, default=25)
    args = ap.parse_args()
    if min(args.sessions, args.rounds, args.pool) < 1:
        sys.exit("bench_protection: --sessions, --rounds and --pool must be at least 1")
    paytable = load_paytable("nsw")
    rng = np.random.default_rng(args.seed)
    R = args.pool
    deck = np.argsort(rng.random((R, 52)), axis=1)
    spots = [deck[:, 0:5], deck[:, 5:10], deck[:, 10:15]]
    up, holes = deck[:, 15], deck[:, 16:20]
    t0 = time.perf_counter()
    informed, share, visible = weigh(spots[1], up, holes, np.concatenate([spots[0], spots[2]], axis=1),
                                     paytable, rng)
    took = time.perf_counter() - t0
    print(f"weighed {R} rounds exactly, {protection.SAMPLES + 1} hidden draws each, in {took:.0f} s "
          f"({1000 * took / R:.1f} ms a round)")
    hyp = list(protection.HYPOTHESES)
    alert = np.log(len(hyp) * len(protection.EPSILONS) / protection.ALERT_ALPHA)
    for i, h in enumerate(hyp):
        flips = (informed[:, 0, i] != (visible > 0)).mean()
        can = ((share[:, i] > 0) & (share[:, i] < 1)).mean()
        gain = protection.expected_log_factor(share[:, i]).mean(axis=0).max()
        print(f"{h:>10}: flips the optimal decision in {100 * flips:5.2f}% of rounds; could flip in "
              f"{100 * can:5.1f}%; a full cheat adds {gain:.3f} nats a round, the alert needs at most {alert:.1f}")

    def factors(bet: np.ndarray) -> np.ndarray:
        """(R, S+1, H, E) from decisions (R,) or (R, S+1)."""
        bet = np.broadcast_to(bet if bet.ndim == 2 else bet[:, None], informed.shape[:2])
        return protection.log_factors(bet[..., None], informed, share[:, None, :])

    value_b = evaluate_batch(spots[1]).astype(np.int64)
    honest_first = []
    per = -(-args.sessions // len(HONEST))
    print(f"honest sessions ({args.rounds} rounds, {per} per strategy): flagged")
    for name in HONEST:
        n = min(per, args.sessions - sum(len(f) for f in honest_first))
        if n <= 0:
            break
        if name == "hunch":
            bet = rng.random(informed.shape[:2]) < 0.5
        elif name == "optimal":
            bet = visible > 0
        else:
            bet = strategy.raises(name, value_b, up >> 2)
        first = flagged_at(factors(bet)[None], rng, n, args.rounds)
        honest_first.append(first)
        print(f"  {name:>13}: {int((first > 0).sum())} of {n}")
    alarms = int(sum((f > 0).sum() for f in honest_first))
    print("power: sessions flagged within N rounds")
    personas = {}
    for h in ("hole-1", "hole-2", "hole-4"):
        first = flagged_at(factors(informed[:, :, hyp.index(h)])[None], rng, args.sessions, args.rounds)
        personas[h] = first
        print(f"  hole-carder sees {h[-1]}: {curve(first)}")
    colluder = factors(informed[:, :, hyp.index("neighbours")])
    first = flagged_at(np.stack([colluder] * 3), rng, args.sessions, args.rounds, spots=3)
    personas["colluders"] = first
    print(f"  three colluders: {curve(first)}")

    def pct(first: np.ndarray, within: int) -> str:
        return f"{100 * ((first > 0) & (first <= within)).mean():.1f}"

    print(f"protection: false alarms {alarms} in {sum(len(f) for f in honest_first)} honest sessions; "
          f"flagged within 300 rounds: one hole card {pct(personas['hole-1'], 300)}%; within 50: four hole "
          f"cards {pct(personas['hole-4'], 50)}%; within 500: three colluders {pct(personas['colluders'], 500)}%")


if __name__ == "__main__":
    main()

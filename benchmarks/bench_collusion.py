"""Game protection: colluders seated among honest players. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_collusion.py [--pool 400] [--sessions 2000] [--rounds 500]

Deals a pool of rounds at a full seven-spot table and weighs every spot's decision exactly
against every hypothesis of sharing hands (tabled.math.protection.SHARING: any one other spot,
the spots either side, the next two either way, every spot within two seats), over the real deal
of the other hands and 31 exchangeable deals. Colluders share their hands and each plays the
joint optimum (the decision optimal given its own and its partners' cards):

* two adjacent (spots 3 and 4), two apart (2 and 6), three adjacent (3, 4 and 5), three apart
  (1, 4 and 7), the other spots honest;
* each colluder draws its own rounds from the pool and, for each, one of the 32 deals (so its
  partners' hands and every hypothesis's cards come from the same deal); a session is flagged
  when any colluder's evidence reaches the alert level;
* honest sessions: each spot in turn plays one of the honest strategies, decided from its own
  cards and the up card.

Two statistics from the same decisions: *before*, the neighbours hypothesis alone at its weight
among twelve cells (the hole cards' three and it, each with three eps); *after*, every sharing
hypothesis at its weight (tabled.math.protection.WEIGHTS). The hole-card cells are not weighed
here (bench_protection.py does) and count 0 in both: a colluder's real evidence is at least what
is shown, so the power is a lower bound; the honest counts are of the sharing cells alone (the
whole statistic's false alarms are bench_protection.py's, under Ville's bound).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.game.batch import evaluate_batch
from tabled.math import protection, strategy
from tabled.math.paytable import load_paytable
from benchmarks.detection import curve, first_hit, session_arguments

SPOTS = 7
CONFIGS = {"two adjacent (3, 4)": (3, 4), "two apart (2, 6)": (2, 6),
           "three adjacent (3, 4, 5)": (3, 4, 5), "three apart (1, 4, 7)": (1, 4, 7)}
HONEST = [*strategy.STRATEGIES, "hunch"]
SHARING = list(protection.SHARING)
CHECKPOINTS = (50, 100, 200, 300, 500)
CHUNK = 200


def weigh_spot(deck: np.ndarray, spot: int, paytable, rng) -> dict[str, np.ndarray]:
    """Spot ``spot``'s decision in every deal: each sharing hypothesis's margins in the 32 deals,
    its share of bets, the visible margin and the deals themselves."""
    hands = [deck[:, 5 * i:5 * i + 5] for i in range(SPOTS)]
    up = deck[:, 5 * SPOTS]
    seats = protection.no_seats(len(deck))
    for other in range(1, SPOTS + 1):
        if other != spot:
            seats[:, protection.seat(other - spot)] = hands[other - 1]
    out: dict[str, list[np.ndarray]] = {}
    for start in range(0, len(deck), 100):
        sl = slice(start, start + 100)
        t: dict[str, np.ndarray] = {}
        protection.decisions(hands[spot - 1][sl], up[sl], None, seats[sl], paytable, rng, tables=t)
        for key in [*SHARING, "deals", "visible"]:
            out.setdefault(key, []).append(t[key])
    got = {k: np.concatenate(v) for k, v in out.items()}
    got["hand"], got["up"] = hands[spot - 1], up
    got["value"] = evaluate_batch(hands[spot - 1]).astype(np.int64)
    return got


def partners_margins(side: dict[str, np.ndarray], offsets: tuple[int, ...], paytable) -> np.ndarray:
    """(R, 32): the joint optimum's margin for a colluder whose partners sit at ``offsets``."""
    return protection.margins_following(side["value"], side["hand"], side["up"], side["deals"], offsets, paytable)


def evidence_curves(side: dict[str, np.ndarray], bet_of, rng, sessions: int, rounds: int) -> tuple[np.ndarray, ...]:
    """(before, after): per session and round, whether the evidence has reached the alert level.
    ``bet_of(r, j)``: the decisions at pool deals r in deal j of the other hands."""
    threshold = np.log(1 / protection.ALERT_ALPHA)
    w_after = protection.cell_log_weights(SHARING)
    nb = SHARING.index("neighbours")
    w_before = np.full((1, len(protection.EPSILONS)), np.log(1 / 12))
    informed = np.stack([side[h] > 0 for h in SHARING], axis=1)               # (R, Hs, 32)
    weighed = ~np.isnan(np.stack([side[h][:, 0] for h in SHARING], axis=1))  # (R, Hs)
    share = np.where(weighed, informed.mean(axis=2), 0.0)
    before = np.zeros((sessions, rounds), dtype=bool)
    after = np.zeros((sessions, rounds), dtype=bool)
    for start in range(0, sessions, CHUNK):
        n = min(CHUNK, sessions - start)
        r = rng.integers(0, len(share), size=(n, rounds))
        j = rng.integers(0, informed.shape[2], size=(n, rounds))
        f = informed[r, :, j]                                                  # (n, rounds, Hs)
        lf = protection.log_factors(bet_of(r, j)[..., None], f, share[r])      # (n, rounds, Hs, E)
        cum = np.cumsum(np.where(weighed[r][..., None], lf, 0.0), axis=1)
        after[start:start + n] = protection.log_mean(cum, w_after) >= threshold
        before[start:start + n] = protection.log_mean(cum[:, :, nb:nb + 1], w_before) >= threshold
    return before, after


def main() -> None:
    args = session_arguments(__doc__ or "", "bench_collusion", pool=400, sessions=2000,
                             pool_help="deals weighed exactly at every spot")
    paytable = load_paytable("nsw")
    rng = np.random.default_rng(args.seed)
    deck = np.argsort(rng.random((args.pool, 52)), axis=1)
    t0 = time.perf_counter()
    sides = {s: weigh_spot(deck, s, paytable, rng) for s in range(1, SPOTS + 1)}
    took = time.perf_counter() - t0
    print(f"weighed {args.pool} deals at {SPOTS} spots exactly in {took:.0f} s "
          f"({1000 * took / args.pool / SPOTS:.0f} ms a decision)")
    for h in SHARING:
        side = sides[4]
        if np.isnan(side[h][:, 0]).all():
            continue
        share = (side[h] > 0).mean(axis=1)
        flips = ((side[h][:, 0] > 0) != (side["visible"] > 0)).mean()
        nats = protection.expected_log_factor(share).mean(axis=0).max()
        print(f"  spot 4, {h:>10}: flips the optimal decision in {100 * flips:5.2f}% of rounds; a cheat "
              f"following it adds {nats:.3f} nats a round; its cell alone needs {protection.alert_ln(h):.1f}")

    results = {}
    for name, members in CONFIGS.items():
        hits = {"before": np.zeros((args.sessions, args.rounds), dtype=bool),
                "after": np.zeros((args.sessions, args.rounds), dtype=bool)}
        for m in members:
            side = sides[m]
            joint = partners_margins(side, tuple(p - m for p in members if p != m), paytable) > 0

            def bet_of(r, j, joint=joint):
                return joint[r, j]
            before, after = evidence_curves(side, bet_of, rng, args.sessions, args.rounds)
            hits["before"] |= before
            hits["after"] |= after
        results[name] = {k: first_hit(v) for k, v in hits.items()}
        print(f"{name}: sessions flagged within N rounds")
        for k in ("before", "after"):
            print(f"  {k:>6}: {curve(results[name][k], CHECKPOINTS)}")

    honest = {"before": 0, "after": 0}
    per = -(-args.sessions // (len(HONEST) * SPOTS))
    count = 0
    for s in range(1, SPOTS + 1):
        side = sides[s]
        for name in HONEST:
            if name == "hunch":
                def bet_of(r, j):
                    return rng.random(r.shape) < 0.5
            else:
                bets = (side["visible"] > 0 if name == "optimal"
                        else strategy.raises(name, side["value"], side["up"] >> 2))

                def bet_of(r, j, bets=bets):
                    return bets[r]
            before, after = evidence_curves(side, bet_of, rng, per, args.rounds)
            honest["before"] += int(before.any(axis=1).sum())
            honest["after"] += int(after.any(axis=1).sum())
            count += per
    print(f"honest sessions ({args.rounds} rounds, every spot and strategy): {honest['before']} of {count} "
          f"reached the alert before, {honest['after']} after (the sharing cells alone)")

    def pct(name: str, k: str) -> str:
        return f"{100 * ((results[name][k] > 0) & (results[name][k] <= args.rounds)).mean():.1f}%"

    print(f"collusion: flagged within {args.rounds} rounds, before -> after: "
          + "; ".join(f"{name} {pct(name, 'before')} -> {pct(name, 'after')}" for name in CONFIGS)
          + f"; honest alarms {honest['before']} -> {honest['after']} in {count}")


if __name__ == "__main__":
    main()

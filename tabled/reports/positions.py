"""Is every card equally likely at every position? Over a period's shuffles of one deck, Pearson's
chi-square over the 52 x 52 counts of (card, position), judged against its *simulated* null
distribution: the same statistic for REPLICATES sets of as many uniformly random permutations as
shuffles observed, drawn by a generator seeded from the number of shuffles (the same period gives
the same P value on every run). The Monte Carlo P value is (1 + #{simulated >= observed}) /
(1 + REPLICATES): exactly valid for any number of shuffles (no expected-count rule of thumb), never
below 1 / (1 + REPLICATES).

The chi-square distribution with (52 - 1)^2 degrees of freedom is the usual approximation of this
null; :func:`chi_square_tail` is kept to set the simulated quantiles beside it
(docs/mathematics.md), not to judge a device.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from tabled.game.shuffle_watch import DECK

#: random permutation sets simulated per test: P values to the nearest 0.001
REPLICATES = 999
#: the seed of the simulated null, with the number of shuffles: a report is reproducible
SEED = 20260415
#: shuffles needed for the test to say anything (one shuffle's counts are a permutation matrix, always)
MIN_SHUFFLES = 2


@dataclass(frozen=True)
class PositionsTest:
    """The cards' positions over ``shuffles`` shuffles of one deck."""

    shuffles: int
    chi_square: float
    degrees: int          # (52 - 1)^2: each row and column of the counts sums to the number of shuffles
    as_large: int         # simulated statistics at least the observed one
    replicates: int

    @property
    def p_value(self) -> float:
        """The Monte Carlo P value, (1 + as_large) / (1 + replicates)."""
        return (1 + self.as_large) / (1 + self.replicates)

    def describe(self) -> str:
        bound = "<=" if self.as_large == 0 else "="
        return (f"chi-square {self.chi_square:.0f} on {self.degrees} degrees, P {bound} {self.p_value:.3f} "
                f"({self.as_large} of {self.replicates} simulated as large)")


def squares_of_counts(orders: Sequence[Sequence[int]]) -> int:
    """The sum over (card, position) of the count squared: the chi-square is 52 / n times this,
    less 52 n, so comparing these integers compares the statistics exactly."""
    keys = np.asarray(orders, dtype=np.int64).reshape(len(orders), DECK) * DECK + np.arange(DECK)
    counts = np.bincount(keys.ravel(), minlength=DECK * DECK)
    return int(counts @ counts)


def chi_square_of(squares: int, shuffles: int) -> float:
    """Pearson's chi-square, sum (count - n/52)^2 / (n/52), from the sum of the counts squared."""
    return squares * DECK / shuffles - DECK * shuffles


@cache
def simulated_squares(shuffles: int, replicates: int = REPLICATES, seed: int = SEED) -> np.ndarray:
    """The sum of the counts squared for ``replicates`` sets of ``shuffles`` uniformly random
    permutations of the deck, sorted (about 0.8 s per 1,000 shuffles at 999 replicates)."""
    rng = np.random.default_rng([seed, shuffles])
    rows = np.tile(np.arange(0, DECK * DECK, DECK, dtype=np.int32), (shuffles, 1))  # card x 52
    at = np.arange(DECK, dtype=np.int32)
    out = np.empty(replicates, dtype=np.int64)
    for i in range(replicates):
        keys = rng.permuted(rows, axis=1)  # each row a uniformly random order of the cards
        keys += at
        counts = np.bincount(keys.ravel(), minlength=DECK * DECK).astype(np.int64)
        out[i] = counts @ counts
    out.sort()
    return out


def positions_test(orders: Sequence[Sequence[int]], replicates: int = REPLICATES,
                   seed: int = SEED) -> PositionsTest | None:
    """The test over these orders (each a permutation of 0..51), or None under MIN_SHUFFLES."""
    n = len(orders)
    if n < MIN_SHUFFLES:
        return None
    observed = squares_of_counts(orders)
    null = simulated_squares(n, replicates, seed)
    as_large = int(len(null) - np.searchsorted(null, observed, side="left"))
    return PositionsTest(n, chi_square_of(observed, n), (DECK - 1) ** 2, as_large, replicates)


def chi_square_tail(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-square with ``degrees`` degrees of freedom: the regularized upper
    incomplete gamma Q(degrees / 2, statistic / 2), by its series below the mean and its continued
    fraction above (the standard pair; accurate to about 1e-12 here)."""
    a, x = degrees / 2, statistic / 2
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # the series of P, then Q = 1 - P
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1 - total * math.exp(log_front))
    b = x + 1 - a  # Lentz's continued fraction for Q
    c, d = 1 / 1e-300, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


__all__ = ["PositionsTest", "positions_test", "simulated_squares", "squares_of_counts", "chi_square_of",
           "chi_square_tail", "REPLICATES", "SEED", "MIN_SHUFFLES"]

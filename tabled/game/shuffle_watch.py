"""Is the shuffling device randomising? Judged from the card order of each shuffle (3.4) against the
order the deck had before it (its previous shuffle's order), by statistics whose distributions
for a truly random shuffle are known exactly (docs/mathematics.md, "The shuffle watch").

Rule 15.1 names a device that "stops intermixing cards during a shuffle": the cards are then
reshuffled. A shuffle that leaves too much of the previous order standing raises an alarm:

* **rising sequences** (Bayer and Diaconis): the cards of the previous order found in increasing
  positions form runs; a random permutation of 52 has about 26.5 of them (the distribution is the
  Eulerian numbers'), one riffle leaves at most 2, k riffles at most 2^k, a cut 2;
* **pairs kept**: cards next to each other before and still next to each other, in the same
  order; a random permutation keeps about one (the distribution counts permutations with k
  successions exactly); a gate that keeps a block of cards together keeps many, shuffle after
  shuffle;
* the pairs kept **over the last w shuffles** together, for every w up to WINDOW, so a fault too
  small to see in one shuffle is seen within a few.

The rising sequences and the pairs kept each alarm at a tail probability below ALPHA under a random
shuffle; the WINDOW sums each at ALPHA / WINDOW. So a working device raises a false alarm less
than 3 x ALPHA = 7.5e-7 times a shuffle (a union bound, whatever the dependence between the tests):
fewer than one in a million shuffles.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb, factorial
from typing import NamedTuple

DECK = 52
WINDOW = 20              # shuffles whose kept pairs are summed
ALPHA = 2.5e-7           # each test's tail probability that raises an alarm


@cache
def no_succession_count(n: int) -> int:
    """Permutations of n cards in which no card is directly followed by the card that followed it
    before (no succession): Q(1) = Q(2) = 1, Q(n) = (n - 1) Q(n - 1) + (n - 2) Q(n - 2)."""
    if n <= 2:
        return 1 if n >= 1 else 1
    return (n - 1) * no_succession_count(n - 1) + (n - 2) * no_succession_count(n - 2)


def succession_counts(n: int = DECK) -> list[int]:
    """How many permutations of n cards keep exactly k of the n - 1 pairs, for k = 0 .. n - 1:
    choose the k pairs kept (C(n - 1, k)), glue each into one block, and arrange the n - k blocks
    with no succession."""
    return [comb(n - 1, k) * no_succession_count(n - k) for k in range(n)]


def eulerian_counts(n: int = DECK) -> list[int]:
    """How many permutations of n cards have exactly r rising sequences, for r = 1 .. n (index r - 1):
    the Eulerian numbers A(n, r - 1)."""
    return [sum((-1) ** j * comb(n + 1, j) * (r - j) ** n for j in range(r + 1)) for r in range(1, n + 1)]


class Tails(NamedTuple):
    """Tail probabilities for a random shuffle of n cards."""

    rising_at_most: list[float]             # [r - 1]: P(R <= r), r = 1..n
    kept_at_least: list[float]              # [k]: P(S >= k), k = 0..n-1
    window_sum_at_least: list[list[float]]  # [w - 1][s]: P(the sum of w shuffles' S >= s), w = 1..WINDOW


@cache
def tail_tables(n: int = DECK) -> Tails:
    """The exact distributions above, summed into tails (the window sums by convolution in floating
    point: the tails the watch compares are far above its rounding error)."""
    total = factorial(n)
    rising = eulerian_counts(n)
    kept = succession_counts(n)
    below, run = [], 0
    for c in rising:
        run += c
        below.append(float(Fraction(run, total)))
    above, run = [0.0] * n, 0
    for k in range(n - 1, -1, -1):
        run += kept[k]
        above[k] = float(Fraction(run, total))
    pmf = [float(Fraction(c, total)) for c in kept]
    window, tails = [1.0], []
    for _ in range(WINDOW):
        nxt = [0.0] * (len(window) + n - 1)
        for i, a in enumerate(window):
            if a:
                for k, b in enumerate(pmf):
                    nxt[i + k] += a * b
        window = nxt
        tail, run_f = [0.0] * len(window), 0.0
        for s in range(len(window) - 1, -1, -1):
            run_f += window[s]
            tail[s] = min(run_f, 1.0)
        tails.append(tail)
    return Tails(below, above, tails)


def rising_sequences(before: Sequence[int], after: Sequence[int]) -> int:
    """Runs of the previous order found at increasing positions of the new one (1 = unchanged)."""
    where = {card: i for i, card in enumerate(after)}
    positions = [where[card] for card in before]
    return 1 + sum(1 for a, b in zip(positions, positions[1:], strict=False) if b < a)


def pairs_kept(before: Sequence[int], after: Sequence[int]) -> int:
    """Cards directly followed by the same card before and after."""
    follows = {a: b for a, b in zip(after, after[1:], strict=False)}
    return sum(1 for a, b in zip(before, before[1:], strict=False) if follows.get(a) == b)


def check_order(before: Sequence[int], after: Sequence[int]) -> str | None:
    """None when ``after`` is the same cards as ``before``, each once; else what is wrong."""
    if len(after) != len(before) or sorted(after) != sorted(before) or len(set(after)) != len(after):
        return f"the shuffle's order is not the deck's {len(before)} cards, each once"
    return None


@dataclass(frozen=True)
class Verdict:
    """One shuffle judged: its statistics, their tail probabilities, and whether they alarm."""

    rising: int
    kept: int
    window_kept: int       # the pairs kept over the last ``shuffles_in_window`` shuffles, the most telling w
    shuffles_in_window: int
    p_rising: float        # P(R <= rising) for a random shuffle
    p_kept: float          # P(S >= kept)
    p_window: float        # P(the sum of that many random shuffles' S >= window_kept)

    @property
    def alarm(self) -> bool:
        return min(self.p_rising, self.p_kept) < ALPHA or self.p_window < ALPHA / WINDOW

    def why(self) -> str:
        found = []
        if self.p_rising < ALPHA:
            found.append(f"{self.rising} rising sequences (a random shuffle has so few with probability "
                         f"{self.p_rising:.1e})")
        if self.p_kept < ALPHA:
            found.append(f"{self.kept} pairs of cards kept together (probability {self.p_kept:.1e})")
        if self.p_window < ALPHA / WINDOW:
            found.append(f"{self.window_kept} pairs kept over the last {self.shuffles_in_window} shuffles "
                         f"(probability {self.p_window:.1e})")
        return "; ".join(found) or "random as far as these tests see"


class ShuffleWatch:
    """The watch over one device's shuffles of one deck: feed each shuffle's order in turn."""

    def __init__(self, kept_window: Sequence[int] = ()) -> None:
        self.window: deque[int] = deque(kept_window, maxlen=WINDOW)

    def judge(self, before: Sequence[int], after: Sequence[int]) -> Verdict:
        problem = check_order(before, after)
        if problem:
            raise ValueError(problem)
        n = len(after)
        below, above, tails = tail_tables(n)
        r, k = rising_sequences(before, after), pairs_kept(before, after)
        self.window.append(k)
        best = (1.0, 0, 0)  # (tail probability, sum, w) of the most telling window
        total = 0
        for w, kept in enumerate(reversed(self.window), start=1):
            total += kept
            best = min(best, (tails[w - 1][total], total, w))
        return Verdict(r, k, best[1], best[2], below[r - 1], above[k], best[0])

    def forget(self) -> None:
        """After an alarm the deck is reshuffled (15.1); the window starts again."""
        self.window.clear()


__all__ = ["ShuffleWatch", "Verdict", "Tails", "tail_tables", "rising_sequences", "pairs_kept", "eulerian_counts",
           "succession_counts", "check_order", "WINDOW", "ALPHA", "DECK"]

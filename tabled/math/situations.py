"""Situations: every (player hand, up card) pair grouped by what the dealer counts depend on.

The dealer counts of :mod:`tabled.math.counting` depend only on a *situation* (player value,
up-card rank, ranks the player holds in the up card's suit), so the 122,151,120 (hand, up card)
pairs collapse to 1,121,471 weighted situations. The exact analysis sums over them and the
``optimal`` strategy tabulates its decision for each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tabled.game.batch import all_hands, evaluate_batch

from . import counting

HANDS = math.comb(52, 5)                                            # 2,598,960
UP_CARDS = 47


def hand_values(hands: np.ndarray) -> np.ndarray:
    """Poker values of an (N, 5) array of cards (the game core's batch evaluator)."""
    return evaluate_batch(hands).astype(np.int64)


@dataclass(frozen=True)
class Situations:
    value: np.ndarray      # player's hand value
    up_rank: np.ndarray
    suit_mask: np.ndarray  # ranks the player holds in the up card's suit (13-bit mask)
    weight: np.ndarray     # (hand, up card) pairs in this situation
    counts: np.ndarray     # (n, 4) dealer hands: not qualifying, player higher, stand off, dealer higher


_SITUATIONS: list[Situations] = []


def situations(progress: bool = False) -> Situations:
    """Every (player hand, up card) pair, grouped into situations, with exact dealer counts.
    Computed once per process (a few seconds); ``progress`` shows a bar while it runs."""
    if not _SITUATIONS:
        _SITUATIONS.append(_compute_situations(progress))
    return _SITUATIONS[0]


def _compute_situations(progress: bool) -> Situations:
    from tqdm import tqdm

    steps = 12
    with tqdm(total=steps, desc="exact analysis", unit="step", disable=not progress) as bar:
        hands = all_hands()
        values = hand_values(hands).astype(np.int64)
        ranks = (hands >> 2).astype(np.int64)
        bits = np.int64(1) << ranks
        suits = hands & 3
        keys = np.concatenate([values * 8192 + np.where(suits == s, bits, 0).sum(axis=1)
                               for s in range(4)])
        del hands, ranks, bits, suits
        unique, pairs = np.unique(keys, return_counts=True)
        bar.update(1)
        value, mask = unique >> 13, unique & 8191
        # the up card is any rank the player does not hold in that suit
        free = ((mask[:, None] >> np.arange(13)[None, :]) & 1) == 0
        row, up_rank = np.nonzero(free)
        value, mask, weight = value[row], mask[row], pairs[row]
        counting.plain_below()
        bar.update(1)
        chunks = np.array_split(np.arange(len(value)), steps - 2)
        counts = np.empty((len(value), 4), dtype=np.int64)
        for idx in chunks:
            counts[idx] = counting.dealer_counts_batch(value[idx], up_rank[idx], mask[idx])
            bar.update(1)
    assert int(weight.sum()) == HANDS * UP_CARDS
    return Situations(value, up_rank, mask, weight, counts)

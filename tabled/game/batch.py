"""Many hands at once: the poker values of an (N, 5) array of card ints, for the simulator.

The same additive keys as :func:`tabled.game.ranking.evaluate`, done column by column in NumPy:
five gathers and four additions give each hand's key sum, whose low bits are a unique rank-pattern
index and whose high bits say whether the five share a suit; one more gather reads the value. No
sorting and no per-hand Python, which is why it runs at tens of millions of hands a second.
Tested to agree with :func:`~tabled.game.ranking.evaluate` on all 2,598,960 hands.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from . import ranking

_CARD_KEYS = np.array(ranking.CARD_KEYS, dtype=np.int32)
_RANK_BITS = 19
# value table indexed by (rank-pattern sum << 1) | is_flush
_VALUES = np.stack(
    [np.array(ranking.PLAIN_VALUES, dtype=np.int16), np.array(ranking.FLUSH_VALUES, dtype=np.int16)], axis=1
).ravel()
_IS_FLUSH = np.zeros(5 * max(ranking.SUIT_KEYS) + 1, dtype=np.int32)
_IS_FLUSH[list(ranking.FLUSH_SUIT_SUMS)] = 1

_CHUNK = 1 << 20  # bounds temporary memory on very large batches


def evaluate_batch(hands: np.ndarray) -> np.ndarray:
    """Values (int16, 1..7462) of ``hands``, an integer array of shape (N, 5) of distinct cards.

    Like :func:`ranking.evaluate` this trusts its input (the simulator deals from real decks);
    use :func:`ranking.hand_value` for checked evaluation of a single hand.
    """
    hands = np.asarray(hands)
    if hands.ndim != 2 or hands.shape[1] != 5:
        raise ValueError(f"expected an array of shape (N, 5), got {hands.shape}")
    out = np.empty(hands.shape[0], dtype=np.int16)
    for start in range(0, hands.shape[0], _CHUNK):
        h = hands[start:start + _CHUNK]
        k = _CARD_KEYS[h[:, 0]]
        k += _CARD_KEYS[h[:, 1]]
        k += _CARD_KEYS[h[:, 2]]
        k += _CARD_KEYS[h[:, 3]]
        k += _CARD_KEYS[h[:, 4]]
        idx = (k & ((1 << _RANK_BITS) - 1)) << 1
        idx |= _IS_FLUSH[k >> _RANK_BITS]
        out[start:start + _CHUNK] = _VALUES[idx]
    return out


def all_hands() -> np.ndarray:
    """Every five-card hand once, shape (2598960, 5), cards ascending within a hand (uint8)."""
    return np.fromiter(combinations(range(52), 5), dtype=np.dtype((np.uint8, 5)), count=2598960)

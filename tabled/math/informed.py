"""Exact dealer counts for a player who knows more than their own hand and the up card.

A hole-carder knows some of the dealer's hole cards; a player sharing hands knows the neighbours'
cards, which cannot be in the dealer's hand. Either way the dealer's hand is the known dealer
cards D (the up card, and any hole cards seen) completed from the cards nobody has shown, none of
them in the dead set E (the player's hand and the neighbours'). The counts follow by the same
inclusion-exclusion as :mod:`tabled.math.counting` (docs/mathematics.md, "Game protection"):

    #{hands containing D, avoiding E, plain value < t}
        = sum over S subset of E of (-1)^|S| x #{hands containing D + S, plain value < t}

where a set of at most four cards is looked up by its ranks in the plain tables, a set of five
is the one hand it is, and a larger set contains no hand. A dealer flush is possible only when
every card of D shares a suit; the correction swaps the plain value for the flush value over
those rank sets (five distinct ranks including D's, none of E's ranks in that suit).
"""

from __future__ import annotations

import itertools
from functools import cache
from math import comb

import numpy as np

from tabled.game import ranking

from . import counting
from .paytable import Paytable

_RANK_KEYS = np.array(ranking.RANK_KEYS, dtype=np.int64)
_PLAIN_VALUES = np.array(ranking.PLAIN_VALUES, dtype=np.int64)


@cache
def _subsets(dead: int, room: int) -> tuple[tuple[int, ...], ...]:
    """Subsets of ``dead`` positions of at most ``room`` elements."""
    return tuple(s for k in range(min(dead, room) + 1) for s in itertools.combinations(range(dead), k))


def completion_counts(value: np.ndarray, dead: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(rows, 4) dealer hands (not qualifying 9.2, player higher 9.4.1.1, stand off 9.4.1.3,
    dealer higher 9.4.1.2) for rows of: the player's hand value, the dead cards (rows x e: the
    player's five first, then any neighbours' cards) and the dealer cards known (rows x d: the up
    card first, then the hole cards seen). The rows add up to C(52 - e - d, 5 - d)."""
    value = np.asarray(value, dtype=np.int64)
    dead = np.asarray(dead, dtype=np.int64)
    known = np.asarray(known, dtype=np.int64)
    rows, e = dead.shape
    d = known.shape[1]
    thresholds = np.stack([np.full(rows, counting.QUALIFYING_VALUE), value, value + 1], axis=1)
    pt = counting.plain_tables()
    pos = np.searchsorted(pt.plain_values, thresholds)
    dead_keys = _RANK_KEYS[dead >> 2]
    known_key = _RANK_KEYS[known >> 2].sum(axis=1)
    below = np.zeros((rows, 3), dtype=np.int64)
    for subset in _subsets(e, 5 - d):
        sign = -1 if len(subset) % 2 else 1
        key = known_key + dead_keys[:, list(subset)].sum(axis=1)
        size = d + len(subset)
        if size == 5:
            term = (_PLAIN_VALUES[key][:, None] < thresholds).astype(np.int64)
        else:
            code = key + (size << counting._SIZE_SHIFT)
            at = np.minimum(np.searchsorted(pt.codes, code), len(pt.codes) - 1)
            term = pt.cumulative[pt.rows[at][:, None], pos].astype(np.int64)
        below += sign * term
    below += _flush_correction(dead, known, thresholds)
    counts = counting.counts_from_below(value, below)
    # counts_from_below closes the total at C(46, 4); the total here is smaller
    total = comb(52 - e - d, 5 - d)
    counts[:, 3] -= counting.DEALER_HANDS_PER_UP_CARD - total
    return counts


def _flush_correction(dead: np.ndarray, known: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    ft = counting.flush_tables()
    suit = known[:, 0] & 3
    suited = ((known & 3) == suit[:, None]).all(axis=1)
    out = np.zeros(thresholds.shape, dtype=np.int64)
    rows = np.nonzero(suited)[0]
    if not len(rows):
        return out
    need = (np.int64(1) << (known[rows] >> 2)).sum(axis=1)  # suited cards: distinct ranks
    blocked = np.where((dead[rows] & 3) == suit[rows, None], np.int64(1) << (dead[rows] >> 2), 0)
    blocked = np.bitwise_or.reduce(blocked, axis=1)
    for start in range(0, len(rows), 4096):
        sl = slice(start, start + 4096)
        ok = ((ft.masks[None, :] & need[sl, None]) == need[sl, None]) & ((ft.masks[None, :] & blocked[sl, None]) == 0)
        t = thresholds[rows[sl]]
        flush_below = (ok[:, :, None] & (ft.flush_value[None, :, None] < t[:, None, :])).sum(axis=1)
        plain_below = (ok[:, :, None] & (ft.plain_value[None, :, None] < t[:, None, :])).sum(axis=1)
        out[rows[sl]] = flush_below - plain_below
    return out


def raise_margin(counts: np.ndarray, value: np.ndarray, paytable: Paytable) -> np.ndarray:
    """Expected units won by betting minus by folding (-1, rule 8.3), per unit of ante, for rows
    of counts from :func:`completion_counts` (rule 10.1's odds)."""
    category = counting.value_classes().category[np.asarray(value, dtype=np.int64)]
    win = np.array([paytable.win_units(c) for c in ranking.Category], dtype=np.int64)[category]
    total = counts.sum(axis=1)
    gain = counts[:, 0] * paytable.ante_odds + counts[:, 1] * win - 3 * counts[:, 3]
    return gain / total + 1.0


def informed_raises(value: np.ndarray, dead: np.ndarray, known: np.ndarray, paytable: Paytable) -> np.ndarray:
    """The optimal decision (True = bet) of a player who knows ``dead`` and ``known``."""
    return raise_margin(completion_counts(value, dead, known), value, paytable) > 0

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


#: C(m, c) for m, c in 0..4: the ways to pick c of m dead cards of one rank
_CHOOSE = np.array([[comb(m, c) for c in range(5)] for m in range(5)], dtype=np.int64)


@cache
def _rank_multisets(room: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of at most ``room`` ranks: its count of each rank (M x 13) and its size."""
    sets = [c for k in range(room + 1) for c in itertools.combinations_with_replacement(range(13), k)]
    counts = np.zeros((len(sets), 13), dtype=np.int64)
    for i, c in enumerate(sets):
        np.add.at(counts[i], list(c), 1)
    return counts, counts.sum(axis=1)


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

    def term(key: np.ndarray, size: int) -> np.ndarray:
        """#{hands containing the rank multiset ``key`` of ``size`` cards, plain value < t}."""
        if size == 5:
            return (_PLAIN_VALUES[np.minimum(key, len(_PLAIN_VALUES) - 1)][:, None] < thresholds).astype(np.int64)
        code = key + (size << counting._SIZE_SHIFT)
        at = np.minimum(np.searchsorted(pt.codes, code), len(pt.codes) - 1)
        return pt.cumulative[pt.rows[at][:, None], pos].astype(np.int64)

    counts_by_rank, sizes = _rank_multisets(5 - d)
    if len(_subsets(e, 5 - d)) <= len(sizes):
        for subset in _subsets(e, 5 - d):
            below += (-1) ** len(subset) * term(known_key + dead_keys[:, list(subset)].sum(axis=1), d + len(subset))
    else:
        # many dead cards: the subsets with the same ranks give the same term, so sum over the
        # rank multisets c instead, each counted prod_r C(m_r, c_r) times (m_r: dead cards of rank r)
        held = np.zeros((rows, 13), dtype=np.int64)
        np.add.at(held, (np.repeat(np.arange(rows), e), (dead >> 2).ravel()), 1)
        for c, k in zip(counts_by_rank, sizes, strict=True):
            ranks = np.nonzero(c)[0]
            times = _CHOOSE[held[:, ranks], c[ranks]].prod(axis=1)
            if times.any():
                key = known_key + int(_RANK_KEYS[ranks] @ c[ranks])
                below += (-1) ** int(k) * times[:, None] * term(key, d + int(k))
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
        (by_flush, flush_sorted), (by_plain, plain_sorted) = _sorted_flush_values()
        out[rows[sl]] = _below(ok[:, by_flush], flush_sorted, t) - _below(ok[:, by_plain], plain_sorted, t)
    return out


def _in_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(values, kind="stable")
    return order, values[order]


@cache
def _sorted_flush_values() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The flush tables' rank sets in order of their flush value, and of their plain value."""
    ft = counting.flush_tables()
    return _in_order(ft.flush_value), _in_order(ft.plain_value)


def _below(ok: np.ndarray, values: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Per row and threshold t: how many of the row's ``ok`` rank sets (columns, in order of
    ``values``) have a value below t: a running count read where t falls."""
    running = np.zeros((len(ok), ok.shape[1] + 1), dtype=np.int64)
    np.cumsum(ok, axis=1, out=running[:, 1:])
    return np.take_along_axis(running, np.searchsorted(values, thresholds), axis=1)


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

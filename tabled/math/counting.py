"""How the dealer's hand falls against a player's hand, counted exactly (rules 9.1, 9.4).

For a player hand P and the dealer's up card u, the dealer's four hole cards are any 4 of the
46 unseen cards: C(46, 4) = 163,185 dealer hands. We need how many of them do not qualify
(9.1, below ace-king), qualify and lose to P, tie P (13.4 stand off) or beat P. All of these
follow from one function, ``below(P, u, t)``: the number of dealer hands {u} + 4 unseen cards
whose poker value is below t, taken at t = the qualifying value, P's value, and P's value + 1.

Method (docs/mathematics.md). A hand's value depends only on its rank multiset, unless it is a
flush. So split ``below`` in two:

* **plain part**: count every dealer hand by the value its ranks would have without a flush.
  By inclusion-exclusion over the subsets S of P's cards, the hands containing u and avoiding P
  are  sum over S of (-1)^|S| x (hands containing the cards S + {u}). How many hands contain a
  given card set X and have each rank pattern depends only on X's *ranks*
  (prod over ranks of C(4 - x_r, m_r - x_r)), so one table per rank multiset X of 1..4 cards
  (2,379 of them), cumulated in value order, answers every query with a look-up.
* **flush correction**: a dealer flush must be in u's suit; it uses five distinct ranks, one of
  them u's, none held by P in that suit. For those rank sets, swap the plain value for the flush
  value.

So every count depends only on (P's value, u's rank, the ranks P holds in u's suit), which is
also how the analysis groups the 2,598,960 x 47 (player hand, up card) pairs.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np

from tabled.game import ranking
from tabled.game.cards import check_distinct

#: dealer hands for one player hand and one up card: 4 hole cards of the 46 unseen
DEALER_HANDS_PER_UP_CARD = comb(46, 4)  # 163,185
#: rule 9.1
QUALIFYING_VALUE = ranking.QUALIFYING_VALUE
DISTINCT_VALUES = ranking.DISTINCT_VALUES  # 7462

_RANK_KEYS = np.array(ranking.RANK_KEYS, dtype=np.int64)
_PLAIN_VALUES = np.array(ranking.PLAIN_VALUES, dtype=np.int64)
_SIZE_SHIFT = 19  # a k-multiset's code: sum of rank keys + (k << 19); sums are unique per size


def _multisets(size: int) -> list[tuple[int, ...]]:
    """Rank multisets of ``size`` cards from one deck (at most four of a rank), ascending."""
    return [m for m in itertools.combinations_with_replacement(range(13), size)
            if all(m.count(r) <= 4 for r in set(m))]


def _code(ranks: Sequence[int]) -> int:
    return int(sum(ranking.RANK_KEYS[r] for r in ranks)) + (len(ranks) << _SIZE_SHIFT)


@dataclass(frozen=True)
class _ValueClasses:
    """The 7,462 player hand values as rank patterns: index = value."""

    ranks: np.ndarray     # (7463, 5) ranks of the pattern, descending (row 0 unused)
    flush: np.ndarray     # (7463,) bool: the value needs a flush
    category: np.ndarray  # (7463,) Category number


@cache
def value_classes() -> _ValueClasses:
    ranks = np.zeros((DISTINCT_VALUES + 1, 5), dtype=np.int64)
    flush = np.zeros(DISTINCT_VALUES + 1, dtype=bool)
    for m in _multisets(5):
        s = sum(ranking.RANK_KEYS[r] for r in m)
        ranks[ranking.PLAIN_VALUES[s]] = sorted(m, reverse=True)
        if len(set(m)) == 5:
            ranks[ranking.FLUSH_VALUES[s]] = sorted(m, reverse=True)
            flush[ranking.FLUSH_VALUES[s]] = True
    category = np.array([0] + [int(ranking.category_of(v)) for v in range(1, DISTINCT_VALUES + 1)])
    return _ValueClasses(ranks, flush, category)


@dataclass(frozen=True)
class _PlainTables:
    """Per rank multiset X of 1..4 cards: hands containing a card set with ranks X, cumulated
    over the 6,175 plain values in ascending order (column p = hands among the p lowest)."""

    codes: np.ndarray        # sorted codes of the multisets X
    rows: np.ndarray         # row of each code in ``cumulative``
    cumulative: np.ndarray   # (2379, 6176) int32
    plain_values: np.ndarray # (6175,) the plain values, ascending


@cache
def plain_tables() -> _PlainTables:
    dealer = _multisets(5)
    hands = np.array(dealer, dtype=np.int64)                                    # (6175, 5)
    counts = np.zeros((len(dealer), 14), dtype=np.int64)  # column 13: a rank no hand holds
    np.add.at(counts, (np.arange(len(dealer))[:, None], hands), 1)
    values = _PLAIN_VALUES[_RANK_KEYS[hands].sum(axis=1)]
    order = np.argsort(values)
    counts, values = counts[order], values[order]
    # binom[a, k] = C(a, k), zero for k < 0 (offset by 4) or k > a
    binom = np.zeros((5, 9), dtype=np.int64)
    for a in range(5):
        for k in range(a + 1):
            binom[a, k + 4] = comb(a, k)
    # factor[r, c, d] = C(4 - c, m_r - c): ways to complete, on rank r, dealer rank multiset d
    # from c cards of rank r already held; c = 0 is any hand's C(4, m_r). Rank 13 is held by no
    # hand: a factor of one, the padding below.
    factor = binom[4 - np.arange(5)[None, :, None], counts.T[:, None, :] - np.arange(5)[None, :, None] + 4]
    factor = factor.reshape(14 * 5, len(dealer)).astype(np.int32)
    xs = [x for size in range(1, 5) for x in _multisets(size)]
    # each X as up to four (rank, count) pairs, padded with rank 13, count 0
    held = np.full((len(xs), 4), 13, dtype=np.int64)
    xc = np.zeros((len(xs), 4), dtype=np.int64)
    for i, x in enumerate(xs):
        ranks = sorted(set(x))
        held[i, :len(ranks)] = ranks
        xc[i, :len(ranks)] = [x.count(r) for r in ranks]
    codes = np.array([_code(x) for x in xs], dtype=np.int64)
    # hands with ranks R, any cards: prod over ranks of C(4, m_r)
    every = factor[np.arange(14) * 5].prod(axis=0)
    cumulative = np.empty((len(xs), len(dealer) + 1), dtype=np.int32)
    cumulative[:, 0] = 0
    chunk = 256
    for start in range(0, len(xs), chunk):
        h, c = held[start:start + chunk], xc[start:start + chunk]
        # hands containing X with ranks R: on X's ranks, the missing cards from those X leaves;
        # on the other ranks, as for any hand (the exact quotient of ``every``)
        any_hand, with_x = factor[h * 5], factor[h * 5 + c]                        # (k, 4, 6175)
        ways = every // (any_hand[:, 0] * any_hand[:, 1] * any_hand[:, 2] * any_hand[:, 3])
        ways *= with_x[:, 0] * with_x[:, 1] * with_x[:, 2] * with_x[:, 3]
        np.cumsum(ways, axis=1, out=cumulative[start:start + chunk, 1:])
    sort = np.argsort(codes)
    return _PlainTables(codes[sort], sort, cumulative, values)


@dataclass(frozen=True)
class _FlushTables:
    """The 1,287 sets of five distinct ranks with their plain (no flush) and flush values."""

    masks: np.ndarray        # (1287,) 13-bit rank masks
    plain_value: np.ndarray  # high card or straight
    flush_value: np.ndarray  # flush, straight flush or royal flush
    plain_sorted: np.ndarray
    flush_sorted: np.ndarray
    plain_order: np.ndarray
    flush_order: np.ndarray


@cache
def flush_tables() -> _FlushTables:
    sets = list(itertools.combinations(range(13), 5))
    masks = np.array([sum(1 << r for r in s) for s in sets], dtype=np.int64)
    keys = [sum(ranking.RANK_KEYS[r] for r in s) for s in sets]
    plain = np.array([ranking.PLAIN_VALUES[k] for k in keys], dtype=np.int64)
    flush = np.array([ranking.FLUSH_VALUES[k] for k in keys], dtype=np.int64)
    po, fo = np.argsort(plain), np.argsort(flush)
    return _FlushTables(masks, plain, flush, plain[po], flush[fo], po, fo)


# ---------------------------------------------------------------------------------------------
# the plain part, for every (player value, up-card rank) at once

_SUBSETS = [s for k in range(5) for s in itertools.combinations(range(5), k)]  # |S| <= 4


@cache
def plain_below() -> np.ndarray:
    """``G[v, r, j]``: dealer hands {u} + 4 cards avoiding a player hand of value v, u of rank r,
    counted by plain value below the thresholds j = 0: qualifying value, 1: v, 2: v + 1.

    Rows where the player holds all four cards of rank r are zero (no such up card exists).
    """
    n = DISTINCT_VALUES + 1
    value, up_rank = np.divmod(np.arange(n * 13), 13)
    return _plain_below_pairs(value, up_rank).reshape(n, 13, 3)


def plain_below_of(value: np.ndarray, up_rank: np.ndarray) -> np.ndarray:
    """(rows, 3): :func:`plain_below` at the rows' (player value, up-card rank) pairs, from the
    whole table when it is built, else for these pairs alone (a day's hands need far fewer)."""
    value = np.asarray(value, dtype=np.int64)
    up_rank = np.asarray(up_rank, dtype=np.int64)
    if plain_below.cache_info().currsize:
        return plain_below()[value, up_rank]
    pairs, at = np.unique(value * 13 + up_rank, return_inverse=True)
    if len(pairs) < len(value):
        return _plain_below_pairs(pairs // 13, pairs % 13)[at.ravel()]
    return _plain_below_pairs(value, up_rank)


def _plain_below_pairs(value: np.ndarray, up_rank: np.ndarray) -> np.ndarray:
    pt = plain_tables()
    thresholds = np.stack([np.full(len(value), QUALIFYING_VALUE), value, value + 1], axis=1)   # (k, 3)
    pos = np.searchsorted(pt.plain_values, thresholds)                                       # (k, 3)
    ranks = value_classes().ranks[value]                                                      # (k, 5)
    below = np.zeros((len(value), 3), dtype=np.int64)
    up_key = _RANK_KEYS[up_rank]
    for subset in _SUBSETS:
        sign = -1 if len(subset) % 2 else 1
        key = _RANK_KEYS[ranks[:, list(subset)]].sum(axis=1) + up_key
        size = len(subset) + 1
        if size == 5:
            # X is a whole hand: the one hand X itself, below t when its plain value is
            # (five of one rank only where the player holds four: those rows are zeroed below)
            plain = _PLAIN_VALUES[np.minimum(key, len(_PLAIN_VALUES) - 1)]                # (k,)
            term = (plain[:, None] < thresholds).astype(np.int64)
        else:
            code = key + (size << _SIZE_SHIFT)
            at = np.searchsorted(pt.codes, code)
            at = np.minimum(at, len(pt.codes) - 1)
            found = pt.codes[at] == code  # five of a rank cannot happen: masked below
            term = pt.cumulative[pt.rows[at][:, None], pos].astype(np.int64)
            term *= found[:, None]
        below += sign * term
    below[(ranks == up_rank[:, None]).sum(axis=1) == 4] = 0
    below[value == 0] = 0
    return below


# ---------------------------------------------------------------------------------------------
# the flush correction


def flush_correction(up_rank: np.ndarray, suit_mask: np.ndarray,
                     thresholds: np.ndarray) -> np.ndarray:
    """For each row: over dealer flushes in u's suit (five distinct ranks including ``up_rank``,
    none in ``suit_mask``, the ranks the player holds in that suit), (# flush value < t) minus
    (# plain value < t), for each threshold column t of ``thresholds`` (rows x k)."""
    ft = flush_tables()
    up_rank = np.asarray(up_rank, dtype=np.int64)
    suit_mask = np.asarray(suit_mask, dtype=np.int64)
    groups, inverse = np.unique(np.stack([up_rank, suit_mask], axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    out = np.zeros(thresholds.shape, dtype=np.int64)
    chunk = 4096
    for start in range(0, len(groups), chunk):
        g = groups[start:start + chunk]
        ok = ((ft.masks[None, :] >> g[:, :1]) & 1).astype(bool) & ((ft.masks[None, :] & g[:, 1:]) == 0)
        cum_plain = np.zeros((len(g), len(ft.masks) + 1), dtype=np.int32)
        cum_flush = np.zeros_like(cum_plain)
        np.cumsum(ok[:, ft.plain_order], axis=1, out=cum_plain[:, 1:])
        np.cumsum(ok[:, ft.flush_order], axis=1, out=cum_flush[:, 1:])
        rows = np.nonzero((inverse >= start) & (inverse < start + len(g)))[0]
        local = inverse[rows] - start
        t = thresholds[rows]
        out[rows] = (cum_flush[local[:, None], np.searchsorted(ft.flush_sorted, t)]
                     - cum_plain[local[:, None], np.searchsorted(ft.plain_sorted, t)])
    return out


# ---------------------------------------------------------------------------------------------
# putting it together


@dataclass(frozen=True)
class DealerCounts:
    """Of the 163,185 dealer hands for one player hand and up card, how many ..."""

    not_qualifying: int  # 9.2: below ace-king
    player_higher: int   # 9.4.1.1: qualify, lower than the player's hand
    stand_off: int       # 9.4.1.3: qualify, equal
    dealer_higher: int   # 9.4.1.2: qualify, higher

    def __post_init__(self) -> None:
        total = self.not_qualifying + self.player_higher + self.stand_off + self.dealer_higher
        if total != DEALER_HANDS_PER_UP_CARD:
            raise ValueError(f"dealer counts add up to {total}, not {DEALER_HANDS_PER_UP_CARD}")


def counts_from_below(value: np.ndarray, below: np.ndarray) -> np.ndarray:
    """(rows, 3) counts below (qualifying value, v, v + 1) -> (rows, 4) counts of
    (not qualifying, player higher, stand off, dealer higher)."""
    value = np.asarray(value)
    below_q, below_v, below_v1 = below[:, 0], below[:, 1], below[:, 2]
    plays = value >= QUALIFYING_VALUE  # a hand below ace-king loses to every qualifying hand
    player_higher = np.where(plays, below_v - below_q, 0)
    stand_off = np.where(plays, below_v1 - below_v, 0)
    dealer_higher = DEALER_HANDS_PER_UP_CARD - below_q - player_higher - stand_off
    return np.stack([below_q, player_higher, stand_off, dealer_higher], axis=1)


def dealer_counts_batch(value: np.ndarray, up_rank: np.ndarray, suit_mask: np.ndarray) -> np.ndarray:
    """(rows, 4) dealer counts for rows of (player value, up-card rank, ranks the player holds
    in the up card's suit as a 13-bit mask)."""
    value = np.asarray(value, dtype=np.int64)
    up_rank = np.asarray(up_rank, dtype=np.int64)
    thresholds = np.stack([np.full(len(value), QUALIFYING_VALUE), value, value + 1], axis=1)
    below = plain_below_of(value, up_rank) + flush_correction(up_rank, suit_mask, thresholds)
    return counts_from_below(value, below)


def situation(hand: Sequence[int], up_card: int) -> tuple[int, int, int]:
    """(player value, up-card rank, mask of ranks the player holds in the up card's suit):
    everything the dealer counts depend on."""
    suit = up_card & 3
    mask = 0
    for c in hand:
        if c & 3 == suit:
            mask |= 1 << (c >> 2)
    return ranking.evaluate(hand), up_card >> 2, mask


def dealer_counts(hand: Sequence[int], up_card: int) -> DealerCounts:
    """Exact counts for one player hand (five card ints) and the dealer's up card."""
    check_distinct(list(hand) + [up_card])
    v, r, m = situation(hand, up_card)
    row = dealer_counts_batch(np.array([v]), np.array([r]), np.array([m]))[0]
    return DealerCounts(*(int(x) for x in row))

"""The poker value of five cards (rule 13; NZ 13.3(d), 13.4).

Every five-card hand gets an integer *value* from 1 (7-5-4-3-2 of mixed suits) to 7462 (a royal
flush). A higher value is a better hand and two hands of equal value stand off (NZ 13.4). There
are exactly 7,462 distinct values because suits never rank (rule 3.3).

How the values are built: every possible rank pattern is described by a sort key written straight
from the rulebook (:func:`_rule_key`: category of 13.1, then the card values of 13.2 / NZ 13.3(d)
high to low, an ace counting low only in 5-4-3-2-A, 13.1.6 and 13.2.1); sorting those keys numbers
the patterns. Evaluation is then a table look-up: each card carries a rank key (sums of five are
unique for every rank multiset) and a suit key (sums show whether all five share a suit).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from .cards import ACE, FIVE, KING, RANK_NAMES, CardError, card_text, check_distinct


class Category(IntEnum):
    """Rule 13.1, lowest to highest. The numbers match the UCI Poker Hand data set's classes."""

    FIVE_ODD_CARDS = 0   # 13.1.10
    ONE_PAIR = 1         # 13.1.9
    TWO_PAIRS = 2        # 13.1.8
    THREE_OF_A_KIND = 3  # 13.1.7
    STRAIGHT = 4         # 13.1.6
    FLUSH = 5            # 13.1.5
    FULL_HOUSE = 6       # 13.1.4
    FOUR_OF_A_KIND = 7   # 13.1.3
    STRAIGHT_FLUSH = 8   # 13.1.2
    ROYAL_FLUSH = 9      # 13.1.1

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").lower()


def _straight_high(ranks: tuple[int, ...]) -> int | None:
    """High card of a straight of five distinct ranks, or None. 5-4-3-2-A is five-high (13.1.6)."""
    s = sorted(ranks, reverse=True)
    if len(set(s)) != 5:
        return None
    if s[0] - s[4] == 4:
        return s[0]
    if s == [ACE, 3, 2, 1, 0]:
        return FIVE
    return None


def _rule_key(ranks: tuple[int, ...], flush: bool) -> tuple[Category, tuple[int, ...]]:
    """Category and tie-break card values, compared high to low (13.2, NZ 13.3(d))."""
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    # groups: bigger groups first, then higher rank first (two pairs: high pair, low pair, kicker)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = tuple(c for _, c in groups)
    order = tuple(r for r, _ in groups)
    high = _straight_high(ranks)
    if flush and high is not None:
        if high == ACE:
            return Category.ROYAL_FLUSH, (high,)
        return Category.STRAIGHT_FLUSH, (high,)
    if shape == (4, 1):
        return Category.FOUR_OF_A_KIND, order
    if shape == (3, 2):
        return Category.FULL_HOUSE, order
    if flush:
        return Category.FLUSH, order
    if high is not None:
        return Category.STRAIGHT, (high,)
    if shape == (3, 1, 1):
        return Category.THREE_OF_A_KIND, order
    if shape == (2, 2, 1):
        return Category.TWO_PAIRS, order
    if shape == (2, 1, 1, 1):
        return Category.ONE_PAIR, order
    return Category.FIVE_ODD_CARDS, order


# Rank keys with unique sums over every multiset of five ranks (at most four of each); found by
# a greedy search, verified in tests. Suit keys are powers of 6, so a sum of five shows the count
# of each suit, and a flush sums to 5 * key.
RANK_KEYS = (0, 1, 5, 22, 94, 312, 992, 2422, 5624, 12522, 19998, 43258, 79415)
SUIT_KEYS = (1, 6, 36, 216)
_RANK_BITS = 19  # 4 * 79415 + 43258 < 2**19
_RANK_MASK = (1 << _RANK_BITS) - 1
FLUSH_SUIT_SUMS = frozenset(5 * k for k in SUIT_KEYS)
RANK_SUM_SIZE = 4 * RANK_KEYS[-1] + RANK_KEYS[-2] + 1

#: per card index, rank key in the low bits and suit key above them
CARD_KEYS: tuple[int, ...] = tuple(
    (SUIT_KEYS[c & 3] << _RANK_BITS) | RANK_KEYS[c >> 2] for c in range(52)
)


def _build_tables() -> tuple[list[int], list[int], dict[int, tuple[Category, tuple[int, ...]]]]:
    patterns: list[tuple[tuple[Category, tuple[int, ...]], bool, tuple[int, ...]]] = []
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        patterns.append((_rule_key(ranks, False), False, ranks))
        if len(set(ranks)) == 5:
            patterns.append((_rule_key(ranks, True), True, ranks))
    patterns.sort(key=lambda p: p[0])
    plain = [0] * RANK_SUM_SIZE
    flush = [0] * RANK_SUM_SIZE
    describe: dict[int, tuple[Category, tuple[int, ...]]] = {}
    value = 0
    previous = None
    for key, is_flush, pattern in patterns:
        if key != previous:
            value += 1
            previous = key
            describe[value] = key
        (flush if is_flush else plain)[sum(RANK_KEYS[r] for r in pattern)] = value
    return plain, flush, describe


#: a hand's value by the sum of its cards' rank keys: PLAIN_VALUES when not all one suit, FLUSH_VALUES
#: when a flush (0 where no hand has that sum)
PLAIN_VALUES, FLUSH_VALUES, _DESCRIBE = _build_tables()
DISTINCT_VALUES = len(_DESCRIBE)  # 7462

#: lowest value of each category; a value v is in category c when CATEGORY_FLOOR[c] <= v < next
CATEGORY_FLOOR: tuple[int, ...] = tuple(
    min(v for v, (cat, _) in _DESCRIBE.items() if cat == c) for c in Category
)


# The single-hand path uses the same keys with the suit sum in the low 11 bits, and a table of
# tables picked by that suit sum, so the hot path has no branch (measured fastest in CPython 3.11).
_EVAL_KEYS = [SUIT_KEYS[c & 3] | (RANK_KEYS[c >> 2] << 11) for c in range(52)]
_TABLE_BY_SUIT_SUM = [FLUSH_VALUES if s in FLUSH_SUIT_SUMS else PLAIN_VALUES for s in range(5 * SUIT_KEYS[-1] + 1)]


def evaluate(hand: Sequence[int], _keys: list[int] = _EVAL_KEYS,
             _tables: list[list[int]] = _TABLE_BY_SUIT_SUM) -> int:
    """Poker value (1..7462) of five distinct card ints. The daemon's hot path: no checks here."""
    a, b, c, d, e = hand
    k = _keys[a] + _keys[b] + _keys[c] + _keys[d] + _keys[e]
    return _tables[k & 2047][k >> 11]


def category_of(value: int) -> Category:
    return _DESCRIBE[value][0]


def tiebreak_of(value: int) -> tuple[int, ...]:
    return _DESCRIBE[value][1]


@dataclass(frozen=True, order=True)
class HandValue:
    """A hand's poker value with the words a dealer would announce (rule 8.6, 9.9)."""

    value: int

    @property
    def category(self) -> Category:
        return category_of(self.value)

    @property
    def description(self) -> str:
        cat, ranks = _DESCRIBE[self.value]
        names = [RANK_NAMES[r] for r in ranks]
        plural = [n + ("es" if n == "six" else "s") for n in names]
        if cat is Category.ROYAL_FLUSH:
            return "royal flush"
        if cat in (Category.STRAIGHT_FLUSH, Category.STRAIGHT):
            return f"{cat.label}, {names[0]} high"
        if cat is Category.FOUR_OF_A_KIND:
            return f"four {plural[0]}, {names[1]} kicker"
        if cat is Category.FULL_HOUSE:
            return f"full house, {plural[0]} full of {plural[1]}"
        if cat is Category.THREE_OF_A_KIND:
            return f"three {plural[0]}, " + "-".join(names[1:])
        if cat is Category.TWO_PAIRS:
            return f"two pairs, {plural[0]} and {plural[1]}, {names[2]} kicker"
        if cat is Category.ONE_PAIR:
            return f"pair of {plural[0]}, " + "-".join(names[1:])
        return f"{cat.label}: " + "-".join(names)

    def __str__(self) -> str:
        return self.description


def hand_value(hand: Sequence[int]) -> HandValue:
    """Checked evaluation: exactly five distinct cards, else :class:`CardError`."""
    cards = tuple(hand)
    if len(cards) != 5:
        raise CardError(f"a hand is five cards, got {len(cards)}")
    for c in cards:
        card_text(c)  # raises on anything that is not 0..51
    check_distinct(cards)
    return HandValue(evaluate(cards))


# Rule 9.1: the dealer qualifies with ace and king, or higher. The weakest such hand is A-K-4-3-2
# of mixed suits (A-K-5-4-3... is higher); everything from it upwards qualifies.
QUALIFYING_VALUE = evaluate((4 * ACE, 4 * KING + 1, 4 * 2, 4 * 1 + 1, 4 * 0 + 2))


def dealer_qualifies(value: int) -> bool:
    """Rule 9.1: a poker value of ace and king, or higher."""
    return value >= QUALIFYING_VALUE


__all__ = [
    "Category", "HandValue", "evaluate", "hand_value", "category_of", "tiebreak_of",
    "dealer_qualifies", "QUALIFYING_VALUE", "DISTINCT_VALUES", "CATEGORY_FLOOR", "CARD_KEYS",
    "RANK_KEYS", "SUIT_KEYS", "FLUSH_SUIT_SUMS", "PLAIN_VALUES", "FLUSH_VALUES",
]

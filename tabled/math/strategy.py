"""Playing strategies: after seeing five cards and the dealer's up card, fold or bet (rule 8.1)?

Simple use (the daemon's simulated players)::

    from tabled.math.strategy import decide
    decide("optimal", hand, up_card)          # -> True: bet (raise); False: fold
    decide("rules", hand, up_card, paytable)  # paytable: tabled.math.paytable.Paytable

``hand`` is five card ints, ``up_card`` one card int (tabled.game.cards). The strategies:

* ``optimal``: bet exactly when betting has the higher expected value, from the exact dealer
  counts (tabled.math.counting) and the profile's odds (10.1). Fold loses 1 ante; bet wins
  ``ante_odds`` when the dealer does not qualify (9.2, 9.3.1), ``ante_odds + 2 x odds`` when the
  player's hand is higher (9.4.1.1), nothing on a stand off (9.4.1.3), and loses 3 (9.4.1.2).
* ``rules``: the published three-rule strategy: bet any pair or better; fold below ace-king; with
  ace-king, bet when (1) the up card is a two to a queen matching one of your ranks, or (2) the up
  card is an ace or king and you hold a queen or jack, or (3) the up card matches none of your
  ranks, you hold a queen, and the up card is lower than your fourth-highest card.
* ``ak-j-8-3``: bet ace-king-jack-eight-three or better, whatever the up card.
* ``pair-plus``: bet a pair or better only.
* ``any-ak``: bet ace-king or better.
* ``always-raise``: bet every hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from tabled.game import ranking
from tabled.game.batch import evaluate_batch
from tabled.game.cards import ACE, EIGHT, JACK, KING, QUEEN, THREE, CardError, card_text, check_distinct
from tabled.game.ranking import Category

from . import counting
from .paytable import Paytable, load_paytable
from .situations import situations

STRATEGIES: dict[str, str] = {
    "optimal": "bet exactly when betting has the higher expected value",
    "rules": "pair or better; ace-king by the three published rules",
    "ak-j-8-3": "bet A-K-J-8-3 or better",
    "pair-plus": "bet a pair or better only",
    "any-ak": "bet ace-king or better",
    "always-raise": "bet every hand",
}

#: the weakest hand the ``ak-j-8-3`` strategy bets (mixed suits)
AKJ83_VALUE = ranking.evaluate((4 * ACE, 4 * KING + 1, 4 * JACK, 4 * EIGHT, 4 * THREE + 1))
_ONE_PAIR_FLOOR = ranking.CATEGORY_FLOOR[Category.ONE_PAIR]


def check_strategy(name: str) -> str:
    if name not in STRATEGIES:
        raise ValueError(f"no strategy {name!r}: choose one of {', '.join(STRATEGIES)}")
    return name


@cache
def _nsw_paytable() -> Paytable:
    return load_paytable("nsw")


def bet_gain(counts: np.ndarray, category: np.ndarray, paytable: Paytable) -> np.ndarray:
    """Total units won by betting, over the 163,185 dealer hands of each row (counts: rows x 4
    of not qualifying, player higher, stand off, dealer higher)."""
    win = np.array([paytable.win_units(c) for c in Category], dtype=np.int64)[category]
    return counts[:, 0] * paytable.ante_odds + counts[:, 1] * win - 3 * counts[:, 3]


def raises(name: str, value: np.ndarray, up_rank: np.ndarray, suit_mask: np.ndarray | None = None,
           paytable: Paytable | None = None, counts: np.ndarray | None = None) -> np.ndarray:
    """Vectorized decisions (True = bet) for rows of (player value, up-card rank, ranks held in
    the up card's suit). ``optimal`` needs ``suit_mask`` and ``paytable`` (or ``counts``)."""
    check_strategy(name)
    value = np.asarray(value, dtype=np.int64)
    up_rank = np.asarray(up_rank, dtype=np.int64)
    if name == "always-raise":
        return np.ones(value.shape, dtype=bool)
    if name == "pair-plus":
        return value >= _ONE_PAIR_FLOOR
    if name == "any-ak":
        return value >= counting.QUALIFYING_VALUE
    if name == "ak-j-8-3":
        return value >= AKJ83_VALUE
    if name == "rules":
        return _three_rules(value, up_rank)
    # optimal: bet when its total over the dealer hands beats folding's (-1 each)
    paytable = paytable or _nsw_paytable()
    if counts is None:
        if suit_mask is None:
            raise ValueError("the optimal strategy needs the ranks held in the up card's suit")
        counts = counting.dealer_counts_batch(value, up_rank, suit_mask)
    category = counting.value_classes().category[value]
    return bet_gain(counts, category, paytable) > -counting.DEALER_HANDS_PER_UP_CARD


def _three_rules(value: np.ndarray, up_rank: np.ndarray) -> np.ndarray:
    ranks = counting.value_classes().ranks[value]  # descending
    ace_king = (value >= counting.QUALIFYING_VALUE) & (value < _ONE_PAIR_FLOOR)
    matches = (ranks == up_rank[:, None]).any(axis=1)
    holds_queen = (ranks == QUEEN).any(axis=1)
    holds_jack = (ranks == JACK).any(axis=1)
    rule1 = matches & (up_rank <= QUEEN)
    rule2 = (up_rank >= KING) & (holds_queen | holds_jack)
    rule3 = ~matches & holds_queen & (up_rank < ranks[:, 3])
    return (value >= _ONE_PAIR_FLOOR) | (ace_king & (rule1 | rule2 | rule3))


def decide(strategy: str, hand: Sequence[int], up_card: int, paytable: Paytable | None = None) -> bool:
    """Bet (True) or fold (False) with ``hand`` (five card ints) against ``up_card``.

    ``paytable`` matters only to ``optimal``; it defaults to the NSW odds (10.1).
    Raises ValueError (CardError) on an unknown strategy or cards that cannot be dealt together.
    """
    check_strategy(strategy)
    cards = list(hand)
    if len(cards) != 5:
        raise CardError(f"a hand is five cards, got {len(cards)}")
    for c in cards + [up_card]:
        card_text(c)
    check_distinct(cards + [up_card])
    value, up_rank, mask = counting.situation(cards, up_card)
    return bool(raises(strategy, np.array([value]), np.array([up_rank]), np.array([mask]),
                       paytable)[0])


# ---------------------------------------------------------------------------------------------
# many hands at once (the simulator)


def situations_of(hands: np.ndarray, up_cards: np.ndarray, values: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, up-card rank, ranks held in the up card's suit) for rows of five cards + up card."""
    hands = np.asarray(hands, dtype=np.int64)
    up_cards = np.asarray(up_cards, dtype=np.int64)
    if values is None:
        values = evaluate_batch(hands)
    same_suit = (hands & 3) == (up_cards[:, None] & 3)
    mask = np.where(same_suit, np.int64(1) << (hands >> 2), 0).sum(axis=1)
    return np.asarray(values, dtype=np.int64), up_cards >> 2, mask


@cache
def _optimal_table(paytable: Paytable) -> tuple[np.ndarray, np.ndarray]:
    """Every situation's optimal decision, keyed (value * 13 + up rank) * 8192 + suit mask."""
    sit = situations()
    keys = (sit.value * 13 + sit.up_rank) * 8192 + sit.suit_mask
    bet = raises("optimal", sit.value, sit.up_rank, sit.suit_mask, paytable, sit.counts)
    order = np.argsort(keys)
    return keys[order], bet[order]


def raises_for_cards(strategy: str, hands: np.ndarray, up_cards: np.ndarray, paytable: Paytable,
                     values: np.ndarray | None = None) -> np.ndarray:
    """Decisions for an (N, 5) array of hands against N up cards. ``optimal`` reads a table of
    every situation's exact decision (built once per paytable, a few seconds)."""
    check_strategy(strategy)
    value, up_rank, mask = situations_of(hands, up_cards, values)
    if strategy != "optimal":
        return raises(strategy, value, up_rank)
    keys, bet = _optimal_table(paytable)
    want = (value * 13 + up_rank) * 8192 + mask
    at = np.searchsorted(keys, want)
    if not np.array_equal(keys[np.minimum(at, len(keys) - 1)], want):
        raise ValueError("cards that cannot be dealt together (a hand holding the up card?)")
    return bet[at]

"""Exact dealer counts (rules 9.1, 9.4) against brute-force enumeration of the 163,185 hole-card sets."""

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.game import ranking
from tabled.game.cards import CardError, parse_card, parse_cards
from tabled.math import counting

_KEYS = np.array(ranking.CARD_KEYS, dtype=np.int64)
_PLAIN = np.array(ranking.PLAIN_VALUES)
_FLUSH = np.array(ranking.FLUSH_VALUES)


def brute_force(hand, up):
    """Every dealer hand {up} + 4 unseen cards, evaluated one by one."""
    rest = [c for c in range(52) if c not in hand and c != up]
    holes = np.array(list(itertools.combinations(rest, 4)))
    keys = _KEYS[holes].sum(axis=1) + _KEYS[up]
    flush = np.isin(keys >> 19, list(ranking.FLUSH_SUIT_SUMS))
    dealer = np.where(flush, _FLUSH[keys & (2**19 - 1)], _PLAIN[keys & (2**19 - 1)])
    player = ranking.evaluate(hand)
    qualifies = dealer >= ranking.QUALIFYING_VALUE                 # 9.1
    nq = int((~qualifies).sum())
    if player >= ranking.QUALIFYING_VALUE:
        higher = int((qualifies & (dealer < player)).sum())       # 9.4.1.1
        equal = int((qualifies & (dealer == player)).sum())       # 9.4.1.3
    else:
        higher = equal = 0
    return nq, higher, equal, len(dealer) - nq - higher - equal


SPECIAL = [
    "As Ks Qs Js Ts",  # royal: the up card can make no dealer flush in spades below it
    "Ah Kd 9c 5s 2h",  # ace-king, the weakest class of hands that can beat a qualifier
    "Ah Kd 4c 3s 2h",  # exactly the qualifying value: only stand offs and losses vs qualifiers
    "2c 2d 2h 2s 3c",  # four of a rank: no up card of that rank exists
    "Ac Kc Qc Jc 9c",  # flush: dealer flushes in clubs are impossible
    "5c 4c 3c 2c Ac",  # steel wheel
    "7h 7d 5c 4s 2h",
    "Qh Jd 9c 5s 3h",  # below ace-king: never beats a qualifying dealer
]


@pytest.mark.parametrize("text", SPECIAL)
def test_counts_equal_brute_force_for_special_hands(text):
    hand = parse_cards(text)
    rng = random.Random(text)
    for up in rng.sample([c for c in range(52) if c not in hand], 4):
        got = counting.dealer_counts(hand, up)
        assert (got.not_qualifying, got.player_higher, got.stand_off, got.dealer_higher) == \
            brute_force(hand, up)


def test_counts_equal_brute_force_for_random_hands():
    rng = random.Random(5)
    for _ in range(25):
        cards = rng.sample(range(52), 6)
        hand, up = tuple(cards[:5]), cards[5]
        got = counting.dealer_counts(hand, up)
        assert (got.not_qualifying, got.player_higher, got.stand_off, got.dealer_higher) == \
            brute_force(hand, up)


def test_stand_offs_counted_by_13_4():
    # A-K-Q-J-9 of mixed suits: the dealer ties with any A-K-Q-J-9 not sharing the player's cards
    hand = parse_cards("Ah Kd Qc Js 9h")
    got = counting.dealer_counts(hand, parse_card("Ad"))
    assert got.stand_off == brute_force(hand, parse_card("Ad"))[2] > 0


def test_counts_refuse_cards_that_cannot_be_dealt_together():
    with pytest.raises(CardError, match="duplicate card As"):
        counting.dealer_counts(parse_cards("As Ks Qs Js Ts"), parse_card("As"))


def test_every_count_sums_to_the_dealer_hands():
    with pytest.raises(ValueError, match="add up to 10, not 163185"):
        counting.DealerCounts(1, 2, 3, 4)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, counting.DISTINCT_VALUES), st.integers(0, 12)), min_size=1, max_size=300))
def test_the_plain_part_for_a_few_hands_is_the_whole_tables(pairs):
    # a report counts only its hands' (value, up rank) pairs (rules 9.1, 9.4): the same numbers
    value, up_rank = np.array(pairs).T
    counting.plain_below.cache_clear()
    alone = counting.plain_below_of(value, up_rank)
    assert np.array_equal(alone, counting.plain_below()[value, up_rank])
    assert np.array_equal(counting.plain_below_of(value, up_rank), alone)

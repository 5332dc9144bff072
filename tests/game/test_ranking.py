"""Hand ranking (rule 13, 3.3, 9.1; NZ 13.3(d), 13.4), proved exhaustively and against real data."""

import gzip
from collections import Counter
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from tabled.game.batch import all_hands, evaluate_batch
from tabled.game.cards import CardError, parse_hand
from tabled.game.ranking import (
    CATEGORY_FLOOR, DISTINCT_VALUES, RANK_KEYS, Category, category_of, dealer_qualifies, evaluate,
    hand_value,
)

UCI = Path(__file__).resolve().parents[1] / "data" / "uci" / "poker-hand-training-true.data.gz"  # CC BY 4.0

TEXTBOOK_COUNTS = {
    Category.ROYAL_FLUSH: 4, Category.STRAIGHT_FLUSH: 36, Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744, Category.FLUSH: 5108, Category.STRAIGHT: 10200,
    Category.THREE_OF_A_KIND: 54912, Category.TWO_PAIRS: 123552, Category.ONE_PAIR: 1098240,
    Category.FIVE_ODD_CARDS: 1302540,
}


def v(text: str) -> int:
    return evaluate(parse_hand(text))


@pytest.fixture(scope="module")
def every_hand():
    hands = all_hands()
    return hands, evaluate_batch(hands)


@pytest.mark.slow
def test_all_2598960_hands_single_evaluator_textbook_counts_and_7462_values(every_hand):
    hands, batch_values = every_hand
    values = np.fromiter((evaluate(h) for h in hands.tolist()), dtype=np.int16, count=len(hands))
    counts = Counter(category_of(int(x)) for x in np.unique(values, return_counts=False))
    assert len(np.unique(values)) == DISTINCT_VALUES == 7462
    per_category = Counter()
    for value, n in zip(*np.unique(values, return_counts=True)):
        per_category[category_of(int(value))] += int(n)
    assert per_category == TEXTBOOK_COUNTS
    assert counts[Category.FIVE_ODD_CARDS] == 1277 and counts[Category.FLUSH] == 1277
    # the batch path agrees with the single-hand function on every hand
    assert np.array_equal(values, batch_values)


def test_rank_keys_give_unique_sums_for_every_rank_multiset():
    multisets = [m for m in combinations_with_replacement(range(13), 5)
                 if max(Counter(m).values()) <= 4]
    sums = Counter(sum(RANK_KEYS[r] for r in m) for m in multisets)
    assert len(multisets) == 6175 and max(sums.values()) == 1


def test_uci_training_set_every_labelled_hand():
    """UCI Poker Hand training data (25,010 hands, classes 0..9 = our Category numbers)."""
    uci_suit = {1: 2, 2: 3, 3: 1, 4: 0}  # Hearts, Spades, Diamonds, Clubs -> h s d c
    uci_rank = lambda r: 12 if r == 1 else r - 2  # noqa: E731  Ace=1, 2..13=King
    rows = gzip.decompress(UCI.read_bytes()).decode("ascii").split()
    assert len(rows) == 25010
    mismatches = []
    for row in rows:
        f = [int(x) for x in row.split(",")]
        hand = tuple(uci_rank(f[i + 1]) * 4 + uci_suit[f[i]] for i in range(0, 10, 2))
        if category_of(hand_value(hand).value) != Category(f[10]):
            mismatches.append(row)
    assert mismatches == []


# --- rule by rule -----------------------------------------------------------------------------

def test_rule_13_1_order_of_categories():
    ladder = ["As Ks Qs Js Ts", "9h 8h 7h 6h 5h", "7c 7d 7h 7s 2c", "Kc Kd Kh 2s 2c", "Ah Jh 8h 4h 2h",
              "9c 8d 7h 6s 5c", "Qc Qd Qh 9s 2c", "Jc Jd 4h 4s Ac", "Tc Td Ah 8s 2c", "Ac Kd 9h 6s 3c"]
    values = [v(h) for h in ladder]
    assert values == sorted(values, reverse=True)
    assert [category_of(x) for x in values] == sorted(Category, reverse=True)


def test_rule_13_1_6_ace_low_straight_is_the_lowest_straight():
    wheel = v("5c 4d 3h 2s Ac")
    assert category_of(wheel) is Category.STRAIGHT
    assert wheel == CATEGORY_FLOOR[Category.STRAIGHT]
    assert wheel < v("6c 5d 4h 3s 2c")
    assert category_of(v("Ac Kd 2h 3s 4c")) is Category.FIVE_ODD_CARDS  # no wrap-around straight


def test_rule_13_2_1_broadway_beats_the_wheel_and_steel_wheel_is_lowest_straight_flush():
    assert v("Ac Kd Qh Js Tc") > v("5c 4d 3h 2s Ac")
    assert v("5h 4h 3h 2h Ah") == CATEGORY_FLOOR[Category.STRAIGHT_FLUSH]
    assert category_of(v("5h 4h 3h 2h Ah")) is Category.STRAIGHT_FLUSH


def test_rule_13_2_2_two_pairs_high_pair_then_second_pair_then_fifth_card():
    assert v("Kc Kd 3h 3s 2c") > v("Qc Qd Jh Js Ac")
    assert v("Kc Kd 4h 4s 2c") > v("Kh Ks 3h 3c Ac")
    assert v("Kc Kd 4h 4s 6c") > v("Kh Ks 4d 4c 5c")


def test_nz_13_3_d_odd_cards_compared_high_to_low():
    assert v("Ac Qd 9h 6s 3c") > v("Ad Jd Th 8s 7c")
    assert v("Ac Qd 9h 6s 4c") > v("Ad Qh 9c 6d 3c")


def test_nz_13_4_exactly_equal_hands_stand_off_and_rule_3_3_suits_do_not_rank():
    assert v("Ac Kd 9h 6s 3c") == v("As Kh 9d 6c 3s")
    assert v("Ah Jh 8h 4h 2h") == v("As Js 8s 4s 2s")


@pytest.mark.parametrize("hand, qualifies", [
    ("Ac Kd 4h 3s 2c", True),     # the weakest qualifying hand
    ("Ac Kd Qh Js 9c", True),
    ("Ac Qd Jh 9s 8c", False),    # ace-queen high
    ("Kc Qd Jh 9s 8c", False),
    ("2c 2d 3h 4s 5c", True),     # any pair
    ("5c 4d 3h 2s Ac", True),     # a straight, though ace-low
])
def test_rule_9_1_dealer_qualifies_with_ace_king_or_higher(hand, qualifies):
    assert dealer_qualifies(v(hand)) is qualifies


def test_hand_value_checks_its_input():
    with pytest.raises(CardError):
        hand_value((0, 1, 2, 3))
    with pytest.raises(CardError):
        hand_value((0, 1, 2, 3, 3))
    with pytest.raises(CardError):
        hand_value((0, 1, 2, 3, 52))


def test_descriptions_are_what_a_dealer_announces():
    assert str(hand_value(parse_hand("Kc Kd Kh 2s 2c"))) == "full house, kings full of twos"
    assert str(hand_value(parse_hand("5c 4d 3h 2s Ac"))) == "straight, five high"
    assert str(hand_value(parse_hand("Jc Jd 4h 4s Ac"))) == "two pairs, jacks and fours, ace kicker"
    assert str(hand_value(parse_hand("6c 6d 4h 3s Ac"))) == "pair of sixes, ace-four-three"


# --- properties ---------------------------------------------------------------------------------

def reference_key(hand):
    """An independent, slow reading of rule 13 for cross-checking: (category, card values)."""
    ranks = sorted(((c >> 2) for c in hand), reverse=True)
    suits = {c & 3 for c in hand}
    by_count = sorted(Counter(ranks).items(), key=lambda kv: (-kv[1], -kv[0]))
    pattern = [n for _, n in by_count]
    order = [r for r, _ in by_count]
    straight_top = None
    if len(set(ranks)) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_top = 3
    flush = len(suits) == 1
    if flush and straight_top is not None:
        return (9 if straight_top == 12 else 8, [straight_top])
    if pattern == [4, 1]:
        return (7, order)
    if pattern == [3, 2]:
        return (6, order)
    if flush:
        return (5, ranks)
    if straight_top is not None:
        return (4, [straight_top])
    return ({(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(pattern), 0), order)


two_hands = st.lists(st.integers(0, 51), min_size=10, max_size=10, unique=True)


@given(two_hands)
def test_ranking_is_a_total_order_agreeing_with_an_independent_reading(cards):
    a, b = tuple(cards[:5]), tuple(cards[5:])
    ka, kb = reference_key(a), reference_key(b)
    va, vb = evaluate(a), evaluate(b)
    assert (va > vb) == (ka > kb) and (va == vb) == (ka == kb)
    assert category_of(va) == ka[0]


@given(st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True), st.permutations(range(4)))
def test_value_is_invariant_under_suit_permutation_rule_3_3(hand, perm):
    permuted = tuple((c & ~3) | perm[c & 3] for c in hand)
    assert evaluate(tuple(hand)) == evaluate(permuted)
    assert evaluate(tuple(hand)) == evaluate(tuple(reversed(hand)))


@given(st.lists(st.integers(0, 51), min_size=15, max_size=15, unique=True))
def test_order_is_transitive(cards):
    a, b, c = (tuple(cards[i:i + 5]) for i in (0, 5, 10))
    va, vb, vc = evaluate(a), evaluate(b), evaluate(c)
    if va >= vb and vb >= vc:
        assert va >= vc

"""Strategies: decide(strategy, hand, up_card) for the daemon's simulated players."""

import random

import numpy as np
import pytest

from tabled.game.cards import CardError, parse_card, parse_cards
from tabled.math import counting
from tabled.math.paytable import load_paytable
from tabled.math.strategy import STRATEGIES, bet_gain, decide, raises_for_cards


def d(strategy, hand, up, paytable=None):
    return decide(strategy, parse_cards(hand), parse_card(up), paytable)


@pytest.mark.parametrize("hand,up,expected", [
    ("2c 2d 7h 9s Jc", "Ah", True),   # any pair or better is bet
    ("Qh Jd 9c 5s 3h", "2c", False),  # below ace-king: fold
    ("Ah Kd 9c 5s 2h", "9d", True),   # rule 1: the up card (2 to queen) matches one of your ranks
    ("Ah Kd 9c 5s 2h", "Ad", False),  # an ace matching is not rule 1; no queen or jack for rule 2
    ("Ah Kd Jc 5s 2h", "Kc", True),   # rule 2: ace or king up and you hold a jack
    ("Ah Kd Qc 7s 6h", "5d", True),   # rule 3: no match, a queen, up card below your fourth (7)
    ("Ah Kd Qc 7s 6h", "8d", False),  # rule 3 fails: 8 is not below the fourth-highest card
    ("Ah Kd 9c 7s 6h", "5d", False),  # rule 3 needs a queen
])
def test_the_three_published_rules(hand, up, expected):
    assert d("rules", hand, up) is expected


def test_simple_strategies():
    assert d("ak-j-8-3", "Ah Kd Jc 8s 3h", "2c") and not d("ak-j-8-3", "Ah Kd Jc 8s 2h", "2c")
    assert d("pair-plus", "2c 2d 7h 9s Jc", "Ac") and not d("pair-plus", "Ah Kd Qc Js 9h", "2c")
    assert d("any-ak", "Ah Kd 4c 3s 2h", "Qc") and not d("any-ak", "Ah Qd Jc 3s 2h", "Qc")
    assert d("always-raise", "7h 5d 4c 3s 2h", "Ac")


def test_optimal_bets_when_betting_loses_less_than_folding():
    hand, up = parse_cards("Ah Kd 9c 5s 2h"), parse_card("9d")
    c = counting.dealer_counts(hand, up)
    counts = np.array([[c.not_qualifying, c.player_higher, c.stand_off, c.dealer_higher]])
    gain = int(bet_gain(counts, np.array([0]), load_paytable("us-standard"))[0])
    assert decide("optimal", hand, up, load_paytable("us-standard")) is (gain > -163_185)
    assert d("optimal", "2c 2d 7h 9s Jc", "Ah") and not d("optimal", "Qh Jd 9c 5s 3h", "2c")


def test_on_demand_optimal_agrees_with_the_table():
    # the simulator's table (every situation) and the single on-demand decision agree
    paytable = load_paytable("us-standard")
    rng = random.Random(11)
    hands, ups = [], []
    for _ in range(300):
        cards = rng.sample(range(52), 6)
        if rng.random() < 0.7:  # mostly ace-king hands, where the decision is contested
            cards = rng.sample([c for c in range(52) if c >> 2 < 11], 4)
            cards = [48 + rng.randrange(4), 44 + rng.randrange(4)] + cards[:3] + [cards[3]]
        hands.append(cards[:5])
        ups.append(cards[5])
    table = raises_for_cards("optimal", np.array(hands), np.array(ups), paytable)
    one_by_one = [decide("optimal", h, u, paytable) for h, u in zip(hands, ups)]
    assert table.tolist() == one_by_one
    assert 0 < sum(one_by_one) < len(one_by_one)


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="no strategy 'bluff'"):
        d("bluff", "2c 2d 7h 9s Jc", "Ah")
    with pytest.raises(CardError, match="duplicate card Ah"):
        d("rules", "Ah 2d 7h 9s Jc", "Ah")
    with pytest.raises(CardError, match="five cards"):
        decide("rules", [1, 2, 3], 9)
    with pytest.raises(CardError, match="not a card index"):
        decide("rules", [1, 2, 3, 4, 5], 52)


def test_every_strategy_is_listed():
    assert set(STRATEGIES) == {"optimal", "rules", "ak-j-8-3", "pair-plus", "any-ak", "always-raise"}

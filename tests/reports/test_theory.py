"""A hand's theoretical result is exact: the four ways the dealer's hole cards can fall are each
settled as the game core settles them, and the expectation over all 163,185 hole-card sets,
dealt one by one here, is the one the report computes from the counts."""

from __future__ import annotations

import itertools
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.game.batch import evaluate_batch
from tabled.game.ranking import QUALIFYING_VALUE, evaluate, hand_value
from tabled.game.round_facts import RoundFacts, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle, settlement_as_dict
from tabled.profiles import load_profile
from tabled.reports.rounds import read_settlement
from tabled.reports.theory import bet_outcomes, theory_of_hands

NSW = load_profile("nsw")
#: tokens kept by the house on a stand off, and a maximum payout (10.2) that bites
STRICT = replace(NSW, tokens_returned_on_stand_off=False, max_bet_payout_cents=30_000)


def spot_settled(profile, cards, dealer, ante: Wager, bet: Wager, status=SpotStatus.PLAYED):
    facts = RoundFacts(1, tuple(dealer), (SpotFacts(1, status, ante, bet, cards=tuple(cards)),), 0)
    (spot,) = read_settlement(settlement_as_dict(settle(facts, profile))).spots  # as the journal holds it
    return spot


def outcome_class(player_value: int, dealer_value: int) -> int:
    if dealer_value < QUALIFYING_VALUE:
        return 0
    return 1 if player_value > dealer_value else 2 if player_value == dealer_value else 3


@settings(max_examples=200, deadline=None)
@given(st.randoms(use_true_random=False), st.sampled_from([NSW, STRICT]), st.integers(1, 40),
       st.integers(0, 100), st.integers(0, 3), st.integers(0, 100))
def test_each_way_the_dealer_falls_is_settled_as_the_game_core_settles_it(rnd, profile, ante_units, ante_token,
                                                                          bet_factor, bet_token):
    cards = rnd.sample(range(52), 10)
    player, dealer = cards[:5], cards[5:]
    ante = Wager(ante_units * 500 - min(ante_token, ante_units * 500), min(ante_token, ante_units * 500))
    bet_total = bet_factor * ante.cents if bet_factor else ante.cents  # 14.10: less, exactly or more
    bet = Wager(bet_total - min(bet_token, bet_total), min(bet_token, bet_total))
    spot = spot_settled(profile, player, dealer, ante, bet)
    results = bet_outcomes(profile, hand_value(player).category, ante.cents, ante.token_cents, bet.cents,
                           bet.token_cents)
    house = -(spot.ante.net_cents + spot.bet.net_cents)
    assert results[outcome_class(evaluate(player), evaluate(dealer))] == house


@pytest.mark.parametrize("profile", [NSW, STRICT])
@pytest.mark.parametrize("player, up", [
    ((0, 5, 10, 15, 16), 30),      # a straight, six high
    ((48, 44, 36, 9, 2), 49),      # ace-king against an ace up
    ((12, 13, 50, 27, 31), 3),     # a pair
])
def test_the_expectation_over_every_hole_card_set_dealt_one_by_one(profile, player, up):
    unseen = [c for c in range(52) if c not in player and c != up]
    holes = np.array(list(itertools.combinations(unseen, 4)), dtype=np.int64)
    assert len(holes) == 163_185
    dealer = np.concatenate([holes, np.full((len(holes), 1), up)], axis=1)
    values = evaluate_batch(dealer).astype(np.int64)
    classes = np.array([outcome_class(evaluate(player), int(v)) for v in values])
    ante, bet = Wager(1000, 0), Wager(1500, 500)
    results = bet_outcomes(profile, hand_value(player).category, ante.cents, 0, bet.cents, bet.token_cents)
    house = np.array(results, dtype=object)[classes]
    spot = spot_settled(profile, player, tuple(int(c) for c in dealer[0]), ante, bet)
    (hand,) = theory_of_hands([(spot, up)], profile)
    n = len(holes)
    assert hand.expected == Fraction(int(house.sum()), n)
    assert hand.variance == Fraction(int((house * house).sum()), n) - hand.expected ** 2
    fold = Fraction(ante.cents)
    raised = np.array(bet_outcomes(profile, hand_value(player).category, 1000, 0, 2000, 0), dtype=object)[classes]
    assert hand.optimal == min(fold, Fraction(int(raised.sum()), len(holes)))


def test_a_folded_hand_is_what_it_was():
    player, up = (48, 44, 36, 9, 2), 49
    spot = spot_settled(NSW, player, (3, 7, 11, 17, up), Wager(1000), Wager(), SpotStatus.FOLDED)
    (hand,) = theory_of_hands([(spot, up)], NSW)
    assert hand.actual_cents == hand.expected == 1000 and hand.variance == 0
    assert hand.optimal <= 1000

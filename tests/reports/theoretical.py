"""The theoretical loss of a settled hand computed independently of the report's counting tables:
every one of the 163,185 dealer hole-card sets dealt against the hand and each way they fall settled
by the game core, plus the progressive wager less its expected award at the meter, counted from the
five-card hands of each category."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np

from tabled.game.batch import evaluate_batch
from tabled.game.cards import parse_cards
from tabled.game.ranking import Category, QUALIFYING_VALUE, evaluate
from tabled.game.round_facts import RoundFacts, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle
from tabled.profiles import load_profile

NSW = load_profile("nsw")
#: how many of the 2,598,960 five-card hands each progressive category holds (a fact of the deck)
CATEGORY_HANDS = {Category.ROYAL_FLUSH: 4, Category.STRAIGHT_FLUSH: 36, Category.FOUR_OF_A_KIND: 624,
                  Category.FULL_HOUSE: 3744, Category.FLUSH: 5108}


def house_by_hand(cards: tuple[int, ...], up: int, ante: Wager, bet: Wager, status: SpotStatus) -> Fraction:
    """The house's expected result of one hand over every hole-card set, each settled by the game core."""
    if status is SpotStatus.FOLDED:
        return Fraction(ante.cents)  # 8.4: nothing left to chance
    unseen = [c for c in range(52) if c not in cards and c != up]
    holes = np.array(list(itertools.combinations(unseen, 4)), dtype=np.int64)
    dealers = np.concatenate([holes, np.full((len(holes), 1), up)], axis=1)
    values = evaluate_batch(dealers).astype(np.int64)
    mine = evaluate(cards)
    classes = np.where(values < QUALIFYING_VALUE, 0, np.where(values < mine, 1, np.where(values == mine, 2, 3)))
    total = 0
    for c in range(4):
        count = int((classes == c).sum())
        if count:
            dealer = tuple(int(x) for x in dealers[int(np.argmax(classes == c))])
            facts = RoundFacts(1, dealer, (SpotFacts(1, status, ante, bet, cards=cards),), 0)
            spot = settle(facts, NSW).spots[0]
            total += count * -(spot.ante.net_cents + spot.bet.net_cents)
    return Fraction(total, len(holes))


def expected_award(meter_cents: int) -> Fraction:
    """The progressive award a wager expects with the meter at ``meter_cents`` (NSW's schedule)."""
    s = NSW.progressive_schedule
    award = {Category.ROYAL_FLUSH: max(Fraction(s.royal_minimum_cents),
                                       Fraction(s.royal_pool_percent * meter_cents, 100)),
             Category.STRAIGHT_FLUSH: max(Fraction(s.straight_flush_minimum_cents),
                                          Fraction(s.straight_flush_pool_percent * meter_cents, 100))}
    return sum((n * award.get(c, Fraction(s.fixed_awards_cents.get(c, 0))) for c, n in CATEGORY_HANDS.items()),
               Fraction(0)) / 2_598_960


def hand_theoretical(line: dict[str, Any], up: int, meter_cents: int) -> Fraction:
    """The theoretical loss of one played or folded hand, a spot's line of ``round.settled``, with the
    dealer's up card ``up`` and the meter at ``meter_cents`` before the round's awards."""
    cards = parse_cards(" ".join(line["cards"]))
    ante, bet = Wager(line["ante"]["placed_cents"]), Wager(line["bet"]["placed_cents"])
    theo = house_by_hand(cards, up, ante, bet, SpotStatus(line["status"]))
    if line["progressive"]["placed_cents"]:
        theo += line["progressive"]["placed_cents"] - expected_award(meter_cents)
    return theo

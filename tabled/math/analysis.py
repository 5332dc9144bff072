"""The exact par sheet of a paytable: every deal counted, every strategy in one pass.

A deal is (player hand, up card, four hole cards): 2,598,960 x 47 x 163,185 =
19,933,230,517,200 deals, all equally likely. The dealer counts of :mod:`tabled.math.counting`
depend only on a *situation* (player value, up-card rank, ranks the player holds in the up card's
suit), so the 122,151,120 (hand, up card) pairs collapse to 1,121,471 weighted situations. Each
strategy decides per situation; its par sheet is a weighted sum of exact integers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from tabled.game.batch import all_hands
from tabled.game.ranking import Category

from . import counting
from .paytable import Paytable
from .situations import HANDS, UP_CARDS, Situations, hand_values, situations
from .strategy import STRATEGIES, raises

DEALS = HANDS * UP_CARDS * counting.DEALER_HANDS_PER_UP_CARD        # 19,933,230,517,200


# ---------------------------------------------------------------------------------------------
# par sheet


@dataclass(frozen=True)
class Outcome:
    name: str
    deals: int
    units: int  # won (+) or lost (-) per unit of ante in each such deal

    @property
    def probability(self) -> float:
        return self.deals / DEALS

    @property
    def return_contribution(self) -> float:
        return self.deals * self.units / DEALS


@dataclass(frozen=True)
class ParSheet:
    strategy: str
    paytable: str
    outcomes: tuple[Outcome, ...]
    raised_deals: int
    deals: int = DEALS

    @property
    def total_units(self) -> int:
        """The player's net result summed over every deal, in units of ante (exact)."""
        return sum(o.deals * o.units for o in self.outcomes)

    @property
    def house_edge(self) -> float:
        """Expected loss per ante."""
        return -self.total_units / self.deals

    @property
    def raise_rate(self) -> float:
        return self.raised_deals / self.deals

    @property
    def element_of_risk(self) -> float:
        """Expected loss per unit wagered (ante plus any bet)."""
        return -self.total_units / (self.deals + 2 * self.raised_deals)

    @property
    def std_dev(self) -> float:
        """Standard deviation of one round's result, in units of ante."""
        second = sum(o.deals * o.units * o.units for o in self.outcomes)
        mean = self.total_units / self.deals
        return math.sqrt(second / self.deals - mean * mean)

    def outcome(self, name: str) -> Outcome:
        return next(o for o in self.outcomes if o.name == name)

    def as_dict(self) -> dict:
        return {
            "strategy": self.strategy,
            "paytable": self.paytable,
            "deals": self.deals,
            "total_units": self.total_units,
            "house_edge": self.house_edge,
            "element_of_risk": self.element_of_risk,
            "raise_rate": self.raise_rate,
            "std_dev": self.std_dev,
            "outcomes": [{"outcome": o.name, "deals": o.deals, "units": o.units,
                          "probability": o.probability, "return": o.return_contribution}
                         for o in self.outcomes],
        }


#: outcome names, best first, as a par sheet lists them
WIN_NAMES = {c: f"player wins: {c.label}" for c in Category}
WIN_NAMES[Category.FIVE_ODD_CARDS] = "player wins: ace-king"
NOT_QUALIFYING = "dealer does not qualify"
STAND_OFF = "stand off (push)"
FOLD = "fold"
DEALER_WINS = "dealer wins"


def par_sheet(paytable: Paytable, strategy: str, sit: Situations | None = None) -> ParSheet:
    """The par sheet of one strategy (exact integer counts)."""
    sit = sit or situations()
    category = counting.value_classes().category[sit.value]
    bet = raises(strategy, sit.value, sit.up_rank, sit.suit_mask, paytable, sit.counts)
    w = sit.weight[bet]
    c = sit.counts[bet]
    outcomes = []
    for cat in reversed(Category):
        sel = category[bet] == cat
        deals = int((w[sel] * c[sel, 1]).sum())
        outcomes.append(Outcome(WIN_NAMES[cat], deals, paytable.win_units(cat)))
    outcomes.append(Outcome(NOT_QUALIFYING, int((w * c[:, 0]).sum()), paytable.ante_odds))
    outcomes.append(Outcome(STAND_OFF, int((w * c[:, 2]).sum()), 0))
    folded = int(sit.weight[~bet].sum()) * counting.DEALER_HANDS_PER_UP_CARD
    outcomes.append(Outcome(FOLD, folded, -1))
    outcomes.append(Outcome(DEALER_WINS, int((w * c[:, 3]).sum()), -3))
    raised = int(w.sum()) * counting.DEALER_HANDS_PER_UP_CARD
    sheet = ParSheet(strategy, paytable.name, tuple(outcomes), raised)
    assert sum(o.deals for o in outcomes) == DEALS
    return sheet


def dealer_qualifying_hands() -> int:
    """Of the 2,598,960 five-card hands, how many qualify (rule 9.1)."""
    counts = np.bincount(hand_values(all_hands()), minlength=counting.DISTINCT_VALUES + 1)
    return int(counts[counting.QUALIFYING_VALUE:].sum())


@dataclass(frozen=True)
class Analysis:
    paytable: Paytable
    sheets: dict[str, ParSheet] = field(default_factory=dict)


def analyze(paytable: Paytable, strategies: Iterable[str] = STRATEGIES,
            progress: bool = False) -> Analysis:
    """Par sheets of ``strategies`` (all by default) from one pass over the situations."""
    sit = situations(progress)
    return Analysis(paytable, {s: par_sheet(paytable, s, sit) for s in strategies})

"""The progressive side wager's return as a function of the meter (rules 11.7, 12.1).

The progressive pays on the player's own five cards (11.4: whatever the dealer holds), so its
mathematics is the count of each qualifying hand among the 2,598,960. For one winner at a time:
royal flush max(minimum, royal % of the meter), straight flush max(minimum, SF % of the meter),
fixed awards for four of a kind, full house and flush. As published analyses count it, the wager
is not returned on a win: return = expected award / wager - 1. Exact fractions throughout.

Left out, as in published analyses: two winners in one round sharing an award (12.3), and a
folded qualifying hand forfeiting (every strategy here bets a flush or better, so none folds).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tabled.game.progressive import ProgressiveSchedule
from tabled.game.ranking import Category

from .situations import HANDS

#: how many of the 2,598,960 hands fall in each category that qualifies (11.7)
QUALIFYING_HANDS = {
    Category.ROYAL_FLUSH: 4,
    Category.STRAIGHT_FLUSH: 36,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108,
}


@dataclass(frozen=True)
class ProgressiveMath:
    schedule: ProgressiveSchedule
    wager_cents: int

    def award_cents(self, category: Category, meter_cents: Fraction | int) -> Fraction:
        s = self.schedule
        if category is Category.ROYAL_FLUSH:
            return max(Fraction(s.royal_minimum_cents), Fraction(s.royal_pool_percent, 100) * meter_cents)
        if category is Category.STRAIGHT_FLUSH:
            return max(Fraction(s.straight_flush_minimum_cents),
                       Fraction(s.straight_flush_pool_percent, 100) * meter_cents)
        return Fraction(s.fixed_awards_cents.get(category, 0))

    def expected_award_cents(self, meter_cents: Fraction | int) -> Fraction:
        return sum((n * self.award_cents(c, meter_cents) for c, n in QUALIFYING_HANDS.items()),
                   Fraction(0)) / HANDS

    def return_at(self, meter_cents: Fraction | int) -> Fraction:
        """Expected net result per unit wagered (negative: the house's edge)."""
        return self.expected_award_cents(meter_cents) / self.wager_cents - 1

    def break_even_meter_cents(self) -> Fraction | None:
        """The meter at which the wager returns exactly 100%; 0 when it always does, None when
        no meter reaches it (no share of the meter is paid)."""
        target = Fraction(self.wager_cents)
        if self.expected_award_cents(0) >= target:
            return Fraction(0)
        s = self.schedule
        # the award is piecewise linear in the meter, bending where a percentage passes its minimum
        bends = sorted({Fraction(m * 100, p) for m, p in (
            (s.royal_minimum_cents, s.royal_pool_percent),
            (s.straight_flush_minimum_cents, s.straight_flush_pool_percent)) if p})
        low = Fraction(0)
        for high in bends + [None]:
            if high is not None and self.expected_award_cents(high) < target:
                low = high
                continue
            # linear on [low, high]: solve at the slope just above low
            at_low = self.expected_award_cents(low)
            slope = self.expected_award_cents(low + 1) - at_low
            if slope == 0:
                return None
            return low + (target - at_low) / slope
        return None


def progressive_math(profile) -> ProgressiveMath:  # a tabled.game.profiles.Profile
    return ProgressiveMath(profile.progressive_schedule, profile.progressive_wager_cents)

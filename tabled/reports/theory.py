"""The exact mathematics of the wagers actually made: each hand's expected result for the house.

For a hand dealt against the dealer's one up card, the dealer's four hole cards are any 4 of the
46 unseen cards, all equally likely; :mod:`tabled.math.counting` gives exactly how many of the
163,185 do not qualify (9.2), lose to the hand (9.4.1.1), tie it (9.4.1.3) or beat it (9.4.1.2).
Each of the four is settled here as :func:`tabled.game.settlement.settle` settles it -- the ante's
odds (10.1), the bet settled on the amount of 14.10, the maximum payout (10.2), promotional tokens
taken on a win (1.1) and returned or kept on a stand off by the profile -- so a hand's expectation
is an exact fraction of a cent, for the decision the player made and for the better of the two
(the optimal-play figure: fold, or bet twice the ante, 5.5).

A folded hand (8.4) has no chance left: its theoretical result is its actual result. Hands in a
void round, void hands (14.7), absent players (14.12), dead hands and conceded hands are left out
of the theoretical win and of the actual win it is set beside, and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tabled.game.profiles import Profile
from tabled.game.ranking import Category, category_of
from tabled.game.round_facts import SpotStatus
from tabled.math import counting

from .rounds import SpotLine

DEALER_HANDS = counting.DEALER_HANDS_PER_UP_CARD


class Scaled:
    """Expectations kept as whole numbers over :data:`DEALER_HANDS` (variance: over its square),
    read as exact fractions."""

    expected_n: int
    optimal_n: int
    variance_n: int

    @property
    def expected(self) -> Fraction:
        return Fraction(self.expected_n, DEALER_HANDS)

    @property
    def optimal(self) -> Fraction:
        return Fraction(self.optimal_n, DEALER_HANDS)

    @property
    def variance(self) -> Fraction:
        return Fraction(self.variance_n, DEALER_HANDS * DEALER_HANDS)


@dataclass(frozen=True)
class HandTheory(Scaled):
    """One hand: the house's actual result (cents), its expected result for the decision made and
    for the better decision, and the variance of its result over the dealer's hole cards. Kept as
    whole numbers over :data:`DEALER_HANDS` (expectations) and its square (variance), so that sums
    over a day stay exact and quick."""

    actual_cents: int
    expected_n: int             # expected result x DEALER_HANDS
    optimal_n: int              # had the player made the better decision (betting twice the ante) x DEALER_HANDS
    variance_n: int             # variance (cents squared) x DEALER_HANDS ** 2
    ante_cents: int



def _kept_token(token_cents: int, profile: Profile) -> int:
    """A token on a wager that stands off or is void: lost to the house unless the profile returns it."""
    return 0 if profile.tokens_returned_on_stand_off else token_cents


def _settled_bet(ante_cents: int, bet_cents: int) -> int:
    return min(bet_cents, 2 * ante_cents)  # 14.10: settled on what was bet, or on twice the ante


def bet_outcomes(profile: Profile, category, ante_cents: int, ante_token: int, bet_cents: int,
                 bet_token: int) -> tuple[int, int, int, int]:
    """The house's result (cents) on ante and bet when the dealer does not qualify, the hand is
    higher, they stand off, the dealer is higher: as the settlement computes each."""
    settled = _settled_bet(ante_cents, bet_cents)
    ante_won = ante_cents * profile.ante_odds - min(ante_token, ante_cents)   # 9.3.1, 10.1; 1.1
    not_qualifying = -ante_won + _kept_token(bet_token, profile)              # 9.2: the bet is void
    winnings, _ = profile.bet_winnings(category, settled)                     # 10.1, 10.2
    higher = -ante_won - (winnings - min(bet_token, settled))                 # 9.4.1.1
    stand_off = _kept_token(ante_token, profile) + _kept_token(bet_token, profile)  # 9.4.1.3
    lower = ante_cents + settled                                              # 9.4.1.2
    return not_qualifying, higher, stand_off, lower


def _sums(counts: Sequence[int], results: Sequence[int]) -> tuple[int, int]:
    """(expectation x N, variance x N squared) over the N dealer hands, as whole numbers."""
    (c0, c1, c2, c3), (r0, r1, r2, r3) = counts, results  # the four outcomes, for each of a day's hands
    total = c0 * r0 + c1 * r1 + c2 * r2 + c3 * r3
    square = c0 * r0 * r0 + c1 * r1 * r1 + c2 * r2 * r2 + c3 * r3 * r3
    return total, DEALER_HANDS * square - total * total


def theory_of_hands(hands: Sequence[tuple[SpotLine, int]], profile: Profile) -> list[HandTheory]:
    """Each (played or folded spot, dealer's up card) -> its :class:`HandTheory`, counted in one batch."""
    if not hands:
        return []
    values, ranks, masks = [], [], []
    for spot, up in hands:
        value, up_rank, mask = counting.situation(spot.cards, up)
        values.append(value)
        ranks.append(up_rank)
        masks.append(mask)
    counts = counting.dealer_counts_batch(np.array(values), np.array(ranks), np.array(masks)).tolist()
    # a day's hands repeat a few wagers over ten categories: each set of outcomes settled once
    outcomes: dict[tuple[Category, int, int, int, int], tuple[int, int, int, int]] = {}

    def settled(category: Category, ante_cents: int, ante_token: int, bet_cents: int,
                bet_token: int) -> tuple[int, int, int, int]:
        key = (category, ante_cents, ante_token, bet_cents, bet_token)
        found = outcomes.get(key)
        if found is None:
            found = outcomes[key] = bet_outcomes(profile, category, ante_cents, ante_token, bet_cents, bet_token)
        return found

    out = []
    for (spot, _), value, row in zip(hands, values, counts):
        ante, bet = spot.ante, spot.bet
        category = category_of(value)
        actual = -(ante.net_cents + bet.net_cents)
        folded = ante.placed_cents * DEALER_HANDS  # 8.4: the ante is collected whole, tokens included
        as_raised = settled(category, ante.placed_cents, ante.token_cents, 2 * ante.placed_cents, 0)
        optimal = min(folded, _sums(row, as_raised)[0])  # the player keeps the better of the two
        if spot.status is SpotStatus.FOLDED:
            out.append(HandTheory(actual, actual * DEALER_HANDS, optimal, 0, ante.placed_cents))
            continue
        results = settled(category, ante.placed_cents, ante.token_cents, bet.placed_cents, bet.token_cents)
        expected, variance = _sums(row, results)
        out.append(HandTheory(actual, expected, optimal, variance, ante.placed_cents))
    return out

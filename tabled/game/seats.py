"""The table's playing areas (spots) and the seats behind them (rules 2.2.1, 3.1, 12.2, 16.9).

Spot 1 is the dealer's far left; the highest spot is the dealer's immediate right, where payment
begins (12.2). The layout has one playing area per seat (2.2.1): seven, as on the standard
Caribbean Stud layout and the dealer's button panel (its spot keys are 1 to 7). One deck (3.1)
would deal nine five-card hands beside the dealer's, so every table from 1 to 7 spots can be
dealt. The config, the simulator and a round's facts all use this one range.
"""

from __future__ import annotations

from collections.abc import Iterable

from tabled.game.checks import integer_problem

#: The fewest and the most playing areas a table has (2.2.1).
MIN_SPOTS = 1
MAX_SPOTS = 7

#: 16.9: abstaining this many rounds in a row while every other seat is in use.
ABSTAIN_ROUNDS = 3


def spot_problem(value: object) -> str | None:
    """What is wrong with ``value`` as a table's number of spots or as one spot's number (both
    1 to 7), or None; every place that reads one says it in these words, after what was read."""
    return integer_problem(value, MIN_SPOTS, MAX_SPOTS)


def after_round(abstained: dict[int, int], spots: int, wagering: Iterable[int]) -> tuple[dict[int, int], list[int]]:
    """Rule 16.9: a player who abstains three consecutive rounds while every other seat is in use
    may be required to vacate the seat. We count and flag; the dealer decides. Returns the new
    consecutive-abstention counts and the spots to flag, given the spots that wagered."""
    wagering = set(wagering)
    counts: dict[int, int] = {}
    flagged: list[int] = []
    for spot in range(1, spots + 1):
        others_in_use = all(s in wagering for s in range(1, spots + 1) if s != spot)
        if spot not in wagering and others_in_use:
            counts[spot] = abstained.get(spot, 0) + 1
            if counts[spot] >= ABSTAIN_ROUNDS:
                flagged.append(spot)
        else:
            counts[spot] = 0
    return counts, flagged

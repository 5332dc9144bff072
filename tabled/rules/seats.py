"""Rule 16.9: a player who abstains three consecutive rounds while every other seat is in use
may be required to vacate the seat. We count and flag; the dealer decides."""

from __future__ import annotations

from collections.abc import Iterable

ABSTAIN_ROUNDS = 3


def after_round(abstained: dict[int, int], spots: int, wagering: Iterable[int]) -> tuple[dict[int, int], list[int]]:
    """New consecutive-abstention counts and the spots to flag, given the spots that wagered."""
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

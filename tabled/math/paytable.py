"""The odds the mathematics needs from a profile (rule 10.1), as small integers.

The analysis works per unit of ante: the ante pays ``ante_odds`` to 1, a winning bet (two units)
pays ``bet_odds[category]`` to 1. The operator's maximum payout (10.2) is in cents and so depends
on the ante's size: the exact analysis leaves it out (as published analyses do); the simulator,
which deals real cents, applies it through the game core.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tabled.game.ranking import Category
from tabled.profiles import load_profile


@dataclass(frozen=True)
class Paytable:
    name: str
    ante_odds: int
    bet_odds: tuple[int, ...]  # indexed by Category

    def __post_init__(self) -> None:
        if len(self.bet_odds) != len(Category):
            raise ValueError(f"a paytable has odds for all {len(Category)} categories, got {len(self.bet_odds)}")
        for odds in (self.ante_odds, *self.bet_odds):
            if not isinstance(odds, int) or isinstance(odds, bool) or odds < 0:
                raise ValueError(f"odds are whole numbers 'to 1', got {odds!r}")

    @classmethod
    def of(cls, bet_odds: Mapping[Category, int], ante_odds: int = 1, name: str = "custom") -> Paytable:
        missing = [c.label for c in Category if c not in bet_odds]
        if missing:
            raise ValueError(f"paytable {name!r} has no odds for: {', '.join(missing)}")
        return cls(name, ante_odds, tuple(int(bet_odds[c]) for c in Category))

    @classmethod
    def from_profile(cls, profile) -> Paytable:  # a tabled.game.profiles.Profile
        return cls.of(profile.bet_odds, profile.ante_odds, profile.name)

    def win_units(self, category: Category) -> int:
        """9.4.1.1: ante and a two-unit bet both paid, per unit of ante."""
        return self.ante_odds + 2 * self.bet_odds[category]


def load_paytable(name: str) -> Paytable:
    """The paytable of a shipped profile name or a profile TOML path (tabled.game.profiles)."""
    return Paytable.from_profile(load_profile(name))

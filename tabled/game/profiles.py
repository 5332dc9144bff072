"""Jurisdiction profiles: the paytables, progressive schedule and irregularity choices of a table.

A profile is data (TOML), not code. The shipped ones live in ``tabled/profiles/*.toml``; an
operator's own file is loaded by path (:func:`tabled.profiles.load_profile`). This module does no
I/O: :func:`profile_from_mapping` checks every key of a parsed file and names the key and the
problem in a :class:`ProfileError` (a ``ValueError``), so a bad file never reaches a table.

Money is integer cents, rates are basis points or whole percent: never a float.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from tabled.game.checks import Section, Wording

from .progressive import ProgressiveSchedule
from .ranking import Category

#: The profiles shipped inside the package.
SHIPPED_PROFILES = ("nsw", "us-standard", "nz-irregularities")

_FIXED_AWARD_CATEGORIES = (Category.FOUR_OF_A_KIND, Category.FULL_HOUSE, Category.FLUSH)


class ProfileError(ValueError):
    """A profile that is missing, unreadable or wrong; the message names the key and the problem."""


class HandWithoutAnte(StrEnum):
    """A hand dealt to a playing area without an ante."""

    DISCARD = "discard"  # NSW 14.8: the cards are counted and placed in the discard rack
    REDEAL = "redeal"    # NZ 14.7: found before the deal is complete: collect, reshuffle, redeal


class DeckNot52(StrEnum):
    """The dealer finds, after the deal, that the deck does not hold 52 cards."""

    VOID = "void"        # NZ 14.9: a misdeal, the round is void
    STANDS = "stands"    # NSW: no rule; the round is settled as dealt (a supervisor may act, 16.4)


#: Spot statuses a profile may say forfeit the progressive. Void and absent hands have their
#: progressive wager returned (14.7, 14.12) and dead hands forfeit it by NZ 14.1, whatever the profile.
FORFEITABLE_STATUSES = frozenset({"folded", "conceded"})


@dataclass(frozen=True)
class Profile:
    name: str
    jurisdiction: str
    description: str
    #: 10.1: bet odds "to 1" per hand category
    bet_odds: Mapping[Category, int]
    #: 10.1: the ante pays 1 to 1
    ante_odds: int
    #: 10.2: the operator's maximum payout on bet wagers, in cents; None = no cap
    max_bet_payout_cents: int | None
    #: 11.3: the posted progressive wager, in cents
    progressive_wager_cents: int
    #: 11.6: the share of each progressive wager added to the pool, in basis points
    contribution_basis_points: int
    #: 12.1: the award schedule (also carries the reset value and who pays fixed awards)
    progressive_schedule: ProgressiveSchedule
    #: statuses whose hands do not win the progressive (docs/settlement.md: folded and conceded by default)
    progressive_forfeited_by: frozenset[str]
    hand_without_ante: HandWithoutAnte
    deck_not_52: DeckNot52
    #: NZ 14.1: a hand may be declared dead for passing information (ante, bet, progressive forfeited)
    dead_hands: bool
    #: 1.1 is silent on a stand off or a void; our reading: the promotional token is returned
    tokens_returned_on_stand_off: bool
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    def bet_winnings(self, category: Category, settled_cents: int) -> tuple[int, bool]:
        """Winnings on a bet of ``settled_cents`` by 10.1, capped by 10.2. Returns (cents, capped)."""
        winnings = settled_cents * self.bet_odds[category]
        cap = self.max_bet_payout_cents
        if cap is not None and winnings > cap:
            return cap, True
        return winnings, False

    def contribution_cents(self, wager_cents: int) -> int:
        """11.6: what one progressive wager adds to the pool, rounded down (docs/settlement.md)."""
        return wager_cents * self.contribution_basis_points // 10_000


# ---------------------------------------------------------------------------------------------
# loading and validation


# A profile's own words (tabled.game.checks has the checks): its tests and operators know these.
_WORDING = Wording(unknown_key="is not a profile setting (a typo?)")


def _profile_file(data: object, where: str) -> Section:
    """The whole profile as a section; every error names the profile and the full key."""
    return Section(data, lambda key, problem: ProfileError(f"profile {where}: key '{key}' {problem}"),
                   wording=_WORDING)


def _category_key(cat: Category) -> str:
    return cat.name.lower()


def profile_from_mapping(data: Mapping[str, Any], where: str = "<data>") -> Profile:
    """Build and check a :class:`Profile` from parsed TOML."""
    top = _profile_file(data, where)
    name = top.text("name")
    jurisdiction = top.text("jurisdiction")
    description = top.text("description")
    source = top.text("source", "-")
    notes_raw = top.get("notes", [])
    if not isinstance(notes_raw, list) or not all(isinstance(n, str) for n in notes_raw):
        raise top.fail("notes", "must be a list of text")

    ante = top.section("ante")
    ante_odds = ante.integer("odds", 1, 1000, what="odds to 1")  # 10.1: 1 to 1 in every profile we know
    ante.finish()

    bet = top.section("bet")
    cap = bet.cents("max_payout_cents", 0)  # 10.2: 0 or absent = no cap
    odds = bet.section("odds")
    bet_odds = {cat: odds.integer(_category_key(cat), 1, 100_000, what="odds to 1") for cat in Category}
    odds.finish()
    bet.finish()

    prog = top.section("progressive")
    wager = prog.cents("wager_cents")
    if wager == 0:
        raise prog.fail("wager_cents", "must be more than 0 (11.3: the posted wager)")
    rate = prog.integer("contribution_basis_points", 0, 10_000, what="basis points")
    reset = prog.cents("reset_cents")
    from_pool = prog.flag("fixed_awards_from_pool", False)
    forfeited = prog.get("forfeited_by", ["folded", "conceded"])
    # isinstance first: a table or list in the list is a clear error, not a TypeError from the set
    if not isinstance(forfeited, list) or not all(isinstance(s, str) and s in FORFEITABLE_STATUSES
                                                  for s in forfeited):
        raise prog.fail("forfeited_by", f"must be a list drawn from {sorted(FORFEITABLE_STATUSES)}, "
                                        f"got {forfeited!r}")
    royal = prog.section("royal_flush")
    royal_min = royal.cents("minimum_cents")
    royal_pct = royal.integer("pool_percent", 0, 100, what="a whole percent")
    royal.finish()
    sflush = prog.section("straight_flush")
    sf_min = sflush.cents("minimum_cents")
    sf_pct = sflush.integer("pool_percent", 0, 100, what="a whole percent")
    sflush.finish()
    fixed = prog.section("fixed_awards_cents")
    fixed_awards = {cat: fixed.cents(_category_key(cat)) for cat in _FIXED_AWARD_CATEGORIES}
    fixed.finish()
    prog.finish()
    schedule = ProgressiveSchedule(
        royal_minimum_cents=royal_min, royal_pool_percent=royal_pct,
        straight_flush_minimum_cents=sf_min, straight_flush_pool_percent=sf_pct,
        fixed_awards_cents=MappingProxyType(fixed_awards), fixed_awards_from_pool=from_pool,
        reset_cents=reset,
    )

    irr = top.section("irregularities")
    no_ante = irr.member("hand_without_ante", HandWithoutAnte)
    deck = irr.member("deck_not_52", DeckNot52)
    dead = irr.flag("dead_hands")
    tokens_back = irr.flag("tokens_returned_on_stand_off", True)
    irr.finish()
    top.finish()

    return Profile(
        name=name, jurisdiction=jurisdiction, description=description,
        bet_odds=MappingProxyType(bet_odds), ante_odds=ante_odds,
        max_bet_payout_cents=cap or None,
        progressive_wager_cents=wager, contribution_basis_points=rate,
        progressive_schedule=schedule, progressive_forfeited_by=frozenset(forfeited),
        hand_without_ante=no_ante, deck_not_52=deck, dead_hands=dead,
        tokens_returned_on_stand_off=tokens_back, source=source, notes=tuple(notes_raw),
    )


__all__ = [
    "Profile", "ProfileError", "HandWithoutAnte", "DeckNot52", "SHIPPED_PROFILES",
    "FORFEITABLE_STATUSES", "profile_from_mapping",
]

"""Wager limits and announced changes (rules 5.3, 5.8, 6.1, 6.2, 11.1, 11.3, 16.8).

All amounts are integer cents. Each check returns ``None`` when the wager stands, or a
:class:`Breach` naming the rule and saying what is wrong in words a dealer can act on.
"""

from __future__ import annotations

from dataclasses import dataclass

#: 6.2 and 16.8: a raise of the minimum or a closure needs a sign up for at least 20 minutes.
NOTICE_MS = 20 * 60 * 1000


class LimitError(ValueError):
    """Limits that cannot be posted at a table (checked when the table starts)."""


@dataclass(frozen=True)
class Breach:
    rule: str
    message: str


def dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}${cents // 100:,}.{cents % 100:02d}"


@dataclass(frozen=True)
class Limits:
    """The sign at the table (6.1): minimum, maximum and minimum unit above the minimum."""

    minimum_cents: int
    maximum_cents: int
    unit_cents: int
    progressive_wager_cents: int  # 11.3: the posted progressive wager

    def __post_init__(self) -> None:
        for name in ("minimum_cents", "maximum_cents", "unit_cents", "progressive_wager_cents"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise LimitError(f"{name} must be a whole number of cents above 0, got {v!r}")
        if self.maximum_cents < self.minimum_cents:
            raise LimitError(f"maximum {dollars(self.maximum_cents)} is below minimum "
                             f"{dollars(self.minimum_cents)} (6.1)")

    def check_ante(self, cents: int) -> Breach | None:
        """6.1: within the posted minimum and maximum, in the minimum unit above the minimum."""
        if cents < self.minimum_cents:
            return Breach("6.1", f"ante {dollars(cents)} is below the minimum {dollars(self.minimum_cents)}")
        if cents > self.maximum_cents:
            return Breach("6.1", f"ante {dollars(cents)} is above the maximum {dollars(self.maximum_cents)}")
        if (cents - self.minimum_cents) % self.unit_cents:
            return Breach("6.1", f"ante {dollars(cents)} is not the minimum plus a multiple of "
                                 f"{dollars(self.unit_cents)}")
        return None

    def check_progressive(self, cents: int, ante_cents: int) -> Breach | None:
        """11.1: only with an ante; 5.3 and 11.3: exactly the posted amount."""
        if ante_cents <= 0:
            return Breach("11.1", "a progressive wager needs an ante on the same spot")
        if cents != self.progressive_wager_cents:
            return Breach("11.3", f"progressive wager {dollars(cents)} is not the posted "
                                  f"{dollars(self.progressive_wager_cents)} (5.3)")
        return None

    def check_bet(self, bet_cents: int, ante_cents: int) -> Breach | None:
        """5.5: a bet is exactly twice the ante."""
        if bet_cents != 2 * ante_cents:
            return Breach("5.5", f"bet {dollars(bet_cents)} is not twice the ante "
                                 f"{dollars(ante_cents)} ({dollars(2 * ante_cents)})")
        return None


def check_one_wager(stacks: int) -> Breach | None:
    """5.8: only one wager on any one wagering area."""
    if stacks > 1:
        return Breach("5.8", f"{stacks} wagers on one area: only one is accepted")
    return None


def check_notice(announced_ms: int, effective_ms: int, rule: str) -> Breach | None:
    """6.2 (raise of the minimum) and 16.8 (closure): at least 20 minutes' notice."""
    if effective_ms - announced_ms < NOTICE_MS:
        minutes = max(0, effective_ms - announced_ms) / 60000
        return Breach(rule, f"needs a sign up for at least 20 minutes before it takes effect; "
                            f"this gives {minutes:.1f}")
    return None

"""Pool settings and their versions (rules 11.5, 11.6, 12.1; docs/settlement.md).

A pool's settings (contribution rate, reset value, limit and where overflow goes, the pool that funds
the next reset, the award schedule) are versioned. A new version is recorded with who proposed it and
why, and becomes the active one only when the current jackpot is won (the pool resets): players never
see the terms of a jackpot change while they play for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from tabled.game.checks import is_cents
from tabled.game.progressive import ProgressiveError, ProgressiveSchedule
from tabled.game.ranking import Category

from .base import PoolError

#: a pool name is also part of a PostgreSQL NOTIFY channel name: keep it a plain identifier
POOL_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")

BASIS_POINTS = 10_000  # 100 %


def check_pool_name(name: object) -> str:
    if not isinstance(name, str) or not POOL_NAME.fullmatch(name):
        raise PoolError(f"pool name must be 1-40 lower-case letters, digits or _ starting with a letter, got {name!r}")
    return name


def _whole_cents(name: str, value: object, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not is_cents(value):
        raise PoolError(f"{name} must be a whole number of cents >= 0, got {value!r}")


@dataclass(frozen=True)
class PoolSettings:
    """One version of a pool's settings."""

    contribution_bp: int                 # 11.6: share of each progressive wager to this pool, basis points
    reset_cents: int                     # the pool's starting value after a jackpot is won
    limit_cents: int | None = None       # the pool grows no further; the excess goes to overflow_to
    overflow_to: str | None = None       # another pool in the same database; None: retained by the operator
    reset_from: str | None = None        # a reserve pool that funds the reset while it has enough
    schedule: ProgressiveSchedule | None = None  # None: the schedule the table's profile passes in

    def __post_init__(self) -> None:
        bp = self.contribution_bp
        if not isinstance(bp, int) or isinstance(bp, bool) or not 0 <= bp <= BASIS_POINTS:
            raise PoolError(f"contribution_bp must be whole basis points from 0 to {BASIS_POINTS}, got {bp!r}")
        _whole_cents("reset_cents", self.reset_cents)
        _whole_cents("limit_cents", self.limit_cents, optional=True)
        if self.limit_cents is not None and self.limit_cents < self.reset_cents:
            raise PoolError(f"limit_cents {self.limit_cents} is below reset_cents {self.reset_cents}")
        for key in ("overflow_to", "reset_from"):
            value = getattr(self, key)
            if value is not None:
                check_pool_name(value)
        if self.overflow_to is not None and self.limit_cents is None:
            raise PoolError("overflow_to needs limit_cents: overflow is what the pool cannot hold above its limit")

    def split(self, wager_cents: int) -> int:
        """11.6: rate x wager, rounded down to the cent; the rest is retained (docs/settlement.md "Amounts")."""
        return wager_cents * self.contribution_bp // BASIS_POINTS

    def schedule_for(self, profile_schedule: ProgressiveSchedule, next_reset_cents: int) -> ProgressiveSchedule:
        """The schedule a round is paid by: this version's own (or the profile's), and the reset value of
        the version that will be active after the jackpot is won."""
        return replace(self.schedule or profile_schedule, reset_cents=next_reset_cents)

    # ---- storage -----------------------------------------------------------------------------
    def schedule_json(self) -> str | None:
        return None if self.schedule is None else schedule_to_json(self.schedule)

    @classmethod
    def from_row(cls, contribution_bp: int, reset_cents: int, limit_cents: int | None,
                 overflow_to: str | None, reset_from: str | None, schedule: str | None) -> PoolSettings:
        return cls(int(contribution_bp), int(reset_cents),
                   None if limit_cents is None else int(limit_cents), overflow_to, reset_from,
                   None if schedule is None else schedule_from_json(schedule))

    def as_dict(self) -> dict:
        return {
            "contribution_bp": self.contribution_bp, "reset_cents": self.reset_cents,
            "limit_cents": self.limit_cents, "overflow_to": self.overflow_to, "reset_from": self.reset_from,
            "schedule": None if self.schedule is None else json.loads(schedule_to_json(self.schedule)),
        }


@dataclass(frozen=True)
class SettingsVersion:
    pool: str
    version: int
    settings: PoolSettings
    who: str
    why: str
    proposed_at: str
    active: bool      # the version the current jackpot is played under
    pending: bool     # recorded, waiting for the current jackpot to be won


def schedule_to_json(s: ProgressiveSchedule) -> str:
    return json.dumps({
        "royal_minimum_cents": s.royal_minimum_cents, "royal_pool_percent": s.royal_pool_percent,
        "straight_flush_minimum_cents": s.straight_flush_minimum_cents,
        "straight_flush_pool_percent": s.straight_flush_pool_percent,
        "fixed_awards_cents": {c.name: v for c, v in sorted(s.fixed_awards_cents.items())},
        "fixed_awards_from_pool": s.fixed_awards_from_pool, "reset_cents": s.reset_cents,
    }, sort_keys=True)


def schedule_from_json(text: str) -> ProgressiveSchedule:
    try:
        d = json.loads(text)
        fixed_json = d.pop("fixed_awards_cents", {})
        if not isinstance(fixed_json, dict):
            raise TypeError(f"fixed_awards_cents must be an object, got {fixed_json!r}")
        fixed = {Category[k]: v for k, v in fixed_json.items()}
        return ProgressiveSchedule(fixed_awards_cents=fixed, **d)
    except (ValueError, KeyError, TypeError, ProgressiveError) as exc:
        raise PoolError(f"stored award schedule cannot be read: {exc}") from exc

"""Mispays of a period, by dealer, from the board's check of the payments (docs/settlement.md,
"The dealer's procedure"; rules 9.3, 9.4): SETTLE DONE refused while an area was wrong (a mispay
caught and put right before the round closed), and a supervisor's override (the round closed as
the felt lay: each area's difference counted over, against the house, or short, against the
player), and chips taken off a paid area before SETTLE DONE."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .periods import Period
from .rounds import Event

#: the notes this section reads (tabled/table/payout_check.py)
KINDS = ("payments.checked", "payments.refused", "payments.override", "payments.removed_early")


@dataclass
class DealerMispays:
    rounds_checked: int = 0         # SETTLE DONE with every area right at once or after a refusal
    refused: int = 0                # SETTLE DONE refused: a mispay caught before the round closed
    overridden: int = 0             # rounds closed by a supervisor over a mismatch
    over_cents: int = 0             # left over what was due, in overridden rounds: against the house
    short_cents: int = 0            # left under what was due: against the player


@dataclass
class Mispays:
    by_dealer: dict[str, DealerMispays] = field(default_factory=dict)
    removed_early: int = 0

    @property
    def over_cents(self) -> int:
        return sum(d.over_cents for d in self.by_dealer.values())

    @property
    def short_cents(self) -> int:
        return sum(d.short_cents for d in self.by_dealer.values())

    def __bool__(self) -> bool:
        return bool(self.by_dealer) or bool(self.removed_early)


def dealer_name(p: Mapping[str, Any]) -> str:
    badge = p.get("dealer")
    return f"dealer badge {badge}" if badge is not None else "dealer (no staff list)"


def mispays(period: Period, events: Iterable[Event]) -> Mispays:
    out = Mispays()
    for e in events:
        if e.kind not in KINDS or not period.holds(e.time_us):
            continue
        p = e.payload
        if e.kind == "payments.removed_early":
            out.removed_early += 1
            continue
        d = out.by_dealer.setdefault(dealer_name(p), DealerMispays())
        if e.kind == "payments.checked":
            d.rounds_checked += 1
        elif e.kind == "payments.refused":
            d.refused += 1
        else:
            d.overridden += 1
            for row in p.get("areas", []):
                diff = int(row.get("difference_cents", 0))
                d.over_cents += max(diff, 0)
                d.short_cents += max(-diff, 0)
    return out


__all__ = ["Mispays", "DealerMispays", "mispays", "KINDS"]

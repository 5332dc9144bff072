"""Progressive jackpot awards of one round (rules 11.7, 11.8, 12.1 - 12.4; docs/settlement.md).

A pure function: the pool before the round's awards and the round's qualifying hands in, the
awards (each split into what the pool pays and what the operator tops up), their order of payment
(:func:`payment_order`) and the pool after them out. The pool backends apply the result atomically.

Arithmetic (docs/settlement.md, "Progressive awards of one round"): the awards are taken in
the order they are paid (:func:`payment_order`: 12.2 right to left, 12.4 straight flushes before
royal flushes), each from the pool as it stands when it is paid.

* Fixed awards (four of a kind, full house, flush: 12.1.3 - 12.1.5) are paid by the operator, or
  from the pool where the profile says so.
* k straight flushes (12.1.2, 12.3.2): when the first is paid, 10% of the pool, then 10% of what
  is left, k times; the aggregate is shared equally, each winner getting at least the minimum
  ($1,000 in NSW). The share is fixed then: an award paid between two straight flushes does not
  change it (12.3.2's equal shares win over the draw).
* r royal flushes (12.1.1, 12.3.1) share the pool as it stands when the first of them is paid
  (after every straight flush, 12.4), each getting at least the minimum ($10,000 in NSW); the
  pool resets after the round's last award.

Every share is rounded down to the cent; the remainder stays in the pool (after a royal, it is
carried into the reset pool). The pool pays at most what it holds; the operator pays the rest of
an award (a top-up to a minimum, a fixed award, a share the pool no longer holds), recorded as such.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Protocol, TypeVar

from tabled.game.checks import Section, is_cents

from .ranking import Category

#: rule 11.7: the hands that qualify for a progressive jackpot payout
QUALIFYING_CATEGORIES = frozenset({
    Category.ROYAL_FLUSH, Category.STRAIGHT_FLUSH, Category.FOUR_OF_A_KIND,
    Category.FULL_HOUSE, Category.FLUSH,
})

_FIXED_RULES = {
    Category.FOUR_OF_A_KIND: "12.1.3",
    Category.FULL_HOUSE: "12.1.4",
    Category.FLUSH: "12.1.5",
}


class ProgressiveError(ValueError):
    """Inputs that cannot describe one round's progressive hits."""


@dataclass(frozen=True)
class ProgressiveSchedule:
    """The award schedule of a profile (12.1). Amounts in cents, shares in whole percent."""

    royal_minimum_cents: int
    royal_pool_percent: int
    straight_flush_minimum_cents: int
    straight_flush_pool_percent: int
    fixed_awards_cents: Mapping[Category, int] = field(default_factory=dict)
    fixed_awards_from_pool: bool = False  # docs/settlement.md step 1: the operator pays them by default
    reset_cents: int = 0

    def __post_init__(self) -> None:
        own = Section({f.name: getattr(self, f.name) for f in fields(self)},
                      lambda name, problem: ProgressiveError(f"{name} {problem}"))
        for name in ("royal_minimum_cents", "straight_flush_minimum_cents", "reset_cents"):
            own.cents(name)
        for name in ("royal_pool_percent", "straight_flush_pool_percent"):
            own.integer(name, 0, 100, what="a whole percent")
        for cat, v in self.fixed_awards_cents.items():
            if cat not in _FIXED_RULES:
                raise ProgressiveError(f"a fixed award is for four of a kind, full house or flush, not {cat.label}")
            if not is_cents(v):
                raise ProgressiveError(f"fixed award for {cat.label} must be whole cents >= 0, got {v!r}")


@dataclass(frozen=True)
class ProgressiveHit:
    """A qualifying hand (11.7) on a spot whose progressive wager was accepted and still stands."""

    spot: int
    category: Category


@dataclass(frozen=True)
class ProgressiveAward:
    spot: int
    category: Category
    amount_cents: int          # paid to the player, on top of ante and bet (11.8)
    from_pool_cents: int
    operator_topup_cents: int  # what the operator adds to reach a minimum or pays as a fixed award
    rule: str


@dataclass(frozen=True)
class ProgressiveResult:
    pool_before_cents: int
    awards: tuple[ProgressiveAward, ...]  # in order of payment (12.2, 12.4)
    pool_after_cents: int
    reset: bool                           # a royal flush emptied the pool and it was reset
    reset_funding_cents: int              # the reset value put back (reserve or operator)

    @property
    def paid_from_pool_cents(self) -> int:
        return sum(a.from_pool_cents for a in self.awards)

    @property
    def operator_topup_cents(self) -> int:
        return sum(a.operator_topup_cents for a in self.awards)


def _percent_of(amount: int, percent: int) -> int:
    return amount * percent // 100  # rounded down to the cent (docs/settlement.md "Amounts")


class _Placed(Protocol):
    """A hand on a spot: a hit before it is worked out, an award after."""

    @property
    def spot(self) -> int: ...
    @property
    def category(self) -> Category: ...


_P = TypeVar("_P", bound=_Placed)


def payment_order(awards: Iterable[_P]) -> tuple[_P, ...]:
    """The order in which the dealer pays a round's awards (or takes its hits).

    12.2: right to left, from the spot at the dealer's immediate right (the highest number).
    12.4: where a royal flush and a straight flush both qualify, the straight flush is paid first.
    Only the straight flushes move: walking right to left, on reaching the first royal flush the
    dealer first pays every straight flush not yet paid (right to left), then the royal, and goes
    on. Fixed awards and royal flushes keep their 12.2 places among themselves.
    """
    by_12_2 = sorted(awards, key=lambda a: -a.spot)
    order: list[_P] = []
    for a in by_12_2:
        if a in order:
            continue  # a straight flush, paid already ahead of a royal flush
        if a.category is Category.ROYAL_FLUSH:
            order += [sf for sf in by_12_2 if sf.category is Category.STRAIGHT_FLUSH and sf not in order]
        order.append(a)
    return tuple(order)


def _straight_flush_aggregate(pool: int, count: int, percent: int) -> int:
    """12.3.2: the aggregate of the 10% payouts from each subsequent jackpot total, ``count`` times."""
    aggregate = 0
    for _ in range(count):
        payout = _percent_of(pool, percent)
        aggregate += payout
        pool -= payout
    return aggregate


def award_progressive(pool_cents: int, hits: Iterable[ProgressiveHit],
                      schedule: ProgressiveSchedule) -> ProgressiveResult:
    """All of one round's progressive awards, paid from ``pool_cents`` (see module docstring)."""
    if not is_cents(pool_cents):
        raise ProgressiveError(f"the pool must be whole cents >= 0, got {pool_cents!r}")
    hits = list(hits)
    spots = [h.spot for h in hits]
    if len(set(spots)) != len(spots):
        raise ProgressiveError(f"one progressive wager per spot (5.8): spots {sorted(spots)}")
    for h in hits:
        if h.category not in QUALIFYING_CATEGORIES:
            raise ProgressiveError(f"spot {h.spot}: {h.category.label} does not qualify (11.7)")

    straight_flushes = sum(h.category is Category.STRAIGHT_FLUSH for h in hits)
    royals = sum(h.category is Category.ROYAL_FLUSH for h in hits)
    pool = pool_cents
    sf_share: int | None = None      # set when the first straight flush is paid (12.3.2)
    royal_share: int | None = None   # set when the first royal flush is paid (12.3.1)
    awards: list[ProgressiveAward] = []
    for h in payment_order(hits):   # each award drawn from the pool as it stands when it is paid
        if h.category in _FIXED_RULES:  # 12.1.3 - 12.1.5
            amount = schedule.fixed_awards_cents.get(h.category, 0)
            share, minimum, rule = (amount if schedule.fixed_awards_from_pool else 0), amount, _FIXED_RULES[h.category]
        elif h.category is Category.STRAIGHT_FLUSH:  # 12.1.2, 12.3.2
            if sf_share is None:
                sf_share = _straight_flush_aggregate(
                    pool, straight_flushes, schedule.straight_flush_pool_percent) // straight_flushes
            share, minimum = sf_share, schedule.straight_flush_minimum_cents
            rule = "12.1.2" if straight_flushes == 1 else "12.3.2"
        else:  # 12.1.1, 12.3.1: the pool as the straight flushes (paid first, 12.4) left it
            if royal_share is None:
                royal_share = _percent_of(pool, schedule.royal_pool_percent) // royals
            share, minimum = royal_share, schedule.royal_minimum_cents
            rule = "12.1.1" if royals == 1 else "12.3.1"
        amount = max(share, minimum)
        from_pool = min(share, pool)  # the pool pays what it holds; the operator the rest
        pool -= from_pool
        awards.append(ProgressiveAward(h.spot, h.category, amount, from_pool, amount - from_pool, rule))

    reset = royals > 0
    if reset:
        pool += schedule.reset_cents  # the rounding remainder stays; the reset value is added

    return ProgressiveResult(
        pool_before_cents=pool_cents,
        awards=tuple(awards),  # in the order of payment (12.2, 12.4)
        pool_after_cents=pool,
        reset=reset,
        reset_funding_cents=schedule.reset_cents if reset else 0,
    )

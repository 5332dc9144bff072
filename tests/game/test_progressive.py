"""Progressive awards of one round (rules 11.7, 12.1 - 12.4; docs/settlement.md worked examples)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.game.profiles import load_profile
from tabled.game.progressive import (QUALIFYING_CATEGORIES, ProgressiveError, ProgressiveHit,
                                     ProgressiveSchedule, award_progressive)
from tabled.game.ranking import Category

C = Category
NSW = load_profile("nsw").progressive_schedule
US = load_profile("us-standard").progressive_schedule


def test_money_md_three_straight_flushes_rule_12_3_2():
    # P = $30,000.00: payouts $3,000, $2,700, $2,430; A = $8,130; share $2,710; pool after $21,870
    r = award_progressive(3_000_000, [ProgressiveHit(s, C.STRAIGHT_FLUSH) for s in (1, 4, 6)], NSW)
    assert [a.amount_cents for a in r.awards] == [271_000] * 3
    assert all(a.from_pool_cents == 271_000 and a.operator_topup_cents == 0 for a in r.awards)
    assert r.pool_after_cents == 2_187_000
    assert {a.rule for a in r.awards} == {"12.3.2"}


def test_money_md_royal_with_small_pool_topped_up_rule_12_1_1():
    # P = $6,000: the royal is paid $10,000, $6,000 from the pool and $4,000 by the operator
    r = award_progressive(600_000, [ProgressiveHit(3, C.ROYAL_FLUSH)], NSW)
    (a,) = r.awards
    assert (a.amount_cents, a.from_pool_cents, a.operator_topup_cents) == (1_000_000, 600_000, 400_000)
    assert r.reset and r.pool_after_cents == NSW.reset_cents  # the pool resets


def test_money_md_straight_flush_rounded_down_rule_12_1_2():
    # P = $12,345.67: $1,234.56 from the pool (rounded down), pool after $11,111.11
    r = award_progressive(1_234_567, [ProgressiveHit(2, C.STRAIGHT_FLUSH)], NSW)
    (a,) = r.awards
    assert a.from_pool_cents == 123_456 and a.rule == "12.1.2"
    assert a.amount_cents == 123_456  # above the $1,000 minimum
    assert r.pool_after_cents == 1_111_111


def test_straight_flush_minimum_topped_up_by_operator_rule_12_1_2():
    r = award_progressive(500_000, [ProgressiveHit(2, C.STRAIGHT_FLUSH)], NSW)
    (a,) = r.awards
    assert (a.amount_cents, a.from_pool_cents, a.operator_topup_cents) == (100_000, 50_000, 50_000)
    assert r.pool_after_cents == 450_000


def test_fixed_awards_paid_by_operator_rules_12_1_3_to_12_1_5():
    hits = [ProgressiveHit(1, C.FOUR_OF_A_KIND), ProgressiveHit(2, C.FULL_HOUSE), ProgressiveHit(3, C.FLUSH)]
    r = award_progressive(2_000_000, hits, NSW)
    got = {a.spot: (a.amount_cents, a.from_pool_cents, a.operator_topup_cents, a.rule) for a in r.awards}
    assert got == {1: (50_000, 0, 50_000, "12.1.3"), 2: (15_000, 0, 15_000, "12.1.4"),
                   3: (10_000, 0, 10_000, "12.1.5")}
    assert r.pool_after_cents == 2_000_000  # the pool is untouched (docs/settlement.md step 1)


def test_us_standard_royal_is_the_whole_meter_without_minimum():
    r = award_progressive(123_456, [ProgressiveHit(5, C.ROYAL_FLUSH)], US)
    (a,) = r.awards
    assert (a.amount_cents, a.operator_topup_cents) == (123_456, 0)


def test_two_royals_share_what_straight_flushes_left_rules_12_3_1_and_12_4():
    hits = [ProgressiveHit(1, C.ROYAL_FLUSH), ProgressiveHit(7, C.ROYAL_FLUSH),
            ProgressiveHit(4, C.STRAIGHT_FLUSH)]
    r = award_progressive(5_000_000, hits, NSW)
    # straight flush: 10% of $50,000 = $5,000; royals share $45,000: $22,500 each
    by_spot = {a.spot: a for a in r.awards}
    assert by_spot[4].amount_cents == 500_000
    assert by_spot[1].amount_cents == by_spot[7].amount_cents == 2_250_000
    assert by_spot[1].rule == "12.3.1"
    # 12.4: straight flush first; 12.2: then right to left, spot 7 before spot 1
    assert [a.spot for a in r.awards] == [4, 7, 1]


def test_two_royals_each_get_the_minimum_when_greater_rule_12_3_1():
    r = award_progressive(1_500_000, [ProgressiveHit(2, C.ROYAL_FLUSH), ProgressiveHit(3, C.ROYAL_FLUSH)], NSW)
    for a in r.awards:
        assert (a.amount_cents, a.from_pool_cents, a.operator_topup_cents) == (1_000_000, 750_000, 250_000)


def test_payment_order_right_to_left_rule_12_2():
    hits = [ProgressiveHit(s, C.FLUSH) for s in (2, 6, 1, 4)]
    assert [a.spot for a in award_progressive(0, hits, NSW).awards] == [6, 4, 2, 1]


def test_rejects_non_qualifying_hand_rule_11_7_and_duplicate_spot():
    with pytest.raises(ProgressiveError, match="11.7"):
        award_progressive(0, [ProgressiveHit(1, C.STRAIGHT)], NSW)
    with pytest.raises(ProgressiveError, match="5.8"):
        award_progressive(0, [ProgressiveHit(1, C.FLUSH), ProgressiveHit(1, C.FLUSH)], NSW)
    with pytest.raises(ProgressiveError, match="pool"):
        award_progressive(-1, [], NSW)


# -- properties ---------------------------------------------------------------------------------

schedules = st.builds(
    ProgressiveSchedule,
    royal_minimum_cents=st.integers(0, 2_000_000),
    royal_pool_percent=st.integers(0, 100),
    straight_flush_minimum_cents=st.integers(0, 200_000),
    straight_flush_pool_percent=st.integers(0, 100),
    fixed_awards_cents=st.fixed_dictionaries({
        C.FOUR_OF_A_KIND: st.integers(0, 100_000), C.FULL_HOUSE: st.integers(0, 50_000),
        C.FLUSH: st.integers(0, 20_000)}),
    fixed_awards_from_pool=st.booleans(),
    reset_cents=st.integers(0, 2_000_000),
)


@st.composite
def round_hits(draw):
    spots = draw(st.lists(st.integers(1, 7), unique=True, max_size=7))
    return [ProgressiveHit(s, draw(st.sampled_from(sorted(QUALIFYING_CATEGORIES)))) for s in spots]


@settings(max_examples=400, deadline=None)
@given(pool=st.integers(0, 10**9), hits=round_hits(), schedule=st.one_of(st.just(NSW), st.just(US), schedules))
def test_pool_money_is_conserved(pool, hits, schedule):
    r = award_progressive(pool, hits, schedule)
    assert len(r.awards) == len(hits)
    for a in r.awards:
        assert a.amount_cents == a.from_pool_cents + a.operator_topup_cents  # from_pool + top-up = award
        assert a.from_pool_cents >= 0 and a.operator_topup_cents >= 0
    # the pool only pays what it holds; what it pays out is exactly what went down
    assert 0 <= r.paid_from_pool_cents <= pool
    assert r.pool_after_cents == pool - r.paid_from_pool_cents + r.reset_funding_cents
    assert r.reset == any(h.category is C.ROYAL_FLUSH for h in hits)
    # amounts are whole cents
    assert all(isinstance(a.amount_cents, int) for a in r.awards)


@settings(max_examples=400, deadline=None)
@given(pool=st.integers(0, 10**9), hits=round_hits(), schedule=st.one_of(st.just(NSW), schedules))
def test_payment_order_and_minimums(pool, hits, schedule):
    r = award_progressive(pool, hits, schedule)
    royals = [i for i, a in enumerate(r.awards) if a.category is C.ROYAL_FLUSH]
    others = [i for i, a in enumerate(r.awards) if a.category is not C.ROYAL_FLUSH]
    assert not royals or not others or max(others) < min(royals)            # 12.4
    for group in (royals, others):
        spots = [r.awards[i].spot for i in group]
        assert spots == sorted(spots, reverse=True)                         # 12.2: N down to 1
    for a in r.awards:
        if a.category is C.ROYAL_FLUSH:
            assert a.amount_cents >= schedule.royal_minimum_cents           # 12.1.1, 12.3.1
        elif a.category is C.STRAIGHT_FLUSH:
            assert a.amount_cents >= schedule.straight_flush_minimum_cents  # 12.1.2, 12.3.2
        else:
            assert a.amount_cents == schedule.fixed_awards_cents.get(a.category, 0)
    # several straight flushes are paid equal shares (12.3.2); likewise royals (12.3.1)
    for cat in (C.STRAIGHT_FLUSH, C.ROYAL_FLUSH):
        amounts = {a.amount_cents for a in r.awards if a.category is cat}
        assert len(amounts) <= 1

"""Progressive awards of one round (rules 11.7, 12.1 - 12.4; docs/settlement.md worked examples)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.profiles import load_profile
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


def test_a_royal_without_a_straight_flush_is_paid_in_its_12_2_place_rules_12_2_12_4():
    # royal on spot 7, full house on 6, flush on 3: right to left, nothing for 12.4 to move
    hits = [ProgressiveHit(3, C.FLUSH), ProgressiveHit(6, C.FULL_HOUSE), ProgressiveHit(7, C.ROYAL_FLUSH)]
    assert [a.spot for a in award_progressive(5_000_000, hits, NSW).awards] == [7, 6, 3]


def test_a_straight_flush_left_of_a_royal_is_paid_just_before_it_rule_12_4():
    # 12.2 would pay 7, 5, 3; 12.4 pays the straight flush (spot 3) before the royal (spot 7)
    hits = [ProgressiveHit(7, C.ROYAL_FLUSH), ProgressiveHit(5, C.FULL_HOUSE),
            ProgressiveHit(3, C.STRAIGHT_FLUSH), ProgressiveHit(1, C.FLUSH)]
    assert [a.spot for a in award_progressive(5_000_000, hits, NSW).awards] == [3, 7, 5, 1]
    # a straight flush right of the royal is reached first anyway (12.2)
    hits = [ProgressiveHit(7, C.STRAIGHT_FLUSH), ProgressiveHit(6, C.FLUSH), ProgressiveHit(5, C.ROYAL_FLUSH)]
    assert [a.spot for a in award_progressive(5_000_000, hits, NSW).awards] == [7, 6, 5]



NSW_FROM_POOL = replace(NSW, fixed_awards_from_pool=True)


def test_fixed_awards_from_the_pool_are_drawn_in_the_order_of_payment_rules_12_1_2_12_2():
    # pool $20,000; the straight flush on spot 5 is paid before the four of a kind on spot 1 (12.2),
    # so it gets 10% of the whole $20,000 (12.1.2), and the four of a kind is then drawn from the rest
    r = award_progressive(2_000_000, [ProgressiveHit(1, C.FOUR_OF_A_KIND), ProgressiveHit(5, C.STRAIGHT_FLUSH)],
                          NSW_FROM_POOL)
    got = [(a.spot, a.amount_cents, a.from_pool_cents, a.operator_topup_cents) for a in r.awards]
    assert got == [(5, 200_000, 200_000, 0), (1, 50_000, 50_000, 0)]
    assert r.pool_after_cents == 1_750_000


def test_a_fixed_award_paid_before_a_straight_flush_lowers_its_ten_percent_rules_12_1_2_12_2():
    # the flush on spot 6 is paid first (12.2): the straight flush on spot 2 gets 10% of $19,900
    r = award_progressive(2_000_000, [ProgressiveHit(2, C.STRAIGHT_FLUSH), ProgressiveHit(6, C.FLUSH)],
                          NSW_FROM_POOL)
    assert [(a.spot, a.from_pool_cents) for a in r.awards] == [(6, 10_000), (2, 199_000)]


def test_a_royal_shares_the_pool_as_it_stands_when_paid_rules_12_1_1_12_2():
    # royal on spot 7 paid first takes the whole $50,000; the full house on spot 6 after it finds
    # an empty pool and the operator pays it (the pool resets after the round's last award)
    r = award_progressive(5_000_000, [ProgressiveHit(6, C.FULL_HOUSE), ProgressiveHit(7, C.ROYAL_FLUSH)],
                          NSW_FROM_POOL)
    got = [(a.spot, a.amount_cents, a.from_pool_cents, a.operator_topup_cents) for a in r.awards]
    assert got == [(7, 5_000_000, 5_000_000, 0), (6, 15_000, 0, 15_000)]
    assert r.reset and r.pool_after_cents == NSW.reset_cents


def test_straight_flushes_keep_equal_shares_with_a_fixed_award_paid_between_them_rule_12_3_2():
    # spots 7 and 3 straight flushes, a four of a kind on spot 5 paid between them (12.2): the
    # aggregate is set when the first is paid, $2,000 + $1,800, $1,900 each (12.3.2 wins the draw)
    r = award_progressive(2_000_000, [ProgressiveHit(s, c) for s, c in
                                      ((3, C.STRAIGHT_FLUSH), (5, C.FOUR_OF_A_KIND), (7, C.STRAIGHT_FLUSH))],
                          NSW_FROM_POOL)
    got = [(a.spot, a.amount_cents, a.from_pool_cents) for a in r.awards]
    assert got == [(7, 190_000, 190_000), (5, 50_000, 50_000), (3, 190_000, 190_000)]
    assert r.pool_after_cents == 1_570_000
    # a pool too small for the second share after the fixed award: the operator pays the rest
    r = award_progressive(20_000, [ProgressiveHit(s, c) for s, c in
                                   ((3, C.STRAIGHT_FLUSH), (5, C.FOUR_OF_A_KIND), (7, C.STRAIGHT_FLUSH))],
                          replace(NSW_FROM_POOL, straight_flush_minimum_cents=0))
    got = [(a.spot, a.amount_cents, a.from_pool_cents, a.operator_topup_cents) for a in r.awards]
    assert got == [(7, 1_900, 1_900, 0), (5, 50_000, 18_100, 31_900), (3, 1_900, 0, 1_900)]

# -- 12.2 and 12.4 stated independently, checked over every round of a small table -------------------

def rules_payment_order(hits: list[ProgressiveHit]) -> list[int]:
    """12.2: right to left from the dealer's immediate right (highest spot first). 12.4: where a royal
    flush and a straight flush both qualify, the straight flush is paid first; it then takes the place
    of the rightmost royal flush (just before it) when that royal is right of it, and keeps its own
    place otherwise. Nothing else moves."""
    royal_spots = [h.spot for h in hits if h.category is C.ROYAL_FLUSH]

    def place(h: ProgressiveHit) -> tuple[int, int, int]:
        if h.category is C.STRAIGHT_FLUSH and royal_spots:
            return (-max(h.spot, max(royal_spots)), 0, -h.spot)  # 12.4
        return (-h.spot, 1, -h.spot)                               # 12.2
    return [h.spot for h in sorted(hits, key=place)]


def every_round(spot_count: int, categories: list[Category | None]):
    for combo in itertools.product(categories, repeat=spot_count):
        yield [ProgressiveHit(s, cat) for s, cat in enumerate(combo, 1) if cat is not None]


@pytest.mark.parametrize("spot_count, categories", [
    (7, [None, C.ROYAL_FLUSH, C.STRAIGHT_FLUSH, C.FULL_HOUSE]),
    (5, [None, C.ROYAL_FLUSH, C.STRAIGHT_FLUSH, C.FOUR_OF_A_KIND, C.FULL_HOUSE, C.FLUSH]),
])
def test_payment_order_of_every_round_follows_rules_12_2_and_12_4(spot_count, categories):
    rounds = 0
    for hits in every_round(spot_count, categories):
        r = award_progressive(5_000_000, hits, NSW)
        order = [a.spot for a in r.awards]
        assert order == rules_payment_order(hits), hits
        sfs = [i for i, a in enumerate(r.awards) if a.category is C.STRAIGHT_FLUSH]
        royals = [i for i, a in enumerate(r.awards) if a.category is C.ROYAL_FLUSH]
        assert not sfs or not royals or max(sfs) < min(royals)                       # 12.4
        rest = [a.spot for a in r.awards if a.category is not C.STRAIGHT_FLUSH]
        assert rest == sorted(rest, reverse=True)                                    # 12.2 for the others
        # with the operator paying the fixed awards, nothing paid between two straight flushes or
        # two royals draws on the pool: the amounts are those of 12.1 and 12.3 taken kind by kind
        assert {a.spot: a.amount_cents for a in r.awards} == calculated_amounts(hits)
        rounds += 1
    assert rounds == len(categories) ** spot_count


def calculated_amounts(hits: list[ProgressiveHit]) -> dict[int, int]:
    """12.1, 12.3 for the NSW schedule kind by kind: fixed awards (paid by the operator),
    then the straight flushes' successive 10% payouts shared, then the royals share the rest."""
    fixed = {C.FOUR_OF_A_KIND: 50_000, C.FULL_HOUSE: 15_000, C.FLUSH: 10_000}
    pool, out = 5_000_000, {}
    for h in hits:
        if h.category in fixed:
            out[h.spot] = fixed[h.category]
    sfs = [h.spot for h in hits if h.category is C.STRAIGHT_FLUSH]
    total, left = 0, pool
    for _ in sfs:
        total, left = total + left // 10, left - left // 10
    for s in sfs:
        out[s] = max(total // len(sfs), 100_000)
        pool -= total // len(sfs)
    royals = [h.spot for h in hits if h.category is C.ROYAL_FLUSH]
    for s in royals:
        out[s] = max(pool // len(royals), 1_000_000)
    return out


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
    assert [a.spot for a in r.awards] == rules_payment_order(hits)          # 12.2, 12.4
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


@settings(max_examples=400, deadline=None)
@given(pool=st.integers(0, 10**9), hits=round_hits(), schedule=st.one_of(st.just(NSW_FROM_POOL), schedules))
def test_each_award_is_drawn_from_the_pool_as_it_stands_when_paid_rules_12_1_12_2_12_4(pool, hits, schedule):
    r = award_progressive(pool, hits, schedule)
    before = pool
    straight_flushes = [a for a in r.awards if a.category is C.STRAIGHT_FLUSH]
    for a in r.awards:
        assert a.from_pool_cents <= before
        if a.category is C.STRAIGHT_FLUSH and len(straight_flushes) == 1:  # 12.1.2: 10% of the pool then
            assert a.from_pool_cents == before * schedule.straight_flush_pool_percent // 100
        if a is next((x for x in r.awards if x.category is C.ROYAL_FLUSH), None):  # 12.1.1, 12.3.1
            royals = sum(x.category is C.ROYAL_FLUSH for x in r.awards)
            assert a.from_pool_cents == before * schedule.royal_pool_percent // 100 // royals
        if a.category in (C.FOUR_OF_A_KIND, C.FULL_HOUSE, C.FLUSH) and schedule.fixed_awards_from_pool:
            assert a.from_pool_cents == min(a.amount_cents, before)
        before -= a.from_pool_cents

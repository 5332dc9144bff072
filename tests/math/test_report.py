"""Every money figure `tabled analyze` and `tabled simulate` print, against exact values: an
amount between cents is rounded half up for people and given exactly in the text and the JSON."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabled.game.profiles import SHIPPED_PROFILES
from tabled.profiles import load_profile
from tabled.game.ranking import Category
from tabled.game.settlement import money
from tabled.math import report
from tabled.math.report import nearest_cent

HANDS = 2_598_960
COUNT = {Category.ROYAL_FLUSH: 4, Category.STRAIGHT_FLUSH: 36, Category.FOUR_OF_A_KIND: 624,
         Category.FULL_HOUSE: 3744, Category.FLUSH: 5108}  # 11.7, of the 2,598,960 hands
MONEY = re.compile(r"-?\$[\d,]+\.\d\d")


def break_even_above_the_minimums(profile) -> Fraction:
    """Where the wager returns 100% when both flushes pay their share of the meter (12.1.1,
    12.1.2): wager x hands = meter x (4 x royal % + 36 x SF %) + the fixed awards."""
    s = profile.progressive_schedule
    fixed = sum(COUNT[c] * cents for c, cents in s.fixed_awards_cents.items())
    meter = Fraction(profile.progressive_wager_cents * HANDS - fixed,
                     1) / Fraction(4 * s.royal_pool_percent + 36 * s.straight_flush_pool_percent, 100)
    assert meter * s.royal_pool_percent / 100 >= s.royal_minimum_cents  # above both minimums
    assert meter * s.straight_flush_pool_percent / 100 >= s.straight_flush_minimum_cents
    return meter


@given(st.integers(min_value=0, max_value=10**15), st.integers(min_value=1, max_value=10**6))
def test_nearest_cent_rounds_half_up(numerator, denominator):
    exact = Fraction(numerator, denominator)
    rounded = nearest_cent(exact)
    assert rounded - Fraction(1, 2) <= exact < rounded + Fraction(1, 2)
    # Decimal's 28 digits hold these quotients closer than any of them comes to a half it is not
    half_up = (Decimal(numerator) / Decimal(denominator)).quantize(Decimal(1), ROUND_HALF_UP)
    assert rounded == int(half_up)


def test_nearest_cent_at_the_half():
    assert [nearest_cent(Fraction(n, 2)) for n in (0, 1, 2, 3, 5)] == [0, 1, 1, 2, 3]
    assert nearest_cent(Fraction(303_640_000, 19)) == 15_981_053  # 15,981,052.63...


def test_nsw_break_even_meter_is_159_810_53():
    lines, data = report.progressive_section(load_profile("nsw"))
    assert break_even_above_the_minimums(load_profile("nsw")) == Fraction(303_640_000, 19)
    assert "break-even meter: $159,810.53 (exactly 303640000/19 cents)" in lines
    assert data["break_even_meter_cents"] == 15_981_053
    assert Fraction(data["break_even_meter_cents_exact"]) == Fraction(303_640_000, 19)


@pytest.mark.parametrize("name", SHIPPED_PROFILES)
def test_every_money_figure_of_the_progressive_section_is_exact(name):
    profile = load_profile(name)
    s = profile.progressive_schedule
    even = break_even_above_the_minimums(profile)
    lines, data = report.progressive_section(profile)
    text = "\n".join(lines)
    meters = sorted({s.reset_cents, 1_000_000, 5_000_000, 10_000_000, 20_000_000, nearest_cent(even)})
    expected = [profile.progressive_wager_cents, s.royal_minimum_cents, s.straight_flush_minimum_cents,
                *s.fixed_awards_cents.values(), *meters, nearest_cent(even)]
    assert MONEY.findall(text) == [money(c) for c in expected]
    assert f"(exactly {even.numerator}/{even.denominator} cents)" in text
    assert [row["meter_cents"] for row in data["return_at_meter"]] == meters
    assert data["break_even_meter_cents"] == nearest_cent(even)
    assert Fraction(data["break_even_meter_cents_exact"]) == even


def test_simulate_money_figures_are_the_cents_it_was_given():
    from tabled.math import analysis, simulator
    from tabled.math.paytable import Paytable

    profile = load_profile("nsw")
    sim = simulator.simulate(profile, 50, 3, seed=5, strategy="pair-plus", ante_cents=2_505, pool_cents=1_234_567)
    exact = analysis.par_sheet(Paytable.from_profile(profile), "pair-plus")
    text = report.simulation_text(profile, sim, exact)
    assert MONEY.findall(text) == ["$25.05", "$12,345.67"]  # the ante, the meter held for the run
    data = report.simulation_data(profile, sim, exact)
    assert (data["ante_cents"], data["progressive"]["meter_cents"]) == (2_505, 1_234_567)
    assert isinstance(data["net_cents"], int) and isinstance(data["progressive"]["net_cents"], int)

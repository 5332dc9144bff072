"""Progressive return by meter (11.7, 12.1) and the break-even meter."""

from fractions import Fraction

from tabled.profiles import load_profile
from tabled.math.progressive import QUALIFYING_HANDS, progressive_math


def test_us_standard_break_even_meter_is_published_263205():
    pm = progressive_math(load_profile("us-standard"))
    even = pm.break_even_meter_cents()
    assert even == Fraction(500_090_000, 19)
    assert int(even) // 100 == 263_205
    assert pm.return_at(even) == 0


def test_us_standard_return_is_linear_in_the_meter():
    pm = progressive_math(load_profile("us-standard"))
    # 4 royals at 100% and 36 straight flushes at 10% of the meter, per 2,598,960 hands, per $1
    slope = pm.return_at(101) - pm.return_at(100)
    assert slope == Fraction(4 + Fraction(36, 10), 2_598_960) / 100


def test_nsw_minimums_bend_the_return():
    pm = progressive_math(load_profile("nsw"))
    # below $10,000 the royal pays its $10,000 minimum (12.1.1) and the SF its $1,000 (12.1.2)
    assert pm.return_at(0) == pm.return_at(999_999)
    assert pm.return_at(2_000_000) > pm.return_at(1_000_000)
    even = pm.break_even_meter_cents()
    assert even > 1_000_000 and pm.return_at(even) == 0


def test_qualifying_hand_counts():
    assert sum(QUALIFYING_HANDS.values()) == 4 + 36 + 624 + 3744 + 5108

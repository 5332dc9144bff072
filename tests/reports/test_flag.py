"""The flag: actual and theoretical win further apart than K standard deviations; the deviation
from the hands dealt, or from the par sheet scaled by the antes."""

from __future__ import annotations

import math
from datetime import date, time
from zoneinfo import ZoneInfo

from tabled.journal.store import Journal
from tabled.profiles import load_profile
from tabled.reports.figures import report
from tabled.reports.periods import Calendar
from tabled.reports.rounds import gather

from .test_reconcile import rows


def scripted_day(journals, **options):
    with Journal.open(journals["scripted"], readonly=True, verify=False) as journal:
        gathered = gather(journal.records_after(0))
    cal = Calendar.of(ZoneInfo("UTC"), time(6))
    return report(cal.day(date(2026, 11, 30)), gathered, load_profile, **options)


def test_the_flag_is_raised_beyond_k_standard_deviations(journals):
    theory = scripted_day(journals).theory
    deviation = theory.deviation
    assert deviation is not None and 0 < abs(deviation) < 3 and not theory.flagged
    assert scripted_day(journals, sigmas=abs(deviation) * 0.99).theory.flagged
    assert not scripted_day(journals, sigmas=abs(deviation) * 1.01).theory.flagged


def test_the_par_sheet_deviation_scales_by_the_root_of_the_antes_squared(journals):
    theory = scripted_day(journals, par_sheet_std_dev=lambda profile: 2.25).theory
    antes = [s["ante"]["placed_cents"] for _, st in rows(journals["scripted"], "round.settled") if st["void"] is None
             for s in st["spots"] if s["ante"]["placed_cents"] and s["status"] in ("played", "folded")]
    assert len(antes) == theory.hands
    assert math.isclose(theory.std_dev_cents, 2.25 * math.sqrt(sum(a * a for a in antes)))


def test_the_exact_deviation_is_the_root_of_the_hands_variances(journals):
    theory = scripted_day(journals).theory
    assert math.isclose(theory.std_dev_cents ** 2, float(theory.variance))
    assert theory.variance > 0
    # every bet here is twice the ante: the decisions made can only give the house more than the best ones
    assert theory.optimal <= theory.expected

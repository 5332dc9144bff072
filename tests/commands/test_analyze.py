"""``tabled analyze``: text and JSON par sheets."""

import json

import pytest

from tabled.cli import main

pytestmark = pytest.mark.slow  # runs the exact analysis (once per test process)


def test_analyze_json(capsys):
    assert main(["analyze", "--profile", "us-standard", "--json", "--no-progress"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 19_933_230_517_200
    assert data["dealer_qualifying_hands"] == 1_463_700
    assert data["strategies"]["optimal"]["total_units"] == -1_041_372_912_372
    assert int(data["progressive"]["break_even_meter_cents"]) // 100 == 263_205
    # 500,090,000/19 = 26,320,526.31... cents: the nearest cent, and the fraction itself
    assert data["progressive"]["break_even_meter_cents"] == 26_320_526
    assert data["progressive"]["break_even_meter_cents_exact"] == "500090000/19"


def test_analyze_text(capsys):
    assert main(["analyze", "--profile", "nsw", "--strategy", "rules", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "rules strategy" in out and "royal flush 250" in out and "break-even meter" in out
    # 303,640,000/19 = 15,981,052.63... cents, rounded half up, never cut to $159,810.52
    assert "break-even meter: $159,810.53 (exactly 303640000/19 cents)" in out
    assert "meter     $159,810.53: +0.0000%" in out


def test_analyze_unknown_profile(capsys):
    assert main(["analyze", "--profile", "atlantis"]) == 2
    assert "no profile 'atlantis'" in capsys.readouterr().err

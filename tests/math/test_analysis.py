"""The exact par sheet of us-standard equals the published analysis (Wizard of Odds) to the unit."""

import pytest

from tabled.game.cards import parse_cards
from tabled.game.ranking import Category, evaluate
from tabled.math import analysis, counting
from tabled.math.paytable import Paytable, load_paytable
from tabled.math.strategy import raises

pytestmark = pytest.mark.slow  # the whole exact analysis: about 10 seconds

PUBLISHED_WINS = {
    Category.ROYAL_FLUSH: 16_759_740,
    Category.STRAIGHT_FLUSH: 156_929_720,
    Category.FOUR_OF_A_KIND: 2_832_435_800,
    Category.FULL_HOUSE: 16_624_475_280,
    Category.FLUSH: 21_856_990_280,
    Category.STRAIGHT: 43_805_516_100,
    Category.THREE_OF_A_KIND: 234_242_908_320,
    Category.TWO_PAIRS: 488_012_139_360,
    Category.ONE_PAIR: 2_324_742_321_600,
    Category.FIVE_ODD_CARDS: 18_505_682_208,  # "ace-king"
}

PUBLISHED_TOTALS = {  # units lost over all deals, us-standard
    "optimal": 1_041_372_912_372,
    "rules": 1_041_417_758_724,
    "ak-j-8-3": 1_059_715_400_580,
    "pair-plus": 1_090_272_101_460,
    "any-ak": 1_132_600_203_540,
    "always-raise": 3_310_360_338_060,
}


@pytest.fixture(scope="module")
def us():
    return analysis.analyze(load_paytable("us-standard"))


def test_deal_count():
    assert analysis.DEALS == 19_933_230_517_200


def test_optimal_par_sheet_equals_published_figures(us):
    sheet = us.sheets["optimal"]
    assert sheet.total_units == -1_041_372_912_372
    for cat, deals in PUBLISHED_WINS.items():
        assert sheet.outcome(analysis.WIN_NAMES[cat]).deals == deals, cat
    assert sheet.outcome(analysis.NOT_QUALIFYING).deals == 4_532_514_033_720
    assert sheet.outcome(analysis.STAND_OFF).deals == 321_623_100
    assert sheet.outcome(analysis.FOLD).deals == 9_523_005_974_460
    assert sheet.outcome(analysis.DEALER_WINS).deals == 2_726_592_727_512
    assert round(sheet.house_edge * 100, 4) == 5.2243
    assert round(sheet.element_of_risk * 100, 3) == 2.555


@pytest.mark.parametrize("strategy", list(PUBLISHED_TOTALS))
def test_each_strategy_total_equals_published(us, strategy):
    assert us.sheets[strategy].total_units == -PUBLISHED_TOTALS[strategy]


def test_dealer_qualifies_in_published_number_of_hands():
    assert analysis.dealer_qualifying_hands() == 1_463_700  # 9.1


def test_optimal_is_best(us):
    assert all(us.sheets["optimal"].total_units >= s.total_units for s in us.sheets.values())


@pytest.mark.parametrize("profile", ["us-standard", "nsw"])
def test_optimal_bets_every_pair_and_folds_below_ace_king(profile):
    sit = analysis.situations()
    bet = raises("optimal", sit.value, sit.up_rank, sit.suit_mask, load_paytable(profile), sit.counts)
    pair = evaluate(parse_cards("2c 2d 3h 4s 5c"))  # the lowest pair
    assert bet[sit.value >= pair].all()
    assert not bet[sit.value < counting.QUALIFYING_VALUE].any()


def test_nsw_differs_from_us_only_by_the_royal(us):
    # 10.1: NSW pays a royal 250 to 1, not 100; a royal is always bet, so no decision changes
    nsw = analysis.analyze(load_paytable("nsw"), ["optimal"]).sheets["optimal"]
    royal = PUBLISHED_WINS[Category.ROYAL_FLUSH]
    assert nsw.total_units == us.sheets["optimal"].total_units + 2 * 150 * royal
    assert nsw.raised_deals == us.sheets["optimal"].raised_deals


def test_other_odds_change_the_optimal_decisions():
    # ace-king paid 3 to 1 instead of 1 to 1: betting ace-king gains, the optimal player bets more
    odds = {c: o for c, o in zip(Category, load_paytable("us-standard").bet_odds)}
    odds[Category.FIVE_ODD_CARDS] = 3
    sheets = analysis.analyze(Paytable.of(odds, name="generous"), ["optimal", "any-ak"]).sheets
    us = analysis.analyze(load_paytable("us-standard"), ["optimal"]).sheets["optimal"]
    assert sheets["optimal"].raise_rate > us.raise_rate
    assert sheets["optimal"].total_units > sheets["any-ak"].total_units > us.total_units


def test_par_sheet_adds_up(us):
    for sheet in us.sheets.values():
        assert sum(o.deals for o in sheet.outcomes) == analysis.DEALS
        assert sheet.std_dev > 0
        data = sheet.as_dict()
        assert data["total_units"] == sheet.total_units

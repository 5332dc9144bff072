"""Jurisdiction profiles are data, checked on load (paytables and jurisdiction profiles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tabled.game.profiles import SHIPPED_PROFILES, DeckNot52, HandWithoutAnte, ProfileError
from tabled.profiles import load_profile
from tabled.game.progressive import ProgressiveSchedule
from tabled.game.ranking import Category

C = Category
PROFILE_DIR = Path(__file__).resolve().parents[2] / "tabled" / "profiles"


def test_every_shipped_profile_loads():
    for name in SHIPPED_PROFILES:
        p = load_profile(name)
        assert p.name == name
        assert isinstance(p.progressive_schedule, ProgressiveSchedule)


def test_nsw_bet_paytable_is_rule_10_1():
    p = load_profile("nsw")
    assert dict(p.bet_odds) == {
        C.FIVE_ODD_CARDS: 1, C.ONE_PAIR: 1,  # "one pair or less" 1 to 1
        C.TWO_PAIRS: 2, C.THREE_OF_A_KIND: 3, C.STRAIGHT: 4, C.FLUSH: 5, C.FULL_HOUSE: 7,
        C.FOUR_OF_A_KIND: 20, C.STRAIGHT_FLUSH: 50, C.ROYAL_FLUSH: 250,
    }
    assert p.ante_odds == 1  # 10.1: ante 1 to 1
    assert p.max_bet_payout_cents is None  # 10.2: no cap unless the operator sets one


def test_nsw_progressive_schedule_is_rule_12_1():
    s = load_profile("nsw").progressive_schedule
    assert (s.royal_minimum_cents, s.royal_pool_percent) == (1_000_000, 100)          # 12.1.1
    assert (s.straight_flush_minimum_cents, s.straight_flush_pool_percent) == (100_000, 10)  # 12.1.2
    assert dict(s.fixed_awards_cents) == {C.FOUR_OF_A_KIND: 50_000,   # 12.1.3
                                          C.FULL_HOUSE: 15_000,       # 12.1.4
                                          C.FLUSH: 10_000}            # 12.1.5
    assert s.fixed_awards_from_pool is False  # docs/settlement.md step 1: the operator pays them


def test_nsw_posted_progressive_wager_and_contribution():
    p = load_profile("nsw")
    assert p.progressive_wager_cents == 100          # 11.3: $1.00 posted (our default)
    assert p.contribution_basis_points == 2500       # 11.6: our documented default
    assert p.contribution_cents(100) == 25
    assert p.contribution_cents(3) == 0              # rounded down (docs/settlement.md "Amounts")


def test_us_standard_money():
    p = load_profile("us-standard")
    assert p.bet_odds[C.ROYAL_FLUSH] == 100
    s = p.progressive_schedule
    assert (s.royal_minimum_cents, s.royal_pool_percent) == (0, 100)
    assert (s.straight_flush_minimum_cents, s.straight_flush_pool_percent) == (0, 10)
    assert dict(s.fixed_awards_cents) == {C.FOUR_OF_A_KIND: 10_000, C.FULL_HOUSE: 7_500, C.FLUSH: 5_000}


def test_nz_irregularities_is_nsw_money_with_nz_irregularity_rules():
    nsw, nz = load_profile("nsw"), load_profile("nz-irregularities")
    assert nz.bet_odds == nsw.bet_odds
    assert nz.progressive_schedule == nsw.progressive_schedule
    assert nz.progressive_wager_cents == nsw.progressive_wager_cents
    # NSW 14.8 discards a hand dealt without an ante; NZ 14.7 redeals before the deal is complete
    assert nsw.hand_without_ante is HandWithoutAnte.DISCARD
    assert nz.hand_without_ante is HandWithoutAnte.REDEAL
    # NZ 14.9: a deck that is not 52 cards is a misdeal, void
    assert nz.deck_not_52 is DeckNot52.VOID and nsw.deck_not_52 is DeckNot52.STANDS
    # NZ 14.1: dead hands only in nz-irregularities
    assert nz.dead_hands and not nsw.dead_hands and not load_profile("us-standard").dead_hands
    text = (PROFILE_DIR / "nz-irregularities.toml").read_text()
    assert "supplies ONLY hand ranking" in text and "irregularities" in text


def test_default_forfeits_progressive_for_folded_and_conceded():
    # docs/settlement.md: folded and conceded hands' cards are collected (8.4, 9.7)
    for name in SHIPPED_PROFILES:
        assert load_profile(name).progressive_forfeited_by == {"folded", "conceded"}


def test_tokens_returned_on_stand_off_is_our_reading():
    for name in SHIPPED_PROFILES:
        assert load_profile(name).tokens_returned_on_stand_off is True


def test_bet_winnings_max_payout_rule_10_2(tmp_path):
    path = _variant(tmp_path, "max_payout_cents = 0", "max_payout_cents = 500_000")
    p = load_profile(path)
    assert p.max_bet_payout_cents == 500_000
    assert p.bet_winnings(C.ROYAL_FLUSH, 10_000) == (500_000, True)   # 250 x $100 capped to $5,000
    assert p.bet_winnings(C.FLUSH, 10_000) == (50_000, False)


def test_load_by_path_equals_by_name():
    assert load_profile(PROFILE_DIR / "nsw.toml") == load_profile("nsw")


# -- bad files name the key and the problem -------------------------------------------------


def _variant(tmp_path: Path, old: str, new: str, base: str = "nsw") -> Path:
    text = (PROFILE_DIR / f"{base}.toml").read_text()
    assert old in text, old
    path = tmp_path / "variant.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("old,new,message", [
    ("royal_flush = 250", "", "key 'bet.odds.royal_flush' is missing"),
    ("royal_flush = 250", "royal_flush = 2.5", "key 'bet.odds.royal_flush' must be odds to 1"),
    ("wager_cents = 100 ", "wager_cents = -100 ", "key 'progressive.wager_cents' must be a whole number of cents"),
    ("wager_cents = 100 ", "wager_cents = 0 ", "key 'progressive.wager_cents' must be more than 0 (11.3"),
    ("contribution_basis_points = 2500", "contribution_basis_points = 12000",
     "key 'progressive.contribution_basis_points' must be basis points from 0 to 10000"),
    ('hand_without_ante = "discard"', 'hand_without_ante = "keep"',
     "key 'irregularities.hand_without_ante' must be one of 'discard', 'redeal'"),
    ("dead_hands = false", 'dead_hands = "no"', "key 'irregularities.dead_hands' must be true or false"),
    ("dead_hands = false", "dead_hands = false\ndead_hand = true",
     "key 'irregularities.dead_hand' is not a profile setting"),
    ('forfeited_by = ["folded", "conceded"]', 'forfeited_by = ["absent"]',
     "key 'progressive.forfeited_by' must be a list"),
    ("pool_percent = 100", "pool_percent = 101", "key 'progressive.royal_flush.pool_percent' must be a whole percent"),
    ('name = "nsw"', "name = 7", "key 'name' must be non-empty text"),
    ('[bet.odds]  # 10.1, "to 1"', "[bet.odd]", "key 'bet.odds' is missing"),
])
def test_bad_profile_names_key_and_problem(tmp_path, old, new, message):
    with pytest.raises(ProfileError) as err:
        load_profile(_variant(tmp_path, old, new))
    assert message in str(err.value)
    assert "variant.toml" in str(err.value)


def test_bad_toml_and_unknown_profile(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n")
    with pytest.raises(ProfileError, match="is not valid TOML"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="no profile 'atlantis'.*nsw, us-standard, nz-irregularities"):
        load_profile("atlantis")
    assert issubclass(ProfileError, ValueError)

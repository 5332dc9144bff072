"""Settlement of one round, rule by rule (rules 9, 10, 11.4, 11.8, 9.7, 14.7, 14.10, 14.12, 1.1)."""

from __future__ import annotations

import dataclasses

import pytest

from tabled.profiles import load_profile
from tabled.game.ranking import Category
from tabled.game.round_facts import RoundError
from tabled.game.settlement_text import wager_words
from tabled.game.settlement import Outcome, settle

from .helpers_settlement import (NO_HAND_DEALER, NSW, NZ, QUALIFYING_DEALER, US, round_, settle_nsw,
                                 spot)

ROYAL = "Ah Kh Qh Jh Th"
SF = "9c 8c 7c 6c 5c"
QUADS = "Qc Qd Qh Qs 3d"
FULL = "4h 4s 4d 9s 9d"
FLUSH = "3d 6d 8d Td Qd"
PAIR = "Jc Js Td 6h 3c"
STRAIGHT = "9d Th Js Qd Kc"
WEAK = "2c 3d 5h 8s 9c"          # nine high: loses to any qualifying dealer
TWO_PAIRS = "8c 8s 5d 5c Ad"
THREE = "7c 7d 7s Kh 2h"


# -- 9.2, 9.3: dealer does not qualify -----------------------------------------------------------

def test_dealer_does_not_qualify_antes_paid_bets_void_rules_9_2_9_3():
    st = settle_nsw(NO_HAND_DEALER, spot(1, WEAK), spot(2, PAIR, ante=500))
    assert st.dealer_qualifies is False
    for n, ante in ((1, 1000), (2, 500)):
        s = st.spot(n)
        assert (s.ante.outcome, s.ante.winnings_cents, s.ante.net_cents) == (Outcome.PAID, ante, ante)
        assert "9.3.1" in s.ante.rule
        assert (s.bet.outcome, s.bet.net_cents, s.bet.returned_cents) == (Outcome.VOID, 0, 2 * ante)
        assert s.bet.rule == "9.2"
        assert s.net_cents == ante


def test_dealer_qualifies_with_ace_king_rule_9_1():
    assert settle_nsw(QUALIFYING_DEALER, spot(1, WEAK)).dealer_qualifies is True
    assert settle_nsw("As Qd 7h 4c 2s", spot(1, WEAK)).dealer_qualifies is False


# -- 9.4: dealer qualifies --------------------------------------------------------------------------

@pytest.mark.parametrize("cards,category,odds", [
    ("Ac Kc Qs 8d 3h", Category.FIVE_ODD_CARDS, 1),  # "one pair or less" 1 to 1
    (PAIR, Category.ONE_PAIR, 1), (TWO_PAIRS, Category.TWO_PAIRS, 2),
    (THREE, Category.THREE_OF_A_KIND, 3), (STRAIGHT, Category.STRAIGHT, 4),
    (FLUSH, Category.FLUSH, 5), (FULL, Category.FULL_HOUSE, 7), (QUADS, Category.FOUR_OF_A_KIND, 20),
    (SF, Category.STRAIGHT_FLUSH, 50), (ROYAL, Category.ROYAL_FLUSH, 250),
])
def test_higher_hand_paid_ante_1_to_1_and_bet_by_paytable_rules_9_4_1_1_and_10_1(cards, category, odds):
    s = settle_nsw(QUALIFYING_DEALER, spot(3, cards)).spot(3)
    assert s.hand.category is category
    assert (s.ante.outcome, s.ante.winnings_cents) == (Outcome.PAID, 1000)
    assert (s.bet.outcome, s.bet.winnings_cents) == (Outcome.PAID, 2000 * odds)
    assert s.net_cents == 1000 + 2000 * odds
    assert "9.4.1.1" in s.bet.rule and "10.1" in s.bet.rule


def test_us_standard_royal_pays_100_to_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, ROYAL), profile=US).spot(1)
    assert s.bet.winnings_cents == 200_000


def test_lower_hand_loses_ante_and_bet_rule_9_4_1_2():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, WEAK)).spot(1)
    assert (s.ante.outcome, s.bet.outcome) == (Outcome.COLLECTED, Outcome.COLLECTED)
    assert s.net_cents == -3000 and s.ante.rule == "9.4.1.2"


def test_equal_hands_stand_off_rule_9_4_1_3_and_nz_13_4():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, "Ac Kh 7d 4s 2h")).spot(1)
    assert s.hand.value == settle_nsw(QUALIFYING_DEALER).dealer_hand.value
    assert (s.ante.outcome, s.bet.outcome) == (Outcome.STAND_OFF, Outcome.STAND_OFF)
    assert s.net_cents == 0 and "NZ 13.4" in s.ante.rule


def test_kickers_decide_against_dealer_nz_13_3_d():
    # dealer A-K-7-4-2; player A-K-7-4-3 wins on the last card
    assert settle_nsw(QUALIFYING_DEALER, spot(1, "Ac Kh 7d 4s 3h")).spot(1).bet.outcome is Outcome.PAID


# -- 10.2 maximum payout on bet wagers --------------------------------------------------------------

def test_max_payout_caps_bet_winnings_rule_10_2():
    capped = dataclasses.replace(NSW, max_bet_payout_cents=500_000)
    s = settle_nsw(QUALIFYING_DEALER, spot(1, ROYAL, ante=10_000), profile=capped).spot(1)
    assert s.bet.winnings_cents == 500_000 and s.bet.capped and "10.2" in s.bet.rule
    assert s.ante.winnings_cents == 10_000  # the cap is on bet wagers only
    small = settle_nsw(QUALIFYING_DEALER, spot(1, PAIR), profile=capped).spot(1)
    assert small.bet.winnings_cents == 2000 and not small.bet.capped


# -- 8.4 folded, 9.7 conceded -------------------------------------------------------------------------

def test_folded_ante_collected_rule_8_4():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, status="folded")).spot(1)
    assert (s.ante.outcome, s.ante.net_cents, s.ante.rule) == (Outcome.COLLECTED, -1000, "8.4")
    assert s.bet.outcome is Outcome.NONE and s.net_cents == -1000


def test_folded_with_a_bet_returns_it_rule_14_9_2():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, status="folded", bet=1500)).spot(1)
    assert (s.bet.outcome, s.bet.returned_cents, s.bet.net_cents) == (Outcome.RETURNED, 1500, 0)
    assert s.bet.rule == "14.9.2" and s.net_cents == -1000


def test_folded_ante_collected_even_when_dealer_does_not_qualify_rule_8_4():
    assert settle_nsw(NO_HAND_DEALER, spot(1, status="folded")).spot(1).net_cents == -1000


def test_conceded_collects_ante_and_bet_rule_9_7():
    s = settle_nsw(QUALIFYING_DEALER, spot(2, PAIR, status="conceded", bet=2000)).spot(2)
    assert (s.ante.outcome, s.bet.outcome) == (Outcome.COLLECTED, Outcome.COLLECTED)
    assert s.net_cents == -3000 and s.ante.rule == "9.7"


# -- 14.7 void hands, 14.12 absent players ---------------------------------------------------------------

def test_void_hand_with_wrong_number_of_cards_returns_wagers_rule_14_7():
    s = settle_nsw(QUALIFYING_DEALER, spot(4, "Jc Js Td 6h", status="void", bet=2000, prog=100)).spot(4)
    assert (s.ante.outcome, s.bet.outcome) == (Outcome.VOID, Outcome.VOID)
    assert s.ante.rule == "14.7" and s.ante.net_cents == s.bet.net_cents == 0
    assert s.progressive.outcome is Outcome.RETURNED and s.progressive.net_cents == 100
    assert s.contribution_reversed and s.award is None
    six = settle_nsw(QUALIFYING_DEALER, spot(4, "Jc Js Td 6h 5h 4h", status="void")).spot(4)
    assert six.ante.outcome is Outcome.VOID


def test_played_hand_of_four_cards_is_an_error_pointing_to_14_7():
    with pytest.raises(RoundError, match=r"spot 4 has 4 cards.*void \(14.7\)"):
        settle_nsw(QUALIFYING_DEALER, spot(4, "Jc Js Td 6h"))


def test_absent_player_ante_and_progressive_returned_rule_14_12():
    s = settle_nsw(QUALIFYING_DEALER, spot(5, status="absent", ante=2500, prog=100)).spot(5)
    assert (s.ante.outcome, s.ante.returned_cents, s.ante.net_cents) == (Outcome.RETURNED, 2500, 0)
    assert (s.progressive.outcome, s.progressive.net_cents) == (Outcome.RETURNED, 100)
    assert s.ante.rule == s.progressive.rule == "14.12"
    assert s.contribution_reversed and s.total_cents == 100


def test_absent_player_with_a_bet_is_an_error_rule_14_12():
    with pytest.raises(RoundError, match="absent but has a bet"):
        settle_nsw(QUALIFYING_DEALER, spot(5, status="absent", bet=2000))


# -- 14.10 bet not twice the ante found at settlement ----------------------------------------------------

def test_short_bet_paid_on_amount_wagered_rule_14_10_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, FLUSH, ante=1000, bet=1500)).spot(1)
    assert s.bet.settled_cents == 1500 and s.bet.winnings_cents == 1500 * 5
    assert "14.10.1" in s.bet.rule


def test_short_bet_taken_on_amount_wagered_rule_14_10_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, WEAK, ante=1000, bet=1500)).spot(1)
    assert s.bet.collected_cents == 1500 and s.bet.net_cents == -1500


def test_over_bet_paid_on_required_amount_excess_returned_rule_14_10_2():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, FLUSH, ante=1000, bet=3500)).spot(1)
    assert s.bet.settled_cents == 2000 and s.bet.winnings_cents == 2000 * 5
    assert s.bet.returned_cents == 3500  # the required $20 stays with the player, and the $15 excess
    assert "14.10.2" in s.bet.rule and "return the excess $15.00" in wager_words(s.bet)


def test_over_bet_taken_on_required_amount_excess_returned_rule_14_10_2():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, WEAK, ante=1000, bet=3500)).spot(1)
    assert (s.bet.collected_cents, s.bet.returned_cents, s.bet.net_cents) == (2000, 1500, -2000)


def test_exact_bet_cites_no_14_10():
    assert "14.10" not in settle_nsw(QUALIFYING_DEALER, spot(1, FLUSH)).spot(1).bet.rule


# -- promotional tokens and vouchers (1.1, 5.1) ------------------------------------------------------------

def test_winning_token_wager_paid_in_chips_token_forfeited_rule_1_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, PAIR, ante=0, ante_token=1000, bet=2000)).spot(1)
    assert s.ante.winnings_cents == 1000           # winnings on the whole wager, in chips
    assert s.ante.tokens_forfeited_cents == 1000   # the token is taken after the round
    assert s.ante.net_cents == 0                   # pay $10 in chips, take the $10 token
    assert s.tokens_forfeited_cents == 1000


def test_losing_token_wager_forfeited_rule_1_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, WEAK, ante=500, ante_token=500, bet=2000)).spot(1)
    assert (s.ante.collected_cents, s.ante.tokens_forfeited_cents) == (1000, 500)


def test_mixed_chips_and_token_bet_rule_5_1():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, FLUSH, bet=1500, bet_token=500)).spot(1)
    assert s.bet.winnings_cents == 2000 * 5        # on the whole $20 bet
    assert s.bet.tokens_forfeited_cents == 500
    assert s.bet.net_cents == 10_000 - 500


def test_token_returned_on_stand_off_our_reading():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, "Ac Kh 7d 4s 2h", ante=0, ante_token=1000, bet=2000)).spot(1)
    assert s.ante.outcome is Outcome.STAND_OFF
    assert (s.ante.tokens_forfeited_cents, s.ante.returned_cents) == (0, 1000)


def test_token_returned_on_void_bet_our_reading():
    s = settle_nsw(NO_HAND_DEALER, spot(1, WEAK, bet=0, bet_token=2000)).spot(1)
    assert s.bet.outcome is Outcome.VOID and s.bet.tokens_forfeited_cents == 0


def test_token_forfeited_on_stand_off_when_profile_says_so():
    strict = dataclasses.replace(NSW, tokens_returned_on_stand_off=False)
    s = settle_nsw(QUALIFYING_DEALER, spot(1, "Ac Kh 7d 4s 2h", ante=0, ante_token=1000, bet=2000),
                   profile=strict).spot(1)
    assert s.ante.tokens_forfeited_cents == 1000 and s.ante.net_cents == -1000


def test_excess_bet_returned_from_chips_tokens_count_first_rule_14_10_2():
    s = settle_nsw(QUALIFYING_DEALER, spot(1, WEAK, ante=1000, bet=2000, bet_token=1000)).spot(1)
    assert (s.bet.collected_cents, s.bet.tokens_forfeited_cents, s.bet.returned_cents) == (2000, 1000, 1000)


# -- progressive in settlement (11.4, 11.8, forfeits, 12.2, 12.4) ------------------------------------------

def test_progressive_paid_when_dealer_does_not_qualify_rule_11_4():
    st = settle_nsw(NO_HAND_DEALER, spot(2, FLUSH, prog=100), pool=2_000_000)
    s = st.spot(2)
    assert s.award and s.award.amount_cents == 10_000 and s.award.rule == "12.1.5"
    assert s.net_cents == 1000 and s.total_cents == 11_000  # ante paid, bet void, plus the award


def test_progressive_paid_on_top_of_ante_and_bet_rule_11_8():
    s = settle_nsw(QUALIFYING_DEALER, spot(2, FULL, prog=100), pool=2_000_000).spot(2)
    assert s.net_cents == 1000 + 2000 * 7
    assert s.total_cents == s.net_cents + 15_000


def test_progressive_needs_a_wager():
    assert settle_nsw(QUALIFYING_DEALER, spot(2, FULL), pool=2_000_000).spot(2).award is None


def test_losing_hand_still_wins_progressive_rule_11_4():
    # a flush that loses to the dealer's full house still wins the progressive
    st = settle_nsw("Kc Kd Ks 3h 3s", spot(1, FLUSH, prog=100), pool=2_000_000)
    s = st.spot(1)
    assert s.bet.outcome is Outcome.COLLECTED and s.award.amount_cents == 10_000


@pytest.mark.parametrize("status", ["folded", "conceded"])
def test_folded_or_conceded_hand_forfeits_progressive_money_md(status):
    bet = 2000 if status == "conceded" else 0
    st = settle_nsw(QUALIFYING_DEALER, spot(1, ROYAL, status=status, bet=bet, prog=100), pool=2_000_000)
    assert st.spot(1).award is None and st.progressive.awards == ()
    assert "forfeited" in st.spot(1).progressive.rule


def test_folded_hand_wins_progressive_when_profile_allows():
    lenient = dataclasses.replace(NSW, progressive_forfeited_by=frozenset({"conceded"}))
    st = settle_nsw(QUALIFYING_DEALER, spot(1, FLUSH, status="folded", prog=100), profile=lenient)
    assert st.spot(1).award.amount_cents == 10_000


def test_dead_hand_forfeits_everything_nz_14_1():
    st = settle_nsw(QUALIFYING_DEALER, spot(1, ROYAL, status="dead", bet=2000, prog=100),
                    pool=2_000_000, profile=NZ)
    s = st.spot(1)
    assert (s.ante.outcome, s.bet.outcome) == (Outcome.COLLECTED, Outcome.COLLECTED)
    assert s.net_cents == -3000 and s.award is None and "NZ 14.1" in s.progressive.rule


def test_dead_hand_refused_where_profile_has_none_nz_14_1():
    with pytest.raises(RoundError, match="no dead hands"):
        settle_nsw(QUALIFYING_DEALER, spot(1, ROYAL, status="dead", bet=2000))


def test_progressive_payment_order_in_settlement_rules_12_2_12_4():
    st = settle_nsw(QUALIFYING_DEALER, spot(1, SF, prog=100), spot(3, FLUSH, prog=100),
                    spot(6, ROYAL, prog=100), spot(7, FULL, prog=100), pool=3_000_000)
    # right to left (12.2), the straight flush on spot 1 paid just before the royal on spot 6 (12.4)
    assert [a.spot for a in st.progressive.awards] == [7, 1, 6, 3]
    assert [s.spot for s in st.spots] == [7, 6, 3, 1]  # spots shown N down to 1


def test_pool_and_top_ups_in_settlement_money_md():
    st = settle_nsw(QUALIFYING_DEALER, spot(2, ROYAL, prog=100), pool=600_000)
    a = st.spot(2).award
    assert (a.from_pool_cents, a.operator_topup_cents) == (600_000, 400_000)


# -- whole round void ------------------------------------------------------------------------------------

@pytest.mark.parametrize("reason,rule", [("misdeal", "14.4"), ("shuffler_failure", "15.2.1"),
                                          ("invalidated", "16.5")])
def test_void_round_returns_every_wager(reason, rule):
    st = settle_nsw("", spot(1, "", bet=2000, prog=100), spot(2, "", status="folded"),
                    pool=2_000_000, void=reason)
    for s in st.spots:
        assert s.ante.outcome is Outcome.VOID and s.ante.rule == rule
        assert s.ante.net_cents == s.bet.net_cents == 0
    assert st.spot(1).progressive.outcome is Outcome.RETURNED and st.spot(1).contribution_reversed
    assert st.progressive.awards == () and st.progressive.pool_after_cents == 2_000_000


def test_deck_not_52_voids_only_under_nz_14_9():
    facts = round_("", spot(1, "", bet=2000), void="deck_not_52")
    assert settle(facts, NZ).spot(1).ante.rule == "NZ 14.9"
    with pytest.raises(RoundError, match="NZ 14.9"):
        settle(facts, NSW)


def test_dealer_with_four_cards_is_a_misdeal_rule_14_2():
    with pytest.raises(RoundError, match=r"misdeal \(14.2\)"):
        settle_nsw("As Kd 7h 4c", spot(1, WEAK))


# -- empty spots (7.3.1, 14.8) --------------------------------------------------------------------------

def test_hand_dealt_to_spot_without_ante_is_discarded_rule_14_8():
    st = settle_nsw(QUALIFYING_DEALER, spot(3, PAIR, ante=0, bet=0, status="empty"))
    s = st.spot(3)
    assert s.net_cents == 0 and "14.8" in s.note


# -- bad facts -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spots,message", [
    ([spot(1, "As Kc Qc Jc 9c")], "duplicate card As: in the dealer's hand and spot 1"),
    ([spot(1, PAIR), spot(2, "Jc 2h 3h 4h 5h")], "duplicate card Jc: in spot 1's hand and spot 2"),
    ([spot(1, PAIR, ante=-5)], "ante chips_cents must be a whole number of cents >= 0, got -5"),
    ([spot(1, PAIR, bet=20.5)], "bet chips_cents must be a whole number of cents"),
    ([spot(1, PAIR, ante=10**30, bet=2 * 10**30)],
     "ante chips_cents must be at most 100000000000 cents (the most any amount may be), got 1" + "0" * 30),
    ([spot(1, PAIR, ante=0, bet=0, prog=100)], "needs an ante first (11.1)"),
    ([spot(1, PAIR, prog=200)], "posted $1.00 (11.3, 5.3), not $2.00"),
    ([spot(8, PAIR)], "unknown spot 8: this table has spots 1 to 7"),
    ([spot(0, PAIR)], "unknown spot 0"),
    ([spot(1, PAIR), spot(1, FLUSH)], "spot 1 is listed twice"),
    ([spot(1, PAIR, bet=0)], "played with no bet"),
    ([spot(1, PAIR, ante=0, bet=2000)], "has no ante (5.2.1)"),
    ([spot(1, "", status="empty", ante=100)], "empty but has a wager"),
])
def test_bad_facts_raise_round_error(spots, message):
    with pytest.raises(RoundError) as err:
        settle_nsw(QUALIFYING_DEALER, *spots)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_negative_pool_is_refused():
    with pytest.raises(RoundError, match="pool"):
        settle_nsw(QUALIFYING_DEALER, spot(1, PAIR), pool=-1)


def test_settlement_is_pure_same_facts_same_result():
    facts = round_(QUALIFYING_DEALER, spot(1, ROYAL, prog=100), spot(4, WEAK), pool=1_234_567)
    assert settle(facts, load_profile("nsw")) == settle(facts, load_profile("nsw"))

"""The dealer's view of the table (tabled/views/view.py): what a person at the table sees, taken
at one moment and never changed by what the table does next."""

from __future__ import annotations

import dataclasses

import pytest

from tabled.game.cards import parse_cards
from tabled.views.view import dealer_view
from tests.table.harness import Harness

HANDS = {1: "2h 5h 9h Jh Kh", 3: "As Ad 5c 7d 9c", "dealer": "Kc Qd Jd 3s 4s"}


def dealt() -> Harness:
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.ante(3, 1000)
    h.panel("no_more_bets")
    return h


def test_before_the_deal_the_view_shows_who_is_dealt_to_and_what_is_due_rules_7_2_2_7_4():
    view = dealer_view(dealt().core).round
    assert (view.phase, view.deal_order, view.deliveries, view.deliveries_due) == ("dealing", (1, 3, "dealer"), 0, 3)
    assert view.spots[1].locked_ante.cents == 500 and view.spots[1].progressive.cents > 0
    assert view.spots[3].progressive.cents == 0 and view.cards_out == frozenset()


def test_after_the_deal_the_cards_on_the_felt_are_the_deck_s_cards_out_rules_3_7_7_4_2():
    h = dealt()
    h.deal(HANDS)
    view = dealer_view(h.core).round
    assert view.phase == "deciding" and view.deliveries_due == 0
    assert view.spots[1].cards == parse_cards(HANDS[1]) and view.spots[3].cards == parse_cards(HANDS[3])
    assert view.dealer_up == parse_cards("4s")  # 7.4.2: the dealer's bottom card face up
    assert view.cards_out == frozenset(c for hand in HANDS.values() for c in parse_cards(hand))
    assert {n: s.status for n, s in view.spots.items() if s.cards} == {1: "playing", 3: "playing"}


def test_the_award_to_pay_shows_until_the_dealer_confirms_it_rule_9_5():
    h = dealt()
    h.deal(HANDS)
    h.bet(1)
    h.bet(3)
    h.panel("reveal")
    h.panel("settle")
    assert dealer_view(h.core).round.awards_to_pay == (1,)   # the flush wins the progressive
    h.panel("award_paid", spot=1)
    view = dealer_view(h.core)
    assert view.rounds_finished == 1 and (view.round is None or view.round.awards_to_pay == ())


def test_a_view_is_a_snapshot_the_table_cannot_change():
    h = dealt()
    before = dealer_view(h.core)
    h.deal(HANDS)
    assert before.round.phase == "dealing" and before.round.cards_out == frozenset()
    assert before.round.spots[1].cards == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.round.phase = "settling"  # type: ignore[misc]


def test_the_view_says_why_no_round_is_in_play_rules_16_8_14_13():
    assert dealer_view(Harness(ready=False).core).describe() == "no round in play: the table is closed"
    h = Harness()
    h.feed("equipment.fault", equipment="pool", reason="unreachable")
    h.panel("invalidate_round", key="supervisor")
    view = dealer_view(h.core)
    assert view.faults == ("pool",) and not view.approved
    assert view.describe() == "no round in play: equipment fault ['pool'] awaits an inspector (14.13)"
    assert dealer_view(dealt().core).describe() == "round T01-000001 is dealing"

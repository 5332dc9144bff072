"""The simulated players and dealer act on what the table shows them (tabled/views/view.py): in
each phase the dealer presses the button the rules call for, once; the players decide by their
strategy from the cards in front of them."""

from __future__ import annotations

import pytest

from tabled.game.cards import parse_cards, parse_hand
from tabled.math.strategy import STRATEGIES
from tabled.sim.players import Player, Stalled, decide_all
from tests.sim.people import People
from tests.table.harness import Harness

ANTE = 500
NO_PAIR = "3c 5d 7h 9s Jc"        # below ace-king: folded by every strategy but always-raise
PAIR = "As Ad 5c 7d 9c"
FLUSH = "2h 5h 9h Jh Kh"          # wins the progressive (12.1)
DEALER = "Kc Qd Jd 3s 4s"         # ace-king or better? no: K-Q, the dealer does not qualify (9.1)


def antes(h: Harness, spots: dict[int, bool]) -> None:
    """What the board reads once the players have put their chips down: spot -> progressive too."""
    for spot, progressive in spots.items():
        h.ante(spot, ANTE, progressive=progressive)


# -- the players' decisions (8.1) --------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_each_strategy_bets_a_pair_of_aces_and_only_always_raise_bets_below_ace_king_rule_8_1(strategy):
    up = parse_cards("4s")[0]
    bets = decide_all({1: (strategy, parse_hand(PAIR)), 2: (strategy, parse_hand(NO_PAIR))}, up)
    assert bets == ({1, 2} if strategy == "always-raise" else {1})


def test_players_at_one_table_each_decide_by_their_own_strategy_rule_8_1():
    up = parse_cards("4s")[0]
    hands = {1: ("always-raise", parse_hand(NO_PAIR)), 2: ("pair-plus", parse_hand(NO_PAIR)),
             3: ("optimal", parse_hand(PAIR))}
    assert decide_all(hands, up) == {1, 3}


# -- the dealer, phase by phase ------------------------------------------------------------------------------

async def test_a_closed_table_is_opened_once_by_a_supervisor_and_the_key_turned_back_rule_16_8():
    people = People(Harness(ready=False), [])
    assert await people.step() == (True, [("supervisor", "approve", None)])
    assert people.panel.key.name == "DEALER"
    assert await people.step() == (False, [])  # the table has not opened: it is not pressed twice


async def test_the_dealer_checks_the_deck_a_shuffler_that_reads_no_cards_waits_for_rule_3_4():
    h = Harness(ready=False)
    h.panel("open_table", key="supervisor")
    h.feed("shuffler.recognition", on=False)
    people = People(h, [])
    assert await people.step() == (True, [("dealer", "verify_deck", None)])
    assert await people.step() == (False, [])


async def test_with_the_shoe_the_dealer_verifies_new_cards_then_shuffles_and_cuts_rules_3_4_4_2():
    h = Harness(card_source="shoe", ready=False)
    h.panel("open_table", key="supervisor")
    people = People(h, [])
    assert await people.step() == (True, [("dealer", "verify_deck", None)])
    h.feed("deck.verified", deck="S", cards=list(range(52)))
    assert await people.step() == (True, [("dealer", "confirm_cut", None)])
    assert await people.step() == (False, [])


async def test_players_wager_then_the_dealer_closes_bets_on_what_the_board_reads_rule_7_2_1():
    h = Harness()
    people = People(h, [Player(2, ANTE, progressive=True), Player(5, 2 * ANTE, progressive=False)])
    assert await people.step() == (True, [])  # chips down: nothing pressed yet
    (laid,) = people.board.laid
    assert {n: (a["ante"], a["progressive"]) for n, a in laid.items() if a["ante"]} \
        == {2: (ANTE, h.profile.progressive_wager_cents), 5: (2 * ANTE, 0)}
    assert await people.step() == (False, [])  # the board has not reported them: bets stay open
    h.ante(2, ANTE, progressive=True)
    h.ante(5, 2 * ANTE)
    assert await people.step() == (True, [("dealer", "no_more_bets", None)])


async def test_no_more_bets_waits_while_the_board_is_not_up_rule_14_13():
    h = Harness()
    people = People(h, [Player(1, ANTE)], devices_up=())
    await people.step()
    h.ante(1, ANTE, progressive=True)
    assert await people.step() == (False, [])


async def test_the_players_bet_by_strategy_then_the_dealer_reveals_settles_and_pays_the_award_rules_8_5_8_6_9_5():
    h = Harness()
    players = [Player(1, ANTE, True, "pair-plus"), Player(2, ANTE, False, "optimal"),
               Player(3, ANTE, False, "pair-plus")]
    people = People(h, players)
    antes(h, {1: True, 2: False, 3: False})
    h.panel("no_more_bets")
    h.deal({1: FLUSH, 2: PAIR, 3: NO_PAIR, "dealer": DEALER})
    people.board.laid.clear()

    assert await people.step() == (True, [])  # 8.5: the bets go down, twice the ante
    assert people.board.laid == [{1: {"bet": 2 * ANTE}, 2: {"bet": 2 * ANTE}}]
    assert await people.step() == (False, [])  # the table has not seen the bets yet
    h.bet(1)
    h.bet(2)
    h.panel("fold", spot=3)
    assert await people.step() == (True, [("dealer", "reveal", None)])
    h.panel("reveal")
    assert await people.step() == (True, [("dealer", "settle_done", None)])
    h.panel("settle")
    assert h.round.phase == "settling"  # 9.5: the flush's progressive award waits for the dealer
    assert await people.step() == (True, [("dealer", "settle_done", None)])
    assert await people.step() == (False, [])  # confirmed once
    h.panel("award_paid", spot=1)
    assert h.core.rounds_finished == 1


async def test_the_dealer_draws_from_the_shoe_every_card_the_deal_still_needs_each_once_rules_7_3_3_7():
    h = Harness(card_source="shoe")
    people = People(h, [Player(1, ANTE, False), Player(4, ANTE, False)])
    antes(h, {1: False, 4: False})
    h.panel("no_more_bets")
    h.feed("shoe.card", card=parse_cards("2c")[0])  # one card out before the people look
    assert await people.step() == (True, [])
    drawn = people.shoe.drawn
    assert len(drawn) == 5 * 3 - 1 and len(set(drawn)) == len(drawn) and parse_cards("2c")[0] not in drawn
    for card in drawn:
        h.feed("shoe.card", card=card)
    assert h.round.phase == "deciding"
    assert await people.step() == (True, [])  # no second draw: the players decide now


async def test_a_planned_button_goes_first_in_its_phase_once():
    h = Harness()
    people = People(h, [Player(1, ANTE, False)])
    people.floor.plan("betting", "absent", spot=4)
    assert await people.step() == (True, [("dealer", "absent", 4)])
    assert await people.step() == (True, [])  # then the people's own: chips down
    assert people.floor.planned == []


async def test_after_a_fault_only_an_inspector_at_hand_approves_play_rule_14_13():
    h = Harness()
    h.feed("equipment.fault", equipment="pool", reason="unreachable")
    h.panel("invalidate_round", key="supervisor")  # the round in play ends; no new one until approved
    assert h.core.round is None
    people = People(h, [])
    assert await people.step() == (False, [])
    people.floor.inspector = True
    assert await people.step() == (True, [("inspector", "approve", None)])
    assert await people.step() == (False, [])


async def test_people_who_can_do_nothing_stall_and_say_where_the_table_stands():
    people = People(Harness(ready=False), [])
    with pytest.raises(Stalled, match="no round in play: the table is closed"):
        await people.floor.play(1, stall_s=0.05)  # the supervisor's approval changes nothing here
    assert people.panel.presses == [("supervisor", "approve", None)]


async def test_a_fault_with_no_simulated_inspector_stops_saying_how_to_clear_it_rule_14_13():
    h = Harness()
    h.feed("equipment.fault", equipment="meter", reason="no answer")
    h.panel("invalidate_round", key="supervisor")
    people = People(h, [])
    with pytest.raises(Stalled) as stalled:
        await people.floor.play(1, stall_s=0.05)
    assert str(stalled.value) == (
        "no round in play: equipment fault ['meter'] awaits an inspector (14.13); no simulated inspector is at "
        "hand: set `inspector = true` in the config's [simulation] (the simulated inspector approves play, 14.13), "
        "or deal by hand (`dealer = \"manual\"`) and press APPROVE with the inspector's key")


def test_the_hands_dealt_in_these_tests_are_one_deck_s_cards_rule_3_7():
    cards = [c for text in (NO_PAIR, PAIR, FLUSH, DEALER) for c in parse_hand(text)]
    assert len(set(cards)) == len(cards)

"""The panel's buttons as the fold reads them (tabled/table/buttons.py): every press is a
``panel.button`` input, and what it does depends on the key and on the table's state when it is
folded. Each judgement is checked at ``TableCore.apply``, cited by its rule."""

from __future__ import annotations

import pytest

from tabled.game import keys
from tabled.table.buttons import BUTTONS

from .harness import Harness, commands, notes, refused, rules_said, says
from .test_rules_gaps import DEALER_QUALIFIES
from .test_shoe import dealing

MINUTE = 60_000


def deciding(*spots: int) -> Harness:
    h = Harness()
    for n in spots:
        h.ante(n, 500)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", 3: "4c 5d 6h 8s Jd", "dealer": DEALER_QUALIFIES})
    return h


def approved(effects) -> list[str]:
    return [n.payload["action"] for n in notes(effects, "panel.approved")]


# -- the registry ---------------------------------------------------------------------------------------

def test_every_button_becomes_actions_the_keys_table_knows_and_needs_some_key():
    for button in BUTTONS.values():
        assert button.takes in (None, "spot", "spots", "value"), button.name
        for action in button.actions:
            keys.required(action)  # raises for an action the key switch does not know
        assert button.key_positions and button.key_positions <= set(keys.Key), button.name
    assert BUTTONS["approve"].key_positions == set(keys.Key)
    assert BUTTONS["confirm_cut"].key_positions == {keys.Key.DEALER}  # 4.3: nobody but the dealer cuts


@pytest.mark.parametrize("payload, said", [
    ({"button": "teleport", "key": "dealer"}, "no such button"),
    ({"button": 3, "key": "dealer"}, "no such button"),
    ({"button": "concede", "key": "dealer"}, "needs the spot"),
    ({"button": "reveal", "key": "dealer", "spot": 2}, "reveal takes nothing, not spot"),
    ({"button": "verify_count", "key": "dealer", "spot": 2, "value": 52}, "not spot"),
])
def test_a_press_the_panel_cannot_make_is_refused_not_a_crash(payload, said):
    h = deciding(1)
    before = h.core.snapshot()
    eff = h.feed("panel.button", **payload)
    assert "malformed input" in refused(eff)[0].text and said in refused(eff)[0].text
    assert h.core.snapshot() == before


@pytest.mark.parametrize("button", ["deal", "confirm_shuffle", "call_supervisor"])
def test_buttons_the_table_does_not_act_on_change_nothing(button):
    h = deciding(1)
    before = h.core.snapshot()
    assert h.press(button) == [] and h.core.snapshot() == before


# -- reveal, settle done --------------------------------------------------------------------------------

def test_settle_done_settles_a_revealed_round_9_4():
    h = deciding(1)
    h.feed("wager", spot=1, area="bet", cents=1000)
    h.press("reveal")
    eff = h.press("settle_done")
    assert notes(eff, "round.settled") and h.core.rounds_finished == 1
    assert refused(h.press("settle_done"))  # betting: nothing to settle, the round says why


# -- approve, under each key ----------------------------------------------------------------------------

def test_approve_with_the_supervisors_key_opens_the_table_16_8_the_dealers_does_not():
    h = Harness(ready=False)
    eff = h.press("approve")
    assert refused(eff)[0].rule == "14.13" and not h.core.hours.is_open    # the dealer: approve play, refused
    eff = h.press("approve", key="supervisor")
    assert approved(eff) == ["open_table"] and "16.8" in rules_said(eff) and h.core.hours.is_open
    assert refused(h.press("approve", key="supervisor"))[0].rule == "14.13"  # open: nothing more to do


def test_approve_resolves_past_posting_with_the_dealers_or_supervisors_key_5_6():
    h = deciding(1, 2)
    h.feed("wager", spot=1, area="ante", cents=1000)                  # the ante changed after the lock
    h.feed("wager", spot=2, area="ante", cents=700)
    assert h.round.spots[1].past_posting and h.round.spots[2].past_posting
    eff = h.press("approve", key="inspector")                        # not the inspector's to resolve
    assert refused(eff)[0].text == "no equipment fault to approve" and h.round.spots[1].past_posting
    eff = h.press("approve")
    assert [s.spot for s in says(eff) if s.rule == "5.6"] == [1, 2]
    assert not h.round.spots[1].past_posting and not h.round.spots[2].past_posting


def test_approve_with_the_supervisors_key_continues_after_a_shuffler_failure_15_2_2():
    h = Harness()
    h.feed("shuffler.fault", fault="motor stalled")                  # 15.2: the device failed
    assert h.core.decks.shuffler_failed
    assert refused(h.press("approve"))[0].rule == "14.13" and h.core.decks.shuffler_failed
    eff = h.press("approve", key="supervisor")
    assert approved(eff) == ["use_card_source"] and "15.2.2" in rules_said(eff)
    assert not h.core.decks.shuffler_failed and h.core.decks.source == "shuffler"
    assert not h.core.decks.status["A"]["verified"]                           # 3.6: new cards, verified again


def test_approve_with_the_inspectors_key_approves_play_and_clears_equipment_that_is_back_14_13():
    h = Harness()
    h.feed("device.link", device="betspots", up=False)
    h.feed("equipment.fault", equipment="betspots", reason="link lost: no answer")
    h.feed("equipment.fault", equipment="meter", reason="display fault")
    assert refused(h.press("approve"))[0].rule == "14.13" and not h.core.equipment.approved  # the dealer's key
    h.panel("invalidate_round", key="supervisor", reason="test: next round")
    assert h.round is None                                             # no new round without the inspector
    eff = h.press("approve", key="inspector")
    # the meter never lost its link: it is back; the board's link is still down: its fault stands
    assert approved(eff) == ["approve_play"] and [n.payload["equipment"] for n in notes(eff, "fault.cleared")] == \
        ["meter"]
    assert h.core.equipment.faults.keys() == {"betspots"} and h.core.equipment.approved
    assert h.round is not None and h.round.progressive_offline       # play goes on, progressive offline
    eff = h.feed("device.link", device="betspots", up=True)
    # back while the inspector's approval stands: its fault clears by itself (14.13)
    assert [n.payload["equipment"] for n in notes(eff, "fault.cleared")] == ["betspots"]
    assert not h.core.equipment.faults


def test_approve_with_the_inspectors_key_and_no_fault_is_refused_14_13():
    h = Harness()
    eff = h.press("approve", key="inspector")
    assert refused(eff)[0].text == "no equipment fault to approve" and not h.core.equipment.approved


def test_a_device_link_report_that_is_not_one_is_refused():
    h = Harness()
    assert "malformed input" in refused(h.feed("device.link", device="meter", up="yes"))[0].text
    assert "malformed input" in refused(h.feed("device.link", device="toaster", up=False))[0].text
    assert h.core.equipment.links.lost == {}


# -- cards: exposed, verified, new, the cut, the shoe -------------------------------------------------

def test_exposed_card_on_the_dealers_hand_is_the_card_the_shoe_last_dealt_the_dealer_14_6():
    h = dealing()
    assert refused(h.press("exposed_card", spot=0))[0].rule == "14.6"  # no card dealt to the dealer yet
    for c in range(3):
        h.feed("shoe.card", card=c)                                    # spot 1, spot 2, the dealer: card 2
    eff = h.press("exposed_card", spot=0)
    assert "14.6" in rules_said(eff) and h.round.dealer_up == [2] and h.round.exposed == 1


def test_exposed_card_on_a_players_hand_is_that_spots_14_5_and_the_dealers_needs_the_shoe_14_6():
    h = Harness(card_source="shoe")
    h.ante(2, 500)
    h.panel("no_more_bets")
    eff = h.press("exposed_card", spot=2)
    assert "14.5" in rules_said(eff) and h.round.exposed == 1
    h2 = Harness()
    h2.ante(1, 500)
    h2.panel("no_more_bets")
    assert refused(h2.press("exposed_card", spot=0))[0].rule == "14.6"  # no card to name without the shoe


def test_new_cards_replace_every_deck_of_the_card_source_3_6():
    h = Harness()
    assert refused(h.press("new_cards"))[0].rule == "3.6"
    eff = h.press("new_cards", key="supervisor")
    assert approved(eff) == ["new_cards", "new_cards"]
    assert not h.core.decks.status["A"]["verified"] and not h.core.decks.status["B"]["verified"]
    shoe = Harness(card_source="shoe")
    shoe.press("new_cards", key="supervisor")
    assert not shoe.core.decks.status["S"]["verified"] and shoe.core.decks.status["A"]["verified"] is False


def test_switch_to_shoe_needs_the_supervisor_and_new_cards_15_2_2():
    h = Harness()
    assert refused(h.press("switch_to_shoe"))[0].rule == "15.2.2" and h.core.decks.source == "shuffler"
    eff = h.press("switch_to_shoe", key="supervisor")
    assert "15.2.2" in rules_said(eff) and h.core.decks.source == "shoe"
    assert not h.core.decks.status["S"]["verified"]


def test_confirm_cut_starts_the_shoe_only_when_the_dealers_cut_is_taken_4_2_4_3():
    h = Harness(card_source="shoe", ready=False)
    h.panel("open_table", key="supervisor")
    h.feed("deck.verified", deck="S", count=52)
    eff = h.press("confirm_cut", key="supervisor")                   # 4.3: nobody but the dealer cuts
    assert refused(eff)[0].rule == "4.3" and not commands(eff, "shoe") and not h.core.decks.cut_done
    eff = h.press("confirm_cut")
    assert "4.2" in rules_said(eff) and [c.name for c in commands(eff, "shoe")] == ["start_shoe"]
    assert h.round.phase == "betting"
    shuffler = Harness()
    eff = shuffler.press("confirm_cut")                                # 4.4.2: no cut with the device
    assert refused(eff)[0].rule == "4.4.2" and not commands(eff, "shoe")


def test_verify_deck_with_the_shoe_counts_a_full_deck_3_4():
    h = Harness(card_source="shoe", ready=False)
    eff = h.press("verify_deck")
    assert "3.4" in rules_said(eff) and h.core.decks.status["S"]["verified"]


# -- numbers keyed ----------------------------------------------------------------------------------------

def test_numbers_keyed_on_the_panel_3_7_16_8_6_2_7_3():
    h = Harness()
    h.t = 5 * MINUTE + 777
    eff = h.press("verify_count", value=51)
    assert says(eff, "flag")[0].rule == "3.7"                          # 51 cards: replace them
    assert refused(h.press("announce_closure", key="supervisor", value=19))[0].rule == "16.8"
    h.press("announce_closure", key="supervisor", value=20)
    assert h.core.hours.closing_at == h.t + 20 * MINUTE                     # from the input's own time (16.8)
    h.press("announce_minimum", key="supervisor", value=1000)
    assert h.core.hours.pending_minimum == (1000, h.t + 20 * MINUTE)       # 6.2: the earliest 20 minutes allow
    assert refused(h.press("announce_minimum", value=1000))[0].rule == "6.2"  # the dealer's key
    eff = h.press("enter_card", value=7)                               # no unreadable card waits
    assert refused(eff)[0].rule == "7.3"


def test_a_keyed_card_completes_the_shoes_deal_after_an_unreadable_card_7_3():
    h = dealing()
    h.feed("shoe.card", card=0, reader_seq=1)
    h.feed("shoe.unreadable", reader_seq=2)
    h.press("enter_card", value=5)
    assert h.round.spots[2].cards == [5] and h.round.unread is None


# -- spot buttons -----------------------------------------------------------------------------------------

def test_spot_buttons_act_on_their_spot_with_their_key_9_7_14_12_14_11_1_16_3_1_16_5():
    h = deciding(1, 2, 3)
    assert refused(h.press("play_first", spot=2))[0].rule == "14.11.1"  # a supervisor's power
    h.press("play_first", key="supervisor", spot=2)
    assert h.round.first_to_play == 2
    assert "14.12" in rules_said(h.press("absent", spot=2)) and h.round.spots[2].status == "absent"
    h.press("forfeit", key="supervisor", spot=3)
    assert h.round.spots[3].status == "void" and h.round.spots[3].forfeit     # 16.3.1 with 16.5
    h.feed("wager", spot=1, area="bet", cents=1000)
    h.press("reveal")
    assert "9.7" in rules_said(h.press("concede", spot=1)) and h.round.spots[1].status == "conceded"


def test_void_player_returns_the_wagers_16_3_1_and_void_round_forfeits_the_spots_named_16_5():
    h = deciding(1, 2)
    h.press("void_player", key="supervisor", spot=1)
    assert h.round.spots[1].status == "void" and not h.round.spots[1].forfeit
    rid = h.round.round_id
    assert refused(h.press("void_round", spots=[2]))[0].rule == "16.4"
    eff = h.press("void_round", key="supervisor", spots=[2])
    (void,) = notes(eff, "round.void")
    assert void.round_id == rid and approved(eff) == ["invalidate_round"]
    assert notes(eff, "panel.approved")[0].payload["forfeit"] == [2]


def test_a_hand_without_an_ante_found_after_the_deal_14_8():
    h = deciding(1)
    eff = h.press("no_ante_hand", spot=5)
    assert rules_said(eff) and h.round.phase == "deciding"
    assert refused(h.press("no_ante_hand", spot=1))[0].rule == "14.8"  # spot 1 has an ante

"""The devices' links judged by the fold (tabled/table/links.py), and what the bet-spot board and the
meter are told (tabled/table/board.py): 14.13 for the equipment, 11.1 / 11.2 on the board."""

from __future__ import annotations

import pytest

from tabled.table.core import TableCore
from tabled.table.effects import Lock, MeterShow, PanelLamp
from tabled.views.screen import screen_view

from .harness import Harness, commands, notes, refused, rules_said, says

DEALER_QUALIFIES = "Ah Kd 7c 5s 2h"


def finish_round(h: Harness) -> None:
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    h.panel("fold", spot=1)
    h.panel("reveal")
    h.panel("settle")


@pytest.mark.parametrize("device", ["meter", "betspots"])
def test_equipment_whose_link_is_lost_is_a_fault_and_no_round_opens_without_an_inspector_14_13(device):
    h = Harness()
    h.ante(1, 500)
    out = h.feed("device.link", device=device, up=False, reason="port closed")
    assert [n.payload for n in notes(out, "fault.raised")] == [
        {"equipment": device, "reason": "link lost: port closed", "rule": "14.13"}]
    assert h.round.phase == "betting"  # the round in play may finish
    finish_round(h)
    assert h.round is None  # no new round before an inspector approves
    out = h.feed("device.link", device=device, up=False, reason="again")
    assert not notes(out, "fault.raised")  # raised once
    assert h.core.equipment.faults == {device: "link lost: port closed"}


@pytest.mark.parametrize("device", ["meter", "betspots"])
def test_equipment_back_clears_its_fault_only_with_an_inspectors_approval_in_force_14_13(device):
    h = Harness()
    h.feed("device.link", device=device, up=False, reason="unplugged")
    out = h.feed("device.link", device=device, up=True)
    assert device in h.core.equipment.faults and not notes(out, "fault.cleared")  # no inspector yet: it stands
    h.feed("device.link", device=device, up=False, reason="unplugged")
    h.panel("approve_play", key="inspector")
    out = h.feed("device.link", device=device, up=True)
    assert notes(out, "fault.cleared") and not h.core.equipment.faults and "14.13" in rules_said(out)


def test_the_meter_saying_its_fault_is_over_clears_it_only_with_an_inspectors_approval_14_13():
    h = Harness()
    h.feed("equipment.fault", equipment="meter", reason="display failed")
    out = h.feed("equipment.back", equipment="meter")
    assert "meter" in h.core.equipment.faults and not notes(out, "fault.cleared") and "14.13" in rules_said(out)
    h.panel("approve_play", key="inspector")
    out = h.feed("equipment.back", equipment="meter")
    assert notes(out, "fault.cleared") and not h.core.equipment.faults


@pytest.mark.parametrize("device", ["shuffler", "shoe"])
def test_a_lost_link_of_a_device_that_is_not_equipment_is_no_fault(device):
    h = Harness()
    out = h.feed("device.link", device=device, up=False, reason="unplugged")
    assert not h.core.equipment.faults and not notes(out, "fault.raised") and not refused(out)
    assert "link lost (unplugged)" in says(out)[0].text


def test_a_device_back_is_sent_what_the_table_needs_of_it_again():
    h = Harness()
    h.ante(2, 500)
    h.feed("device.link", device="betspots", up=False, reason="unplugged")
    h.panel("approve_play", key="inspector")
    out = h.feed("device.link", device="betspots", up=True)
    assert [c.name for c in commands(out, "betspots")] == ["unlock"]
    out = h.feed("device.link", device="panel", up=True)
    assert commands(out, "panel") == [PanelLamp("FAULT", "OFF")]


@pytest.mark.parametrize("payload, words", [
    ({"device": "printer", "up": True}, "device='printer'"),
    ({"device": "meter", "up": "yes"}, "up='yes'"),
    ({"device": "meter"}, "'up'"),
])
def test_a_link_input_that_makes_no_sense_is_refused_clearly(payload, words):
    h = Harness()
    out = h.feed("device.link", **payload)
    assert [s.level for s in says(out)] == ["refused"] and words in says(out)[0].text
    assert not h.core.equipment.faults


# -- what the board and the meter are told ----------------------------------------------------------

def test_acceptance_names_every_spot_accepting_a_progressive_11_1():
    h = Harness()
    h.ante(2, 500)
    out = h.ante(5, 500)
    acceptance = [c for c in commands(out, "betspots") if c.name == "progressive_acceptance"]
    assert [a.progressive_spots for a in acceptance] == [(2, 5)]


def test_the_lock_names_the_lamps_of_accepted_progressive_wagers_11_2():
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.ante(4, 500)
    out = h.panel("no_more_bets")
    locks = [c for c in commands(out, "betspots") if c.name == "lock"]
    assert locks == [Lock(h.round.round_id, (1,))]


def test_the_meter_shows_offline_while_play_goes_on_with_the_progressive_locked_14_13():
    h = Harness()
    h.feed("pool.balance", balance_cents=123_456)
    h.feed("equipment.fault", equipment="pool", reason="cut")
    out = h.panel("approve_play", key="inspector")
    assert commands(out, "meter") == [MeterShow(123_456, offline=True)]
    assert commands(h.core.standing_effects(), "meter") == [MeterShow(123_456, offline=True)]
    out = h.feed("equipment.ok", equipment="pool")
    assert commands(out, "meter") == [MeterShow(123_456, offline=False)]


def test_equipment_lost_before_a_checkpoint_clears_when_it_is_back_after_the_restart_14_13():
    h = Harness()
    h.feed("device.link", device="betspots", up=False, reason="unplugged")
    h.panel("approve_play", key="inspector")
    restored = TableCore.from_snapshot(h.core.snapshot(), 7, h.profile)
    assert not restored.equipment.links.is_up("betspots") and restored.equipment.links.is_up("shuffler")
    out = restored.apply("device.link", {"device": "betspots", "up": True}, h.t)
    assert notes(out, "fault.cleared") and not restored.equipment.faults


def link_faults(h: Harness) -> dict[str, dict]:
    """The dealer's screen's faults for lost links, by device."""
    return {f["id"].removeprefix("link:"): f for f in screen_view(h.core)["faults"] if f["id"].startswith("link:")}


def test_the_shuffling_device_lost_while_dealing_is_a_standing_fault_with_its_rule_and_key_15_2():
    h = Harness()
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("shuffler.hand", cards=[0, 5, 10, 15, 20], back=h.round.back)  # one hand of two dealt
    out = h.feed("device.link", device="shuffler", up=False, reason="port closed")
    assert h.round.phase == "dealing" and not h.core.equipment.faults  # not 14.13 equipment: the deal waits
    (said,) = says(out, "flag")
    assert said.rule == "15.2" and "shuffling device not answering while dealing" in said.text
    fault = link_faults(h)["shuffler"]
    assert fault["rule"] == "15.2" and fault["key"] == "supervisor"  # VOID ROUND is the supervisor's (16.4)
    assert "void the round (15.2.1)" in fault["dealer_does"] and "port closed" not in fault["what"]
    out = h.feed("device.link", device="shuffler", up=True)
    assert not link_faults(h) and "shuffling device answers again" in says(out)[0].text
    h.feed("shuffler.hand", cards=[1, 6, 11, 16, 21], back=h.round.back)
    assert h.round.phase == "deciding"  # the deal went on


def test_the_shuffling_device_lost_outside_the_deal_is_no_fault_for_the_round():
    h = Harness()
    h.ante(1, 500)
    h.feed("device.link", device="shuffler", up=False, reason="port closed")  # betting: not needed now
    assert not link_faults(h)
    h.panel("no_more_bets")  # the round reaches the deal with the device still gone: now it is needed
    assert link_faults(h)["shuffler"]["rule"] == "15.2"


@pytest.mark.parametrize("phase, words", [("betting", "open"), ("deciding", "open"), ("revealed", "being settled")])
def test_the_bet_spot_board_lost_while_wagers_are_open_or_settled_is_a_fault_for_the_round_2_3(phase, words):
    h = Harness()
    h.ante(1, 500)
    if phase != "betting":
        h.panel("no_more_bets")
        h.deal({1: "2c 7d 9h Js Qd", "dealer": DEALER_QUALIFIES})
    if phase == "revealed":
        h.panel("fold", spot=1)
        h.panel("reveal")
    assert h.round.phase == phase
    h.feed("device.link", device="betspots", up=False, reason="port closed")
    fault = link_faults(h)["betspots"]
    assert fault["what"] == f"bet-spot board not answering while wagers are {words}"
    assert fault["rule"] == "2.3" and fault["key"] == "inspector"
    h.feed("device.link", device="betspots", up=True)
    assert not link_faults(h)


def test_the_shoe_lost_while_dealing_is_a_fault_that_names_the_misdeal_7_3():
    h = Harness(card_source="shoe")
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("device.link", device="shoe", up=False, reason="unplugged")
    fault = link_faults(h)["shoe"]
    assert fault["rule"] == "7.3" and "misdeal (14.1)" in fault["dealer_does"]
    assert fault["key"] == "dealer or supervisor"


def test_the_panel_lost_is_a_fault_at_any_time_even_between_rounds():
    h = Harness(ready=False)
    assert h.round is None
    out = h.feed("device.link", device="panel", up=False, reason="unplugged")
    assert not h.core.equipment.faults and says(out, "flag")[0].rule == "1.1"
    fault = link_faults(h)["panel"]
    assert fault["key"] == "supervisor" and "no button or key acts" in fault["what"]
    h.feed("device.link", device="panel", up=True)
    assert not link_faults(h)


def test_a_lost_link_fault_stands_since_the_link_was_lost():
    h = Harness()
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.t = 1_000
    view = screen_view(h.core, h.feed("device.link", device="shuffler", up=False, reason="port closed"))
    h.t = 9_000
    view = screen_view(h.core, h.feed("tick"), view)
    (fault,) = [f for f in view["faults"] if f["id"] == "link:shuffler"]
    assert fault["since_ms"] == 1_000


def test_the_board_back_mid_round_reading_other_wagers_says_what_the_dealer_does_and_the_round_goes_on_5_6():
    """A board plugged back while players decide reads the felt afresh: where it reads other chips
    than those locked at no more bets, the screen says to put them back (or resolve it, 5.6); once
    its reading agrees again the round goes on to the reveal and the settlement."""
    h = Harness()
    h.board({1: {"ante": 500}, 2: {"ante": 1000}})
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Qd", 2: "3c 3d 8h 9s Kc", "dealer": DEALER_QUALIFIES})
    assert h.round.phase == "deciding"
    h.feed("device.link", device="betspots", up=False, reason="port closed")
    assert link_faults(h)["betspots"]["what"] == "bet-spot board not answering while wagers are open"
    h.feed("device.link", device="betspots", up=True)
    h.board({1: {"ante": 500}})  # back, it reads no chips on spot 2
    view = screen_view(h.core)
    assert not link_faults(h) and h.round.spots[2].past_posting
    assert view["next"].startswith("put the wagers on spot 2 back as they were locked, or resolve the past "
                                   "posting on the panel (5.6); then spots 1 and 2: fold or bet (8.1)")
    out = h.board({1: {"ante": 500}, 2: {"ante": 1000}})  # the chips read again as locked
    assert not h.round.spots[2].past_posting and "wager restored" in says(out)[0].text
    h.panel("fold", spot=1)
    h.panel("fold", spot=2)
    h.panel("reveal")
    h.panel("settle")
    assert h.round is None or h.round.round_id != "T01-000001"  # the round finished

"""The shoe's deal and the shuffling device's door as journaled inputs: the wrong back
colour (3.1, 3.2.2, 16.4.2), the unreadable card's wait (7.3, 14.1) surviving a restart, the shoe
lifted, put back and running out (3.7), the door (15.2), a card exposed on the dealer's hand
(14.6, NZ 14.6), and announcements counted from the input's own journal time (16.8, 6.2)."""

from __future__ import annotations

import json

import pytest

from tabled.table.core import TableCore
from tabled.journal.store import Journal
from tabled.daemon.controller import Table

from .harness import MINUTE, Harness, commands, notes, refused, rules_said, says


def dealing(profile: str = "nsw", **kw) -> Harness:
    """A shoe table dealing to spots 1 (with a progressive wager) and 2, then the dealer."""
    h = Harness(profile=profile, card_source="shoe", **kw)
    h.ante(1, 500, progressive=True)
    h.ante(2, 500)
    h.panel("no_more_bets")
    assert h.round.phase == "dealing"
    return h


def fault_lamp(effects) -> list[str]:
    return [c.state for c in commands(effects, "panel") if c.lamp == "FAULT"]


class StepClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def restarted(h: Harness, tmp_path, checkpoint: bool) -> TableCore:
    """Write what the harness fed into a real journal (each at its own time), optionally seal a
    checkpoint of the table as it stands, and bring the table back as the daemon does on start."""
    clock = StepClock()
    with Journal.open(tmp_path / "journal.db", clock=clock) as journal:
        for kind, payload, t in h.inputs:
            clock.now = t / 1000
            journal.append_many([(kind, payload, None)])
        if checkpoint:
            journal.checkpoint(json.loads(json.dumps(h.core.snapshot())))

        def make(snap):
            if snap is not None:
                return TableCore.from_snapshot(snap, h.core.spot_count, h.profile)
            return TableCore("T01", h.core.spot_count, h.limits, h.profile, "shoe")
        core, _, _ = Table.replay(journal, make)
    return core


# -- 3.1, 3.2.2: the back colour ----------------------------------------------------------------------

def test_a_card_with_another_back_through_the_shoe_voids_the_round_3_1_3_2_2_16_4_2():
    h = dealing()
    h.feed("shoe.card", card=0, back="red", reader_seq=1)  # the first back read: the deck's colour
    assert h.core.decks.status["S"]["back"] == "red" and h.round.back == "red"
    eff = h.feed("shoe.card", card=1, back="blue", reader_seq=2)
    void = notes(eff, "round.void")[0].payload
    assert void["rule"] == "3.1" and "blue back" in void["reason"]  # 16.4.2: integrity fault, no supervisor
    assert {s["spot"]: s["returned_cents"] for s in void["spots"]} == {1: 500 + 100, 2: 500}
    assert h.pool.balance == 1_000_000                      # spot 1's contribution reversed
    assert h.round.phase == "preparing" and h.core.rounds_finished == 1  # the next round: cut first


def test_the_shoe_deck_colour_from_verification_new_cards_learn_it_again_3_1_3_6():
    h = Harness(card_source="shoe", ready=False)
    h.panel("open_table", key="supervisor")
    h.feed("deck.verified", deck="S", count=52, back="blue")
    h.panel("shuffle_and_cut")
    h.ante(1, 500)
    h.panel("no_more_bets")
    eff = h.feed("shoe.unreadable", reader_seq=1, back="red")  # an unreadable card is still seen
    assert notes(eff, "round.void")[0].payload["rule"] == "3.1"
    # new cards: the colour is learned again from the first back read
    h.panel("new_cards", key="supervisor", deck="S")
    assert "back" not in h.core.decks.status["S"]
    h.feed("deck.verified", deck="S", count=52)
    h.panel("shuffle_and_cut")
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("shoe.card", card=0, back="red")
    assert h.round.back == "red" and not notes(h.log[-3:], "round.void")


def test_no_back_reported_is_no_evidence_and_a_bad_colour_value_is_refused_3_1():
    h = dealing()
    h.feed("shoe.card", card=0, back="red")
    assert not refused(h.feed("shoe.card", card=1))          # NOT_SEEN: no back in the input
    assert refused(h.feed("shoe.card", card=2, back=7))      # nonsense: refused, the deal goes on
    assert h.round.phase == "dealing" and h.round.deliveries == 2


# -- 7.3, 14.1: the shoe's troubles, journaled --------------------------------------------------------

def test_unreadable_card_waits_for_the_dealer_and_the_wait_survives_a_restart_7_3_14_1(tmp_path):
    h = dealing()
    h.feed("shoe.card", card=0, back="red", reader_seq=1)
    eff = h.feed("shoe.unreadable", reader_seq=2, back="red")
    assert "could not be read" in says(eff, "flag")[0].text and h.round.unread == 2
    assert fault_lamp(eff) == ["FLASHING"]
    for checkpoint in (False, True):  # folded from the journal alone, and from a checkpoint
        core = restarted(h, tmp_path / str(checkpoint), checkpoint)
        assert core.round.unread == 2 and core.round.deliveries == 1
        assert ("FAULT", "FLASHING") in [(c.lamp, c.state)
                                         for c in commands(core.standing_effects(), "panel")]
        eff = core.apply("shoe.card", {"card": 5, "keyed": True}, h.t)  # the dealer keys it in
        assert core.round.spots[2].cards == [5] and core.round.unread is None
        assert fault_lamp(eff) == ["OFF"]
    # a keyed card with nothing waiting is refused
    eff = h.feed("shoe.card", card=5, keyed=True)
    assert h.round.unread is None and h.round.spots[2].cards == [5]
    eff = h.feed("shoe.card", card=9, keyed=True)
    assert refused(eff)[0].rule == "7.3" and "no unreadable card waits" in refused(eff)[0].text


def test_a_card_drawn_before_the_unreadable_one_is_keyed_in_stops_the_deal_14_1_14_4():
    h = dealing()
    h.feed("shoe.unreadable", reader_seq=1)
    eff = h.feed("shoe.card", card=3, reader_seq=2)
    assert "drawn before unreadable card 1 was keyed in" in says(eff, "flag")[0].text
    assert h.round.deal_stopped and h.round.deliveries == 0
    assert refused(h.feed("shoe.card", card=4, keyed=True))   # too late to key it in
    assert "not dealt" in says(h.feed("shoe.card", card=6, reader_seq=3), "flag")[0].text
    eff = h.panel("misdeal")
    assert notes(eff, "round.void")[0].payload["rule"] == "14.4"
    assert fault_lamp(eff) == ["OFF"]                         # the round is over


def test_shoe_lifted_put_back_goes_on_drawn_while_off_or_run_out_stops_the_deal_7_3_3_7():
    h = dealing()
    h.feed("shoe.card", card=0, reader_seq=1)
    assert fault_lamp(h.feed("shoe.removed", cards_read=1)) == ["FLASHING"]
    eff = h.feed("shoe.replaced", cards_read=1)
    assert "the deal continues" in says(eff)[0].text and fault_lamp(eff) == ["OFF"]
    h.feed("shoe.removed", cards_read=1)
    eff = h.feed("shoe.replaced", cards_read=2)
    assert "1 card(s) drawn while the shoe was off its base" in says(eff, "flag")[0].text
    h.panel("misdeal")
    h.panel("shuffle_and_cut")                               # 4.2: the next round's shuffle and cut
    h.ante(1, 500)
    h.panel("no_more_bets")
    eff = h.feed("shoe.empty", cards_read=3)
    assert "the shoe ran out after 3 cards" in says(eff, "flag")[0].text
    assert "3.7" in rules_said(eff) and not h.core.decks.status["S"]["verified"]   # replace the cards (3.6)


def test_shoe_happenings_with_no_deal_are_shown_and_nonsense_is_refused_7_3():
    h = Harness(card_source="shoe")
    assert "no deal in progress" in says(h.feed("shoe.unreadable", reader_seq=4))[0].text
    assert says(h.feed("shoe.removed", cards_read=0))[0].text == "the shoe is off its base"
    assert refused(h.feed("shoe.card", card=3, keyed=True))[0].rule == "7.3"
    h.ante(1, 500)
    h.panel("no_more_bets")
    assert refused(h.feed("shoe.removed", cards_read=-1))
    assert refused(h.feed("shoe.unreadable"))                # no reader number: malformed, no crash
    assert h.round.phase == "dealing" and h.round.shoe_off is None


# -- 15.2: the shuffling device's door ----------------------------------------------------------------

def test_shuffler_door_open_in_a_round_is_shown_lights_fault_and_survives_a_restart_15_2(tmp_path):
    h = Harness()
    h.ante(1, 500)
    eff = h.feed("shuffler.door", open=True)
    assert says(eff, "flag")[0].rule == "15.2" and fault_lamp(eff) == ["FLASHING"]
    snap = json.loads(json.dumps(h.core.snapshot()))
    again = TableCore.from_snapshot(snap, 7, h.profile)
    assert again.decks.door_open and again.equipment.fault_lamp == "FLASHING"
    eff = h.feed("shuffler.door", open=False)
    assert says(eff)[0].text == "shuffling device door closed" and fault_lamp(eff) == ["OFF"]
    assert refused(h.feed("shuffler.door", open="yes"))


# -- 14.6, NZ 14.6: a card exposed on the dealer's hand -----------------------------------------------

@pytest.mark.parametrize("profile", ["nsw", "nz-irregularities"])
def test_card_exposed_on_the_dealers_hand_is_the_up_card_fifth_dealt_down_14_6_nz_14_6(profile):
    h = dealing(profile)
    assert refused(h.panel("exposed_card", target="dealer"))[0].rule == "14.6"  # no card named
    for c in range(3):
        h.feed("shoe.card", card=c)                          # spot 1, spot 2, the dealer: card 2
    assert refused(h.panel("exposed_card", target="dealer", card=0))[0].rule == "14.6"  # spot 1's
    eff = h.panel("exposed_card", target="dealer", card=2)
    assert "14.6" in rules_said(eff) and h.round.dealer_up == [2] and h.round.exposed == 1
    eff = []
    for c in range(3, 15):
        eff += h.feed("shoe.card", card=c)
    assert h.round.dealer_cards == [2, 5, 8, 11, 14] and h.round.dealer_up == [2]  # 14 dealt face down
    assert any("fifth card face down" in s.text for s in says(eff))
    assert notes(eff, "round.dealt")[0].payload["dealer_up"] == ["2h"]


# -- 16.8, 6.2: minutes from the input's own journal time ---------------------------------------------

def test_announcements_count_minutes_from_the_inputs_journal_time_16_8_6_2(tmp_path):
    h = Harness()
    h.t = 7 * MINUTE + 12_345                                # not on a whole minute: no rounding
    h.panel("announce_closure", key="supervisor", minutes=20)
    assert h.core.hours.closing_at == h.t + 20 * MINUTE
    h.panel("announce_minimum", key="supervisor", cents=1000)  # 6.2: the earliest the 20 minutes allow
    assert h.core.hours.pending_minimum == (1000, h.t + 20 * MINUTE)
    assert refused(h.panel("announce_closure", key="supervisor", minutes=-5))
    assert refused(h.panel("announce_closure", key="supervisor"))
    core = restarted(h, tmp_path, checkpoint=False)          # the journal's times give the same table
    before, after = h.core.hours, core.hours
    assert (after.closing_at, after.pending_minimum) == (before.closing_at, before.pending_minimum)

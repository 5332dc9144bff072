"""The shuffling device as the card source, judged by the fold (tabled/table/cardsource.py): shuffles
asked once per need (4.1), the deal (7.4), what the device says it holds (15.1, 15.2, 3.4), a hand
refused with DEVICE_FAULT (15.2), and the same requests after a restart."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tabled.table.core import TableCore

from .harness import Harness, commands, notes, rules_said, says

DEALER_QUALIFIES = "Ah Kd 7c 5s 2h"


def shuffles(effects) -> list[str]:
    return [c.deck for c in commands(effects, "shuffler") if c.name == "shuffle"]


def deals(effects) -> list[dict]:
    return [vars(c) for c in commands(effects, "shuffler") if c.name == "deal"]


def fresh() -> tuple[Harness, list]:
    """An open table whose decks are verified but not shuffled; the shuffles it asked for."""
    h = Harness(ready=False)
    out = h.panel("open_table", key="supervisor")
    for d in ("A", "B"):
        out += h.feed("deck.verified", deck=d, cards=list(range(52)))
    return h, out


def to_dealing(h: Harness, spots=(1, 2)) -> list:
    out = []
    for n in spots:
        out += h.ante(n, 500)
    return out + h.panel("no_more_bets")


def one_hand(h: Harness) -> list:
    return h.feed("shuffler.hand", cards=[0, 1, 2, 3, 4], back=h.round.back)


# -- 4.1: one shuffle per need ------------------------------------------------------------------------

def test_each_deck_is_asked_for_once_however_many_inputs_come_4_1():
    h, out = fresh()
    for _ in range(5):
        out += h.feed("tick")
    assert sorted(shuffles(out)) == ["A", "B"]
    assert sorted(shuffles(h.core.standing_effects())) == ["A", "B"]  # asked, not yet shuffled


def test_a_shuffled_deck_is_not_asked_again_and_the_used_deck_is_asked_once_after_its_round_4_1_2():
    h = Harness()
    deck = h.round.deck
    out = to_dealing(h)
    out += h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", "dealer": DEALER_QUALIFIES})
    out += h.panel("fold", spot=1) + h.panel("fold", spot=2) + h.panel("reveal") + h.panel("settle")
    assert notes(h.log, "round.finished")
    out += h.feed("tick") + h.feed("tick")
    assert shuffles(out) == [deck]


def test_new_cards_are_a_new_need_3_6():
    h = Harness()
    other = "B" if h.round.deck == "A" else "A"
    assert shuffles(h.feed("tick")) == []
    out = h.panel("new_cards", key="supervisor", deck=other) + h.feed("tick")
    assert shuffles(out) == [other]


def test_a_failed_shuffle_cycle_is_asked_again_once_15_1():
    h, _ = fresh()
    out = h.feed("shuffler.fault", fault="jam", deck="A") + h.feed("tick")
    assert shuffles(out) == ["A"] and "15.1" in rules_said(out)


def test_no_shuffle_is_asked_while_the_shufflers_link_is_lost_and_every_need_is_asked_when_it_is_back():
    h, out = fresh()
    assert sorted(shuffles(out)) == ["A", "B"]
    out = h.feed("device.link", device="shuffler", up=False, reason="port closed")
    assert not h.core.equipment.faults and not notes(out, "fault.raised")  # the shuffler's link is not itself a fault
    out += h.feed("tick")
    assert shuffles(out) == []
    out = h.feed("device.link", device="shuffler", up=True, reason="") + h.feed("tick")
    assert sorted(shuffles(out)) == ["A", "B"]  # a reconnect is a new need


# -- 7.4: the deal ------------------------------------------------------------------------------------

def test_the_round_gets_its_hands_once_when_it_reaches_dealing_7_4():
    h = Harness()
    out = to_dealing(h, (1, 2, 5))
    assert deals(out) == [{"round_id": h.round.round_id, "deck": h.round.deck, "hands": 4}]
    out = one_hand(h) + h.feed("tick")
    assert deals(out) == []
    assert deals(h.core.standing_effects()) == [{"round_id": h.round.round_id, "deck": h.round.deck, "hands": 4}]


def test_the_deal_is_asked_again_after_the_shufflers_link_was_lost_7_4():
    h = Harness()
    to_dealing(h)
    one_hand(h)
    assert deals(h.feed("device.link", device="shuffler", up=False, reason="unplugged")) == []
    out = h.feed("device.link", device="shuffler", up=True) + h.feed("tick")
    assert deals(out) == [{"round_id": h.round.round_id, "deck": h.round.deck, "hands": 3}]


# -- 15.1, 15.2: what the device says it holds --------------------------------------------------------

def test_the_deck_in_play_lost_before_any_card_is_dealt_is_reshuffled_once_15_1():
    h = Harness()
    deck = h.round.deck
    to_dealing(h)
    other = "B" if deck == "A" else "A"
    out = h.feed("shuffler.status", ready={other: 52}, recognition=True)
    assert "15.1" in rules_said(out) and shuffles(out) == [deck]
    assert h.round.phase == "dealing" and not h.core.decks.shuffler_failed
    # the device says so again while the reshuffle runs: no second shuffle for the one need
    assert shuffles(h.feed("shuffler.status", ready={other: 52}, recognition=True)) == []
    out = h.feed("shuffler.shuffled", deck=deck)
    assert deals(out) == [{"round_id": h.round.round_id, "deck": deck, "hands": 3}]  # the deal goes on


def test_the_deck_in_play_lost_after_a_card_was_dealt_voids_the_round_15_2():
    h = Harness()
    deck = h.round.deck
    to_dealing(h)
    one_hand(h)
    out = h.feed("shuffler.status", ready={}, recognition=True)
    assert h.core.decks.shuffler_failed and "15.2.2" in rules_said(out)
    assert [n.payload["rule"] for n in notes(out, "round.void")] == ["15.2.1"]
    assert shuffles(out) == [] and deck not in shuffles(h.core.standing_effects())


def test_a_shuffled_deck_the_device_no_longer_holds_is_reshuffled_15_1():
    h = Harness()
    deck = h.round.deck
    other = "B" if deck == "A" else "A"
    assert h.core.decks.status[other]["shuffled"]
    out = h.feed("shuffler.status", ready={deck: 52}, recognition=True)
    assert "15.1" in rules_said(out) and shuffles(out) == [other] and h.round.phase == "betting"


def test_a_status_that_matches_the_table_changes_nothing():
    h = Harness()
    reading = {"ready": {"A": 52, "B": 52}, "recognition": True}
    h.feed("shuffler.recognition", on=True)
    assert not h.core.is_news("shuffler.status", reading)
    assert h.feed("shuffler.status", **reading) == []


def test_the_devices_card_recognition_says_who_verifies_a_new_deck_3_4():
    h = Harness()
    out = h.feed("shuffler.status", ready={"A": 52, "B": 52}, recognition=False)
    assert h.core.decks.recognition is False and rules_said(out) == {"3.4"}


def test_a_status_that_makes_no_sense_is_refused_clearly():
    h = Harness()
    for ready in ({"C": 52}, {"A": 53}, {"A": "52"}, ["A"]):
        out = h.feed("shuffler.status", ready=ready, recognition=True)
        assert [s.level for s in says(out)] == ["refused"] and "ready=" in says(out)[0].text


# -- 15.2: a hand refused --------------------------------------------------------------------------

def test_a_hand_refused_with_device_fault_voids_the_round_at_once_15_2():
    h = Harness()
    deck = h.round.deck
    to_dealing(h)
    one_hand(h)
    out = h.feed("shuffler.refused", command="deliver_hand", deck=deck, status="DEVICE_FAULT",
                 reason="card transport jammed")
    assert h.core.decks.shuffler_failed
    assert [n.payload["rule"] for n in notes(out, "round.void")] == ["15.2.1"]


def test_a_hand_refused_for_another_reason_is_shown_and_the_round_waits():
    h = Harness()
    deck = h.round.deck
    to_dealing(h)
    out = h.feed("shuffler.refused", command="deliver_hand", deck=deck, status="REFUSED", reason="door open")
    assert not h.core.decks.shuffler_failed and h.round.phase == "dealing"
    assert [s.level for s in says(out)] == ["flag"] and "door open" in says(out)[0].text


# -- a restart sends the same requests ----------------------------------------------------------------

def replayed(h: Harness) -> TableCore:
    core = TableCore("T01", 7, h.limits, h.profile, "shuffler")
    for kind, payload, t in h.inputs:
        core.apply(kind, dict(payload), t)
    return core


def test_a_restart_sends_the_same_shuffle_requests_and_the_deal_in_progress():
    h, _ = fresh()
    h.feed("shuffler.shuffled", deck="A")
    before = h.core.standing_effects()
    assert shuffles(before) == ["B"]
    assert shuffles(replayed(h).standing_effects()) == ["B"]
    h.feed("shuffler.shuffled", deck="B")
    to_dealing(h)
    one_hand(h)
    again = replayed(h).standing_effects()
    assert deals(again) == deals(h.core.standing_effects()) == [
        {"round_id": h.round.round_id, "deck": h.round.deck, "hands": 3}]
    restored = TableCore.from_snapshot(h.core.snapshot(), 7, h.profile)
    assert deals(restored.standing_effects()) == deals(again)
    assert shuffles(restored.standing_effects()) == shuffles(h.core.standing_effects())


def test_a_table_restored_from_a_checkpoint_asks_for_no_shuffle_twice():
    h = Harness()
    to_dealing(h)
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", "dealer": DEALER_QUALIFIES})
    h.panel("fold", spot=1)
    h.panel("fold", spot=2)
    h.panel("reveal")
    h.panel("settle")
    used = notes(h.log, "round.started")[0].payload["deck"]
    assert h.round.deck != used
    restored = TableCore.from_snapshot(h.core.snapshot(), 7, h.profile)
    assert shuffles(restored.standing_effects()) == [used]
    assert shuffles(restored.apply("tick", {}, h.t)) == []  # asked already, in the standing effects


def test_a_shuffle_the_device_refuses_is_asked_again_once_it_can_take_one_not_at_once():
    h, _ = fresh()
    out = h.feed("shuffler.refused", command="shuffle", deck="B", status="REFUSED", reason="door open")
    out += h.feed("tick")
    assert shuffles(out) == [] and says(out)[0].level == "flag"
    assert shuffles(h.feed("shuffler.door", open=False)) == ["B"]  # the door closed: asked again, once
    out = h.feed("shuffler.refused", command="shuffle", deck="B", status="BUSY", reason="shuffling A")
    assert shuffles(out + h.feed("tick")) == []
    assert shuffles(h.feed("shuffler.shuffled", deck="A")) == ["B"]  # the device is free again


# -- properties over any order of what the device says ----------------------------------------------

DEVICE_SAYS = st.one_of(
    st.just(("tick", {})),
    st.builds(lambda d: ("shuffler.shuffled", {"deck": d}), st.sampled_from("AB")),
    st.builds(lambda d: ("shuffler.fault", {"fault": "jam", "deck": d}), st.sampled_from("AB")),
    st.builds(lambda d, s: ("shuffler.refused", {"command": "shuffle", "deck": d, "status": s, "reason": ""}),
              st.sampled_from("AB"), st.sampled_from(["BUSY", "REFUSED"])),
    st.builds(lambda up: ("device.link", {"device": "shuffler", "up": up, "reason": "x"}), st.booleans()),
    st.builds(lambda o: ("shuffler.door", {"open": o}), st.booleans()),
    st.builds(lambda ready: ("shuffler.status", {"ready": ready, "recognition": True}),
              st.dictionaries(st.sampled_from("AB"), st.just(52))),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(DEVICE_SAYS, max_size=25))
def test_a_shuffle_is_asked_again_only_after_the_device_answered_it_and_a_replay_asks_the_same_4_1(said):
    h, out = fresh()
    asked = set(shuffles(out))
    for kind, payload in said:
        if kind in ("shuffler.shuffled", "shuffler.fault", "shuffler.refused"):
            asked.discard(payload["deck"])   # the device answered that request
        if kind == "device.link":
            asked.clear()                     # a reconnect is a new need
        for deck in shuffles(h.feed(kind, **payload)):
            assert deck not in asked, (kind, payload, deck)
            asked.add(deck)
    standing = shuffles(h.core.standing_effects())
    assert all(not h.core.decks.status[d]["shuffled"] for d in standing)
    assert shuffles(replayed(h).standing_effects()) == standing

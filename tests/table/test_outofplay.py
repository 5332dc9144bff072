"""A shuffling device the shuffle watch took out of play (15.2) stays out until an inspector clears
it (tabled/table/outofplay.py): every other key's way of bringing it back is refused and journaled
with the rule, the inspector's APPROVE returns it with new cards (15.2.2, 3.6), and the state is
in the checkpoint and rebuilt by replay."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tabled.table.buttons import BUTTONS
from tabled.table.core import TableCore
from tabled.views.screen import screen_view

from .harness import MINUTE, Harness, notes, refused, says
from .test_staff import ROSTER

STUCK = list(range(52))  # an order the device hands back unchanged: not intermixed at all


def out_of_play(**kw) -> Harness:
    """An open table whose device went on returning deck A as it went in: 15.1, then 15.2."""
    h = Harness(ready=False, **kw)
    for deck in ("A", "B"):
        h.feed("deck.verified", deck=deck, cards=list(range(52)))
    for _ in range(3):  # its first order, then two alarms in its last ten shuffles
        h.feed("shuffler.shuffled", deck="A", cards=STUCK)
    h.t += 5 * MINUTE
    h.panel("open_table", key="supervisor")
    return h


def cards_again(h: Harness) -> list:
    out = []
    for deck in ("A", "B"):
        out += h.feed("deck.verified", deck=deck, cards=list(range(52)))
        out += h.feed("shuffler.shuffled", deck=deck)
    return out


def test_repeated_alarms_take_the_device_out_of_play_and_say_the_inspector_must_clear_it_15_2():
    h = Harness(ready=False)
    h.feed("deck.verified", deck="A", cards=list(range(52)))
    h.feed("shuffler.shuffled", deck="A", cards=STUCK)
    h.feed("shuffler.shuffled", deck="A", cards=STUCK)
    h.t = 7 * MINUTE
    out = h.feed("shuffler.shuffled", deck="A", cards=STUCK)
    (note,) = notes(out, "device.out_of_play")
    assert note.payload == {"device": "shuffler", "reason": "not intermixing: repeated shuffle alarms",
                            "deck": "A", "since_ms": 7 * MINUTE, "rule": "15.2"}
    flag = [s for s in says(out, "flag") if s.rule == "15.2"]
    assert flag and "an inspector must clear it (APPROVE with the inspector key)" in flag[0].text
    assert h.core.decks.shuffler_failed and h.core.decks.device_out is not None


def test_the_supervisor_cannot_bring_the_device_back_refused_and_journaled_15_2():
    h = out_of_play()
    out = h.panel("use_card_source", key="supervisor", source="shuffler")
    (note,) = notes(out, "panel.refused")
    assert note.payload["action"] == "use_card_source" and note.payload["rule"] == "15.2"
    assert "until an inspector clears it" in note.payload["reason"]
    assert not notes(out, "panel.approved")
    assert refused(out)[0].rule == "15.2" and "APPROVE with the inspector key" in refused(out)[0].text
    # the supervisor's APPROVE, which continues after a failure with another device, is the same refusal
    out = h.press("approve", key="supervisor")
    assert [n.payload["action"] for n in notes(out, "panel.refused")] == ["use_card_source"]
    assert h.core.decks.shuffler_failed and h.core.decks.device_out is not None and h.core.round is None
    cards_again(h)
    assert h.core.round is None  # 15.2.2: no round from the device out of play


PRESSES = st.lists(st.tuples(
    st.sampled_from(sorted(BUTTONS)), st.sampled_from(["dealer", "supervisor"]),
    st.one_of(st.none(), st.integers(0, 8), st.lists(st.integers(1, 7), max_size=2))), max_size=12)


@settings(max_examples=60, deadline=None)
@given(PRESSES)
def test_no_dealer_or_supervisor_press_returns_the_device_15_2(presses):
    h = out_of_play()
    for button, key, taken in presses:
        b = BUTTONS[button]
        if b.takes == "spots":
            h.press(button, key, spots=taken if isinstance(taken, list) else [])
        elif b.takes:
            h.press(button, key, **{b.takes: taken if isinstance(taken, int) else 1})
        else:
            h.press(button, key)
        assert h.core.decks.device_out is not None
        assert h.core.decks.source == "shoe" or h.core.decks.shuffler_failed  # never the device out of play
        r = h.core.round
        assert r is None or r.card_source == "shoe"


def test_the_inspectors_approve_clears_it_and_play_goes_on_with_it_and_new_cards_15_2_15_2_2():
    h = out_of_play()
    h.t += 30 * MINUTE
    out = h.press("approve", key="inspector")
    (approved,) = notes(out, "panel.approved")
    assert approved.payload["action"] == "clear_device" and approved.payload["rule"] == "15.2"
    (cleared,) = notes(out, "device.cleared")
    assert cleared.payload["out_minutes"] == 35 and cleared.payload["rule"] == "15.2"
    assert not notes(out, "panel.refused")  # no equipment fault: no approval of play asked for
    assert h.core.decks.device_out is None and not h.core.decks.shuffler_failed and h.core.decks.source == "shuffler"
    assert not any(d["verified"] for d in h.core.decks.status.values())  # 15.2.2, 3.6: new cards
    assert not h.core.decks.shuffles  # its history starts again
    cards_again(h)
    assert h.core.round is not None and h.core.round.card_source == "shuffler"


def test_with_a_staff_list_the_inspector_who_cleared_it_is_named_15_2():
    h = out_of_play()
    h.feed("staff.roster", **ROSTER)
    out = h.press("approve", key="inspector")
    assert notes(out, "panel.refused")[0].payload["reason"] == "no inspector signed in"
    assert h.core.decks.device_out is not None
    h.feed("staff.sign_in", badge=3001, role="inspector", pin_ok=True)
    out = h.press("approve", key="inspector")
    (cleared,) = notes(out, "device.cleared")
    assert cleared.payload["person"] == 3001 and cleared.payload["name"] == "Ira Patel"
    assert notes(out, "panel.approved")[0].payload["person"] == 3001


def test_on_the_shoe_meanwhile_the_device_stays_out_until_cleared_then_the_supervisor_may_bring_it_15_2_2():
    h = out_of_play()
    h.press("switch_to_shoe", key="supervisor")
    assert h.core.decks.source == "shoe" and h.core.decks.device_out is not None
    assert notes(h.panel("use_card_source", key="supervisor", source="shuffler"), "panel.refused")
    out = h.press("approve", key="inspector")
    assert notes(out, "device.cleared") and h.core.decks.source == "shoe"  # the shoe's play goes on
    out = h.panel("use_card_source", key="supervisor", source="shuffler")
    assert notes(out, "panel.approved") and h.core.decks.source == "shuffler"


def test_clearing_nothing_is_refused_15_2():
    h = Harness()
    out = h.panel("clear_device", key="inspector")
    assert refused(out)[0].text == "no shuffling device is out of play" and refused(out)[0].rule == "15.2"
    assert refused(h.panel("clear_device", key="supervisor"))[0].text.startswith(
        "clear_device: refused: needs the inspector key")


def test_a_checkpoint_and_a_replay_keep_the_device_out_of_play_15_2():
    h = out_of_play()
    restored = TableCore.from_snapshot(h.core.snapshot(), h.core.spot_count, h.profile)
    assert restored.decks.device_out == h.core.decks.device_out and restored.decks.shuffler_failed
    out = restored.apply("panel", {"action": "use_card_source", "key": "supervisor", "source": "shuffler"}, h.t)
    assert notes(out, "panel.refused") and restored.decks.device_out is not None
    replayed = TableCore("T01", h.core.spot_count, h.limits, h.profile)
    for kind, payload, t in h.inputs:
        replayed.apply(kind, payload, t)
    assert replayed.snapshot() == h.core.snapshot()
    out = restored.apply("panel.button", {"button": "approve", "key": "inspector"}, h.t)
    assert notes(out, "device.cleared") and restored.decks.device_out is None
    assert "device_out" not in restored.snapshot()


def test_the_dealers_screen_shows_it_out_of_play_and_that_the_inspector_must_clear_it_15_2():
    h = out_of_play()
    h.t += 10 * MINUTE
    h.feed("tick")
    screen = screen_view(h.core)
    (fault,) = [f for f in screen["faults"] if f["id"] == "shuffler_out"]
    assert fault["what"] == "shuffling device out of play: not intermixing: repeated shuffle alarms"
    assert fault["rule"] == "15.2" and fault["key"] == "inspector" and fault["since_ms"] == 0
    assert fault["dealer_does"].startswith("inspector must clear it (APPROVE with the inspector key)")
    assert screen["next"].startswith("shuffling device out of play: inspector must clear it")
    assert not [f for f in screen["faults"] if f["id"] == "shuffler"]
    h.press("approve", key="inspector")
    assert not [f for f in screen_view(h.core)["faults"] if f["id"].startswith("shuffler")]


def test_one_approve_of_the_inspector_clears_the_device_and_approves_play_after_an_equipment_fault_15_2_14_13():
    h = out_of_play()
    h.feed("equipment.fault", equipment="meter", reason="display dark")
    out = h.press("approve", key="inspector")
    assert [n.payload["action"] for n in notes(out, "panel.approved")] == ["clear_device", "approve_play"]
    assert notes(out, "device.cleared") and notes(out, "fault.cleared")  # the meter's link is up: it is back
    assert h.core.decks.device_out is None and not h.core.equipment.faults and not refused(out)

"""The fold writes down each judgement a reader needs when it makes it (tabled/table/notes.py): an
action under any key and by whom, a progressive award determined and confirmed paid (9.5), a
shuffling device's fault (15.1, 15.2), a device fault the dealer's screen shows (15.2, 7.3), a
deck judged (3.4, 3.7), a shuffle read (15.1)."""

from __future__ import annotations

from tabled.table.effects import Note

from .harness import Harness
from .test_slip import Journaled
from .test_staff import staffed


def noted(effects, kind):
    return [e for e in effects if isinstance(e, Note) and e.kind == kind]


def test_an_action_under_the_dealers_key_is_noted_like_any_other():
    h = Harness()
    h.ante(1, 1000)
    (approved,) = noted(h.panel("no_more_bets", key="dealer"), "panel.approved")
    assert approved.payload == {"action": "no_more_bets", "key": "dealer", "rule": "7.2.1"}
    assert approved.round_id == h.round.round_id


def test_a_press_is_noted_as_the_action_it_became_with_the_person_signed_in():
    h = staffed()
    h.ante(2, 1000)
    (approved,) = noted(h.press("no_more_bets", key="dealer"), "panel.approved")
    assert (approved.payload["action"], approved.payload["key"], approved.payload["person"]) == (
        "no_more_bets", "dealer", 1001)


def test_a_progressive_award_is_noted_when_the_pool_determines_it_and_when_it_is_confirmed_paid_9_5():
    j = Journaled(Harness())
    rid = j.round_to_settlement()
    (awarded,) = [p for _, _, r, k, p in j.records if k == "progressive.awarded" and r == rid]
    order = [a["spot"] for a in awarded["result"]["awards"]]
    assert sorted(order) == [2, 5, 6]
    out = j.feed("panel", action="award_paid", key="dealer", spot=order[1])  # out of order: refused (12.2)
    assert noted(out, "progressive.award_paid") == []
    out = j.feed("panel", action="award_paid", key="dealer", spot=order[0])
    (paid,) = noted(out, "progressive.award_paid")
    first = awarded["result"]["awards"][0]
    assert paid.payload == {"spot": order[0], "category": first["category"], "amount_cents": first["amount_cents"],
                            "from_pool_cents": first["from_pool_cents"],
                            "operator_topup_cents": first["operator_topup_cents"], "key": "dealer", "rule": "9.5"}
    assert paid.round_id == rid
    again = j.feed("panel", action="award_paid", key="dealer", spot=order[0])  # paid already: refused
    assert noted(again, "progressive.award_paid") == []


def test_a_shuffling_devices_own_fault_is_noted_with_its_rule_15_1_15_2():
    h = Harness()
    (jam,) = noted(h.feed("shuffler.fault", fault="jam", deck="A"), "shuffle.fault")
    assert jam.payload == {"fault": "jam", "deck": "A", "rule": "15.1"}
    out = h.feed("shuffler.fault", fault="motor", deck="A")
    assert noted(out, "shuffle.fault")[0].payload["rule"] == "15.2"
    (device,) = noted(out, "device.fault")
    assert device.payload == {"fault": "shuffler", "what": "motor", "rule": "15.2"}


def test_the_door_opened_is_a_device_fault_noted_once_15_2():
    h = Harness()
    assert noted(h.feed("shuffler.door", open=True), "device.fault")[0].payload["fault"] == "door"
    assert noted(h.feed("shuffler.door", open=True), "device.fault") == []


def test_a_deck_judged_is_noted_verified_or_not_3_4_3_7():
    h = Harness(ready=False)
    (good,) = noted(h.feed("deck.verified", deck="A", cards=list(range(52))), "deck.judged")
    assert good.payload == {"deck": "A", "verified": True, "cards": 52, "distinct": 52, "rule": "3.4"}
    (bad,) = noted(h.feed("deck.verified", deck="B", cards=[*range(51), 0]), "deck.judged")
    assert bad.payload == {"deck": "B", "verified": False, "cards": 52, "distinct": 51, "rule": "3.7"}


def test_a_shuffle_read_is_noted_with_the_tables_verdict_15_1():
    h = Harness()
    first = noted(h.feed("shuffler.shuffled", deck="A", cards=list(range(52))), "shuffle.read")
    assert first[0].payload["judged"] is None  # the deck's first known order: nothing to compare with
    cut = list(range(26, 52)) + list(range(26))
    (again,) = noted(h.feed("shuffler.shuffled", deck="A", cards=cut), "shuffle.read")
    assert again.payload["cards"] == cut and again.payload["judged"]["alarm"] is True
    assert float(again.payload["judged"]["p_rising"]) < 1e-6


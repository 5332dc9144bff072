"""Named staff as the fold judges it (tabled/table/staff.py, tabled/table/core.py): sign-ins at the
panel against the journaled staff list, wrong PINs counted and a badge locked for a time, refusals
with a reason, and every privileged action attributed to the person signed in to its key."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tabled.table.core import TableCore

from .harness import MINUTE, Harness, notes, refused, says
from .test_buttons import deciding
from .test_rules_gaps import DEALER_QUALIFIES

ROSTER = {"people": [
    {"badge": 1001, "name": "Alex Morgan", "roles": ["dealer"]},
    {"badge": 1002, "name": "Bo Chen", "roles": ["dealer"]},
    {"badge": 2001, "name": "Sam Ortiz", "roles": ["supervisor", "dealer"]},
    {"badge": 2002, "name": "Kim Lee", "roles": ["supervisor"]},
    {"badge": 3001, "name": "Ira Patel", "roles": ["inspector"]},
], "attempts": 5, "lockout_minutes": 15}


def staffed(ready: bool = True) -> Harness:
    """A table with the staff list, the dealer 1001 and the supervisor 2001 signed in, open and
    with its cards ready."""
    h = Harness(ready=False)
    h.feed("staff.roster", **ROSTER)
    h.feed("staff.sign_in", badge=1001, role="dealer", pin_ok=True)
    h.feed("staff.sign_in", badge=2001, role="supervisor", pin_ok=True)
    if ready:
        h.panel("open_table", key="supervisor")
        h.prepare_cards()
    return h


def test_a_listed_badge_with_its_role_and_the_right_pin_signs_in_and_the_note_names_the_person():
    h = Harness(ready=False)
    h.feed("staff.roster", **ROSTER)
    out = h.feed("staff.sign_in", badge=1001, role="dealer", pin_ok=True)
    (note,) = notes(out, "staff.signed_in")
    assert note.payload == {"badge": 1001, "name": "Alex Morgan", "role": "dealer"}
    assert says(out)[0].text == "dealer Alex Morgan (badge 1001) signed in"
    assert h.core.staff.on == {"dealer": 1001}


def test_a_dealer_replaces_the_dealer_before():
    h = staffed()
    out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)
    (note,) = notes(out, "staff.signed_in")
    assert note.payload["replaces"] == 1001 and note.payload["replaces_name"] == "Alex Morgan"
    assert h.core.staff.on["dealer"] == 1002


def test_one_supervisor_at_a_time_the_one_before_signs_out_first():
    h = staffed()
    out = h.feed("staff.sign_in", badge=2002, role="supervisor", pin_ok=True)
    (note,) = notes(out, "staff.refused")
    assert note.payload == {"badge": 2002, "role": "supervisor", "reason": "role taken", "signed_in": 2001}
    assert "Sam Ortiz (badge 2001) is signed in as supervisor: they sign out first" in refused(out)[0].text
    out = h.feed("staff.sign_out", badge=2001, role="supervisor")
    assert notes(out, "staff.signed_out")[0].payload["name"] == "Sam Ortiz"
    h.feed("staff.sign_in", badge=2002, role="supervisor", pin_ok=True)
    assert h.core.staff.on["supervisor"] == 2002


def test_an_unknown_badge_and_a_role_not_held_are_refused_with_the_reason():
    h = staffed()
    out = h.feed("staff.sign_in", badge=4242, role="dealer", pin_ok=False)
    assert notes(out, "staff.refused")[0].payload["reason"] == "unknown badge"
    assert refused(out)[0].text == "dealer sign-in refused: badge 4242 is not on the staff list"
    out = h.feed("staff.sign_in", badge=1001, role="inspector", pin_ok=True)
    assert notes(out, "staff.refused")[0].payload["reason"] == "role not held"
    assert refused(out)[0].text == ("inspector sign-in refused: Alex Morgan (badge 1001) is not an inspector "
                                    "on the staff list")
    assert h.core.staff.on == {"dealer": 1001, "supervisor": 2001}


def test_five_wrong_pins_in_a_row_lock_the_badge_for_the_configured_minutes_from_the_inputs_time():
    h = staffed()
    h.t = 10 * MINUTE
    for n in range(1, 5):
        out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=False)
        assert notes(out, "staff.refused")[0].payload == {"badge": 1002, "role": "dealer", "reason": "wrong PIN",
                                                         "wrong_pins": n}
        assert not notes(out, "staff.locked")
    h.t = 11 * MINUTE
    out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=False)
    (locked,) = notes(out, "staff.locked")
    assert locked.payload == {"badge": 1002, "name": "Bo Chen", "wrong_pins": 5, "since_ms": 11 * MINUTE,
                              "until_ms": 26 * MINUTE}
    assert "locked for 15 minutes, until 00:26:00 UTC" in refused(out)[0].text
    # while locked even the right PIN is refused, saying until when
    h.t = 25 * MINUTE
    out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)
    assert notes(out, "staff.refused")[0].payload == {"badge": 1002, "role": "dealer", "reason": "locked",
                                                     "until_ms": 26 * MINUTE}
    assert "Bo Chen (badge 1002) is locked until 00:26:00 UTC after 5 wrong PINs" in refused(out)[0].text
    assert h.core.staff.on["dealer"] == 1001
    h.t = 26 * MINUTE
    out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)
    assert notes(out, "staff.signed_in") and h.core.staff.on["dealer"] == 1002


def test_a_right_pin_starts_the_count_again():
    h = staffed()
    for _ in range(4):
        h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=False)
    h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)
    out = h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=False)
    assert notes(out, "staff.refused")[0].payload["wrong_pins"] == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), max_size=30), st.integers(1, 8), st.integers(1, 60))
def test_a_badge_is_locked_exactly_when_attempts_wrong_pins_came_in_a_row(pins, attempts, minutes):
    """Whatever the sequence of right and wrong PINs (one a minute), the badge locks at each run of
    ``attempts`` wrong ones and signs in at no time while locked."""
    core = TableCore("T1", 7, Harness(ready=False).limits, Harness(ready=False).profile)
    core.apply("staff.roster", {**ROSTER, "attempts": attempts, "lockout_minutes": minutes}, 0)
    run, until = 0, -1
    for i, ok in enumerate(pins):
        t = i * MINUTE
        out = core.apply("staff.sign_in", {"badge": 1002, "role": "dealer", "pin_ok": ok}, t)
        if t < until:
            assert [n.payload["reason"] for n in notes(out, "staff.refused")] == ["locked"]
            continue
        if ok:
            run = 0
            assert core.staff.on.get("dealer") == 1002
            continue
        run += 1
        if run == attempts:
            assert notes(out, "staff.locked")[0].payload["until_ms"] == t + minutes * MINUTE
            until, run = t + minutes * MINUTE, 0
        else:
            assert not notes(out, "staff.locked")


def test_a_privileged_press_with_nobody_of_that_role_signed_in_is_refused_and_journaled():
    h = staffed()
    h.feed("staff.sign_out", badge=2001, role="supervisor")
    out = h.press("announce_minimum", key="supervisor", value=1000)
    assert refused(out)[0].text == "announce_minimum: refused: supervisor: sign in at the panel first"
    (note,) = notes(out, "panel.refused")
    assert note.payload == {"action": "announce_minimum", "key": "supervisor", "rule": "6.2",
                            "reason": "no supervisor signed in"}
    out = h.press("approve", key="inspector")
    assert refused(out)[0].text.endswith("inspector: sign in at the panel first")


def test_every_privileged_action_carries_the_person_signed_in_to_its_key():
    h = staffed()
    out = h.press("announce_minimum", key="supervisor", value=1000)
    (note,) = notes(out, "panel.approved")
    assert (note.payload["person"], note.payload["name"], note.payload["key"]) == (2001, "Sam Ortiz", "supervisor")
    h.feed("staff.sign_in", badge=3001, role="inspector", pin_ok=True)
    h.feed("equipment.fault", equipment="meter", reason="test")
    out = h.press("approve", key="inspector")
    assert notes(out, "panel.approved")[0].payload["person"] == 3001  # 14.13
    # a refusal for the wrong key names the person who turned it
    out = h.press("approve", key="dealer")
    assert {n.payload.get("person") for n in notes(out, "panel.refused")} == {1001}


def test_a_void_in_play_names_the_supervisor_and_the_round_carries_its_dealer():
    h = staffed()
    h.ante(1, 500)
    started = [n for n in h.log if getattr(n, "kind", None) == "round.started"]
    assert started[-1].payload["dealt_by"] == 1001 and started[-1].payload["dealt_by_name"] == "Alex Morgan"
    out = h.press("void_round", key="supervisor", spots=[])
    assert notes(out, "panel.approved")[0].payload["person"] == 2001
    (settled,) = notes(out, "round.settled")
    assert "dealt_by" not in settled.payload  # the settlement stays the game's own, recomputed by recall


def test_a_round_is_the_dealers_who_started_it_and_the_next_one_the_new_dealers():
    h = staffed(ready=False)
    h.panel("open_table", key="supervisor")
    h.prepare_cards()
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)  # the next dealer takes over
    h.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    assert len(notes(h.log, "round.settled")) == 1
    started = [n for n in h.log if getattr(n, "kind", None) == "round.started"]
    assert [n.payload["dealt_by"] for n in started] == [1001, 1002]  # the next round is the new dealer's
    assert started[0].payload["dealt_by_name"] == "Alex Morgan"


def test_no_round_starts_until_a_dealer_signs_in():
    h = Harness(ready=False)
    out = h.feed("staff.roster", **ROSTER)
    assert "dealer: sign in at the panel" in says(out)[0].text
    h.feed("staff.sign_in", badge=2001, role="supervisor", pin_ok=True)
    h.panel("open_table", key="supervisor")
    h.prepare_cards()
    assert h.core.round is None
    h.feed("staff.sign_in", badge=1001, role="dealer", pin_ok=True)
    assert h.core.round is not None


def test_without_a_staff_list_the_key_alone_acts_and_notes_are_as_before():
    h = deciding(1)
    out = h.press("void_round", key="supervisor", spots=[])
    assert set(notes(out, "panel.approved")[0].payload) == {"action", "key", "rule", "reason", "forfeit"}
    assert "dealt_by" not in notes(out, "round.settled")[0].payload
    out = h.feed("staff.sign_in", badge=1001, role="dealer", pin_ok=True)
    assert "this table keeps no staff list" in refused(out)[0].text
    assert "staff" not in h.core.snapshot()


def test_an_empty_roster_ends_the_list_and_signs_everyone_out():
    h = staffed()
    out = h.feed("staff.roster", people=[])
    assert {n.payload["role"] for n in notes(out, "staff.signed_out")} == {"dealer", "supervisor"}
    assert not h.core.staff.listed
    assert not refused(h.press("announce_minimum", key="supervisor", value=1000))


def test_malformed_staff_inputs_are_refused_never_a_crash():
    h = staffed()
    for payload in ({"badge": "1001", "role": "dealer", "pin_ok": True}, {"badge": 1001, "role": "owner",
                    "pin_ok": True}, {"badge": 1001, "role": "dealer", "pin_ok": "yes"}, {"badge": 1001}):
        out = h.feed("staff.sign_in", **payload)
        assert "staff.sign_in: malformed input" in refused(out)[0].text
    out = h.feed("staff.roster", people=[{"badge": 1, "name": "X", "roles": ["owner"]}])
    assert "malformed input" in refused(out)[0].text


def test_who_is_signed_in_survives_a_checkpoint():
    h = staffed()
    for _ in range(3):
        h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=False)
    snap = h.core.snapshot()
    again = TableCore.from_snapshot(snap, 7, h.profile)
    assert again.staff.on == h.core.staff.on and again.staff.wrong == {1002: 3}
    assert again.snapshot() == snap


def test_a_sign_in_the_shell_did_not_check_is_refused_and_counts_no_wrong_pin():
    h = Harness(ready=False)
    h.feed("staff.roster", **ROSTER)
    for _ in range(10):  # a panel flooding sign-ins: past the checked ones, none is a wrong PIN
        out = h.feed("staff.sign_in", badge=1001, role="dealer", checked=False)
    (note,) = notes(out, "staff.refused")
    assert note.payload == {"badge": 1001, "role": "dealer", "reason": "unchecked"}
    assert "too many sign-ins from the panel at once" in refused(out)[0].text
    assert not h.core.staff.wrong and not h.core.staff.locked_until and not h.core.staff.on
    h.feed("staff.sign_in", badge=1001, role="dealer", pin_ok=True)  # keyed again, checked: signs in
    assert h.core.staff.on == {"dealer": 1001}
    assert refused(h.feed("staff.sign_in", badge=1001, role="dealer", checked="no"))  # malformed: refused


def test_an_expired_pin_signs_in_once_more_and_is_refused_after_until_changed_at_the_panel():
    # Nevada's table games systems checklist: PINs changed at least quarterly
    h = staffed()
    expired = {"pin_ok": True, "pin_expired": True, "age_days": 91, "max_days": 90}
    out = h.feed("staff.sign_in", badge=1002, role="dealer", **expired)
    assert h.core.staff.on["dealer"] == 1002
    (note,) = notes(out, "staff.pin_expired")
    assert note.payload == {"badge": 1002, "name": "Bo Chen", "role": "dealer", "age_days": 91, "max_days": 90}
    assert "91 days old, more than 90: signed in this once; change it now" in says(out, "flag")[0].text
    h.feed("staff.sign_out", badge=1002, role="dealer")
    out = h.feed("staff.sign_in", badge=1002, role="dealer", **expired)
    assert "past its maximum age and signed in once more already" in refused(out)[0].text
    assert notes(out, "staff.refused")[0].payload["reason"] == "PIN expired"
    assert h.core.staff.on.get("dealer") != 1002


def test_the_pin_change_keyed_twice_is_noted_without_the_pin():
    h = staffed()
    h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True, pin_expired=True, age_days=100, max_days=90)
    assert "key the badge and the same PIN again" in says(h.feed("staff.pin_change", badge=1002, role="dealer",
                                                                  step="first"))[0].text
    assert "the two new PINs differ" in refused(h.feed("staff.pin_change", badge=1002, role="dealer",
                                                       step="differ"))[0].text
    assert "could not be kept" in refused(h.feed("staff.pin_change", badge=1002, role="dealer",
                                                 step="not_kept"))[0].text
    assert 1002 in h.core.staff.must_change
    again = TableCore.from_snapshot(h.core.snapshot(), 7, h.core.profile)
    assert again.staff.must_change == h.core.staff.must_change
    (changed,) = notes(h.feed("staff.pin_change", badge=1002, role="dealer", step="changed"), "staff.pin_changed")
    assert changed.payload == {"badge": 1002, "name": "Bo Chen", "role": "dealer"}
    assert 1002 not in h.core.staff.must_change
    # a fresh PIN signs in as any other
    h.feed("staff.sign_out", badge=1002, role="dealer")
    h.feed("staff.sign_in", badge=1002, role="dealer", pin_ok=True)
    assert h.core.staff.on["dealer"] == 1002


def test_a_pin_change_from_someone_with_nothing_to_change_is_refused():
    h = staffed()
    out = h.feed("staff.pin_change", badge=1001, role="dealer", step="changed")
    assert "has no PIN to change" in refused(out)[0].text and not notes(out, "staff.pin_changed")

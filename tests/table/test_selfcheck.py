"""The table's software and journal checked while it runs (tabled/table/selfcheck.py): a check that
fails is a fault that stops new rounds (14.13), the round in play may finish, and only the
inspector's APPROVE after a sound check clears it; the state is in the checkpoint."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tabled.table.core import TableCore
from tabled.views.screen import screen_view

from .harness import Harness, between_rounds, notes, refused, says
from .test_staff import ROSTER

CHANGED = {"result": "mismatch", "against": "manifest", "release": "1.4.0", "files": 4966,
           "problems": ["changed: tabled/tabled/game/ranking.py"], "problem_count": 1}
SOUND = {"result": "verified", "against": "manifest", "release": "1.4.0", "files": 4966, "problems": [],
         "problem_count": 0}


def test_a_changed_file_found_while_running_stops_new_rounds_14_13():
    h = between_rounds()
    out = h.feed("software.checked", **CHANGED)
    (raised,) = notes(out, "fault.raised")
    assert raised.payload == {"equipment": "software", "reason": "changed: tabled/tabled/game/ranking.py",
                              "rule": "14.13"}
    assert "installed software failed verification" in says(out, "flag")[0].text
    h.prepare_cards()
    h.feed("tick")
    assert h.core.round is None
    (fault,) = [f for f in screen_view(h.core)["faults"] if f["id"] == "equipment:software"]
    assert fault["rule"] == "14.13" and "ranking.py" in fault["what"]


def test_the_round_in_play_finishes_under_the_fault_14_13():
    h = Harness()
    first = h.core.round
    assert first is not None
    h.feed("software.checked", **CHANGED)
    assert h.core.round is first
    assert not refused(h.ante(1, 500))  # its wagers are still taken


def test_the_inspectors_approve_is_refused_until_the_files_verify_again_then_clears_it_14_13():
    h = between_rounds()
    h.feed("software.checked", **CHANGED)
    h.prepare_cards()
    out = h.press("approve", key="inspector")
    assert "does not verify yet" in refused(out)[0].text and h.core.integrity.faults
    out = h.feed("software.checked", **SOUND)
    assert "verifies again" in says(out)[0].text and h.core.round is None  # not cleared by itself
    out = h.press("approve", key="inspector")
    (cleared,) = notes(out, "fault.cleared")
    assert cleared.payload["equipment"] == "software"
    h.feed("tick")
    assert not h.core.integrity.faults and h.core.round is not None


def test_no_other_key_clears_it_14_13():
    h = between_rounds()
    h.feed("software.checked", **CHANGED)
    h.feed("software.checked", **SOUND)
    for key in ("dealer", "supervisor"):
        h.press("approve", key=key)
        h.panel("approve_play", key=key)
    assert h.core.integrity.faults == {"software": "changed: tabled/tabled/game/ranking.py"}


def test_with_a_staff_list_the_inspector_who_cleared_it_is_named_14_13():
    h = between_rounds()
    h.feed("staff.roster", **ROSTER)
    h.feed("journal.checked", result="broken", detail="record 19: contents do not match its hash")
    h.feed("journal.checked", result="intact", records=40)
    h.feed("staff.sign_in", badge=3001, role="inspector", pin_ok=True)
    (cleared,) = notes(h.press("approve", key="inspector"), "fault.cleared")
    assert cleared.payload == {"equipment": "journal", "by": "Ira Patel"}


def test_the_starts_own_check_does_not_raise_it_the_start_decides():
    h = between_rounds()
    out = h.feed("software.checked", result="mismatch", release="1.4.0", problems=["changed: x"], problem_count=1)
    assert not notes(out, "fault.raised") and not h.core.integrity.faults


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["software.checked", "journal.checked"]), st.booleans()), max_size=8))
def test_the_checkpoint_holds_the_faults_as_replay_does(checks):
    h = between_rounds()
    for kind, sound in checks:
        if kind == "software.checked":
            h.feed(kind, **(SOUND if sound else CHANGED))
        else:
            h.feed(kind, result="intact" if sound else "broken", detail="record 3 broken")
    restored = TableCore.from_snapshot(h.core.snapshot(), 7, h.profile)
    assert restored.integrity.snapshot() == h.core.integrity.snapshot()
    replayed = Harness(ready=False)
    for kind, payload, t in h.inputs:
        replayed.core.apply(kind, payload, t)
    assert replayed.core.integrity.snapshot() == h.core.integrity.snapshot()
    assert set(h.core.integrity.faults) <= {k.split(".")[0] for k, s in checks if not s}
    assert bool(h.core.integrity.faults) == any(not s for _, s in checks)

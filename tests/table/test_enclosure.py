"""The enclosures' doors (tabled/table/enclosure.py): opened and closed journaled with the people
signed in; an open door, and a closed one the inspector has not acknowledged, stop new rounds (the
round in play finishes, 14.13); the inspector's APPROVE acknowledges; the state is in the checkpoint."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tabled.table.core import TableCore
from tabled.views.screen import screen_view

from .harness import Harness, between_rounds, notes, refused, says
from .test_staff import ROSTER


def test_an_open_door_stops_new_rounds_until_closed_and_acknowledged_14_13():
    h = between_rounds()
    h.t = 1000
    out = h.feed("enclosure.door", door="table_pc", open=True)
    (opened,) = notes(out, "enclosure.opened")
    assert opened.payload == {"door": "table_pc", "rule": "14.13", "signed_in": {}}
    assert "table PC enclosure door OPEN" in says(out, "flag")[0].text
    h.prepare_cards()
    assert h.core.round is None
    assert screen_view(h.core)["faults"][0]["id"] == "enclosure:table_pc"
    out = h.press("approve", key="inspector")
    assert "still open" in refused(out)[0].text and h.core.round is None
    h.t = 61_000
    (closed,) = notes(h.feed("enclosure.door", door="table_pc", open=False), "enclosure.closed")
    assert closed.payload["open_ms"] == 60_000
    h.feed("tick")
    assert h.core.round is None  # closed is not enough: the inspector acknowledges
    h.press("approve", key="supervisor")
    assert h.core.round is None
    (ack,) = notes(h.press("approve", key="inspector"), "enclosure.acknowledged")
    assert ack.payload["door"] == "table_pc"
    h.feed("tick")
    assert h.core.round is not None and not h.core.enclosures


def test_the_people_signed_in_are_journaled_with_the_door_and_the_inspector_named():
    h = between_rounds()
    h.feed("staff.roster", **ROSTER)
    h.feed("staff.sign_in", badge=3001, role="inspector", pin_ok=True)
    opened = notes(h.feed("enclosure.door", door="pool_server", open=True), "enclosure.opened")[0]
    assert opened.payload["signed_in"] == {"inspector": 3001}
    h.feed("enclosure.door", door="pool_server", open=False)
    (ack,) = notes(h.press("approve", key="inspector"), "enclosure.acknowledged")
    assert ack.payload["by"] == "Ira Patel"


def test_the_round_in_play_finishes_when_a_door_opens_14_13():
    h = Harness()
    first = h.core.round
    h.feed("enclosure.door", door="table_pc", open=True)
    assert h.core.round is first and not refused(h.ante(1, 500))


def test_a_bad_door_input_is_refused_in_one_line():
    h = between_rounds()
    (line,) = refused(h.feed("enclosure.door", door="cellar", open=True))
    assert line.text.startswith("enclosure door input") and "table_pc, pool_server" in line.text


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["table_pc", "pool_server", "approve"]), st.booleans()), max_size=10))
def test_the_checkpoint_and_replay_hold_the_doors(steps):
    h = between_rounds()
    for door, is_open in steps:
        if door == "approve":
            h.press("approve", key="inspector")
        else:
            h.feed("enclosure.door", door=door, open=is_open)
    restored = TableCore.from_snapshot(h.core.snapshot(), 7, h.profile)
    assert restored.enclosures.snapshot() == h.core.enclosures.snapshot()
    replayed = Harness(ready=False)
    replayed.core.hours.is_open = True
    for kind, payload, t in h.inputs:
        replayed.core.apply(kind, payload, t)
    assert replayed.core.enclosures.snapshot() == h.core.enclosures.snapshot()
    assert not (set(h.core.enclosures.open) & set(h.core.enclosures.closed_unacknowledged))

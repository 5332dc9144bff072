"""The table's clock (tabled/table/clock.py): each offset measured is noted; beyond the bound, or no
successful measurement for 24 hours, is an error condition (Mississippi 8-4.5) on the screen, the
pit and the floor, which does not stop new rounds; a measurement within the bound clears it; the
state is in the checkpoint."""

from __future__ import annotations

from hypothesis import given, strategies as st

from tabled.table.clock import STALE_MS
from tabled.table.core import TableCore
from tabled.views.screen import screen_view

from .harness import Harness, notes, refused, says

HOUR_MS = 3_600_000


def clock_notes(effects) -> list:
    return notes(effects, "clock.offset") + notes(effects, "clock.fault")


def between_rounds() -> Harness:
    h = Harness(ready=False)
    h.core.hours.is_open = True
    return h


def measured(h: Harness, offset: int | None, against: str | None = "central", bound: int = 1000, **more):
    return h.feed("clock.measured", offset_ms=offset, against=against if offset is not None else None,
                  bound_ms=bound, ntp={"synchronized": "unknown"}, **more)


def test_each_offset_measured_is_noted_with_the_fields_other_readers_read():
    h = between_rounds()
    (note,) = notes(measured(h, -12, round_trip_ms=3), "clock.offset")
    assert {k: note.payload[k] for k in ("offset_ms", "against", "bound_ms", "ok")} == {
        "offset_ms": -12, "against": "central", "bound_ms": 1000, "ok": True}
    assert note.payload["round_trip_ms"] == 3 and not notes(measured(h, 5), "clock.fault")


def test_an_offset_beyond_the_bound_is_shown_and_play_goes_on_until_it_is_back_within_it():
    h = between_rounds()
    h.t = 1000
    out = measured(h, 1500)
    assert notes(out, "clock.offset")[0].payload["ok"] is False
    (fault,) = notes(out, "clock.fault")
    assert fault.payload == {"standing": True, "reason": "the clock is +1500 ms off the central database's clock "
                                                         "(at most 1000 ms)"}
    assert "Miss. 8-4.5" == says(out, "flag")[0].rule
    shown = [f for f in screen_view(h.core)["faults"] if f["id"] == "clock"]
    assert shown and shown[0]["since_ms"] == 1000 and shown[0]["key"] is None
    # an error condition, not a malfunction of the game's equipment: new rounds go on (docs/compliance.md)
    h.prepare_cards()
    assert h.core.round is not None
    assert not notes(measured(h, 1700), "clock.fault")  # it stands already: only the offset is noted
    (cleared,) = notes(measured(h, 20), "clock.fault")
    assert cleared.payload["standing"] is False and cleared.payload["offset_ms"] == 20
    assert not [f for f in screen_view(h.core)["faults"] if f["id"] == "clock"]


def test_no_successful_measurement_for_24_hours_is_an_error_condition():
    h = between_rounds()
    h.t = 0
    measured(h, 3)
    h.t = STALE_MS - 1
    assert not clock_notes(measured(h, None, error="the central database's clock could not be read"))
    h.t = STALE_MS
    (fault,) = notes(measured(h, None, error="refused"), "clock.fault")
    assert fault.payload["reason"] == "no successful clock measurement for 24 h: refused"
    h.t = STALE_MS + HOUR_MS
    assert notes(measured(h, 0, against="ntp"), "clock.fault")[0].payload["standing"] is False


def test_a_table_never_measured_counts_the_24_hours_from_its_first_attempt():
    h = between_rounds()
    h.t = 5 * HOUR_MS
    assert not clock_notes(measured(h, None))
    h.t = 5 * HOUR_MS + STALE_MS
    assert notes(measured(h, None), "clock.fault")


@given(st.one_of(st.just({"bound_ms": 0}), st.just({"bound_ms": True}), st.just({"bound_ms": 1000, "offset_ms": 1.5}),
                 st.just({"bound_ms": 1000, "offset_ms": 3, "against": "sundial"}), st.just({})))
def test_a_bad_measurement_is_refused_with_what_is_wrong(payload):
    h = between_rounds()
    out = h.feed("clock.measured", **payload)
    assert "bound_ms must be a whole number above 0" in refused(out)[0].text
    assert not h.core.clock_watch


def test_the_clock_condition_is_in_the_checkpoint():
    h = between_rounds()
    h.t = 7000
    measured(h, -2500)
    again = TableCore.from_snapshot(h.core.snapshot(), 7, h.core.profile)
    assert again.clock_watch.fault == h.core.clock_watch.fault and again.clock_watch.fault_since_ms == 7000
    assert [f for f in screen_view(again)["faults"] if f["id"] == "clock"]

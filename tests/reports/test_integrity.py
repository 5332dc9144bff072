"""The integrity section from the panel as today's daemon journals it (``panel.button`` presses,
``panel.approved`` notes for the supervisor's and inspector's actions) and as earlier journals hold
it (``panel`` actions), counted once either way; the table's closures (16.8) and how long they stood."""

from __future__ import annotations

from tabled.reports.integrity import integrity
from tabled.reports.periods import range_period
from tabled.reports.rounds import Event

MINUTE = 60_000_000
PERIOD = range_period(0, 600 * MINUTE, "ten hours")


def at(minute: float, kind: str, **payload) -> Event:
    return Event(int(minute * 10), int(minute * MINUTE), None, kind, payload)


def test_actions_under_every_key_are_counted_by_key_from_their_notes_and_irregular_ones_once():
    events = [
        at(1, "panel.approved", action="open_table", key="supervisor", rule="16.8"),
        at(2, "panel.approved", action="no_more_bets", key="dealer", rule="5.1"),
        at(3, "panel.approved", action="misdeal", key="dealer", rule="14.1"),
        at(4, "panel.approved", action="invalidate_round", key="supervisor", rule="16.4"),
        at(5, "panel.refused", action="invalidate_round", key="dealer", rule="16.4"),
    ]
    ig = integrity(PERIOD, events, [])
    assert ig.keys == {"supervisor": {"open_table": 1, "invalidate_round": 1},
                       "dealer": {"no_more_bets": 1, "misdeal": 1}}
    assert ig.irregularities == {"14.1 misdeal": 1, "16.4 invalidate round": 1}
    assert ig.refusals == {"dealer": {"invalidate_round (16.4)": 1}}


def test_the_integrity_report_reads_no_input():
    events = [at(1, "panel", action="invalidate_round", key="supervisor"),
              at(2, "panel.button", button="misdeal", key="dealer"),
              at(3, "shuffler.fault", fault="jam", deck="A")]
    ig = integrity(PERIOD, events, [])
    assert ig.keys == {} and ig.irregularities == {}


def test_an_inspectors_approval_by_button_counts_in_its_14_13_period():
    events = [at(10, "fault.raised", equipment="pool", rule="14.13", reason="link lost"),
              at(12.01, "panel.approved", action="approve_play", key="inspector", rule="14.13"),
              at(40, "fault.cleared", equipment="pool")]
    (stop,) = integrity(PERIOD, events, []).stops
    assert stop.approvals == 1 and (stop.start_us, stop.end_us) == (10 * MINUTE, 40 * MINUTE)


def test_a_closure_stands_from_its_notice_to_the_table_opened_again_16_8():
    events = [at(100.01, "panel.approved", action="announce_closure", key="supervisor", rule="16.8", minutes=20),
              at(110, "panel.approved", action="open_table", key="supervisor", rule="16.8"),  # still open: no effect
              at(200.01, "panel.approved", action="open_table", key="supervisor", rule="16.8"),
              at(500, "panel.approved", action="announce_closure", key="supervisor", rule="16.8", minutes=30)]
    first, second = integrity(PERIOD, events, []).closures
    assert (first.closes_us, first.opened_us) == (int(100.01 * MINUTE) + 20 * MINUTE, int(200.01 * MINUTE))
    assert abs(first.minutes - 80) < 1e-9
    assert second.opened_us is None and second.closes_us == 530 * MINUTE and second.minutes == 70


def test_a_closure_outside_the_period_is_left_out():
    events = [at(700, "panel.approved", action="announce_closure", key="supervisor", rule="16.8", minutes=20)]
    assert integrity(PERIOD, events, []).closures == []


def test_the_shuffle_watchs_alarms_are_irregularities_under_15_1_and_15_2():
    events = [at(1, "shuffle.alarm", deck="A", rule="15.1", why="2 rising sequences"),
              at(2, "shuffle.fault", fault="jam", deck="A", rule="15.1"),
              at(3, "shuffle.alarm", deck="B", rule="15.2", why="2 rising sequences")]
    assert integrity(PERIOD, events, []).irregularities == {
        "15.1 shuffle alarm, not intermixing: deck reshuffled": 1,
        "15.1 shuffling device fault: jam": 1,
        "15.2 shuffle alarm, not intermixing: device out of play": 1}


def test_a_device_out_of_play_is_a_fault_until_the_inspector_clears_it_not_a_14_13_stop_15_2():
    events = [at(30, "device.out_of_play", device="shuffler", rule="15.2", reason="not intermixing"),
              at(50, "panel.approved", action="clear_device", key="inspector", rule="15.2"),
              at(50.01, "device.cleared", device="shuffler", rule="15.2"),
              at(590, "device.out_of_play", device="shuffler", rule="15.2", reason="not intermixing")]
    ig = integrity(PERIOD, events, [])
    first, second = ig.faults
    assert (first.equipment, first.rule, first.reason) == ("shuffler out of play", "15.2", "not intermixing")
    assert abs(first.minutes - 20.01) < 1e-9
    assert second.cleared_us is None and abs(second.minutes - 10) < 1e-9  # still out at the period's end
    assert ig.stops == []  # play may go on with the shoe: not a 14.13 stop


def test_the_clocks_offsets_and_error_conditions_of_the_period_mississippi_8_4_5():
    from tabled.reports.render import clock_line
    events = [
        at(-5, "clock.offset", offset_ms=900, against="central", bound_ms=1000, ok=True),  # before the period
        at(1, "clock.offset", offset_ms=-4, against="central", bound_ms=1000, ok=True),
        at(61, "clock.offset", offset_ms=1200, against="central", bound_ms=1000, ok=False),
        at(61, "clock.fault", standing=True, reason="the clock is +1200 ms off the central database's clock"),
        at(121, "clock.offset", offset_ms=3, against="ntp", bound_ms=1000, ok=True),
        at(121, "clock.fault", standing=False, reason="the clock is +1200 ms off the central database's clock"),
    ]
    clock = integrity(PERIOD, events, []).clock
    assert (clock.measured, clock.least_ms, clock.most_ms, clock.beyond) == (3, -4, 1200, 1)
    assert clock_line(clock) == ("clock: 3 offsets measured against central, ntp, -4 to +1200 ms, 1 beyond the "
                                 "bound; error conditions: the clock is +1200 ms off the central database's clock")
    assert clock_line(integrity(PERIOD, [], []).clock) == "clock: no offset measured in the period"


def test_installs_and_restarts_after_an_unclean_stop_of_the_period_25_cfr_547_12():
    events = [at(3, "software.install", what="upgrade", result="installed", version="1.4.0", by="ops-lee",
                 started="2026-12-03T07:00:00Z", ended="2026-12-03T07:02:10Z", manifest_sha256="ab" * 32),
              at(9, "power.restored", last_seq=41, down_s=95, clean_stop=False)]
    ig = integrity(PERIOD, events, [])
    assert ig.installs == [{"what": "upgrade", "result": "installed", "version": "1.4.0", "started":
                            "2026-12-03T07:00:00Z", "ended": "2026-12-03T07:02:10Z", "by": "ops-lee",
                            "manifest_sha256": "ab" * 32}]
    assert ig.restarts == [{"at_us": 9 * MINUTE, "last_seq": 41, "down_s": 95}]

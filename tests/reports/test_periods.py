"""The gaming day and its shifts partition time: every instant, and so every round, is in exactly
one day and one shift of it, whatever the zone, the day's start and the shifts."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.reports.figures import report
from tabled.reports.periods import Calendar, CalendarError, parse_clock
from tabled.reports.rounds import gather

ZONES = ["UTC", "Australia/Sydney", "America/New_York", "Europe/London", "Pacific/Auckland", "Asia/Kolkata"]
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# 2025 and 2026: every change of clocks of these zones in two years
INSTANTS = st.integers((datetime(2025, 1, 1, tzinfo=UTC) - EPOCH) // timedelta(microseconds=1),
                       (datetime(2027, 1, 1, tzinfo=UTC) - EPOCH) // timedelta(microseconds=1))
CLOCKS = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45]))


@st.composite
def calendars(draw) -> Calendar:
    zone = ZoneInfo(draw(st.sampled_from(ZONES)))
    return Calendar.of(zone, draw(CLOCKS), tuple(draw(st.lists(CLOCKS, max_size=4))))


@settings(max_examples=300, deadline=None)
@given(calendars(), INSTANTS)
def test_an_instant_is_in_one_day_and_one_shift_of_it(cal, instant):
    day = cal.gaming_day(instant)
    assert cal.day(day).holds(instant)
    assert not cal.day(day - timedelta(days=1)).holds(instant)
    assert not cal.day(day + timedelta(days=1)).holds(instant)
    holding = [s for s in cal.shifts(day) if s.holds(instant)]
    assert holding == [cal.shift_of(instant)]


@settings(max_examples=100, deadline=None)
@given(calendars(), INSTANTS)
def test_the_shifts_cover_the_day_end_to_end(cal, instant):
    day = cal.gaming_day(instant)
    whole = cal.day(day)
    shifts = cal.shifts(day)
    assert shifts[0].start_us == whole.start_us and shifts[-1].end_us == whole.end_us
    assert all(a.end_us == b.start_us for a, b in zip(shifts, shifts[1:]))
    assert cal.day(day + timedelta(days=1)).start_us == whole.end_us


class Started:
    """A ``round.started`` record as the journal holds it."""

    def __init__(self, seq: int, time_us: int):
        self.seq, self.time_us, self.round_id = seq, time_us, f"T01-{seq:06d}"
        self.kind, self.payload = "round.started", {"progressive_offline": False}


@settings(max_examples=60, deadline=None)
@given(calendars(), st.lists(INSTANTS, min_size=1, max_size=40))
def test_no_round_is_in_two_shifts_or_none(cal, instants):
    gathered = gather(Started(i + 1, t) for i, t in enumerate(sorted(instants)))
    days = sorted({cal.gaming_day(t) for t in instants})
    in_shifts = [rid for d in days for s in cal.shifts(d) for rid in report(s, gathered, _no_profile).round_ids]
    in_days = [rid for d in days for rid in report(cal.day(d), gathered, _no_profile).round_ids]
    assert sorted(in_shifts) == sorted(in_days) == sorted(gathered.rounds)


def _no_profile(name):
    raise AssertionError("rounds without a settlement need no profile")


def test_a_round_belongs_to_the_shift_in_which_it_started():
    cal = Calendar.of(ZoneInfo("Australia/Sydney"), time(6), (time(14), time(22)))
    at = datetime(2026, 11, 30, 5, 59, tzinfo=ZoneInfo("Australia/Sydney"))  # before 06:00: the day before
    us = (at - EPOCH) // timedelta(microseconds=1)
    assert cal.gaming_day(us) == date(2026, 11, 29)
    assert cal.shift_of(us).shift == 3
    assert cal.shift_of(us + 60_000_000).shift == 1  # 06:00: the next gaming day's first shift
    assert cal.shift_of(us + 60_000_000).day == date(2026, 11, 30)


def test_shifts_default_to_three_of_eight_hours_from_the_day_start():
    cal = Calendar.of(ZoneInfo("UTC"), time(4, 30))
    assert cal.shift_starts == (time(4, 30), time(12, 30), time(20, 30))


@pytest.mark.parametrize("text", ["25:00", "6pm", "06:00+10:00", ""])
def test_a_clock_that_is_not_a_time_of_day_is_refused(text):
    with pytest.raises(CalendarError, match="--shifts"):
        parse_clock(text, "--shifts")


def test_a_shift_start_the_clocks_skip_still_partitions_the_day():
    sydney = ZoneInfo("Australia/Sydney")
    cal = Calendar.of(sydney, time(6), (time(2, 30),))  # 2026-10-04: 02:00 AEST becomes 03:00 AEDT
    day = date(2026, 10, 3)
    first, second = cal.shifts(day)
    assert first.end_us == second.start_us and second.end_us == cal.day(day).end_us
    starts = datetime.fromtimestamp(second.start_us / 1e6, sydney)
    assert (starts.hour, starts.minute, starts.utcoffset()) == (3, 30, timedelta(hours=11))
    assert (second.end_us - second.start_us) / 3.6e9 == 2.5  # 03:30 to 06:00


def test_a_shift_start_the_clocks_repeat_is_its_first_occurrence():
    sydney = ZoneInfo("Australia/Sydney")
    cal = Calendar.of(sydney, time(6), (time(2, 30),))  # 2026-04-05: 03:00 AEDT becomes 02:00 AEST
    first, second = cal.shifts(date(2026, 4, 4))
    starts = datetime.fromtimestamp(second.start_us / 1e6, sydney)
    assert (starts.hour, starts.minute, starts.utcoffset()) == (2, 30, timedelta(hours=11))
    assert (second.end_us - second.start_us) / 3.6e9 == 4.5  # 02:30 AEDT to 06:00 AEST

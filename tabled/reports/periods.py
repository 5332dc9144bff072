"""The casino's calendar: the gaming day and its shifts, in the casino's time zone.

A gaming day starts at a wall-clock time (06:00 by default) and runs to the same time the next
day; it is named by the date on which it starts. Shifts divide it at wall-clock times, the first
at the day's start. A round belongs to the shift, and the day, in which it started. Periods are spans of
instants, each ending where the next begins, so each instant falls in exactly one day and one
shift of it (:meth:`Calendar.shift_of`), whatever the clocks do on the days they change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

DAY = timedelta(days=1)


class CalendarError(ValueError):
    """A day start, shift boundary or period that cannot be used."""


@dataclass(frozen=True, order=True)
class Period:
    """A gaming day (``shift`` None) or one shift of it; ``start_us`` to ``end_us`` (excluded)."""

    start_us: int
    end_us: int
    day: date | None  # None: a range of time, not a gaming day
    shift: int | None
    name: str

    def holds(self, instant_us: int) -> bool:
        return self.start_us <= instant_us < self.end_us


def parse_clock(text: str, what: str) -> time:
    """``'06:00'`` -> 06:00; a clear error naming ``what`` otherwise."""
    try:
        parsed = time.fromisoformat(text)
    except (TypeError, ValueError):
        raise CalendarError(f"{what}: {text!r} is not a time of day like 06:00") from None
    if parsed.tzinfo is not None:
        raise CalendarError(f"{what}: {text!r}: give the time without a zone (the zone is --tz)")
    return parsed


def _since(t: time, start: time) -> timedelta:
    """How long after ``start`` the wall clock shows ``t`` (wrapping past midnight)."""
    a = timedelta(hours=t.hour, minutes=t.minute, seconds=t.second, microseconds=t.microsecond)
    b = timedelta(hours=start.hour, minutes=start.minute, seconds=start.second, microseconds=start.microsecond)
    return (a - b) % DAY


@dataclass(frozen=True)
class Calendar:
    zone: tzinfo
    shift_starts: tuple[time, ...]  # the first is the gaming day's start; in wall-clock order from it

    def __post_init__(self) -> None:
        if not self.shift_starts:
            raise CalendarError("a gaming day has at least one shift")
        offsets = [_since(t, self.day_start) for t in self.shift_starts]
        if any(b <= a for a, b in zip(offsets, offsets[1:])):
            shown = ", ".join(t.isoformat("minutes") for t in self.shift_starts)
            raise CalendarError(f"shifts {shown}: each shift starts after the one before it, within the gaming "
                                f"day that starts at {self.day_start.isoformat('minutes')}")

    @classmethod
    def of(cls, zone: tzinfo, day_start: time, shift_starts: tuple[time, ...] = ()) -> Calendar:
        """Shifts from ``shift_starts`` in any order (the day's start is one of them, added when
        left out); three eight-hour shifts when none are given."""
        starts = set(shift_starts) or {(datetime.combine(date(2000, 1, 1), day_start) + i * timedelta(hours=8)).time()
                                       for i in range(3)}
        starts.add(day_start)
        return cls(zone, tuple(sorted(starts, key=lambda t: _since(t, day_start))))

    @property
    def day_start(self) -> time:
        return self.shift_starts[0]

    def local(self, instant_us: int) -> datetime:
        return datetime.fromtimestamp(instant_us / 1_000_000, UTC).astimezone(self.zone)

    def _instant_us(self, day: date, offset: timedelta) -> int:
        wall = datetime.combine(day, self.day_start) + offset
        moment = wall.replace(tzinfo=self.zone).astimezone(UTC)
        return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)

    def _bounds(self, day: date) -> list[int]:
        """The instants at which the day's shifts start, and the day's end. Taken from the wall
        clock (a time the clocks skip is read with the offset before the change, one they repeat
        is its first occurrence), then made non-decreasing and kept within the day, so that the
        shifts partition the day whatever the clocks do."""
        offsets = [_since(t, self.day_start) for t in self.shift_starts]
        end = self._instant_us(day + DAY, timedelta())
        raw = [self._instant_us(day, offset) for offset in offsets]
        out, highest = [], raw[0]
        for instant in raw:
            highest = max(highest, instant)
            out.append(min(highest, end))
        return out + [end]

    def gaming_day(self, instant_us: int) -> date:
        here = self.local(instant_us)
        guess = here.date() if here.time().replace(tzinfo=None) >= self.day_start else here.date() - DAY
        for day in (guess, guess - DAY, guess + DAY):
            if self.day(day).holds(instant_us):
                return day
        raise CalendarError(f"no gaming day holds the instant {instant_us}")  # cannot happen: days are contiguous

    def shift_number(self, instant_us: int) -> int:
        """1 for the first shift of the day."""
        bounds = self._bounds(self.gaming_day(instant_us))
        return max(i for i in range(len(self.shift_starts)) if bounds[i] <= instant_us) + 1

    def day(self, day: date) -> Period:
        return Period(self._instant_us(day, timedelta()), self._instant_us(day + DAY, timedelta()), day, None,
                      f"gaming day {day.isoformat()}")

    def shift(self, day: date, number: int) -> Period:
        if not 1 <= number <= len(self.shift_starts):
            raise CalendarError(f"no shift {number}: the gaming day has shifts 1 to {len(self.shift_starts)}")
        bounds = self._bounds(day)
        begins, ends = self.shift_starts[number - 1], self.shift_starts[number % len(self.shift_starts)]
        return Period(bounds[number - 1], bounds[number], day, number,
                      f"gaming day {day.isoformat()} shift {number} "
                      f"({begins.isoformat('minutes')}-{ends.isoformat('minutes')})")

    def shifts(self, day: date) -> list[Period]:
        return [self.shift(day, n) for n in range(1, len(self.shift_starts) + 1)]

    def shift_of(self, instant_us: int) -> Period:
        return self.shift(self.gaming_day(instant_us), self.shift_number(instant_us))

    def days(self, first: date, last: date) -> list[date]:
        if last < first:
            raise CalendarError(f"--to {last.isoformat()} is before --from {first.isoformat()}")
        return [first + i * DAY for i in range((last - first).days + 1)]


def range_period(start_us: int, end_us: int, name: str) -> Period:
    if end_us <= start_us:
        raise CalendarError(f"{name}: the end is not after the start")
    return Period(start_us, end_us, None, None, name)

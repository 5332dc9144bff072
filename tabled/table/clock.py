"""The table's clock, which time-stamps every record: measured against the central PostgreSQL's
clock (or, without one, read from the system's NTP discipline) at start and at an interval
(tabled/daemon/clock.py), each measurement a journaled input judged here.

Every significant event and configuration change is time-stamped by a clock kept in step at least
every 24 hours (13 Miss. Code R. 8-4.5). So an offset beyond the configured bound is an error
condition, and so is no successful measurement for 24 hours; the next measurement within the bound
clears it. It is shown on the dealer's screen, the pit and the floor, and does not stop new rounds:
the clock decides nothing of a round (the journal orders records by their sequence, never by their
time), so it is not a malfunction of the equipment of rules 2.3 and 2.4.3 (14.13).

Input: ``clock.measured`` (offset_ms: int or null, against: central | ntp, bound_ms: int, ntp:
the system's NTP state, error: why none was measured). Notes: ``clock.offset`` for each offset
measured (offset_ms, against, bound_ms, ok), ``clock.fault`` when the error condition begins
(standing true, reason) or ends (standing false).
"""

from __future__ import annotations

from typing import Any

from tabled.table.effects import Effect, Note, Say

INPUT = "clock.measured"
AGAINST = ("central", "ntp")
#: no successful measurement for this long is an error condition (Mississippi 8-4.5: every 24 hours)
STALE_MS = 24 * 3600 * 1000
#: the requirement the condition answers, shown beside it
REQUIREMENT = "Miss. 8-4.5"


class ClockWatch:
    """The last successful measurement (when, ms), the first attempt (the start of the 24 hours when
    none succeeded yet) and the standing error condition's reason (None: none stands)."""

    def __init__(self) -> None:
        self.last_ok_ms: int | None = None
        self.first_ms: int | None = None
        self.fault: str | None = None
        self.fault_since_ms: int | None = None

    def __bool__(self) -> bool:
        return self.first_ms is not None

    def take(self, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        offset, against, bound = p.get("offset_ms"), str(p.get("against")), p.get("bound_ms")
        if not isinstance(bound, int) or isinstance(bound, bool) or bound <= 0 \
                or (offset is not None and (not _whole(offset) or against not in AGAINST)):
            return [Say(f"clock measurement {p!r}: bound_ms must be a whole number above 0, offset_ms a whole "
                        f"number or null, against one of {', '.join(AGAINST)}", level="refused")]
        if self.first_ms is None:
            self.first_ms = now
        if offset is None:
            since = self.last_ok_ms if self.last_ok_ms is not None else self.first_ms
            unmeasured_ms = now - since
            if unmeasured_ms < STALE_MS:
                return []
            return self._raise(f"no successful clock measurement for {unmeasured_ms // 3_600_000} h: "
                               f"{p.get('error') or 'no answer'}", now, round_id)
        ok = abs(offset) <= bound
        note = Note("clock.offset", {"offset_ms": offset, "against": against, "bound_ms": bound, "ok": ok,
                                     "ntp": p.get("ntp"), "round_trip_ms": p.get("round_trip_ms")}, round_id)
        if not ok:
            return [note, *self._raise(f"the clock is {offset:+d} ms off the {_name(against)} "
                                       f"(at most {bound} ms)", now, round_id)]
        self.last_ok_ms = now
        if self.fault is None:
            return [note]
        reason, self.fault, self.fault_since_ms = self.fault, None, None
        return [note, Say(f"clock within {bound} ms of the {_name(against)} again ({offset:+d} ms)", rule=REQUIREMENT),
                Note("clock.fault", {"standing": False, "reason": reason, "offset_ms": offset}, round_id)]

    def _raise(self, reason: str, now: int, round_id: str | None) -> list[Effect]:
        standing, self.fault = self.fault, reason
        if standing is not None:
            return []  # it stands already: the screen shows the latest reason, the offsets are noted
        self.fault_since_ms = now
        return [Say(f"clock error: {reason}: notify the technician; play goes on", rule=REQUIREMENT, level="flag"),
                Note("clock.fault", {"standing": True, "reason": reason}, round_id)]

    def snapshot(self) -> dict[str, Any]:
        return {"last_ok_ms": self.last_ok_ms, "first_ms": self.first_ms, "fault": self.fault,
                "fault_since_ms": self.fault_since_ms}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> ClockWatch:
        made = cls()
        if snap:
            made.last_ok_ms, made.first_ms = snap.get("last_ok_ms"), snap.get("first_ms")
            made.fault, made.fault_since_ms = snap.get("fault"), snap.get("fault_since_ms")
        return made


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(against: str) -> str:
    return "central database's clock" if against == "central" else "NTP time"


__all__ = ["ClockWatch", "INPUT", "AGAINST", "STALE_MS", "REQUIREMENT"]

"""The table's hours and its sign: open or closing (16.8), the posted limits and the changes
announced to them (6.1, 6.2), and the seats whose players keep abstaining (16.9).

* 16.8: a supervisor opens the table; a closure takes effect at least 20 minutes after it is
  announced (sign displayed), at the start of the first round due after it.
* 6.2: a higher minimum takes effect at least 20 minutes after it is announced; a lower one, and
  a new maximum, from the next round.
* 16.9: a player who abstains three rounds in a row while every other seat is in use may be
  asked to leave the seat: the dealer is told, and decides.

Checkpoint section ``hours`` (version :data:`VERSION`); :func:`upcast` reads a checkpoint written
before the section existed (the same fields at its top level).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from tabled.game import seats
from tabled.game.limits import NOTICE_MS, Limits, check_notice, dollars
from tabled.table.checkpoint import CheckpointError
from tabled.table.effects import Effect, Say

VERSION = 1
MINUTE_MS = 60_000


def clock_text(t_ms: int) -> str:
    return datetime.fromtimestamp(t_ms / 1000, UTC).strftime("%H:%M:%S UTC")


def notice_minutes(minutes: Any) -> int:
    if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes < 0:
        raise ValueError(f"minutes={minutes!r}: a whole number of minutes from now is needed")
    return minutes


@dataclass
class Hours:
    limits: Limits
    is_open: bool = False
    closing_at: int | None = None                        # 16.8
    pending_minimum: tuple[int, int] | None = None       # (cents, effective ms) 6.2
    abstained: dict[int, int] = field(default_factory=dict)  # 16.9: spot -> rounds in a row

    # -- between rounds ----------------------------------------------------------------------------

    def next_round(self, now: int) -> tuple[bool, list[Effect]]:
        """Whether a round may open now (16.8), and the announced minimum taking effect (6.2)."""
        if not self.is_open:
            return False, []
        if self.closing_at is not None and now >= self.closing_at:
            self.is_open, self.closing_at = False, None
            return False, [Say("table closed", rule="16.8")]
        if self.pending_minimum and now >= self.pending_minimum[1]:
            cents = self.pending_minimum[0]
            self.limits = replace(self.limits, minimum_cents=cents)
            self.pending_minimum = None
            return True, [Say(f"table minimum now {dollars(cents)}", rule="6.2")]
        return True, []

    def after_round(self, spots: int, wagering: list[int]) -> list[Effect]:
        """16.9: the seats whose players keep abstaining while every other seat is in use."""
        self.abstained, flagged = seats.after_round(self.abstained, spots, wagering)
        return [Say(f"spot {spot} has not wagered for {self.abstained[spot]} rounds while every "
                    "other seat is in use: the seat may be required", spot, "16.9", "flag") for spot in flagged]

    # -- the supervisor's actions ----------------------------------------------------------------------

    def open_table(self) -> list[Effect]:
        if self.is_open:
            return [Say("the table is already open", level="refused")]
        self.is_open, self.closing_at = True, None
        return [Say("table open", rule="16.8")]

    def _notice_end(self, now: int, minutes: Any, at_ms: int | None) -> int:
        """When an announced change takes effect: ``minutes`` after this input's own journal time
        (``at_ms``: an absolute time, as journals written before ``minutes`` hold it)."""
        if minutes is None and at_ms is not None:
            return at_ms
        return now + notice_minutes(NOTICE_MS // MINUTE_MS if minutes is None else minutes) * MINUTE_MS

    def announce_closure(self, now: int, minutes: int | None = None, at_ms: int | None = None) -> list[Effect]:
        """16.8: the table closes at least 20 minutes after the closure is announced (sign displayed)."""
        if minutes is None and at_ms is None:
            raise ValueError("a closure needs the minutes until it takes effect")
        at = self._notice_end(now, minutes, at_ms)
        breach = check_notice(now, at, "16.8")
        if breach:
            return [Say(f"closure refused: {breach.message}", rule=breach.rule, level="refused")]
        self.closing_at = at
        return [Say(f"table closes at {clock_text(at)}, {(at - now) // MINUTE_MS} minutes from now "
                    "(sign displayed)", rule="16.8")]

    def announce_minimum(self, now: int, cents: int, minutes: int | None = None,
                         at_ms: int | None = None) -> list[Effect]:
        """6.2: a higher minimum takes effect at least 20 minutes after it is announced (by default
        at the earliest the 20 minutes allow); a lower one from the next round."""
        if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
            raise ValueError(f"cents={cents!r}: a minimum is a whole number of cents above 0")
        if cents > self.limits.minimum_cents:
            at = self._notice_end(now, minutes, at_ms)
            breach = check_notice(now, at, "6.2")
            if breach:
                return [Say(f"minimum raise refused: {breach.message}", rule="6.2", level="refused")]
            self.pending_minimum = (cents, at)
            return [Say(f"minimum rises to {dollars(cents)} at {clock_text(at)}, {(at - now) // MINUTE_MS} "
                        "minutes from now (sign displayed)", rule="6.2")]
        # a lower minimum may be set at any time (6.2); it applies from the next round
        self.pending_minimum = (cents, now)
        return [Say(f"minimum {dollars(cents)} from the next round", rule="6.2")]

    def set_maximum(self, cents: int) -> list[Effect]:
        """6.2: the maximum posted on the sign, from the next round."""
        self.limits = replace(self.limits, maximum_cents=cents)
        return [Say(f"maximum {dollars(cents)}", rule="6.2")]

    # -- checkpoint ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"v": VERSION, "limits": vars(self.limits).copy(), "is_open": self.is_open,
                "closing_at": self.closing_at,
                "pending_minimum": list(self.pending_minimum) if self.pending_minimum else None,
                "abstained": {str(k): v for k, v in self.abstained.items()}}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> Hours:
        """The ``hours`` section, or the older flat checkpoint's fields (:func:`upcast`)."""
        section = snap["hours"] if "hours" in snap else upcast(snap)
        if section.get("v") != VERSION:
            raise CheckpointError(f"hours section version {section.get('v')!r}: this table reads {VERSION}")
        pending = section["pending_minimum"]
        return cls(Limits(**section["limits"]), section["is_open"], section["closing_at"],
                   (pending[0], pending[1]) if pending else None,
                   {int(k): v for k, v in section["abstained"].items()})


def upcast(flat: dict[str, Any]) -> dict[str, Any]:
    """The ``hours`` section of a checkpoint written with the table's fields at its top level."""
    return {"v": VERSION, **{k: flat[k] for k in ("limits", "is_open", "closing_at", "pending_minimum", "abstained")}}


__all__ = ["Hours", "VERSION", "clock_text", "notice_minutes", "upcast"]

"""The enclosures' doors: the table PC's (and the pool server's, where its switch is wired to the
panel's input, docs/protocols-usb.md). Entry to a logic area is reported at once (13 Miss. Code R.
8-2.8; Michigan R 432.1841): each door opened and closed is journaled with the people signed in at
the panel; an open door stops new rounds (the equipment is not as approved while it is open, 14.13),
and after it closes play waits for the inspector's APPROVE, which acknowledges it. The round in play
may finish.

Input: ``enclosure.door`` (door: table_pc | pool_server, open: bool).
"""

from __future__ import annotations

from typing import Any

from tabled.table.effects import Effect, Note, Say

INPUT = "enclosure.door"
DOORS = {"table_pc": "table PC enclosure", "pool_server": "pool server enclosure"}
RULE = "14.13"


class Enclosures:
    """Each door open (since when, ms) or closed and waiting for the inspector's acknowledgement."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}
        self.closed_unacknowledged: dict[str, int] = {}

    def __bool__(self) -> bool:
        return bool(self.open or self.closed_unacknowledged)

    @property
    def blocks_new_rounds(self) -> bool:
        return bool(self)

    def take(self, p: dict[str, Any], now: int, signed_in: dict[str, Any], round_id: str | None) -> list[Effect]:
        door, is_open = p.get("door"), p.get("open")
        if door not in DOORS or not isinstance(is_open, bool):
            return [Say(f"enclosure door input {p!r}: door must be one of {', '.join(DOORS)}, open true or false",
                        level="refused")]
        people = {"signed_in": signed_in}
        if is_open:
            if door in self.open:
                return []
            self.open[door] = now
            self.closed_unacknowledged.pop(door, None)
            return [Say(f"{DOORS[door]} door OPEN: no new round until it is closed and the inspector approves",
                        rule=RULE, level="flag"),
                    Note("enclosure.opened", {"door": door, "rule": RULE, **people}, round_id)]
        if door not in self.open:
            return []
        since = self.open.pop(door)
        self.closed_unacknowledged[door] = now
        return [Say(f"{DOORS[door]} door closed: the inspector's APPROVE lets play go on", rule=RULE),
                Note("enclosure.closed", {"door": door, "open_ms": now - since, "rule": RULE, **people}, round_id)]

    def acknowledge(self, person: str | None, round_id: str | None) -> list[Effect]:
        """The inspector's APPROVE: acknowledges each door closed; an open one stays a stop."""
        effects: list[Effect] = []
        for door in sorted(self.closed_unacknowledged):
            del self.closed_unacknowledged[door]
            effects += [Say(f"{DOORS[door]} door acknowledged by the inspector", rule=RULE),
                        Note("enclosure.acknowledged", {"door": door, "by": person, "rule": RULE}, round_id)]
        if self.open:
            effects.append(Say(f"{', '.join(DOORS[d] for d in sorted(self.open))} door still open: close it first",
                               rule=RULE, level="refused"))
        return effects

    def snapshot(self) -> dict[str, Any]:
        return {"open": dict(self.open), "closed_unacknowledged": dict(self.closed_unacknowledged)}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> Enclosures:
        made = cls()
        if snap:
            made.open = {str(k): int(v) for k, v in (snap.get("open") or {}).items()}
            made.closed_unacknowledged = {str(k): int(v) for k, v in (snap.get("closed_unacknowledged") or {}).items()}
        return made


__all__ = ["Enclosures", "INPUT", "DOORS", "RULE"]

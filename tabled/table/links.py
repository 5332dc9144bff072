"""The devices' links as the table sees them, and what a lost or returned link means (14.13).

The adapter journals ``device.link`` {device, up, reason} when a driver's link comes up or is
lost. The bet-spot board records the progressive wagers (2.3) and the meter displays the pool
(2.4.3): they are the electronic equipment of 14.13, so losing either one's link is a fault for an
inspector. While it stands the table opens no round before an inspector approves play; when the
device works again (its link is back, or the meter says its own fault is over) the fault clears by
itself once an inspector has approved play, and stands until one comes otherwise. The shuffling
device's link is not itself a fault: what it lost is judged from what it reports when it is back
(tabled/table/cardsource.py). The shoe and the panel are not equipment of 2.3 / 2.4.3.
"""

from __future__ import annotations

from typing import Any

DEVICES = ("shuffler", "betspots", "meter", "shoe", "panel")
#: the electronic equipment of 14.13: the board records the progressive wagers (2.3), the meter
#: displays the pool (2.4.3)
EQUIPMENT = ("meter", "betspots")


def read_link(p: dict[str, Any]) -> tuple[str, bool, str]:
    """A ``device.link`` input's (device, up, reason); a clear error for anything else."""
    device, up, reason = p["device"], p["up"], p.get("reason", "")
    if device not in DEVICES:
        raise ValueError(f"device={device!r}: not one of {', '.join(DEVICES)}")
    if not isinstance(up, bool):
        raise ValueError(f"up={up!r}: true or false")
    if not isinstance(reason, str):
        raise ValueError(f"reason={reason!r}: words")
    return device, up, reason


class Links:
    """Which devices' links are lost, and why. A device never reported lost counts as up: a
    journal without ``device.link`` inputs folds as before they existed."""

    def __init__(self) -> None:
        self.lost: dict[str, str] = {}

    @classmethod
    def restored(cls, faults: dict[str, str]) -> Links:
        """After a checkpoint (which does not hold the links): equipment whose 14.13 fault stands
        counts as lost, so the table hears it when it is back."""
        links = cls()
        links.lost = {d: reason for d, reason in faults.items() if d in EQUIPMENT}
        return links

    def is_up(self, device: str) -> bool:
        return device not in self.lost

    def set(self, device: str, up: bool, reason: str) -> None:
        if up:
            self.lost.pop(device, None)
        else:
            self.lost[device] = reason or "lost"


def equipment_verdict(device: str, up: bool, faults: dict[str, str], approved: bool) -> str | None:
    """14.13 for a link that changed: "fault" when equipment is lost (unless its fault stands
    already), "clear" when it is back while an inspector's approval is in force, else None."""
    if device not in EQUIPMENT:
        return None
    if not up:
        return None if device in faults else "fault"
    return "clear" if device in faults and approved else None


def working_again(device: str, faults: dict[str, str], approved: bool) -> bool:
    """14.13: equipment that works again clears its fault only with an inspector's approval in force."""
    return device in EQUIPMENT and device in faults and approved

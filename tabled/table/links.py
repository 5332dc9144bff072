"""The devices' links as the table sees them, and what a lost or returned link means (14.13).

The adapter journals ``device.link`` {device, up, reason} when a driver's link comes up or is
lost. The bet-spot board records the progressive wagers (2.3) and the meter displays the pool
(2.4.3): they are the electronic equipment of 14.13, so losing either one's link is a fault for an
inspector. While it stands the table opens no round before an inspector approves play; when the
device works again (its link is back, or the meter says its own fault is over) the fault clears by
itself once an inspector has approved play, and stands until one comes otherwise. The shuffling
device's link is not itself a fault: what it lost is judged from what it reports when it is back
(tabled/table/cardsource.py). The shoe and the panel are not equipment of 2.3 / 2.4.3.

A device the round in play depends on is watched whatever it is: its link lost while the round
needs it is a standing fault for the dealer (:func:`lost_while_needed`), until the link is back.
The shuffling device or the shoe is needed while the round is dealing from it, the bet-spot board
while wagers are open or being settled, the panel at all times (every key acts through it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabled.table.phase import Phase
from tabled.game.keys import Key, required
# EQUIPMENT, the electronic equipment of 14.13: the board records the progressive wagers (2.3), the
# meter displays the pool (2.4.3)
from tabled.table.names import DEVICES as WIRED, EQUIPMENT

#: the links the fold watches: every device, and the player card reader (ratings)
DEVICES = (*WIRED, "cards")


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


#: the round's phases in which the bet-spot board reads wagers that are open (ante and progressive
#: while betting, 7.2.1; the bet while players decide, 8.5) or being settled (9.3, 9.4)
WAGERS_OPEN = (Phase.BETTING, Phase.DECIDING)
WAGERS_SETTLED = (Phase.REVEALED, Phase.SETTLING)


@dataclass(frozen=True)
class LostLink:
    """A device lost while the round needs it: what the dealer reads, the rule, what the dealer
    does and the key positions that must act."""

    device: str
    what: str
    rule: str
    dealer_does: str
    keys: frozenset[Key]


def _lost(device: str, what: str, rule: str, does: str, action: str) -> LostLink:
    return LostLink(device, what, rule, does, required(action)[0])


def lost_while_needed(links: Links, phase: str | None, card_source: str | None) -> list[LostLink]:
    """The devices whose link is lost while the round in play (its ``phase`` and ``card_source``,
    None between rounds) needs them, in the order of :data:`DEVICES`."""
    out: list[LostLink] = []
    dealing = phase == Phase.DEALING
    if dealing and card_source == "shuffler" and not links.is_up("shuffler"):
        out.append(_lost("shuffler", "shuffling device not answering while dealing", "15.2",
                         "leave the cards dealt where they lie and check the device's cable and power: the deal "
                         "goes on when it is back; if it cannot deliver the hands, void the round (15.2.1)",
                         "invalidate_round"))
    if phase in (*WAGERS_OPEN, *WAGERS_SETTLED) and not links.is_up("betspots"):
        open_ = phase in WAGERS_OPEN
        out.append(_lost("betspots", "bet-spot board not answering while wagers are "
                         + ("open" if open_ else "being settled"), "2.3",
                         "leave every chip where it lies and check the board's cable: the wagers are read "
                         "again when it is back; notify an inspector (14.13)", "approve_play"))
    if dealing and card_source == "shoe" and not links.is_up("shoe"):
        out.append(_lost("shoe", "card-reading shoe not answering while dealing", "7.3",
                         "stop drawing and check the shoe's cable: the deal goes on when it is back; a card "
                         "drawn while it is gone is not read: declare a misdeal (14.1)", "misdeal"))
    if not links.is_up("panel"):
        out.append(LostLink("panel", "dealer's panel not answering: no button or key acts", "1.1",
                            "stop play and check the panel's cable; call a supervisor, who takes charge of the "
                            "table until it is back", frozenset({Key.SUPERVISOR})))
    return out


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

"""The table's equipment: its faults (14.13), the devices' links and the panel's FAULT lamp.

The bet-spot board records the progressive wagers (2.3), the meter displays the pool (2.4.3) and
the pools take the contributions and awards (11.5): a fault of any of them stops new rounds until
an inspector approves play, and play goes on with the progressive offline (14.13). When the
equipment works again its fault clears once an inspector has approved play, and stands until one
comes otherwise (tabled/table/links.py says which link is which).

Checkpoint section ``equipment`` (version :data:`VERSION`): the faults, the approval and the lamp;
the links are rebuilt from the faults. :func:`upcast` reads a checkpoint written before the
section existed (the same fields at the top level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabled.table.board import acceptance
from tabled.table.checkpoint import SKIP, CheckpointError, load_fields, saved_fields
from tabled.table.effects import Effect, MeterShow, Note, PanelLamp, Say
from tabled.table.links import LostLink, Links, equipment_verdict, lost_while_needed, working_again
from tabled.table.names import equipment_name, link_name
from tabled.table.phase import Phase
from tabled.table.round import Round, in_round, shoe_dealing

VERSION = 1
#: a link the shell reports lost, or a port it could not open: the library's words go to the pit
_NOT_ANSWERING = ("link lost", "could not open port", "[Errno", "port closed")


def fault_words(equipment: str, reason: str) -> str:
    """An equipment fault (14.13) in the dealer's words; the reason as the equipment or the
    library gave it goes to the pit (``detail``) and the log."""
    if equipment == "pool":
        if reason.startswith("refused"):
            return "progressive pool refused the table's request: call a supervisor"
        return "progressive pool cannot be reached: check the network to the pool"
    name = equipment_name(equipment)
    if any(sign in reason for sign in _NOT_ANSWERING):
        return f"{name} not answering: check its cable and its power"
    return f"{name} failed: {reason}"


def needing(links: Links, r: Round | None) -> list[LostLink]:
    """The devices lost while the round in play needs them (tabled/table/links.py)."""
    return lost_while_needed(links, str(r.phase) if r is not None else None,
                             r.card_source if r is not None else None)


@dataclass
class Equipment:
    faults: dict[str, str] = field(default_factory=dict)  # 14.13: equipment -> reason (survives restart)
    approved: bool = False                                # 14.13: an inspector approved play
    fault_lamp: str = "OFF"                               # the panel's FAULT lamp as last commanded
    links: Links = field(default_factory=Links, metadata=SKIP)  # rebuilt from the faults

    @property
    def progressive_offline(self) -> bool:
        """14.13: play goes on after an inspector's approval, the progressive offline."""
        return bool(self.faults) and self.approved

    @property
    def blocks_new_rounds(self) -> bool:
        """14.13: no new round while a fault stands without an inspector's approval."""
        return bool(self.faults) and not self.approved

    # -- faults (14.13) ------------------------------------------------------------------------------

    def fault(self, equipment: str, reason: str, round_id: str | None) -> list[Effect]:
        self.faults[equipment] = reason or "failed"
        self.approved = False
        return [Say(f"{fault_words(equipment, reason)}: notify an inspector; the round in play may finish, no new "
                    "round without an inspector's approval", rule="14.13", level="flag"),
                Note("fault.raised", {"equipment": equipment, "reason": reason, "rule": "14.13"}, round_id)]

    def ok(self, equipment: str, r: Round | None, pool_cents: int | None) -> list[Effect]:
        """14.13: the fault clears; the last one cleared brings the progressive back."""
        if self.faults.pop(equipment, None) is None:
            return []
        effects: list[Effect] = [Say(f"{equipment_name(equipment)} working again", rule="14.13"),
                                 Note("fault.cleared", {"equipment": equipment}, r.round_id if r else None)]
        if not self.faults:
            self.approved = False
            effects += self.progressive_back(r, pool_cents)
        return effects

    def back(self, equipment: str, r: Round | None, pool_cents: int | None) -> list[Effect]:
        """Equipment says it works again: with an inspector's approval in force its fault clears
        (14.13); without it the fault stands until the inspector comes."""
        if working_again(equipment, self.faults, self.approved):
            return self.ok(equipment, r, pool_cents)
        if equipment in self.faults:
            return [Say(f"{equipment_name(equipment)} works again: the fault stands until an "
                        "inspector approves play", rule="14.13")]
        return []

    def approve_play(self, pool_cents: int | None) -> list[Effect]:
        """14.13: play continues only after an inspector's approval (progressive locked)."""
        if not self.faults:
            return [Say("no equipment fault to approve", level="refused")]
        self.approved = True
        return [Say("inspector approved play: progressive offline", rule="14.13"),
                MeterShow(pool_cents, self.progressive_offline)]  # the meter says "offline"

    def progressive_back(self, r: Round | None, pool_cents: int | None) -> list[Effect]:
        """14.13 over: the meter shows the pool again and, in a round still taking bets, the board
        accepts progressive wagers again on the spots with an ante (11.1)."""
        effects: list[Effect] = [MeterShow(pool_cents, self.progressive_offline)]
        if r is not None and r.progressive_offline and r.phase in (Phase.PREPARING, Phase.BETTING):
            r.progressive_offline = False
            if r.phase == Phase.BETTING:
                effects += [acceptance(r, s.number) for s in r.spots.values() if s.ante]
        return effects

    # -- links -------------------------------------------------------------------------------------

    def link(self, device: str, up: bool, reason: str, r: Round | None, pool_cents: int | None) -> list[Effect]:
        """A device's link lost or back: 14.13 for the equipment, and a standing fault for the
        dealer while the round in play needs the device (tabled/table/links.py)."""
        was_needed = any(lost.device == device for lost in needing(self.links, r))
        self.links.set(device, up, reason)
        verdict = equipment_verdict(device, up, self.faults, self.approved)
        effects: list[Effect] = []
        if verdict == "fault":
            effects += self.fault(device, f"link lost: {reason}", r.round_id if r else None)
        elif verdict == "clear":
            effects += self.ok(device, r, pool_cents)
        if not up:
            needed = [lost for lost in needing(self.links, r) if lost.device == device]
            if needed:  # the round depends on it: the dealer is told what to do (a standing fault on screen)
                return effects + [Say(f"{needed[0].what}: {needed[0].dealer_does}", rule=needed[0].rule,
                                      level="flag")]
            return effects or [Say(f"{equipment_name(device)}: link lost ({reason})")]
        if was_needed:
            effects.append(Say(f"{link_name(device)} answers again: play goes on"))
        return effects

    # -- the panel's FAULT lamp ----------------------------------------------------------------------

    def lamp(self, r: Round | None, door_open: bool) -> list[Effect]:
        """FAULT flashes while the shoe's deal waits for the dealer (7.3) or the shuffling device's
        door is open in a round (15.2); the lamp is commanded only when that changes."""
        dealing = shoe_dealing(r)
        wanted = "FLASHING" if (dealing is not None and dealing.shoe_trouble()) or (door_open and in_round(r)) \
            else "OFF"
        if wanted == self.fault_lamp:
            return []
        self.fault_lamp = wanted
        return [PanelLamp("FAULT", wanted)]

    # -- checkpoint ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"v": VERSION, **saved_fields(self)}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> Equipment:
        """The ``equipment`` section, or the older flat checkpoint's fields (:func:`upcast`)."""
        section = snap["equipment"] if "equipment" in snap else upcast(snap)
        if section.get("v") != VERSION:
            raise CheckpointError(f"equipment section version {section.get('v')!r}: this table reads {VERSION}")
        eq = load_fields(cls(), section)
        eq.links = Links.restored(eq.faults)
        return eq


def upcast(flat: dict[str, Any]) -> dict[str, Any]:
    """The ``equipment`` section of a checkpoint written with the table's fields at its top level."""
    return {"v": VERSION, "faults": flat["faults"], "approved": flat["approved"],
            "fault_lamp": flat.get("fault_lamp", "OFF")}


__all__ = ["Equipment", "VERSION", "fault_words", "needing", "upcast"]

"""A shuffling device out of play (15.2) until an inspector clears it.

The shuffle watch (tabled/table/shuffles.py) is what takes a device out: alarms repeated of late
say it is not intermixing (15.1) and so no longer operating as intended (15.2). Such a device
reports no fault of its own and looks as it did to the people at the table, so nobody there can
say it is fit again: the supervisor may continue with the card shoe (15.2.2), but only the
inspector's key returns the device to play. A device that fails visibly (it jams for good, loses
the deck in play, answers a hand with DEVICE_FAULT) is the supervisor's to replace, as before:
the fault is its own report, and another device is the remedy 15.2.2 names.

The table cannot tell one device from another (the device sends no identity), so while one is out
"the shuffling device" as the card source is refused, whoever asks: the inspector's clearance
(``clear_device``) is the only way back.

The record is part of the table's state: it is in the checkpoint, and replay rebuilds it from
the journal like the rest of the fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabled.table.checkpoint import load_fields, saved_fields
from tabled.table.effects import Effect, Note, Say

RULE = "15.2"
#: the panel action that returns the device (tabled/game/keys.py), and how the dealer's panel does it
CLEAR_ACTION = "clear_device"
CLEAR_HOW = "APPROVE with the inspector key"


@dataclass
class OutOfPlay:
    """Why the device is out of play, since when, and the deck whose shuffle took it out."""

    reason: str
    since_ms: int
    deck: str | None = None
    rule: str = RULE

    def taken_out(self, round_id: str | None) -> list[Effect]:
        return [Note("device.out_of_play", {"device": "shuffler", "reason": self.reason, "deck": self.deck,
                                            "since_ms": self.since_ms, "rule": self.rule}, round_id),
                Say(f"shuffling device OUT OF PLAY ({self.reason}): an inspector must clear it "
                    f"({CLEAR_HOW}); a supervisor may continue with the card shoe (15.2.2)",
                    rule=self.rule, level="flag")]

    def refusal(self, action: str, key: Any, person: dict[str, Any], round_id: str | None) -> list[Effect]:
        """An action that would bring the device back (:func:`brings_back`), refused with the rule."""
        why = f"the shuffling device is out of play ({self.reason}) until an inspector clears it"
        return [Say(f"{action}: refused: {why} ({CLEAR_HOW})", rule=self.rule, level="refused"),
                Note("panel.refused", {"action": action, "key": key, "rule": self.rule, "reason": why, **person},
                     round_id)]

    def cleared(self, now_ms: int, person: dict[str, Any], round_id: str | None) -> list[Effect]:
        return [Note("device.cleared", {"device": "shuffler", "reason": self.reason, "since_ms": self.since_ms,
                                        "out_minutes": (now_ms - self.since_ms) // 60_000, "rule": self.rule,
                                        **person}, round_id),
                Say("inspector cleared the shuffling device: it may be used again", rule=self.rule)]

    def snapshot(self) -> dict[str, Any]:
        return saved_fields(self)

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> OutOfPlay | None:
        if not snap:
            return None
        return load_fields(cls("", 0), snap)


def brings_back(action: str, fields: dict[str, Any]) -> bool:
    """Whether a panel action would return the shuffling device to play (15.2.2's "another
    device", which the table cannot tell from the one out of play)."""
    return action == "use_card_source" and fields.get("source") == "shuffler"


__all__ = ["OutOfPlay", "RULE", "CLEAR_ACTION", "CLEAR_HOW", "brings_back"]

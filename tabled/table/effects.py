"""What the table does in answer to an event: data, not actions.

The round and the table core are pure: they return these, and the controller (tabled/daemon/controller.py)
carries them out after the event that caused them is durable. Every effect is safe to repeat:
device commands set a state or carry the round id, pool operations are keyed by
(table, round, spot), and a note is written once (recovery re-creates the ones a crash lost).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabled.table.kinds import is_note


@dataclass(frozen=True)
class Say:
    """A line on the dealer's display (and in the log), with the spot and the rule where they apply."""

    text: str
    spot: int | None = None
    rule: str | None = None
    level: str = "info"  # info | flag (the dealer must act) | refused


@dataclass(frozen=True)
class Command:
    """A device command. ``device`` is shuffler | betspots | meter | shoe | panel."""

    device: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PoolOp:
    """A progressive pool operation, keyed by (table, round, spot) / (table, round) in the pool."""

    op: str  # contribute | reverse | awards
    round_id: str
    spot: int | None = None
    cents: int = 0
    reason: str = ""
    hits: tuple[tuple[int, str], ...] = ()  # awards: (spot, Category name) of each qualifying hand


@dataclass(frozen=True)
class Note:
    """A derived record for the journal (settlement, void, hands): what recall shows."""

    kind: str
    payload: dict[str, Any]
    round_id: str | None = None

    def __post_init__(self) -> None:
        if not is_note(self.kind):  # replay tells notes from inputs by this registry
            raise ValueError(f"note kind {self.kind!r} is not registered in tabled/table/kinds.py")


Effect = Say | Command | PoolOp | Note

"""What the table does in answer to an event: data, not actions.

The round and the table core are pure: they return these, and the controller (tabled/daemon/controller.py)
carries them out after the event that caused them is durable. Every effect is safe to repeat:
device commands set a state or carry the round id, pool operations are keyed by
(table, round, spot), and a note is written once (recovery re-creates the ones a crash lost).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from tabled.game.progressive import ProgressiveSchedule
from tabled.table.kinds import is_note

#: what a note's payload holds: what JSON holds (the journal stores it as JSON)
Json: TypeAlias = "Mapping[str, Json] | Sequence[Json] | str | int | float | bool | None"


@dataclass(frozen=True)
class Say:
    """A line on the dealer's display (and in the log), with the spot and the rule where they apply."""

    text: str
    spot: int | None = None
    rule: str | None = None
    level: str = "info"  # info | flag (the dealer must act) | refused


# -- what each device is told: complete when made, so the adapter only passes it on ---------------

@dataclass(frozen=True)
class Shuffle:
    """4.1: the shuffling device shuffles ``deck`` (the used one goes back in, 4.1.2)."""

    deck: str
    device: ClassVar[str] = "shuffler"
    name: ClassVar[str] = "shuffle"


@dataclass(frozen=True)
class Deal:
    """7.4: the round's hands from ``deck``, ``hands`` of them (the dealer's counted)."""

    round_id: str
    deck: str | None  # the device's own deck when the table has not named one
    hands: int
    device: ClassVar[str] = "shuffler"
    name: ClassVar[str] = "deal"


@dataclass(frozen=True)
class Unlock:
    """7.1: the board takes bets; 11.1: ``progressive_spots`` accept a progressive wager."""

    round_id: str
    progressive_spots: tuple[int, ...] = ()
    device: ClassVar[str] = "betspots"
    name: ClassVar[str] = "unlock"


@dataclass(frozen=True)
class ProgressiveAcceptance:
    """11.1: ``spot`` gained or lost an ante; ``progressive_spots`` are every spot accepting now."""

    round_id: str
    spot: int
    enabled: bool
    progressive_spots: tuple[int, ...]
    device: ClassVar[str] = "betspots"
    name: ClassVar[str] = "progressive_acceptance"


@dataclass(frozen=True)
class Lock:
    """7.2.1: no more bets; 11.2: the lamps of the spots whose progressive wager was accepted."""

    round_id: str
    lamps: tuple[int, ...]
    device: ClassVar[str] = "betspots"
    name: ClassVar[str] = "lock"


@dataclass(frozen=True)
class StartShoe:
    """4.2: the shuffle and cut confirmed, the shoe deals the new shoe."""

    device: ClassVar[str] = "shoe"
    name: ClassVar[str] = "start_shoe"


@dataclass(frozen=True)
class PanelLamp:
    """A lamp of the dealer's panel (the FAULT lamp: 14.13, 15.2)."""

    lamp: str   # a lamp's name (drivers/panel.py: Lamp)
    state: str  # OFF | ON | FLASHING
    device: ClassVar[str] = "panel"
    name: ClassVar[str] = "lamp"


@dataclass(frozen=True)
class MeterShow:
    """The progressive meter shows ``cents`` (nothing while unknown), or "offline" (14.13)."""

    cents: int | None
    offline: bool
    device: ClassVar[str] = "meter"
    name: ClassVar[str] = "show"


Command = Shuffle | Deal | Unlock | ProgressiveAcceptance | Lock | StartShoe | PanelLamp | MeterShow


@dataclass(frozen=True)
class PoolOp:
    """A progressive pool operation, keyed by (table, round, spot) / (table, round) in the pool,
    with all the pool feed sends: the table fills in its id as it journals the operation, and
    the time it held the round's awards while the pool could not be reached (14.13)."""

    op: str  # contribute | reverse | awards
    round_id: str
    spot: int | None = None
    cents: int = 0
    reason: str = ""
    hits: tuple[tuple[int, str], ...] = ()  # awards: (spot, Category name) of each qualifying hand
    table_id: str = ""
    hands: tuple[tuple[int, tuple[int, ...]], ...] = ()  # awards: each hit's cards, for the pool's record
    schedule: ProgressiveSchedule | None = None  # awards: the pay table the pool pays them by (12.1 - 12.4)
    held_since_ms: int | None = None  # awards: held while the pool could not be reached (14.13)


@dataclass(frozen=True)
class Note:
    """A derived record for the journal (settlement, void, hands): what recall shows."""

    kind: str
    payload: dict[str, Json]
    round_id: str | None = None

    def __post_init__(self) -> None:
        if not is_note(self.kind):  # replay tells notes from inputs by this registry
            raise ValueError(f"note kind {self.kind!r} is not registered in tabled/table/kinds.py")


Effect = Say | Command | PoolOp | Note

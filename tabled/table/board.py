"""What the bet-spot board and the meter are told carries all they show, as the table holds it
once an input is folded, so the adapter only passes it on.

* Progressive acceptance (11.1): every command that changes it names every spot accepting a
  progressive wager now (spots with an ante, while the progressive is online).
* The lock (7.2.1) names the spots whose progressive wager was accepted, whose lamps show it
  (11.2).
* The meter shows "offline" while play goes on with the progressive locked after an inspector's
  approval (14.13).
"""

from __future__ import annotations

from typing import Protocol

from tabled.table.effects import Command, Effect
from tabled.table.state import RoundState


class TableCore(Protocol):
    """What the board and the meter are told of the table (tabled.table.core.TableCore)."""

    @property
    def round(self) -> RoundState | None: ...

    @property
    def progressive_offline(self) -> bool: ...


def accepting(r: RoundState) -> list[int]:
    """11.1: the spots accepting a progressive wager: those with an ante, the progressive online."""
    return [] if r.progressive_offline else sorted(s.number for s in r.spots.values() if s.ante)


def accepted(r: RoundState) -> list[int]:
    """11.2: the spots whose progressive wager was accepted at the lock."""
    return sorted(s.number for s in r.spots.values() if s.progressive_accepted)


def complete(core: TableCore, e: Effect) -> Effect:
    if not isinstance(e, Command):
        return e
    r = core.round
    of_round = r if r is not None and r.round_id == e.args.get("round_id") else None  # the command's round
    if e.device == "meter" and e.name == "show":
        return Command("meter", "show", {**e.args, "offline": core.progressive_offline})
    if e.device == "betspots" and e.name == "progressive_acceptance" and of_round is not None:
        return Command("betspots", e.name, {**e.args, "progressive_spots": accepting(of_round)})
    if e.device == "betspots" and e.name == "lock" and of_round is not None:
        return Command("betspots", e.name, {**e.args, "lamps": accepted(of_round)})
    return e

"""What the bet-spot board is told carries all it shows, made complete where the round decides it,
so the adapter only passes it on.

* Progressive acceptance (11.1): every command that changes it names every spot accepting a
  progressive wager now (spots with an ante, while the progressive is online).
* The lock (7.2.1) names the spots whose progressive wager was accepted, whose lamps show it
  (11.2).

The meter's "offline" (14.13) is told with each amount (effects.MeterShow), from the table's
faults and the inspector's approval as they stand when it is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from tabled.table.effects import Lock, ProgressiveAcceptance, Unlock
from tabled.table.spot import Spot


class Board(Protocol):
    """What the board is told of a round (tabled.table.state.RoundState)."""

    @property
    def round_id(self) -> str: ...

    @property
    def progressive_offline(self) -> bool: ...

    @property
    def spots(self) -> Mapping[int, Spot]: ...


def accepting(r: Board) -> tuple[int, ...]:
    """11.1: the spots accepting a progressive wager: those with an ante, the progressive online."""
    return () if r.progressive_offline else tuple(sorted(s.number for s in r.spots.values() if s.ante))


def accepted(r: Board) -> tuple[int, ...]:
    """11.2: the spots whose progressive wager was accepted at the lock."""
    return tuple(sorted(s.number for s in r.spots.values() if s.progressive_accepted))


def unlock(r: Board) -> Unlock:
    """7.1: bets open, 11.1: on the spots accepting a progressive wager."""
    return Unlock(r.round_id, accepting(r))


def acceptance(r: Board, spot: int) -> ProgressiveAcceptance:
    """11.1: ``spot``'s ante came or went: every spot accepting now."""
    return ProgressiveAcceptance(r.round_id, spot, bool(r.spots[spot].ante), accepting(r))


def lock(r: Board) -> Lock:
    """7.2.1: no more bets, 11.2: the lamps of the accepted progressive wagers."""
    return Lock(r.round_id, accepted(r))


__all__ = ["Board", "accepting", "accepted", "acceptance", "lock", "unlock"]

"""One betting spot of a round: its wagers as seen and as locked, its cards and its state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabled.game.round_facts import NO_WAGER, SpotStatus, Wager
from tabled.table.refused import Refused

DEALER = "dealer"


@dataclass
class Spot:
    number: int
    ante: Wager = NO_WAGER
    progressive: Wager = NO_WAGER
    bet: Wager = NO_WAGER
    stacks: dict[str, int] = field(default_factory=dict)  # wagers seen on each area (5.8)
    status: SpotStatus = SpotStatus.EMPTY
    progressive_accepted: bool = False
    locked_ante: Wager = NO_WAGER  # as at "no more bets" (5.6)
    locked_progressive: Wager = NO_WAGER
    locked_bet: Wager = NO_WAGER   # as at the reveal (5.6, 14.10)
    cards: list[int] = field(default_factory=list)
    contributed: bool = False
    reversed: bool = False
    forfeit: bool = False          # 16.5: a supervisor directed the wagers forfeited
    past_posting: str | None = None
    award_held: bool = False       # 9.5

    def deciding(self) -> bool:
        return self.status in (SpotStatus.PLAYING, SpotStatus.PLAYED)


def board_wager(cents: Any, token_cents: Any) -> Wager:
    """A wager as the bet-spot board reports it: whole cents of chips and of tokens."""
    for name, v in (("cents", cents), ("token_cents", token_cents)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise Refused(None, f"the bet-spot board sent {name}={v!r}: not whole cents >= 0")
    return Wager(cents, token_cents)


__all__ = ["DEALER", "Spot", "board_wager"]

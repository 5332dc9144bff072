"""The felt as the table knows it: what the bet-spot board last read on every betting area.

The board reports its whole reading (``board.reading``: every spot's ante, progressive and bet
areas, each with chips, tokens and stacks); the felt keeps it and says which areas changed, and
each change is applied to the round as a ``wager`` input would be. A stack split or joined is a
change even when the amount is not (5.8: one wager per area).

The felt also decides what the chips lying on it mean when nobody moved them:

* betting opens: the chips on the ante and progressive areas are this round's wagers (a bet area
  is paid or collected at settlement, so it is never carried into a round);
* 14.11.1: a bet put down while another spot was directed to play first is refused by the round,
  and the board does not report it again while it lies unchanged. Once that spot has decided, the
  chips still on a playing spot's bet area are that spot's bet: offered once per amount.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tabled.table.names import AREAS

CARRIED = ("ante", "progressive")       # the areas whose chips open a round's betting


@dataclass(frozen=True)
class Area:
    """What lies on one betting area: chips and promotional tokens in cents, and in how many stacks."""

    chips: int = 0
    tokens: int = 0
    stacks: int = 0

    @property
    def empty(self) -> bool:
        return not (self.chips or self.tokens)

    def as_wager(self, spot: int, area: str) -> dict[str, Any]:
        """The ``wager`` input this area's chips make."""
        return {"spot": spot, "area": area, "cents": self.chips, "token_cents": self.tokens, "stacks": self.stacks}


EMPTY = Area()


def _whole(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise ValueError(f"the board's reading has {name}={v!r}: not a whole number >= 0")
    return v


def parse_area(spot: int, area: str, data: Any) -> Area:
    """One area of a ``board.reading``: {cents, token_cents, stacks}; stacks defaults to one stack
    when anything lies there, else none."""
    if not isinstance(data, dict):
        raise ValueError(f"spot {spot} {area}: {data!r} is not {{cents, token_cents, stacks}}")
    chips = _whole(f"spot {spot} {area} cents", data.get("cents", 0))
    tokens = _whole(f"spot {spot} {area} token_cents", data.get("token_cents", 0))
    stacks = data.get("stacks", 1 if chips or tokens else 0)
    return Area(chips, tokens, _whole(f"spot {spot} {area} stacks", stacks))


def parse_reading(spots: Any, spot_count: int) -> dict[tuple[int, str], Area]:
    """A ``board.reading``'s spots, checked whole before anything is taken from it."""
    if not isinstance(spots, list):
        raise ValueError(f"spots={spots!r}: a board reading is a list of spots")
    read: dict[tuple[int, str], Area] = {}
    for entry in spots:
        if not isinstance(entry, dict):
            raise ValueError(f"{entry!r} is not a spot's reading")
        n = entry.get("spot")
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= spot_count:
            raise ValueError(f"no spot {n!r}: this table has spots 1 to {spot_count}")
        if any((n, a) in read for a in AREAS):
            raise ValueError(f"spot {n} is read twice")
        for area in AREAS:
            read[(n, area)] = parse_area(n, area, entry.get(area, {}))
    return read


class Felt:
    """Every betting area's last reading, and the bets offered again under 14.11.1."""

    def __init__(self) -> None:
        self.areas: dict[tuple[int, str], Area] = {}
        self.offered: dict[int, tuple[str, int, int]] = {}  # spot -> (round, chips, tokens)

    def __bool__(self) -> bool:
        return bool(self.areas)

    def at(self, spot: int, area: str) -> Area:
        return self.areas.get((spot, area), EMPTY)

    def assume(self, spots: Iterable[Any]) -> None:
        """Take the felt to hold ``spots``' wagers as the round knows them (tabled/table/round.py
        Spot), and nothing elsewhere: the board's link is back and its last reading is stale."""
        self.areas = {}
        for s in spots:
            for area in AREAS:
                w = getattr(s, area)
                if w:
                    self.areas[(s.number, area)] = Area(w.chips_cents, w.token_cents, s.stacks.get(area, 1))

    def changes(self, reading: dict[tuple[int, str], Area]) -> bool:
        """Whether ``reading`` differs from the felt anywhere."""
        return any(self.at(spot, area) != now for (spot, area), now in reading.items())

    def read(self, reading: dict[tuple[int, str], Area]) -> list[dict[str, Any]]:
        """Take the board's reading; the ``wager`` inputs its changes make, spot by spot, each
        spot's ante before its progressive wager (11.1)."""
        changed = []
        for (spot, area), now in sorted(reading.items(), key=lambda kv: (kv[0][0], AREAS.index(kv[0][1]))):
            if self.at(spot, area) != now:
                self.areas[(spot, area)] = now
                changed.append(now.as_wager(spot, area))
        return changed

    def carried(self, spots: list[int]) -> list[dict[str, Any]]:
        """Betting opens: the ``wager`` inputs of the chips lying on the ante and progressive areas."""
        return [self.at(n, area).as_wager(n, area) for n in spots for area in CARRIED if not self.at(n, area).empty]

    def bet_to_offer(self, round_id: str, spot: int) -> dict[str, Any] | None:
        """14.11.1: the chips on ``spot``'s bet area as its bet, unless this amount was offered already."""
        bet = self.at(spot, "bet")
        offer = (round_id, bet.chips, bet.tokens)
        if bet.empty or self.offered.get(spot) == offer:
            return None
        self.offered[spot] = offer
        return bet.as_wager(spot, "bet")

    # -- checkpoint ------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"areas": [[n, a, v.chips, v.tokens, v.stacks] for (n, a), v in sorted(self.areas.items())],
                "offered": {str(n): list(o) for n, o in self.offered.items()}}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> Felt:
        felt = cls()
        if snap:
            felt.areas = {(n, a): Area(c, t, s) for n, a, c, t, s in snap["areas"]}
            felt.offered = {int(n): (o[0], o[1], o[2]) for n, o in snap["offered"].items()}
        return felt

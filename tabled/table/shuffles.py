"""Each shuffle's order judged for randomness (15.1: a device that "stops intermixing cards during
a shuffle"), from the order the device reads (3.4) against the order the same deck came out of its
previous shuffle (tabled/game/shuffle_watch.py has the statistics and their exact distributions).

* An alarm: the deck is not used; it is reshuffled (15.1), and the supervisor is told why.
* ALARMS_FOR_FAILURE alarms within the device's last RECENT_SHUFFLES shuffles: the device is not
  intermixing, not just unlucky once; it can no longer operate as intended (15.2) and is out of
  play until an inspector clears it (tabled/table/outofplay.py); the shoe may be brought in
  meanwhile (15.2.2).

Only a device that reads its cards gives orders; without it nothing is judged here.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from tabled.game.shuffle_watch import ShuffleWatch, Verdict

RECENT_SHUFFLES = 10
ALARMS_FOR_FAILURE = 2


class Shuffles:
    """The last order of each deck, each deck's watch, and the device's recent alarms."""

    def __init__(self) -> None:
        self.last: dict[str, list[int]] = {}
        self.watches: dict[str, ShuffleWatch] = {}
        self.recent: deque[bool] = deque(maxlen=RECENT_SHUFFLES)  # True: that shuffle raised an alarm

    def __bool__(self) -> bool:
        return bool(self.last)

    def judge(self, deck: str, cards: list[int]) -> Verdict | None:
        """The verdict on a shuffle of ``deck`` (None for its first known order, or an order that is
        not 52 distinct cards: verification says so, 3.4 / 3.7)."""
        before = self.last.get(deck)
        if len(cards) != 52 or len(set(cards)) != 52:
            return None
        self.last[deck] = list(cards)
        if before is None:
            return None
        watch = self.watches.setdefault(deck, ShuffleWatch())
        verdict = watch.judge(before, cards)
        self.recent.append(verdict.alarm)
        if verdict.alarm:
            watch.forget()
        return verdict

    def failing(self) -> bool:
        """Alarms enough of late that the device is not intermixing (15.2)."""
        return sum(self.recent) >= ALARMS_FOR_FAILURE

    def new_cards(self, deck: str) -> None:
        """New cards (3.6): their first order is the one a next shuffle is judged against."""
        self.last.pop(deck, None)
        self.watches.pop(deck, None)

    def device_replaced(self) -> None:
        """Another device, or new cards (15.2.2, 3.6): its history is not this one's."""
        self.last.clear()
        self.watches.clear()
        self.recent.clear()

    def snapshot(self) -> dict[str, Any]:
        return {"last": self.last, "windows": {d: list(w.window) for d, w in self.watches.items()},
                "recent": list(self.recent)}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> Shuffles:
        found = cls()
        if snap:
            found.last = {d: list(cards) for d, cards in snap.get("last", {}).items()}
            found.watches = {d: ShuffleWatch(window) for d, window in snap.get("windows", {}).items()}
            found.recent.extend(bool(a) for a in snap.get("recent", []))
        return found


__all__ = ["Shuffles", "RECENT_SHUFFLES", "ALARMS_FOR_FAILURE"]

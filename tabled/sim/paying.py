"""The simulated dealer paying and collecting through the bet-spot board, as docs/settlement.md's
procedure says, with mistakes on demand ([simulation.mistakes], rounds per 1000).

The dealer reads the screen (tabled/views/view.py ``RoundView.payments``: each area's state and
what it must hold), lays every area as due in one pass (winnings beside the wager, losing wagers
and the progressive wager taken to the rack), puts right each area the screen then names, and
presses SETTLE DONE when the screen shows every area done. A mistake is made in the one pass:

* ``overpay``: a winning area paid $5.00 too much;
* ``underpay``: a winning area paid up to $5.00 too little;
* ``forget_collect``: a losing wager left where it lies;
* ``wrong_spot``: one spot's winnings laid on the same area of the next spot;
* ``early_pickup``: not the dealer's: a player takes a paid area before SETTLE DONE.

Each is kept in :attr:`SettlingDealer.made` with the areas it touched, for the benchmark.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabled.views.view import AreaPayment, RoundView

MISTAKES = ("overpay", "underpay", "forget_collect", "wrong_spot")
PICKUP = "early_pickup"
#: verdicts with nothing left for the dealer to do
FINISHED = ("done", "removed early")
OVERPAY_CENTS = 500
SetBoard = Callable[[dict[int, dict[str, int]]], Awaitable[None]]


@dataclass(frozen=True)
class Made:
    """One mistake: its round, its kind and the areas it left wrong."""

    round_id: str
    kind: str
    areas: tuple[tuple[int, str], ...]


def _lay(board: dict[int, dict[str, int]], spot: int, area: str, chips: int, tokens: int) -> None:
    board.setdefault(spot, {}).update({area: chips, f"{area}_tokens": tokens})


class SettlingDealer:
    """The dealer's part of the round once it settles, on a board with the payments checked."""

    def __init__(self, rates: Mapping[str, int] | None = None, seed: int = 1) -> None:
        self.rates = {k: int(v) for k, v in (rates or {}).items()}
        self.rng = random.Random(seed * 7907 + 23)
        self.made: list[Made] = []
        self.picked_up: list[Made] = []
        self.paid: set[tuple[int, str]] = set()  # this round's areas the dealer pays
        self.corrections = 0

    def _roll(self, kind: str) -> bool:
        rate = self.rates.get(kind, 0)
        return rate > 0 and self.rng.randrange(1000) < rate

    async def step(self, r: RoundView, once: Callable[..., bool], set_board: SetBoard,
                   press: Callable[[str], Any]) -> bool:
        """The next thing the dealer (or a player) does while the round settles; False: nothing now."""
        rid = r.round_id
        if once(rid, "pay"):
            await set_board(self.pay(r))
            return True
        wrong = [a for a in r.payments if a.state not in FINISHED]
        if wrong:
            if once(rid, "correct", tuple((a.spot, a.area, a.state, a.off_cents) for a in wrong)):
                self.corrections += 1
                board: dict[int, dict[str, int]] = {}
                for a in wrong:  # the screen names it: the dealer lays it as due
                    _lay(board, a.spot, a.area, a.due_chips, a.due_tokens)
                await set_board(board)
                return True
            return False
        if once(rid, "pickup") and self._roll(PICKUP):
            paid = [a for a in r.payments if a.state == "done" and (a.spot, a.area) in self.paid]
            if paid:
                a = self.rng.choice(paid)
                self.picked_up.append(Made(rid, PICKUP, ((a.spot, a.area),)))
                await set_board({a.spot: {a.area: 0, f"{a.area}_tokens": 0}})
                return True
        if once(rid, "settle_done"):
            press("settle_done")
            return True
        return False

    def pay(self, r: RoundView) -> dict[int, dict[str, int]]:
        """Every area laid as due, with the mistakes this round rolls."""
        board: dict[int, dict[str, int]] = {}
        for a in r.payments:
            _lay(board, a.spot, a.area, a.due_chips, a.due_tokens)
        placed = {(a.spot, a.area): a.due_chips + a.due_tokens + a.off_cents for a in r.payments}  # as read
        # the areas the dealer pays, as read before the pass (not a stand off, nor a wager returned as it
        # lies: the simulated players wager chips only): a player may pick up there early
        self.paid = {(a.spot, a.area) for a in r.payments if a.off_cents and a.due_chips + a.due_tokens}
        touched: set[tuple[int, str]] = set()  # one mistake an area: two on one area may cancel out
        for kind in MISTAKES:
            if not self._roll(kind):
                continue
            wins = [a for a in r.payments if a.due_chips + a.due_tokens > placed[(a.spot, a.area)]
                    and (a.spot, a.area) not in touched]
            losses = [a for a in r.payments if placed[(a.spot, a.area)] and not a.due_chips + a.due_tokens
                      and (a.spot, a.area) not in touched]
            areas = self._mistake(kind, board, wins, losses, placed, r, touched)
            if areas:
                touched.update(areas)
                self.made.append(Made(r.round_id, kind, areas))
        return board

    def _mistake(self, kind: str, board: dict[int, dict[str, int]], wins: list[AreaPayment],
                 losses: list[AreaPayment], placed: dict[tuple[int, str], int],
                 r: RoundView, touched: set[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
        if kind == "forget_collect":
            if not losses:
                return ()
            a = self.rng.choice(losses)
            _lay(board, a.spot, a.area, placed[(a.spot, a.area)], 0)
            return ((a.spot, a.area),)
        if not wins:
            return ()
        a = self.rng.choice(wins)
        laid = board[a.spot][a.area]
        won = a.due_chips + a.due_tokens - placed[(a.spot, a.area)]
        if kind == "overpay":
            board[a.spot][a.area] = laid + OVERPAY_CENTS
            return ((a.spot, a.area),)
        if kind == "underpay":
            if won < 2:
                return ()
            board[a.spot][a.area] = laid - min(OVERPAY_CENTS, won // 2)
            return ((a.spot, a.area),)
        # wrong_spot: the winnings go on the same area of the next spot round the table
        spots = sorted({p.spot for p in r.payments})
        other = spots[(spots.index(a.spot) + 1) % len(spots)]
        if (other, a.area) in touched or other == a.spot:
            return ()
        board[a.spot][a.area] = laid - won
        board.setdefault(other, {})[a.area] = board.get(other, {}).get(a.area, 0) + won
        return ((a.spot, a.area), (other, a.area))


__all__ = ["SettlingDealer", "Made", "MISTAKES", "PICKUP"]

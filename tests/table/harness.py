"""Drive a TableCore with in-memory inputs, a fake clock and an in-memory pool (no devices)."""

from __future__ import annotations

from typing import Any

from tabled.table.core import TableCore
from tabled.table.poolbook import result_as_dict
from tabled.table.effects import Command, Note, PoolOp, Say
from tabled.game.cards import parse_cards
from tabled.profiles import load_profile
from tabled.game.progressive import ProgressiveHit, award_progressive
from tabled.game.ranking import Category
from tabled.game.limits import Limits

MINUTE = 60_000


class MemoryPool:
    """Keyed, idempotent, like tabled.pool: (round, spot) contributions, (round) awards."""

    def __init__(self, profile, balance: int = 1_000_000):
        self.profile = profile
        self.balance = balance
        self.contributions: dict[tuple[str, int], int] = {}
        self.reversed: set[tuple[str, int]] = set()
        self.awards: dict[str, Any] = {}

    def contribute(self, round_id: str, spot: int, wager: int) -> int:
        key = (round_id, spot)
        if key not in self.contributions:
            self.contributions[key] = self.profile.contribution_cents(wager)
            self.balance += self.contributions[key]
        return self.balance

    def reverse(self, round_id: str, spot: int) -> int:
        key = (round_id, spot)
        if key in self.contributions and key not in self.reversed:
            self.reversed.add(key)
            self.balance -= self.contributions[key]
        return self.balance

    def apply_awards(self, round_id: str, hits) -> dict[str, Any]:
        if round_id not in self.awards:
            res = award_progressive(self.balance, [ProgressiveHit(s, Category[c]) for s, c in hits],
                                    self.profile.progressive_schedule)
            self.balance = res.pool_after_cents
            self.awards[round_id] = result_as_dict(res)
        return self.awards[round_id]


class Harness:
    def __init__(self, profile: str = "nsw", spots: int = 7, card_source: str = "shuffler",
                 minimum: int = 500, maximum: int = 50_000, unit: int = 100, pool: int = 1_000_000,
                 ready: bool = True):
        self.profile = load_profile(profile)
        self.limits = Limits(minimum, maximum, unit, self.profile.progressive_wager_cents)
        self.core = TableCore("T01", spots, self.limits, self.profile, card_source)
        self.pool = MemoryPool(self.profile, pool)
        self.t = 0
        self.log: list[Any] = []
        self.inputs: list[tuple[str, dict, int]] = []  # what a journal would hold
        self.auto_pool = True
        if ready:
            self.panel("open_table", key="supervisor")
            self.prepare_cards()

    # -- feeding -----------------------------------------------------------------------------------

    def feed(self, kind: str, **payload: Any) -> list[Any]:
        self.inputs.append((kind, payload, self.t))
        effects = self.core.apply(kind, payload, self.t)
        self.log.extend(effects)
        out = list(effects)
        if self.auto_pool:
            for e in effects:
                if isinstance(e, PoolOp):
                    out += self.run_pool(e)
        return out

    def run_pool(self, e: PoolOp) -> list[Any]:
        if e.op == "contribute":
            bal = self.pool.contribute(e.round_id, e.spot, e.cents)
            return self.feed("pool.contributed", round_id=e.round_id, spot=e.spot, balance_cents=bal)
        if e.op == "reverse":
            bal = self.pool.reverse(e.round_id, e.spot)
            return self.feed("pool.reversed", round_id=e.round_id, spot=e.spot, balance_cents=bal)
        result = self.pool.apply_awards(e.round_id, e.hits)
        return self.feed("pool.awards", round_id=e.round_id, result=result)

    def panel(self, action: str, key: str = "dealer", **fields: Any) -> list[Any]:
        return self.feed("panel", action=action, key=key, **fields)

    def press(self, button: str, key: str = "dealer", **taken: Any) -> list[Any]:
        """A button of the panel (tabled/table/buttons.py), with the spot, spots or value keyed."""
        return self.feed("panel.button", button=button, key=key, **taken)

    def board(self, chips: dict[int, dict[str, int]]) -> list[Any]:
        """The bet-spot board's whole reading: the cents on each spot's areas, nothing elsewhere."""
        return self.feed("board.reading", spots=[
            {"spot": n, **{area: {"cents": chips.get(n, {}).get(area, 0)} for area in ("ante", "progressive", "bet")}}
            for n in range(1, self.core.spot_count + 1)])

    def prepare_cards(self) -> None:
        if self.core.decks.source == "shuffler":
            for d in ("A", "B"):
                self.feed("deck.verified", deck=d, cards=list(range(52)))
                self.feed("shuffler.shuffled", deck=d)
        else:
            self.feed("deck.verified", deck="S", cards=list(range(52)))
            self.panel("shuffle_and_cut")

    # -- a round -------------------------------------------------------------------------------------

    @property
    def round(self):
        return self.core.round

    def ante(self, spot: int, cents: int, progressive: bool = False) -> list[Any]:
        out = self.feed("wager", spot=spot, area="ante", cents=cents)
        if progressive:
            out += self.feed("wager", spot=spot, area="progressive", cents=self.profile.progressive_wager_cents)
        return out

    def deal(self, hands: dict[int | str, str]) -> list[Any]:
        """Deal the given hands in 7.4 order (spots ascending, then the dealer)."""
        out = []
        for target in self.round.dealt_to:
            out += self.feed("shuffler.hand", cards=list(parse_cards(hands[target])), back=self.round.back)
        return out

    def bet(self, spot: int) -> list[Any]:
        return self.feed("wager", spot=spot, area="bet", cents=2 * self.round.spots[spot].locked_ante.cents)

    def to_reveal(self, hands: dict[int | str, str], spot: int = 3) -> list[Any]:
        """A round with an ante and the progressive wager at ``spot`` alone, dealt ``hands``, its bet
        made, up to the reveal."""
        self.ante(spot, 1000, progressive=True)
        self.panel("no_more_bets")
        self.deal(hands)
        self.bet(spot)
        return self.panel("reveal")

    def settled_then_pool_down(self) -> None:
        """The round settled with its awards not yet delivered, then the pool down: the awards are
        held (14.13)."""
        self.auto_pool = False
        self.panel("settle")
        self.feed("equipment.fault", equipment="pool", reason="down")


def between_rounds() -> Harness:
    """A table between rounds: open, no round in preparation yet (the first comes with the next input)."""
    h = Harness(ready=False)
    h.core.hours.is_open = True
    return h


def says(effects, level: str | None = None) -> list[Say]:
    return [e for e in effects if isinstance(e, Say) and (level is None or e.level == level)]


def refused(effects) -> list[Say]:
    return says(effects, "refused")


def rules_said(effects) -> set[str]:
    return {e.rule for e in effects if isinstance(e, Say) and e.rule}


def notes(effects, kind: str) -> list[Note]:
    return [e for e in effects if isinstance(e, Note) and e.kind == kind]


def commands(effects, device: str | None = None) -> list[Command]:
    return [e for e in effects if isinstance(e, Command) and (device is None or e.device == device)]

"""What a round knows (its checkpoint: every field not marked SKIP, tabled/table/checkpoint.py) and
the steps its inputs share: finding a spot, the end of the deal, a reversed contribution, a void.
The inputs themselves, by job, read and change it (tabled/table/round.py and its siblings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from statemachine.exceptions import TransitionNotAllowed

from tabled.game.cards import card_text, hand_text
from tabled.game.limits import Breach, Limits, dollars
from tabled.game.profiles import Profile
from tabled.game.round_facts import RoundVoid
from tabled.table.checkpoint import SKIP
from tabled.table.board import lock
from tabled.table.effects import Effect, Note, PoolOp, Say
from tabled.table.phase import CONDITIONS, FINISHED, SOURCES, Phase, RoundMachine, step
from tabled.table.refused import Refused
from tabled.table.spot import Spot


@dataclass(eq=False)
class RoundState:
    """The facts of one round: its wagers, cards, decisions and the deal as it stands."""

    round_id: str
    spot_count: int = field(metadata=SKIP)
    limits: Limits = field(metadata=SKIP)
    profile: Profile = field(metadata=SKIP)
    card_source: str = "shuffler"
    deck: str | None = None                # 3.2: which of the shuffler's two decks is in play
    back: str | None = None                # 3.2: its back colour
    progressive_offline: bool = False      # 14.13 approved with the progressive locked
    spots: dict[int, Spot] = field(init=False, metadata=SKIP)  # saved as a list (Round.snapshot)
    dealer_cards: list[int] = field(init=False, default_factory=list)
    dealer_up: list[int] = field(init=False, default_factory=list)       # 7.1, 14.6
    seen: set[int] = field(init=False, default_factory=set)              # 3.7: each card once
    dealt_to: list[int | str] = field(init=False, default_factory=list)  # the targets in deal order (7.2.2)
    deliveries: int = field(init=False, default=0)
    exposed: int = field(init=False, default=0)                # 14.3: two or more is a misdeal
    player_handled: bool = field(init=False, default=False)    # 14.1: a misdeal only before players handle cards
    first_to_play: int | None = field(init=False, default=None)  # 14.11.1
    # the shoe's deal (7.3, tabled/table/shoedeal.py)
    unread: int | None = field(init=False, default=None)        # a card the shoe could not read (14.1)
    deal_stopped: str | None = field(init=False, default=None)  # why a misdeal is due (14.1)
    shoe_off: int | None = field(init=False, default=None)      # cards read when the shoe was lifted off its base
    dealer_value: int | None = field(init=False, default=None)
    awards: dict[str, Any] | None = field(init=False, default=None)  # the pool's result (12.x), once applied
    settlement: dict[str, Any] | None = field(init=False, default=None)
    void_reason: tuple[str, str] | None = field(init=False, default=None)  # (RoundVoid value, rule)
    machine: RoundMachine = field(init=False, repr=False, metadata=SKIP)

    def __post_init__(self) -> None:
        self.spots = {n: Spot(n) for n in range(1, self.spot_count + 1)}

    # -- reading -------------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return Phase(self.machine.current_state_value)

    @property
    def finished(self) -> bool:
        return self.phase in FINISHED

    def past_posting_open(self) -> bool:
        return any(s.past_posting for s in self.spots.values())

    def wagering_spots(self) -> list[int]:
        return [s.number for s in self.spots.values() if s.ante or s.locked_ante]

    def bet_breach(self, s: Spot) -> Breach | None:
        return self.limits.check_bet(s.bet.cents, s.locked_ante.cents)

    def shoe_trouble(self) -> bool:
        """The shoe's deal waits for the dealer (the panel's FAULT lamp flashes)."""
        return self.unread is not None or self.deal_stopped is not None or self.shoe_off is not None

    def spot(self, spot: Any) -> Spot:
        if not isinstance(spot, int) or isinstance(spot, bool) or spot not in self.spots:
            raise Refused(None, f"no spot {spot!r}: this table has spots 1 to {self.spot_count}")
        return self.spots[spot]

    # -- steps the inputs share ---------------------------------------------------------------

    def advance(self, event: str) -> bool:
        """A step the machine takes only once its condition holds (the deal done, the awards paid);
        from a phase it cannot leave by ``event`` it is not tried (the machine's own diagram)."""
        if self.machine.current_state_value not in SOURCES[event]:
            return False
        if not all(getattr(self, name)() for name in CONDITIONS.get(event, ())):
            return False  # the machine's own condition, asked without running the machine
        try:
            self.machine.send(event)
        except TransitionNotAllowed:
            return False
        return True

    def dealt(self) -> list[Effect]:
        """The deal is complete (7.3.3, 7.4.2): the players decide (8.1)."""
        if not self.advance("deal_complete"):
            return []
        return [Note("round.dealt", {
            "dealer_up": [card_text(c) for c in self.dealer_up],
            "dealer": hand_text(self.dealer_cards),
            "spots": {str(s.number): hand_text(s.cards) for s in self.spots.values() if s.cards},
        }, self.round_id), Say(f"round {self.round_id}: dealer shows {hand_text(self.dealer_up)}; "
                               "players: fold or bet (8.1)", rule="8.1")]

    def reverse(self, s: Spot, reason: str) -> list[Effect]:
        """The spot's progressive contribution taken back from the pool, once (14.4, 14.7, 14.12)."""
        if s.contributed and not s.reversed:
            s.reversed = True
            return [PoolOp("reverse", self.round_id, s.number, s.locked_progressive.cents, reason)]
        return []

    def void(self, why: RoundVoid, rule: str, reason: str, forfeit: tuple[int, ...] = ()) -> list[Effect]:
        """The whole round void under ``rule`` (14.4, 15.2.1, 16.4, 3.7): every wager returned and its
        contribution reversed, or forfeited (16.5). Refused once the pool has been asked for the
        round's progressive awards (docs/settlement.md, "A round voided while it settles")."""
        if self.phase == Phase.SETTLING and (self.awards is not None or any(s.award_held for s in self.spots.values())):
            asked = [a["spot"] for a in self.awards.get("awards", [])] if self.awards is not None else [
                s.number for s in self.spots.values() if s.award_held]
            raise Refused(rule, f"round {self.round_id}: void refused: the pool has been asked for its progressive "
                                f"awards (spot {', '.join(map(str, asked))}, 9.5, 12.1) and a void cannot give an "
                                "award back: settle the round")
        settling = self.phase == Phase.SETTLING  # the bets as locked at the reveal, not the felt being paid
        step(self.machine, "void_round", self.round_id, rule)
        self.void_reason = (why.value, rule)
        effects: list[Effect] = [lock(self)]
        lines = []
        for s in self.spots.values():
            s.award_held = False
            if s.number in forfeit:
                s.forfeit = True
            ante, bet = s.locked_ante or s.ante, s.locked_bet if settling else s.bet
            if not (ante or s.progressive or bet):
                continue
            total = ante.cents + bet.cents + (s.locked_progressive or s.progressive).cents
            if s.forfeit:
                lines.append({"spot": s.number, "forfeit_cents": total})
                effects.append(Say(f"spot {s.number}: wagers forfeited {dollars(total)}", s.number, "16.5"))
                continue
            lines.append({"spot": s.number, "returned_cents": total})
            effects.append(Say(f"spot {s.number}: return every wager ({dollars(total)})", s.number, rule))
            effects += self.reverse(s, f"{rule} void round")
        effects.insert(0, Say(f"round {self.round_id} VOID ({rule}): {reason}", rule=rule, level="flag"))
        effects.append(Note("round.void", {"why": why.value, "rule": rule, "reason": reason, "spots": lines},
                            self.round_id))
        return effects


__all__ = ["RoundState"]

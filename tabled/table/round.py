"""One round of play (rule 1.1: from the first card out of the shoe or shuffling device until the
dealer has announced the result and paid and collected).

:class:`Round` turns each input into effects (tabled/table/effects.py) and changes the facts it
holds (tabled/table/state.py). Its :class:`~tabled.table.phase.RoundMachine` is the one gate: each
input that is one of the machine's events is sent to it first and refused with its rule when the
phase has no transition for it; the rules that hold a phase change back are the machine's validators,
defined here. A round is a pure fold of its inputs: the same inputs in the same order give the same
round, which is what recovery, recall and the tests rely on. No clock, no I/O: input times come with
the input.

The inputs, by job: wagers and past posting (tabled/table/wagers.py), the shoe's deal
(tabled/table/shoedeal.py), the players' decisions (tabled/table/decisions.py), settlement and
progressive awards (tabled/table/awards.py); here the deal from the shuffling device, the reveal
and the voids.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from tabled.game.cards import HAND_SIZE, card_text, hand_text
from tabled.game.limits import Limits
from tabled.game.profiles import DeckNot52, HandWithoutAnte, Profile
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import HandValue, dealer_qualifies, evaluate
from tabled.game.round_facts import RoundFacts, RoundVoid, SpotStatus
from tabled.table import awards, decisions, shoedeal, wagers
from tabled.table.checkpoint import CheckpointError, load_fields, saved_fields
from tabled.table.board import lock
from tabled.table.effects import Effect, PoolOp, Say, Unlock
from tabled.table.facts import round_facts
from tabled.table.integrity import IntegrityFault, check_back, check_cards, take
from tabled.table.phase import OUT_OF_PHASE, Phase, RoundMachine, step
from tabled.table.refused import Refused
from tabled.table.spot import DEALER
from tabled.table.state import RoundState



@functools.cache
def _signature(handler: Callable[..., list[Effect]]) -> inspect.Signature:
    """A handler's signature, read once: every input's fields are checked against it."""
    return inspect.signature(handler)

class Round(RoundState):
    """The rules applied to each input of one round; the model of its machine."""

    state: str  # the phase's value, where python-statemachine keeps it on its model (not a saved field)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.machine = RoundMachine(model=self)

    # -- the machine's guards and validators ---------------------------------------------------

    def bets_in_order(self) -> None:
        wagers.check_before_lock(self)

    def deal_done(self) -> bool:
        in_play = [s for s in self.spots.values() if s.status is SpotStatus.PLAYING]
        return len(self.dealer_cards) == HAND_SIZE and all(len(s.cards) == HAND_SIZE for s in in_play)

    def everyone_decided(self) -> None:
        """8.6: every spot has folded or bet; 14.9: every bet complies before the dealer's cards show."""
        undecided = [s.number for s in self.spots.values() if s.status is SpotStatus.PLAYING]
        if undecided:
            raise Refused("8.6", f"spots {undecided} have not decided (fold or bet)")
        for s in self.spots.values():
            b = self.bet_breach(s) if s.status is SpotStatus.PLAYED else None
            if b:
                raise Refused("14.9", f"spot {s.number}: {b.message}: correct it or fold before the dealer's "
                                      "cards are exposed", s.number)

    def no_past_posting(self) -> None:
        """5.6: settlement waits until every past posting is restored or resolved."""
        open_pp = [s.number for s in self.spots.values() if s.past_posting]
        if open_pp:
            raise Refused("5.6", f"past posting on spots {open_pp} is not resolved")

    def all_awards_paid(self) -> bool:
        return not any(s.award_held for s in self.spots.values())

    # -- reading -------------------------------------------------------------------------------

    def facts(self, pool_cents: int) -> RoundFacts:
        return round_facts(self, pool_cents)

    def progressive_hits(self) -> list[ProgressiveHit]:
        return awards.progressive_hits(self)

    # -- input ---------------------------------------------------------------------------------

    def handle(self, kind: str, data: dict[str, Any]) -> list[Effect]:
        """Apply one input; refusals come back as ``Say(level="refused")``, never as exceptions."""
        handler = INPUTS.get(kind)
        if handler is None:
            return [Say(f"round {self.round_id}: no such input {kind!r}", level="refused")]
        try:
            _signature(handler).bind(self, **data)  # fields checked before the machine moves
            if kind == "dead_hand" and not self.profile.dead_hands:  # not this profile's rule, in any phase
                raise Refused("NZ 14.1", f"profile {self.profile.name} has no dead hands")
            if kind in OUT_OF_PHASE:
                step(self.machine, kind, self.round_id)
            return handler(self, **data)
        except Refused as r:
            return [Say(str(r), spot=r.spot, rule=r.rule, level="refused")]
        except TypeError as exc:  # an input with missing or unknown fields, or a field of the wrong kind
            return [Say(f"{kind}: malformed input ({exc})", level="refused")]

    def try_finish(self) -> bool:
        return self.advance("finish")  # 9.5: once every progressive award is paid

    def input_cards_ready(self) -> list[Effect]:
        """The table core says the cards are shuffled (4.1) (and cut, with the shoe: 4.2)."""
        return [Unlock(self.round_id),
                Say(f"round {self.round_id}: place your bets")]

    def input_no_more_bets(self) -> list[Effect]:
        """7.2.1: lock the board; every accepted progressive wager contributes now (11.6)."""
        effects: list[Effect] = []
        for s in self.spots.values():
            s.locked_ante, s.locked_progressive = s.ante, s.progressive
            if s.ante:
                s.status = SpotStatus.PLAYING
                self.dealt_to.append(s.number)
            if s.ante and s.progressive:
                s.progressive_accepted = True
                s.contributed = True
                effects.append(PoolOp("contribute", self.round_id, s.number, s.progressive.cents))
        self.dealt_to.append(DEALER)
        effects.insert(0, lock(self))  # 11.2: its lamps show the progressive wagers just accepted
        effects.append(Say(f"round {self.round_id}: no more bets; deal to spots "
                           f"{', '.join(str(n) for n in self.dealt_to[:-1])} and the dealer (7.2.2)", rule="7.2.1"))
        return effects

    # dealing from the shuffling device (7.4, 14.1 - 14.8, 3.2, 3.7) ----------------------------

    def input_hand(self, cards: list[int], back: str | None = None, up: int = HAND_SIZE - 1) -> list[Effect]:
        """7.4: the shuffling device delivers five cards at a time, spots in order, then the dealer."""
        if self.card_source != "shuffler":
            raise Refused("7.3", "this table deals from the card shoe")
        try:
            check_back(back, self.back, "3.2")  # 3.2: the deck in play's back differs from the other deck's
            take(self.seen, list(cards))
        except IntegrityFault as f:
            return self.void(RoundVoid.INVALIDATED, f.rule, f"card integrity: {f}")
        if self.deliveries >= len(self.dealt_to):
            return self.void(RoundVoid.MISDEAL, "14.2", "more hands than spots with an ante and the dealer")
        target = self.dealt_to[self.deliveries]
        self.deliveries += 1
        effects: list[Effect] = []
        if target == DEALER:
            if len(cards) != HAND_SIZE:
                return self.void(RoundVoid.MISDEAL, "14.2", f"the dealer was dealt {len(cards)} cards")
            self.dealer_cards = list(cards)
            if not 0 <= up < HAND_SIZE:
                up = HAND_SIZE - 1
            self.dealer_up = sorted(set(self.dealer_up) | {self.dealer_cards[up]})  # 7.4.2: bottom card up
        else:
            s = self.spot(target)
            s.cards = list(cards)
            if len(cards) != HAND_SIZE:
                s.status = SpotStatus.VOID  # 14.7: too few or too many cards
                effects.append(Say(f"spot {s.number}: {len(cards)} cards: hand void, ante and progressive "
                                   "returned", s.number, "14.7", "flag"))
                effects += self.reverse(s, "14.7 void hand")
        return effects + self.dealt()

    def input_exposed_card(self, target: Any, card: int | None = None) -> list[Effect]:
        """14.3, 14.5, 14.6 (NZ 14.4 - 14.6): one exposed card is turned over; one exposed on the
        dealer's hand (``card``) stays up as the dealer's up card, the fifth card dealt face down;
        two or more exposed during the deal is a misdeal."""
        dealer_card: int | None = None
        if target == DEALER:
            if card is None:
                raise Refused("14.6", "which card is exposed on the dealer's hand? none named")
            check_cards([card])
            if card not in self.dealer_cards:
                raise Refused("14.6", f"{card_text(card)} is not a card of the dealer's hand "
                                      f"({hand_text(self.dealer_cards) or 'none dealt yet'})")
            dealer_card = card
        else:
            s = self.spot(target)
        self.exposed += 1
        if self.exposed >= 2:
            return self.void(RoundVoid.MISDEAL, "14.3", "two or more cards exposed during the deal")
        if dealer_card is not None:
            self.dealer_up = [dealer_card]
            return [Say(f"{card_text(dealer_card)} exposed on the dealer's hand: it stays face up as the dealer's "
                        "up card; deal the dealer's other cards face down, the fifth too", rule="14.6")]
        return [Say(f"spot {s.number}: exposed card: turn it over and continue", s.number, "14.5")]

    def input_misdeal(self) -> list[Effect]:
        """14.1: the dealer declares a misdeal before any player handles their cards; 14.4."""
        if self.player_handled:
            raise Refused("14.1", "players have handled their cards: too late for a misdeal")
        return self.void(RoundVoid.MISDEAL, "14.4", "misdeal declared by the dealer")

    def input_hand_without_ante(self, spot: int) -> list[Effect]:
        """A hand dealt to a playing area without an ante: 14.8 (discard) or NZ 14.7 (redeal)."""
        s = self.spot(spot)
        if s.locked_ante:
            raise Refused("14.8", f"spot {s.number} has an ante", s.number)
        if self.profile.hand_without_ante is HandWithoutAnte.REDEAL and self.phase == Phase.DEALING:
            return self.void(RoundVoid.MISDEAL, "NZ 14.7", f"cards dealt to spot {s.number} without an ante: "
                                                           "collect, reshuffle and redeal")
        return [Say(f"spot {s.number}: no ante: count the cards and place them in the discard rack",
                    s.number, "14.8" if self.profile.hand_without_ante is HandWithoutAnte.DISCARD else "NZ 14.8")]

    def input_deck_count(self, count: int) -> list[Effect]:
        """3.7: the dealer counts the deck in play; NZ 14.9 (profile) makes a short deck a misdeal."""
        if not isinstance(count, int) or isinstance(count, bool):
            raise Refused("3.7", f"a deck count is a whole number, got {count!r}")
        if count == 52:
            return [Say("deck counted: 52 cards", rule="3.7")]
        if self.profile.deck_not_52 is DeckNot52.VOID and self.phase not in (Phase.PREPARING, Phase.BETTING):
            return self.void(RoundVoid.DECK_NOT_52, "NZ 14.9", f"the deck in play holds {count} cards")
        return [Say(f"the deck in play holds {count} cards, not 52: replace the cards (3.6); "
                    "a supervisor decides on this round (16.4)", rule="3.7", level="flag")]

    # the reveal (8.6, 9.1, 9.2) --------------------------------------------------------------

    def input_reveal(self) -> list[Effect]:
        """8.6: every remaining player has decided; the dealer turns the hand over (9.1 qualify)."""
        for s in self.spots.values():
            s.locked_bet = s.bet
        self.dealer_value = evaluate(self.dealer_cards)
        q = dealer_qualifies(self.dealer_value)
        return [Say(f"dealer: {hand_text(self.dealer_cards)}, {HandValue(self.dealer_value)}: "
                    + ("qualifies" if q else "no hand: bets void, antes paid (9.2)"),
                    rule="9.1" if q else "9.2")]

    # void paths (14.4, 15.2.1, 16.3.1, 16.4, 16.5) -------------------------------------------------

    def input_invalidate(self, reason: str = "", forfeit: list[int] | None = None) -> list[Effect]:
        """16.4: a supervisor invalidates the round; 16.5: refunds, or forfeits for 16.4.2 players."""
        for n in forfeit or []:
            self.spot(n)
        return self.void(RoundVoid.INVALIDATED, "16.4", reason or "invalidated by a supervisor", tuple(forfeit or ()))

    def input_shuffler_failed(self, reason: str = "") -> list[Effect]:
        """15.2: the shuffling device can no longer work in a round with cards dealt: void."""
        return self.void(RoundVoid.SHUFFLER_FAILURE, "15.2.1", reason or "shuffling device failure")

    def input_void_player(self, spot: int, forfeit: bool = False) -> list[Effect]:
        """16.3.1: a supervisor voids one player's wagers (16.5: refunded, or forfeited)."""
        s = self.spot(spot)
        if s.status is SpotStatus.EMPTY and not s.ante:
            raise Refused("16.3.1", f"spot {s.number} has no wager", s.number)
        s.status = SpotStatus.VOID
        s.forfeit = forfeit
        s.award_held = False
        if forfeit:
            return [Say(f"spot {s.number}: wagers void and forfeited", s.number, "16.5", "flag")]
        return [Say(f"spot {s.number}: wagers void, return them", s.number, "16.3.1", "flag")] \
            + self.reverse(s, "16.3.1 void wagers")

    # checkpoint --------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase.value, **saved_fields(self),
                "spots": [saved_fields(s) for s in self.spots.values()]}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], spots: int, limits: Limits, profile: Profile) -> Round:
        r = cls(snap["round_id"], spots, limits, profile)
        load_fields(r, snap)
        for d in snap["spots"]:
            number = d.get("number") if isinstance(d, dict) else None
            if number not in r.spots:
                raise CheckpointError(f"checkpoint spot {number!r}: this table has spots 1 to {spots}")
            load_fields(r.spots[number], d)
        r.state = Phase(snap["phase"]).value  # python-statemachine keeps the phase on the model
        r.machine = RoundMachine(model=r)
        return r


def in_round(r: Round | None) -> bool:
    """A round is in play: past preparing and not yet over."""
    return r is not None and r.phase not in (Phase.PREPARING, Phase.COMPLETE, Phase.VOID)


def shoe_dealing(r: Round | None) -> Round | None:
    """The round, while it deals from the card shoe (7.3)."""
    return r if r is not None and r.card_source == "shoe" and r.phase == Phase.DEALING else None


#: input kind -> what applies it; an input that is also a machine event is first placed in its phase
INPUTS: dict[str, Callable[..., list[Effect]]] = {
    "wager": wagers.wager, "resolve_past_posting": wagers.resolve_past_posting,
    "cards_ready": Round.input_cards_ready, "no_more_bets": Round.input_no_more_bets,
    "hand": Round.input_hand, "card": shoedeal.card, "shoe_unreadable": shoedeal.shoe_unreadable,
    "shoe_removed": shoedeal.shoe_removed, "shoe_replaced": shoedeal.shoe_replaced,
    "shoe_empty": shoedeal.shoe_empty, "exposed_card": Round.input_exposed_card,
    "misdeal": Round.input_misdeal, "hand_without_ante": Round.input_hand_without_ante,
    "deck_count": Round.input_deck_count,
    "fold": decisions.fold, "absent": decisions.absent, "dead_hand": decisions.dead_hand,
    "play_first": decisions.play_first, "reveal": Round.input_reveal, "concede": decisions.concede,
    "settle": awards.settle, "awards_applied": awards.awards_applied, "award_paid": awards.award_paid,
    "invalidate": Round.input_invalidate, "shuffler_failed": Round.input_shuffler_failed,
    "void_player": Round.input_void_player,
}

__all__ = ["DEALER", "Round", "Refused", "INPUTS", "in_round", "shoe_dealing"]

"""One round of play (rule 1.1: from the first card out of the shoe or shuffling device until the
dealer has announced the result and paid and collected), as a python-statemachine machine.

The machine holds the phases and the rules that gate moving between them; :class:`Round` holds
the facts (wagers, cards, decisions) and turns each input into effects (tabled/table/effects.py). A round
is a pure fold of its inputs: the same inputs in the same order give the same round, which is
what recovery, recall and the tests rely on. No clock, no I/O: input times come with the input.

Phases::

    preparing --cards_ready--> betting --no_more_bets--> dealing --deal_complete--> deciding
        --reveal--> revealed --settle--> settling --finish--> complete
    (any phase but complete) --void_round--> void
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from statemachine import State, StateMachine

from tabled.table.effects import Command, Effect, Note, PoolOp, Say
from tabled.game.cards import HAND_SIZE, card_text, hand_text
from tabled.game.profiles import DeckNot52, HandWithoutAnte, Profile
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import HandValue, dealer_qualifies, evaluate
from tabled.game.round_facts import NO_WAGER, RoundFacts, RoundVoid, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle
from tabled.game.limits import Limits, check_one_wager, dollars

DEALER = "dealer"
AREAS = ("ante", "progressive", "bet")


class Refused(Exception):
    """An input the rules do not allow now: told to the dealer, logged, and otherwise ignored."""

    def __init__(self, rule: str | None, message: str, spot: int | None = None):
        super().__init__(message)
        self.rule = rule
        self.spot = spot


class RoundMachine(StateMachine):
    """The phases of a round and the rules that gate each move (guards live on :class:`Round`)."""

    preparing = State(initial=True)  # 4.1: the cards for this round are being shuffled (and cut, 4.2)
    betting = State()                # 5.2: antes and progressive wagers
    dealing = State()                # 7.2 - 7.4, after "no more bets"
    deciding = State()               # 8.1 - 8.5: fold or bet
    revealed = State()               # 8.6: dealer's hand exposed; 9.7 concessions
    settling = State()               # 9, 10, 12: paying and collecting; 9.5 holds
    complete = State(final=True)
    void = State(final=True)         # "void" (1.1): invalid with no result

    cards_ready = preparing.to(betting)
    no_more_bets = betting.to(dealing, cond="has_ante")                      # 7.2: antes placed
    deal_complete = dealing.to(deciding, cond="deal_done")                   # 7.3.3 / 7.4.2
    reveal = deciding.to(revealed, cond="all_decided", unless="bet_noncompliant")  # 8.6, 14.9
    settle = revealed.to(settling, unless="past_posting_open")               # 5.6
    finish = settling.to(complete, cond="all_awards_paid")                   # 9.5
    void_round = (preparing.to(void) | betting.to(void) | dealing.to(void) | deciding.to(void)
                  | revealed.to(void) | settling.to(void))


@dataclass
class Spot:
    number: int
    ante: Wager = NO_WAGER
    progressive: Wager = NO_WAGER
    bet: Wager = NO_WAGER
    stacks: dict[str, int] = field(default_factory=dict)  # wagers seen on each area (5.8)
    status: str = "empty"          # empty | playing | played | folded | conceded | absent | void | dead
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


def _wager(data: dict[str, Any]) -> Wager:
    chips, tokens = data.get("cents", 0), data.get("token_cents", 0)
    for name, v in (("cents", chips), ("token_cents", tokens)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise Refused(None, f"the bet-spot board sent {name}={v!r}: not whole cents >= 0")
    return Wager(chips, tokens)


class Round:
    """The facts of one round and the rules applied to each input (the machine's model)."""

    def __init__(self, round_id: str, spots: int, limits: Limits, profile: Profile,
                 card_source: str = "shuffler", deck: str | None = None, back: str | None = None,
                 progressive_offline: bool = False):
        self.round_id = round_id
        self.spot_count = spots
        self.limits = limits
        self.profile = profile
        self.card_source = card_source
        self.deck = deck                      # 3.2: which of the shuffler's two decks is in play
        self.back = back                      # 3.2: its back colour
        self.progressive_offline = progressive_offline  # 14.13 approved with the progressive locked
        self.spots = {n: Spot(n) for n in range(1, spots + 1)}
        self.dealer_cards: list[int] = []
        self.dealer_up: list[int] = []        # 7.1, 14.6
        self.seen: set[int] = set()           # 3.7: each card once
        self.dealt_to: list[int | str] = []   # the targets in deal order (7.2.2)
        self.deliveries = 0
        self.exposed = 0                      # 14.3: two or more is a misdeal
        self.player_handled = False           # 14.1: a misdeal only before players handle cards
        self.first_to_play: int | None = None  # 14.11.1
        # the shoe's deal (7.3), folded from the journal so that a restart keeps it
        self.unread: int | None = None        # reader number of a card the shoe could not read (14.1)
        self.deal_stopped: str | None = None  # why the cards were dealt incorrectly: a misdeal is due (14.1)
        self.shoe_off: int | None = None      # cards read when the shoe was lifted off its base
        self.dealer_value: int | None = None
        self.awards: dict[str, Any] | None = None  # the pool's result (12.x), once applied
        self.settlement: dict[str, Any] | None = None
        self.void_reason: tuple[str, str] | None = None  # (RoundVoid value, rule)
        self.machine = RoundMachine(model=self)

    # -- guards (named in RoundMachine) ---------------------------------------------------------

    def has_ante(self) -> bool:
        return any(s.ante for s in self.spots.values())

    def deal_done(self) -> bool:
        in_play = [s for s in self.spots.values() if s.status == "playing"]
        return len(self.dealer_cards) == HAND_SIZE and all(len(s.cards) == HAND_SIZE for s in in_play)

    def all_decided(self) -> bool:
        return not any(s.status == "playing" for s in self.spots.values())

    def bet_noncompliant(self) -> bool:
        return any(self._bet_breach(s) for s in self.spots.values() if s.status == "played")

    def past_posting_open(self) -> bool:
        return any(s.past_posting for s in self.spots.values())

    def all_awards_paid(self) -> bool:
        return not any(s.award_held for s in self.spots.values())

    # -- reading -------------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        return str(self.machine.current_state_value)

    @property
    def finished(self) -> bool:
        return self.phase in ("complete", "void")

    def in_play(self) -> list[Spot]:
        return [s for s in self.spots.values() if s.status not in ("empty",)]

    def wagering_spots(self) -> list[int]:
        return [s.number for s in self.spots.values() if s.ante or s.locked_ante]

    def _bet_breach(self, s: Spot):
        return self.limits.check_bet(s.bet.cents, s.locked_ante.cents)

    # -- input ---------------------------------------------------------------------------------

    def handle(self, kind: str, data: dict[str, Any]) -> list[Effect]:
        """Apply one input; refusals come back as ``Say(level="refused")``, never as exceptions."""
        handler = getattr(self, "input_" + kind.replace(".", "_"), None)
        if handler is None:
            return [Say(f"round {self.round_id}: no such input {kind!r}", level="refused")]
        try:
            return handler(**data)
        except Refused as r:
            return [Say(str(r), spot=r.spot, rule=r.rule, level="refused")]
        except TypeError as exc:  # an input with missing or unknown fields
            return [Say(f"{kind}: malformed input ({exc})", level="refused")]

    def _send(self, event: str) -> None:
        self.machine.send(event)

    def _require(self, *phases: str, action: str) -> None:
        if self.phase not in phases:
            raise Refused(None, f"{action} is not possible while the round is {self.phase}")

    def _spot(self, spot: Any) -> Spot:
        if not isinstance(spot, int) or isinstance(spot, bool) or spot not in self.spots:
            raise Refused(None, f"no spot {spot!r}: this table has spots 1 to {self.spot_count}")
        return self.spots[spot]

    # preparing ------------------------------------------------------------------------------

    def input_cards_ready(self) -> list[Effect]:
        """The table core says the cards are shuffled (4.1) (and cut, with the shoe: 4.2)."""
        self._require("preparing", action="opening the betting")
        self._send("cards_ready")
        return [Command("betspots", "unlock", {"round_id": self.round_id, "progressive_spots": []}),
                Say(f"round {self.round_id}: place your bets")]

    # betting (5.2, 5.3, 5.8, 6.1, 11.1) ------------------------------------------------------

    def input_wager(self, spot: int, area: str, cents: int = 0, token_cents: int = 0,
                 stacks: int = 1) -> list[Effect]:
        s = self._spot(spot)
        if area not in AREAS:
            raise Refused(None, f"no wagering area {area!r} (ante, progressive, bet)", spot)
        w = _wager({"cents": cents, "token_cents": token_cents})
        phase = self.phase
        if phase in ("preparing", "betting"):
            return self._wager_while_betting(s, area, w, stacks)
        if phase == "deciding" and area == "bet":
            return self._bet_while_deciding(s, w, stacks)
        if phase in ("settling", "complete", "void"):
            # the dealer is paying and collecting (9.3, 9.4): chips move by design
            setattr(s, area, w)
            return []
        return self._after_no_more_bets(s, area, w)

    def _wager_while_betting(self, s: Spot, area: str, w: Wager, stacks: int) -> list[Effect]:
        effects: list[Effect] = []
        had_ante = bool(s.ante)
        setattr(s, area, w)
        s.stacks[area] = stacks if w else 0
        if area == "bet" and w:
            effects.append(Say(f"spot {s.number}: no bet before the cards are dealt (5.5, 8.1): "
                               "remove it", s.number, "5.6", "flag"))
        if bool(s.ante) != had_ante and not self.progressive_offline:
            # 11.1: progressive acceptance only on spots with an ante
            effects.append(Command("betspots", "progressive_acceptance",
                                   {"round_id": self.round_id, "spot": s.number, "enabled": bool(s.ante)}))
        breach = self._wager_breach(s, area)
        if breach:
            effects.append(Say(f"spot {s.number}: {breach.message}", s.number, breach.rule, "flag"))
        return effects

    def _wager_breach(self, s: Spot, area: str):
        one = check_one_wager(s.stacks.get(area, 0))
        if one:
            return one
        if area == "ante" and s.ante:
            return self.limits.check_ante(s.ante.cents)
        if area == "progressive" and s.progressive:
            if self.progressive_offline:
                from tabled.game.limits import Breach
                return Breach("14.13", "the progressive is offline: no progressive wagers")
            return self.limits.check_progressive(s.progressive.cents, s.ante.cents)
        return None

    def input_no_more_bets(self) -> list[Effect]:
        """7.2.1: lock the board; every accepted progressive wager contributes now (11.6)."""
        self._require("betting", action="'no more bets'")
        if not self.has_ante():
            raise Refused("7.2", "no ante on any spot: nothing to deal")
        for s in self.spots.values():
            if s.bet:
                raise Refused("5.6", f"spot {s.number} has a bet before the deal: remove it first", s.number)
            for area in ("ante", "progressive"):
                b = self._wager_breach(s, area) if getattr(s, area) else None
                if b:
                    raise Refused(b.rule, f"spot {s.number}: {b.message}: correct it before "
                                          "'no more bets'", s.number)
        self._send("no_more_bets")
        effects: list[Effect] = [Command("betspots", "lock", {"round_id": self.round_id})]
        for s in self.spots.values():
            s.locked_ante, s.locked_progressive = s.ante, s.progressive
            if s.ante:
                s.status = "playing"
                self.dealt_to.append(s.number)
            if s.ante and s.progressive:
                s.progressive_accepted = True
                s.contributed = True
                effects.append(PoolOp("contribute", self.round_id, s.number, s.progressive.cents))
        self.dealt_to.append(DEALER)
        effects.append(Say(f"round {self.round_id}: no more bets; deal to spots "
                           f"{', '.join(str(n) for n in self.dealt_to[:-1])} and the dealer (7.2.2)", rule="7.2.1"))
        return effects

    # dealing (7.1 - 7.4, 14.1 - 14.8, 3.2, 3.7) ----------------------------------------------

    @staticmethod
    def _cards_ok(cards: list[int]) -> None:
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
                raise Refused(None, f"the card reader sent {c!r}: not a card")

    def _take(self, cards: list[int]) -> None:
        self._cards_ok(cards)
        for c in cards:
            if c in self.seen:
                raise _IntegrityFault("3.7", f"{card_text(c)} seen twice in the deck in play")
            self.seen.add(c)

    def _check_back(self, back: str | None, rule: str) -> None:
        """A card whose back is not the colour of the deck in play is an integrity fault. No colour
        reported (a reader that cannot see backs) is no evidence either way."""
        if back is not None and not isinstance(back, str):
            raise Refused(None, f"the card reader sent back={back!r}: not a colour")
        if back is not None and self.back is not None and back != self.back:
            raise _IntegrityFault(rule, f"a card with a {back} back in a round played with the {self.back} deck")

    def input_hand(self, cards: list[int], back: str | None = None, up: int = HAND_SIZE - 1) -> list[Effect]:
        """7.4: the shuffling device delivers five cards at a time, spots in order, then the dealer."""
        self._require("dealing", action="a hand from the shuffling device")
        if self.card_source != "shuffler":
            raise Refused("7.3", "this table deals from the card shoe")
        try:
            self._check_back(back, "3.2")  # 3.2: the deck in play's back differs from the other deck's
            self._take(list(cards))
        except _IntegrityFault as f:
            return self._void(RoundVoid.INVALIDATED, f.rule, f"card integrity: {f}")
        if self.deliveries >= len(self.dealt_to):
            return self._void(RoundVoid.MISDEAL, "14.2", "more hands than spots with an ante and the dealer")
        target = self.dealt_to[self.deliveries]
        self.deliveries += 1
        effects: list[Effect] = []
        if target == DEALER:
            if len(cards) != HAND_SIZE:
                return self._void(RoundVoid.MISDEAL, "14.2", f"the dealer was dealt {len(cards)} cards")
            self.dealer_cards = list(cards)
            if not 0 <= up < HAND_SIZE:
                up = HAND_SIZE - 1
            self.dealer_up = sorted(set(self.dealer_up) | {self.dealer_cards[up]})  # 7.4.2: bottom card up
        else:
            s = self.spots[target]
            s.cards = list(cards)
            if len(cards) != HAND_SIZE:
                s.status = "void"  # 14.7: too few or too many cards
                effects.append(Say(f"spot {s.number}: {len(cards)} cards: hand void, ante and progressive "
                                   "returned", s.number, "14.7", "flag"))
                effects += self._reverse(s, "14.7 void hand")
        return effects + self._maybe_dealt()

    def input_card(self, card: int, back: str | None = None, reader_seq: int | None = None,
                   keyed: bool = False) -> list[Effect]:
        """7.3: the shoe: one card to each spot with an ante, then the dealer, five passes. ``keyed``:
        the card the shoe could not read, as the dealer read it and keyed it in on the panel."""
        self._require("dealing", action="a card from the shoe")
        if self.card_source != "shoe":
            raise Refused("7.4", "this table deals from the shuffling device")
        self._cards_ok([card])
        what = f"card {reader_seq} ({card_text(card)})" if reader_seq is not None else f"card {card_text(card)}"
        try:
            # 3.1: a deck's backs are one colour; 16.4.2: a card from elsewhere voids the round
            self._check_back(back, "3.1")
        except _IntegrityFault as f:
            return self._void(RoundVoid.INVALIDATED, f.rule, f"card integrity (16.4.2): {what}: {f}")
        if keyed:
            if self.unread is None or self.deal_stopped:
                raise Refused("7.3", f"{what} keyed in, but no unreadable card waits for it: not dealt")
            self.unread = None
        elif self.deal_stopped:
            return [Say(f"{what} drawn: not dealt, the deal is stopped: declare a misdeal (14.1)",
                        rule="14.1", level="flag")]
        elif self.unread is not None:  # 14.1: the unreadable card's place in the deal is not known
            return self._stop_deal(f"{what} drawn before unreadable card {self.unread} was keyed in")
        try:
            self._take([card])
        except _IntegrityFault as f:
            return self._void(RoundVoid.INVALIDATED, f.rule, f"card integrity: {f}")
        n = len(self.dealt_to)
        if self.deliveries >= HAND_SIZE * n:
            return self._void(RoundVoid.MISDEAL, "14.2", "more cards than five passes")
        target = self.dealt_to[self.deliveries % n]
        self.deliveries += 1
        effects: list[Effect] = []
        if target == DEALER:
            self.dealer_cards.append(card)
            if len(self.dealer_cards) == HAND_SIZE:
                if not self.dealer_up:
                    self.dealer_up = [card]  # 7.3.3: the dealer's last card face up
                else:  # 14.6, NZ 14.6: a card exposed in error is the up card; the fifth goes face down
                    effects.append(Say(f"the dealer's fifth card face down: {card_text(self.dealer_up[0])} "
                                       "is the dealer's up card", rule="14.6"))
        else:
            self.spots[target].cards.append(card)
        return effects + self._maybe_dealt()

    # the shoe's troubles (7.3, 14.1): each journaled, so the deal stands where it stood after a restart

    def _stop_deal(self, why: str) -> list[Effect]:
        """14.1: the cards have been dealt incorrectly: no further card is dealt, a misdeal is due."""
        self.deal_stopped = why
        return [Say(f"{why}: the cards have been dealt incorrectly: declare a misdeal (14.1)", rule="14.1",
                    level="flag")]

    def shoe_trouble(self) -> bool:
        """The shoe's deal waits for the dealer (the panel's FAULT lamp flashes)."""
        return self.unread is not None or self.deal_stopped is not None or self.shoe_off is not None

    @staticmethod
    def _count(name: str, v: Any) -> int:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise Refused(None, f"the shoe sent {name}={v!r}: not a count")
        return v

    def input_shoe_unreadable(self, reader_seq: int, back: str | None = None) -> list[Effect]:
        """7.3, 14.1: the deal waits until the dealer keys the card in or declares a misdeal."""
        self._require("dealing", action="an unreadable card")
        self._count("reader_seq", reader_seq)
        try:
            self._check_back(back, "3.1")
        except _IntegrityFault as f:
            return self._void(RoundVoid.INVALIDATED, f.rule, f"card integrity (16.4.2): card {reader_seq}: {f}")
        if self.deal_stopped:
            return [Say(f"card {reader_seq} drawn: not dealt, the deal is stopped: declare a misdeal (14.1)",
                        rule="14.1", level="flag")]
        if self.unread is not None:
            return self._stop_deal(f"card {reader_seq} drawn while the deal was stopped")
        self.unread = reader_seq
        return [Say(f"card {reader_seq} could not be read by the shoe: look at it and key it in (ENTER CARD) "
                    "before drawing the next card, or declare a misdeal (14.1)", rule="7.3", level="flag")]

    def input_shoe_removed(self, cards_read: int) -> list[Effect]:
        """7.3: a card drawn while the shoe is off its base is not read."""
        self._require("dealing", action="the shoe lifted")
        self.shoe_off = self._count("cards_read", cards_read)
        return [Say("the shoe was lifted off its base during the deal: put it back before drawing "
                    "(a card drawn meanwhile is not read)", rule="7.3", level="flag")]

    def input_shoe_replaced(self, cards_read: int) -> list[Effect]:
        """Put back with no card drawn meanwhile: the deal goes on; otherwise a misdeal is due (14.1)."""
        self._require("dealing", action="the shoe put back")
        self._count("cards_read", cards_read)
        off, self.shoe_off = self.shoe_off, None
        if off is not None and cards_read != off:
            return self._stop_deal(f"{cards_read - off} card(s) drawn while the shoe was off its base")
        if off is not None and not self.deal_stopped and self.unread is None:
            return [Say("the shoe is back on its base: the deal continues", rule="7.3")]
        return []

    def input_shoe_empty(self, cards_read: int) -> list[Effect]:
        """A deck of 52 never runs out in one deal: cards are missing (3.7), a misdeal is due (14.1)."""
        self._require("dealing", action="the shoe running out")
        return self._stop_deal(f"the shoe ran out after {self._count('cards_read', cards_read)} cards")

    def _maybe_dealt(self) -> list[Effect]:
        if not self.deal_done():
            return []
        self._send("deal_complete")
        return [Note("round.dealt", {
            "dealer_up": [card_text(c) for c in self.dealer_up],
            "dealer": hand_text(self.dealer_cards),
            "spots": {str(s.number): hand_text(s.cards) for s in self.spots.values() if s.cards},
        }, self.round_id), Say(f"round {self.round_id}: dealer shows {hand_text(self.dealer_up)}; "
                               "players: fold or bet (8.1)", rule="8.1")]

    def input_exposed_card(self, target: Any, card: int | None = None) -> list[Effect]:
        """14.3, 14.5, 14.6 (NZ 14.4 - 14.6): one exposed card is turned over; one exposed on the
        dealer's hand (``card``) stays up as the dealer's up card, the fifth card dealt face down;
        two or more exposed during the deal is a misdeal."""
        self._require("dealing", action="an exposed card")
        if target == DEALER:
            if card is None:
                raise Refused("14.6", "which card is exposed on the dealer's hand? none named")
            self._cards_ok([card])
            if card not in self.dealer_cards:
                raise Refused("14.6", f"{card_text(card)} is not a card of the dealer's hand "
                                      f"({hand_text(self.dealer_cards) or 'none dealt yet'})")
        else:
            s = self._spot(target)
        self.exposed += 1
        if self.exposed >= 2:
            return self._void(RoundVoid.MISDEAL, "14.3", "two or more cards exposed during the deal")
        if target == DEALER:
            self.dealer_up = [card]
            return [Say(f"{card_text(card)} exposed on the dealer's hand: it stays face up as the dealer's "
                        "up card; deal the dealer's other cards face down, the fifth too", rule="14.6")]
        return [Say(f"spot {s.number}: exposed card: turn it over and continue", s.number, "14.5")]

    def input_misdeal(self) -> list[Effect]:
        """14.1: the dealer declares a misdeal before any player handles their cards; 14.4."""
        self._require("dealing", "deciding", action="a misdeal")
        if self.player_handled:
            raise Refused("14.1", "players have handled their cards: too late for a misdeal")
        return self._void(RoundVoid.MISDEAL, "14.4", "misdeal declared by the dealer")

    def input_hand_without_ante(self, spot: int) -> list[Effect]:
        """A hand dealt to a playing area without an ante: 14.8 (discard) or NZ 14.7 (redeal)."""
        self._require("dealing", "deciding", action="a hand without an ante")
        s = self._spot(spot)
        if s.locked_ante:
            raise Refused("14.8", f"spot {s.number} has an ante", s.number)
        if self.profile.hand_without_ante is HandWithoutAnte.REDEAL and self.phase == "dealing":
            return self._void(RoundVoid.MISDEAL, "NZ 14.7", f"cards dealt to spot {s.number} without an ante: "
                                                            "collect, reshuffle and redeal")
        return [Say(f"spot {s.number}: no ante: count the cards and place them in the discard rack",
                    s.number, "14.8" if self.profile.hand_without_ante is HandWithoutAnte.DISCARD else "NZ 14.8")]

    def input_deck_count(self, count: int) -> list[Effect]:
        """3.7: the dealer counts the deck in play; NZ 14.9 (profile) makes a short deck a misdeal."""
        if not isinstance(count, int) or isinstance(count, bool):
            raise Refused("3.7", f"a deck count is a whole number, got {count!r}")
        if count == 52:
            return [Say("deck counted: 52 cards", rule="3.7")]
        if self.profile.deck_not_52 is DeckNot52.VOID and self.phase not in ("preparing", "betting"):
            return self._void(RoundVoid.DECK_NOT_52, "NZ 14.9", f"the deck in play holds {count} cards")
        return [Say(f"the deck in play holds {count} cards, not 52: replace the cards (3.6); "
                    "a supervisor decides on this round (16.4)", rule="3.7", level="flag")]

    # deciding (5.4, 5.5, 8, 14.9, 14.11.1, 14.12) ----------------------------------------------

    def _deciding_spot(self, spot: int) -> Spot:
        self._require("deciding", action="a decision")
        s = self._spot(spot)
        if s.status not in ("playing", "played"):
            raise Refused("8.1", f"spot {s.number} is {s.status}: no decision to make", s.number)
        if self.first_to_play is not None and s.number != self.first_to_play \
                and self.spots[self.first_to_play].status == "playing":
            raise Refused("14.11.1", f"spot {self.first_to_play} was directed to play first", s.number)
        self.player_handled = True
        return s

    def _bet_while_deciding(self, s: Spot, w: Wager, stacks: int) -> list[Effect]:
        if s.status not in ("playing", "played"):
            if w:
                return self._after_no_more_bets(s, "bet", w)
            s.bet = w
            return []
        self._deciding_spot(s.number)
        s.bet = w
        if not w:
            s.status = "playing"  # the bet was taken back before the reveal (14.9.1 correction)
            return []
        s.status = "played"       # 8.5
        breach = check_one_wager(stacks) or self._bet_breach(s)
        if breach:
            # 14.9: before the dealer's cards are exposed: correct the bet or fold
            return [Say(f"spot {s.number}: {breach.message}: correct the bet or fold (14.9)",
                        s.number, breach.rule, "flag")]
        return [Say(f"spot {s.number} bets {dollars(w.cents)}", s.number, "8.5")]

    def input_fold(self, spot: int) -> list[Effect]:
        """8.3, 8.4: the dealer collects the ante and the cards; 14.9.2: any bet made is returned."""
        s = self._deciding_spot(spot)
        s.status = "folded"
        returned = f", return the bet of {dollars(s.bet.cents)} (14.9.2)" if s.bet else ""
        return [Say(f"spot {s.number} folds: collect the ante {dollars(s.locked_ante.cents)}{returned}",
                    s.number, "8.4")]

    def input_absent(self, spot: int) -> list[Effect]:
        """14.12: not present to decide: the hand is void; ante and progressive wager returned."""
        s = self._deciding_spot(spot)
        s.status = "absent"
        return [Say(f"spot {s.number}: player absent: hand void, return ante and progressive wager",
                    s.number, "14.12", "flag")] + self._reverse(s, "14.12 absent player")

    def input_dead_hand(self, spot: int) -> list[Effect]:
        """NZ 14.1 (profiles with dead hands): ante, bet and progressive forfeited."""
        if not self.profile.dead_hands:
            raise Refused("NZ 14.1", f"profile {self.profile.name} has no dead hands")
        self._require("deciding", "revealed", action="a dead hand")
        s = self._spot(spot)
        if s.status not in ("playing", "played"):
            raise Refused("NZ 14.1", f"spot {s.number} is {s.status}", s.number)
        s.status = "dead"
        return [Say(f"spot {s.number}: dead hand: ante, bet and progressive forfeited", s.number, "NZ 14.1", "flag")]

    def input_play_first(self, spot: int) -> list[Effect]:
        """14.11.1: a supervisor directs a spot to play before the others handle their cards."""
        self._require("deciding", action="directing a spot to play first")
        s = self._spot(spot)
        if s.status != "playing":
            raise Refused("14.11.1", f"spot {s.number} has already decided", s.number)
        self.first_to_play = s.number
        return [Say(f"spot {s.number} plays first", s.number, "14.11.1")]

    def input_reveal(self) -> list[Effect]:
        """8.6: every remaining player has decided; the dealer turns the hand over (9.1 qualify)."""
        self._require("deciding", action="the reveal")
        undecided = [s.number for s in self.spots.values() if s.status == "playing"]
        if undecided:
            raise Refused("8.6", f"spots {undecided} have not decided (fold or bet)")
        for s in self.spots.values():
            if s.status == "played":
                b = self._bet_breach(s)
                if b:
                    raise Refused("14.9", f"spot {s.number}: {b.message}: correct it or fold before the "
                                          "dealer's cards are exposed", s.number)
        self._send("reveal")
        for s in self.spots.values():
            s.locked_bet = s.bet
        self.dealer_value = evaluate(self.dealer_cards)
        q = dealer_qualifies(self.dealer_value)
        return [Say(f"dealer: {hand_text(self.dealer_cards)}, {HandValue(self.dealer_value)}: "
                    + ("qualifies" if q else "no hand: bets void, antes paid (9.2)"),
                    rule="9.1" if q else "9.2")]

    # revealed (9.7, 9.8) ---------------------------------------------------------------------

    def input_concede(self, spot: int) -> list[Effect]:
        """9.7: after the reveal a player may concede; 9.8: never returned to play."""
        self._require("revealed", action="a concession")
        s = self._spot(spot)
        if s.status != "played":
            raise Refused("9.8" if s.status == "conceded" else "9.7",
                          f"spot {s.number} is {s.status}: it cannot concede", s.number)
        s.status = "conceded"
        return [Say(f"spot {s.number}: conceding hand: collect ante and bet", s.number, "9.7")]

    # past posting (5.6) ------------------------------------------------------------------------

    def _after_no_more_bets(self, s: Spot, area: str, w: Wager) -> list[Effect]:
        locked = {"ante": s.locked_ante, "progressive": s.locked_progressive,
                  "bet": s.locked_bet if self.phase == "revealed" else s.bet}[area]
        if area == "ante" and not w and s.status in ("folded", "conceded"):
            setattr(s, area, w)  # 8.4, 9.7: the dealer collects a folded or conceded hand's ante
            return []
        if area in ("bet", "progressive") and not w and s.status in ("folded", "conceded", "absent", "void"):
            setattr(s, area, w)  # returned (14.9.2, 14.12, 14.7) or collected
            return []
        if area == "ante" and not w and s.status in ("absent", "void"):
            setattr(s, area, w)
            return []
        setattr(s, area, w)
        if w == locked:
            if s.past_posting and all(getattr(s, a) == self._locked(s, a) for a in AREAS):
                s.past_posting = None  # the dealer put it back as it was
                return [Say(f"spot {s.number}: wager restored", s.number, "5.6")]
            return []
        s.past_posting = f"{area} changed from {dollars(locked.cents)} to {dollars(w.cents)} after " \
                         + ("no more bets" if area != "bet" else "the deciding phase closed")
        return [Say(f"spot {s.number}: PAST POSTING: {s.past_posting}: settlement waits until it is "
                    "resolved", s.number, "5.6", "flag")]

    def _locked(self, s: Spot, area: str) -> Wager:
        if area == "ante":
            return s.locked_ante
        if area == "progressive":
            return s.locked_progressive
        return s.locked_bet if self.phase == "revealed" else s.bet

    def input_resolve_past_posting(self, spot: int) -> list[Effect]:
        """5.6: resolved by the dealer or a supervisor: the wagers stand as they were locked."""
        s = self._spot(spot)
        if not s.past_posting:
            raise Refused("5.6", f"spot {s.number} has no past posting to resolve", s.number)
        what, s.past_posting = s.past_posting, None
        return [Say(f"spot {s.number}: past posting resolved ({what}); settled on the wagers as "
                    "locked", s.number, "5.6")]

    # settlement (9, 10, 12) ---------------------------------------------------------------------

    def progressive_hits(self) -> list[ProgressiveHit]:
        """11.7 hands on spots whose progressive wager was accepted and still stands (docs/settlement.md):
        taken from the game core's settlement, so the pool and the settlement always agree."""
        preview = settle(self.facts(0), self.profile)
        return [ProgressiveHit(a.spot, a.category) for a in preview.progressive.awards]

    def input_settle(self) -> list[Effect]:
        """The dealer settles (9.3, 9.4); a round with progressive hits takes them from the pool in
        one step, and their hands stay face up until paid (9.5)."""
        self._require("revealed", action="settlement")
        open_pp = [s.number for s in self.spots.values() if s.past_posting]
        if open_pp:
            raise Refused("5.6", f"past posting on spots {open_pp} is not resolved")
        self._send("settle")
        hits = self.progressive_hits()
        for h in hits:
            self.spots[h.spot].award_held = True
        if hits:
            return [PoolOp("awards", self.round_id, hits=tuple((h.spot, h.category.name) for h in hits)),
                    Say(f"progressive hands on spots {[h.spot for h in hits]}: leave the cards face up "
                        "until paid", rule="9.5")]
        return []

    def input_awards_applied(self, result: dict[str, Any]) -> list[Effect]:
        """The pool took this round's awards in one step; the settlement that follows at once tells
        the dealer to pay them, in the order of 12.2 and 12.4 (tabled/table/display.py), once."""
        self._require("settling", action="progressive awards")
        self.awards = result
        return []

    def input_award_paid(self, spot: int) -> list[Effect]:
        """9.5: the dealer has paid the progressive award; the cards may now be collected."""
        self._require("settling", action="confirming a progressive payment")
        s = self._spot(spot)
        if not s.award_held:
            raise Refused("9.5", f"spot {s.number} has no progressive award waiting", s.number)
        if self.awards is None:
            raise Refused("9.5", "the pool has not yet taken this round's awards: wait")
        order = [a["spot"] for a in self.awards.get("awards", []) if self.spots[a["spot"]].award_held]
        if order and order[0] != s.number:
            raise Refused("12.2", f"pay spot {order[0]} first (12.2, 12.4)", s.number)
        s.award_held = False
        return [Say(f"spot {s.number}: progressive paid; collect the cards", s.number, "9.5")]

    def try_finish(self) -> bool:
        if self.phase == "settling" and self.all_awards_paid():
            self._send("finish")
            return True
        return False

    def facts(self, pool_cents: int) -> RoundFacts:
        """The facts as the game core's settlement reads them."""
        status_map = {"played": SpotStatus.PLAYED, "folded": SpotStatus.FOLDED,
                      "conceded": SpotStatus.CONCEDED, "absent": SpotStatus.ABSENT,
                      "void": SpotStatus.VOID, "dead": SpotStatus.DEAD, "empty": SpotStatus.EMPTY,
                      "playing": SpotStatus.ABSENT}
        spots = []
        for s in self.spots.values():
            ante = s.locked_ante if self.phase not in ("preparing", "betting") else s.ante
            if not ante:
                spots.append(SpotFacts(s.number, SpotStatus.EMPTY))
                continue
            status, cards = status_map[s.status], tuple(s.cards)
            if s.forfeit:
                status = SpotStatus.CONCEDED  # 16.5: forfeited = collected like a conceded hand
            elif s.status == "void" and len(cards) == HAND_SIZE:
                cards = ()  # 16.3.1: a supervisor voided the wagers of a full hand
            spots.append(SpotFacts(
                s.number, status, ante=ante,
                bet=s.locked_bet if s.status == "played" else (s.bet if s.status != "absent" else NO_WAGER),
                progressive=s.locked_progressive if s.progressive_accepted else NO_WAGER,
                cards=cards))
        void = RoundVoid(self.void_reason[0]) if self.void_reason else None
        return RoundFacts(self.spot_count, tuple(self.dealer_cards), tuple(spots), pool_cents, void)

    # void paths (14.4, 15.2.1, 16.4, 16.5, 3.7) -----------------------------------------------------

    def _reverse(self, s: Spot, reason: str) -> list[Effect]:
        if s.contributed and not s.reversed:
            s.reversed = True
            return [PoolOp("reverse", self.round_id, s.number, s.locked_progressive.cents, reason)]
        return []

    def _void(self, why: RoundVoid, rule: str, reason: str, forfeit: tuple[int, ...] = ()) -> list[Effect]:
        if self.finished:
            raise Refused(rule, f"round {self.round_id} is already {self.phase}")
        self.void_reason = (why.value, rule)
        self._send("void_round")
        effects: list[Effect] = [Command("betspots", "lock", {"round_id": self.round_id})]
        lines = []
        for s in self.spots.values():
            s.award_held = False
            if s.number in forfeit:
                s.forfeit = True
            ante = s.locked_ante or s.ante
            if not (ante or s.progressive or s.bet):
                continue
            total = ante.cents + s.bet.cents + (s.locked_progressive or s.progressive).cents
            if s.forfeit:
                lines.append({"spot": s.number, "forfeit_cents": total})
                effects.append(Say(f"spot {s.number}: wagers forfeited {dollars(total)}", s.number, "16.5"))
                continue
            lines.append({"spot": s.number, "returned_cents": total})
            effects.append(Say(f"spot {s.number}: return every wager ({dollars(total)})", s.number, rule))
            effects += self._reverse(s, f"{rule} void round")
        effects.insert(0, Say(f"round {self.round_id} VOID ({rule}): {reason}", rule=rule, level="flag"))
        effects.append(Note("round.void", {"why": why.value, "rule": rule, "reason": reason, "spots": lines},
                            self.round_id))
        return effects

    def input_invalidate(self, reason: str = "", forfeit: list[int] | None = None) -> list[Effect]:
        """16.4: a supervisor invalidates the round; 16.5: refunds, or forfeits for 16.4.2 players."""
        for n in forfeit or []:
            self._spot(n)
        return self._void(RoundVoid.INVALIDATED, "16.4", reason or "invalidated by a supervisor",
                          tuple(forfeit or ()))

    def input_shuffler_failed(self, reason: str = "") -> list[Effect]:
        """15.2: the shuffling device can no longer work in a round with cards dealt: void."""
        return self._void(RoundVoid.SHUFFLER_FAILURE, "15.2.1", reason or "shuffling device failure")

    def input_void_player(self, spot: int, forfeit: bool = False) -> list[Effect]:
        """16.3.1: a supervisor voids one player's wagers (16.5: refunded, or forfeited)."""
        s = self._spot(spot)
        if self.finished or self.phase == "settling":
            raise Refused("16.3.1", f"round {self.round_id} is {self.phase}")
        if s.status == "empty" and not s.ante:
            raise Refused("16.3.1", f"spot {s.number} has no wager", s.number)
        s.status = "void"
        s.forfeit = forfeit
        s.award_held = False
        if forfeit:
            return [Say(f"spot {s.number}: wagers void and forfeited", s.number, "16.5", "flag")]
        return [Say(f"spot {s.number}: wagers void, return them", s.number, "16.3.1", "flag")] \
            + self._reverse(s, "16.3.1 void wagers")

    # snapshot (checkpoint) -------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        def w(x: Wager) -> list[int]:
            return [x.chips_cents, x.token_cents]
        return {
            "round_id": self.round_id, "phase": self.phase, "card_source": self.card_source,
            "deck": self.deck, "back": self.back, "progressive_offline": self.progressive_offline,
            "dealer_cards": self.dealer_cards, "dealer_up": self.dealer_up, "seen": sorted(self.seen),
            "dealt_to": self.dealt_to, "deliveries": self.deliveries, "exposed": self.exposed,
            "player_handled": self.player_handled, "first_to_play": self.first_to_play,
            "unread": self.unread, "deal_stopped": self.deal_stopped, "shoe_off": self.shoe_off,
            "dealer_value": self.dealer_value, "awards": self.awards, "settlement": self.settlement,
            "void_reason": list(self.void_reason) if self.void_reason else None,
            "spots": [{
                "number": s.number, "ante": w(s.ante), "progressive": w(s.progressive), "bet": w(s.bet),
                "stacks": s.stacks, "status": s.status, "progressive_accepted": s.progressive_accepted,
                "locked_ante": w(s.locked_ante), "locked_progressive": w(s.locked_progressive),
                "locked_bet": w(s.locked_bet), "cards": s.cards, "contributed": s.contributed,
                "reversed": s.reversed, "forfeit": s.forfeit, "past_posting": s.past_posting,
                "award_held": s.award_held} for s in self.spots.values()],
        }

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], spots: int, limits: Limits, profile: Profile) -> Round:
        r = cls(snap["round_id"], spots, limits, profile, snap["card_source"], snap["deck"], snap["back"],
                snap["progressive_offline"])
        r.state = snap["phase"]  # python-statemachine keeps the phase on the model
        r.machine = RoundMachine(model=r)
        for key in ("dealer_cards", "dealer_up", "dealt_to", "deliveries", "exposed", "player_handled",
                    "first_to_play", "dealer_value", "awards", "settlement"):
            setattr(r, key, snap[key])
        for key in ("unread", "deal_stopped", "shoe_off"):  # absent from checkpoints before they existed
            setattr(r, key, snap.get(key))
        r.seen = set(snap["seen"])
        r.void_reason = tuple(snap["void_reason"]) if snap["void_reason"] else None
        for d in snap["spots"]:
            s = r.spots[d["number"]]
            for key in ("ante", "progressive", "bet", "locked_ante", "locked_progressive", "locked_bet"):
                setattr(s, key, Wager(*d[key]))
            for key in ("stacks", "status", "progressive_accepted", "cards", "contributed", "reversed",
                        "forfeit", "past_posting", "award_held"):
                setattr(s, key, d[key])
        return r


class _IntegrityFault(Exception):
    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule

"""Settlement of one round: what happens to every wager on every spot, and why (rules 9 - 12, 14).

A pure function: :func:`settle` takes the facts of a round (:mod:`tabled.game.round_facts`) and a
jurisdiction profile and returns one :class:`SpotSettlement` per spot plus the round's progressive
awards. The daemon, ``tabled settle`` (rule 16.11 disputes), the simulator and the tests all call it.

Readings (docs/settlement.md):

* ``net_cents`` is what changes hands at settlement: + the dealer pays, - the dealer collects.
  Ante and bet sit on the layout, so a returned or stand-off wager nets 0. The progressive wager
  went into the drop at "no more bets" (7.2.1), so it nets 0 unless it is returned (14.12, void),
  when it is paid back and its pool contribution reversed.
* Promotional tokens (1.1, 5.1) are counted at face value: a winning wager is paid on its whole
  amount in chips and the token part is taken; a losing one is taken whole. On a stand off or a
  void the token is returned (our reading; profile ``tokens_returned_on_stand_off``).
* 14.10: a bet that is not twice the ante is settled on the amount wagered when less, on twice
  the ante when more, the excess returned. Tokens count towards the settled part first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .cards import HAND_SIZE, hand_text, parse_cards
from .profiles import DeckNot52, Profile
from .progressive import (QUALIFYING_CATEGORIES, ProgressiveAward, ProgressiveHit, ProgressiveResult,
                          award_progressive)
from .ranking import Category, HandValue, dealer_qualifies, hand_value
from .round_facts import (NO_WAGER, RoundError, RoundFacts, RoundVoid, SpotFacts, SpotStatus, Wager,
                          check_round)


class Outcome(StrEnum):
    PAID = "paid"
    COLLECTED = "collected"
    STAND_OFF = "stand off"          # neither wins nor loses (1.1)
    VOID = "void"                    # invalid with no result (1.1): the wager goes back
    RETURNED = "returned"            # handed back (14.12, 14.9.2)
    TAKEN = "taken at the lock"      # progressive wager: in the drop since "no more bets"
    NONE = "none"                    # no such wager


_VOID_RULES = {
    RoundVoid.MISDEAL: "14.4",
    RoundVoid.SHUFFLER_FAILURE: "15.2.1",
    RoundVoid.INVALIDATED: "16.5",
    RoundVoid.DECK_NOT_52: "NZ 14.9",
}


@dataclass(frozen=True)
class WagerSettlement:
    """What happens to one wager. All amounts are cents; chips and tokens at face value."""

    wager: str                 # "ante", "bet" or "progressive"
    placed: Wager
    outcome: Outcome
    settled_cents: int         # the amount the outcome applies to (14.10)
    winnings_cents: int        # paid to the player, in chips (1.1)
    collected_cents: int       # taken by the house at settlement (a forfeited token included)
    returned_cents: int        # handed back or left with the player untouched
    tokens_forfeited_cents: int
    net_cents: int             # + pay, - collect
    rule: str
    capped: bool = False       # 10.2: the bet's winnings were cut to the maximum payout


@dataclass(frozen=True)
class SpotSettlement:
    spot: int
    status: SpotStatus
    cards: tuple[int, ...]
    hand: HandValue | None
    ante: WagerSettlement
    bet: WagerSettlement
    progressive: WagerSettlement
    award: ProgressiveAward | None       # 11.8: on top of ante and bet
    contribution_reversed: bool          # the progressive wager was returned (docs/settlement.md)
    note: str = ""

    @property
    def wagers(self) -> tuple[WagerSettlement, WagerSettlement, WagerSettlement]:
        return (self.ante, self.bet, self.progressive)

    @property
    def net_cents(self) -> int:
        """Ante, bet and progressive wager: + pay, - collect."""
        return sum(w.net_cents for w in self.wagers)

    @property
    def tokens_forfeited_cents(self) -> int:
        return sum(w.tokens_forfeited_cents for w in self.wagers)

    @property
    def award_cents(self) -> int:
        return self.award.amount_cents if self.award else 0

    @property
    def total_cents(self) -> int:
        """Everything: the net plus the progressive award (11.8)."""
        return self.net_cents + self.award_cents


@dataclass(frozen=True)
class Settlement:
    profile: str
    dealer_cards: tuple[int, ...]
    dealer_hand: HandValue | None
    dealer_qualifies: bool | None
    void: RoundVoid | None
    spots: tuple[SpotSettlement, ...]    # spot N (dealer's immediate right) down to spot 1
    progressive: ProgressiveResult       # awards in payment order (12.2, 12.4)

    @property
    def house_pays_cents(self) -> int:
        paid = sum(w.winnings_cents + (w.returned_cents if w.outcome is Outcome.RETURNED
                                       and w.wager == "progressive" else 0)
                   for s in self.spots for w in s.wagers)
        return paid + sum(a.amount_cents for a in self.progressive.awards)

    @property
    def house_collects_cents(self) -> int:
        return sum(w.collected_cents for s in self.spots for w in s.wagers)

    @property
    def net_cents(self) -> int:
        return sum(s.total_cents for s in self.spots)

    def spot(self, number: int) -> SpotSettlement:
        for s in self.spots:
            if s.spot == number:
                return s
        raise KeyError(number)


def money(cents: int) -> str:
    """``123456`` -> ``'$1,234.56'``: for people only; programs get the integer cents."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


# ---------------------------------------------------------------------------------------------
# one wager


def _split_tokens(placed: Wager, settled: int) -> int:
    """Token cents inside the settled part: tokens count first (they are the free wager, 1.1)."""
    return min(placed.token_cents, settled)


def _paid(name: str, placed: Wager, settled: int, winnings: int, rule: str,
          capped: bool = False) -> WagerSettlement:
    # 1.1: winnings paid in chips on the whole wager; the token part is forfeited
    token = _split_tokens(placed, settled)
    return WagerSettlement(name, placed, Outcome.PAID, settled, winnings, token,
                           placed.cents - token, token, winnings - token, rule, capped)


def _collected(name: str, placed: Wager, settled: int, rule: str) -> WagerSettlement:
    token = _split_tokens(placed, settled)
    return WagerSettlement(name, placed, Outcome.COLLECTED, settled, 0, settled,
                           placed.cents - settled, token, -settled, rule)


def _back(name: str, placed: Wager, outcome: Outcome, rule: str, profile: Profile) -> WagerSettlement:
    """Stand off, void or returned ante/bet: it stays with the player. A token too, on our reading
    of 1.1 (profile ``tokens_returned_on_stand_off``); otherwise the token is forfeited."""
    if not placed:
        return _none(name, placed)
    token = 0 if profile.tokens_returned_on_stand_off else placed.token_cents
    return WagerSettlement(name, placed, outcome, placed.cents, 0, token, placed.cents - token,
                           token, -token, rule)


def _none(name: str, placed: Wager = NO_WAGER) -> WagerSettlement:
    return WagerSettlement(name, placed, Outcome.NONE, 0, 0, 0, 0, 0, 0, "-")


def _progressive_taken(placed: Wager, rule: str) -> WagerSettlement:
    if not placed:
        return _none("progressive", placed)
    # in the drop since the lock: nothing changes hands now; a token is spent (1.1)
    return WagerSettlement("progressive", placed, Outcome.TAKEN, placed.cents, 0, 0, 0,
                           placed.token_cents, 0, rule)


def _progressive_returned(placed: Wager, rule: str, profile: Profile) -> WagerSettlement:
    if not placed:
        return _none("progressive", placed)
    # taken at the lock, so returning it is a payment; its contribution is reversed (docs/settlement.md)
    token = 0 if profile.tokens_returned_on_stand_off else placed.token_cents
    back = placed.cents - token
    return WagerSettlement("progressive", placed, Outcome.RETURNED, placed.cents, 0, 0, back,
                           token, back, rule)


def _bet_settled_on(s: SpotFacts) -> tuple[int, str]:
    """14.10: the amount a bet is paid or taken on, and the rule that fixed it."""
    required = 2 * s.ante.cents  # 5.5: exactly twice the ante
    if s.bet.cents < required:
        return s.bet.cents, "14.10.1"
    if s.bet.cents > required:
        return required, "14.10.2"
    return s.bet.cents, ""


def _with(rule: str, extra: str) -> str:
    return f"{rule}; {extra}" if extra else rule


# ---------------------------------------------------------------------------------------------
# one spot


def _check_against_profile(facts: RoundFacts, profile: Profile) -> None:
    if facts.void is RoundVoid.DECK_NOT_52 and profile.deck_not_52 is not DeckNot52.VOID:
        raise RoundError(f"profile {profile.name} does not void a round for a deck that is not 52 "
                         "cards (that is NZ 14.9); settle the round as dealt")
    for s in facts.spots:
        if s.progressive and s.progressive.cents != profile.progressive_wager_cents:
            raise RoundError(f"spot {s.spot}: a progressive wager is the posted "
                             f"{money(profile.progressive_wager_cents)} (11.3, 5.3), "
                             f"not {money(s.progressive.cents)}")
        if s.status is SpotStatus.DEAD and not profile.dead_hands:
            raise RoundError(f"spot {s.spot}: profile {profile.name} has no dead hands "
                             "(NZ 14.1 is not its rule)")


def _settle_spot(s: SpotFacts, facts: RoundFacts, dealer: HandValue | None, qualifies: bool | None,
                 profile: Profile) -> tuple[SpotSettlement, bool]:
    """The spot's settlement (award filled in later) and whether it may win the progressive."""
    hand = hand_value(s.cards) if len(s.cards) == HAND_SIZE else None
    note = ""
    reversed_ = False
    may_win = False
    if s.status is SpotStatus.FORFEITED:  # before the void: 16.5 forfeits a wager a void returns
        ante = _collected("ante", s.ante, s.ante.cents, "16.5")
        bet = _collected("bet", s.bet, s.bet.cents, "16.5") if s.bet else _none("bet")
        prog = _progressive_taken(s.progressive, "16.5: wagers forfeited")
        note = "wagers forfeited (16.5)"
    elif facts.void is not None:
        rule = _VOID_RULES[facts.void]
        ante = _back("ante", s.ante, Outcome.VOID, rule, profile)
        bet = _back("bet", s.bet, Outcome.VOID, rule, profile)
        prog = _progressive_returned(s.progressive, rule, profile)
        reversed_ = bool(s.progressive)
        note = f"round void ({facts.void}, {rule})"
    elif s.status is SpotStatus.EMPTY:
        ante, bet, prog = _none("ante"), _none("bet"), _none("progressive")
        if s.cards:
            note = "no ante: hand discarded (NSW 14.8, NZ 14.8)"
    elif s.status is SpotStatus.ABSENT:
        ante = _back("ante", s.ante, Outcome.RETURNED, "14.12", profile)
        bet = _none("bet")
        prog = _progressive_returned(s.progressive, "14.12", profile)
        reversed_ = bool(s.progressive)
        note = "player absent: hand void (14.12)"
    elif s.status is SpotStatus.VOID:
        ante = _back("ante", s.ante, Outcome.VOID, "14.7", profile)
        bet = _back("bet", s.bet, Outcome.VOID, "14.7", profile)
        prog = _progressive_returned(s.progressive, "14.7 (our reading: void = no result, 1.1)", profile)
        reversed_ = bool(s.progressive)
        note = f"{len(s.cards)} cards: hand void (14.7)"
    elif s.status is SpotStatus.FOLDED:
        ante = _collected("ante", s.ante, s.ante.cents, "8.4")
        bet = _back("bet", s.bet, Outcome.RETURNED, "14.9.2", profile)  # any portion of a bet made
        prog = _progressive_taken(s.progressive, "8.4: cards collected, progressive forfeited"
                                  if "folded" in profile.progressive_forfeited_by else "11.5")
        may_win = "folded" not in profile.progressive_forfeited_by
    elif s.status is SpotStatus.CONCEDED:
        settled, extra = _bet_settled_on(s)
        ante = _collected("ante", s.ante, s.ante.cents, "9.7")
        bet = _collected("bet", s.bet, settled, _with("9.7", extra)) if s.bet else _none("bet")
        prog = _progressive_taken(s.progressive, "9.7: cards collected, progressive forfeited"
                                  if "conceded" in profile.progressive_forfeited_by else "11.5")
        may_win = "conceded" not in profile.progressive_forfeited_by
    elif s.status is SpotStatus.DEAD:
        settled, extra = _bet_settled_on(s)
        ante = _collected("ante", s.ante, s.ante.cents, "NZ 14.1")
        bet = _collected("bet", s.bet, settled, _with("NZ 14.1", extra)) if s.bet else _none("bet")
        prog = _progressive_taken(s.progressive, "NZ 14.1: dead hand forfeits the jackpot")
        note = "dead hand (NZ 14.1)"
    else:  # played
        assert hand is not None and dealer is not None
        settled, extra = _bet_settled_on(s)
        prog = _progressive_taken(s.progressive, "11.4, 11.7")  # eligible whatever the dealer holds
        may_win = True
        if not qualifies:
            # 9.2: "no hand", bets void; 9.3.1: antes paid
            ante = _paid("ante", s.ante, s.ante.cents, s.ante.cents * profile.ante_odds, "9.3.1, 10.1")
            bet = _back("bet", s.bet, Outcome.VOID, "9.2", profile)
        elif hand.value > dealer.value:
            ante = _paid("ante", s.ante, s.ante.cents, s.ante.cents * profile.ante_odds,
                         "9.4.1.1, 10.1")
            winnings, capped = profile.bet_winnings(hand.category, settled)
            rule = _with("9.4.1.1, 10.1" + (", 10.2 max payout" if capped else ""), extra)
            bet = _paid("bet", s.bet, settled, winnings, rule, capped)
        elif hand.value < dealer.value:
            ante = _collected("ante", s.ante, s.ante.cents, "9.4.1.2")
            bet = _collected("bet", s.bet, settled, _with("9.4.1.2", extra))
        else:
            ante = _back("ante", s.ante, Outcome.STAND_OFF, "9.4.1.3, NZ 13.4", profile)
            bet = _back("bet", s.bet, Outcome.STAND_OFF, "9.4.1.3, NZ 13.4", profile)
    may_win = may_win and bool(s.progressive) and hand is not None
    line = SpotSettlement(s.spot, s.status, s.cards, hand, ante, bet, prog, None, reversed_, note)
    return line, may_win


def settle(facts: RoundFacts, profile: Profile) -> Settlement:
    """Settle one round. Raises :class:`RoundError` on facts that cannot be a round of ``profile``."""
    check_round(facts)
    _check_against_profile(facts, profile)
    dealer = qualifies = None
    if facts.void is None:
        dealer = hand_value(facts.dealer_cards)
        qualifies = dealer_qualifies(dealer.value)  # 9.1

    lines: list[SpotSettlement] = []
    hits: list[ProgressiveHit] = []
    for s in facts.spots:
        line, may_win = _settle_spot(s, facts, dealer, qualifies, profile)
        lines.append(line)
        # 11.7 qualifying hands; 11.4: whether or not the dealer qualifies
        if may_win and line.hand is not None and line.hand.category in QUALIFYING_CATEGORIES:
            hits.append(ProgressiveHit(s.spot, line.hand.category))

    result = award_progressive(facts.pool_cents, hits, profile.progressive_schedule)
    awards = {a.spot: a for a in result.awards}
    lines = [_with_award(line, awards.get(line.spot)) for line in lines]
    lines.sort(key=lambda line: -line.spot)  # spot N first (12.2's order, docs/settlement.md "Spots")
    return Settlement(profile.name, facts.dealer_cards, dealer, qualifies, facts.void,
                      tuple(lines), result)


def _with_award(line: SpotSettlement, award: ProgressiveAward | None) -> SpotSettlement:
    if award is None:
        return line
    return SpotSettlement(line.spot, line.status, line.cards, line.hand, line.ante, line.bet,
                          line.progressive, award, line.contribution_reversed, line.note)


# ---------------------------------------------------------------------------------------------
# for programs


def _wager_dict(w: WagerSettlement) -> dict[str, Any]:
    return {
        "outcome": w.outcome.value, "placed_cents": w.placed.cents,
        "token_cents": w.placed.token_cents, "settled_cents": w.settled_cents,
        "winnings_cents": w.winnings_cents, "collected_cents": w.collected_cents,
        "returned_cents": w.returned_cents, "tokens_forfeited_cents": w.tokens_forfeited_cents,
        "net_cents": w.net_cents, "capped": w.capped, "rule": w.rule,
    }


def _award_dict(a: ProgressiveAward) -> dict[str, Any]:
    return {"spot": a.spot, "category": a.category.label, "amount_cents": a.amount_cents,
            "from_pool_cents": a.from_pool_cents, "operator_topup_cents": a.operator_topup_cents,
            "rule": a.rule}


def supersedes(later: Mapping[str, Any], earlier: Mapping[str, Any]) -> bool:
    """Whether a round's second settlement (a ``round.settled`` record) takes the place of its first:
    a round voided while it settles (16.4, 15.2.1) is settled again, as void, and only that. Any
    other second settlement is a fault of the journal (``tabled audit verify``)."""
    return bool(later.get("void")) and not earlier.get("void")


def settlement_as_dict(st: Settlement) -> Mapping[str, Any]:
    """Plain JSON-ready data; every amount is integer cents."""
    return {
        "profile": st.profile,
        "void": st.void.value if st.void else None,
        "dealer": {
            "cards": hand_text(st.dealer_cards).split(),
            "hand": st.dealer_hand.description if st.dealer_hand else None,
            "value": st.dealer_hand.value if st.dealer_hand else None,
            "qualifies": st.dealer_qualifies,
        },
        "spots": [{
            "spot": s.spot, "status": s.status.value, "cards": hand_text(s.cards).split(),
            "hand": s.hand.description if s.hand else None,
            "ante": _wager_dict(s.ante), "bet": _wager_dict(s.bet),
            "progressive": _wager_dict(s.progressive),
            "net_cents": s.net_cents, "tokens_forfeited_cents": s.tokens_forfeited_cents,
            "progressive_award": _award_dict(s.award) if s.award else None,
            "total_cents": s.total_cents, "contribution_reversed": s.contribution_reversed,
            "note": s.note,
        } for s in st.spots],
        "progressive": {
            "pool_before_cents": st.progressive.pool_before_cents,
            "awards": [_award_dict(a) for a in st.progressive.awards],
            "paid_from_pool_cents": st.progressive.paid_from_pool_cents,
            "operator_topup_cents": st.progressive.operator_topup_cents,
            "pool_after_cents": st.progressive.pool_after_cents,
            "reset": st.progressive.reset,
            "reset_funding_cents": st.progressive.reset_funding_cents,
        },
        "house_pays_cents": st.house_pays_cents,
        "house_collects_cents": st.house_collects_cents,
        "net_cents": st.net_cents,
    }


# ---------------------------------------------------------------------------------------------
# back from a journal: a journaled settlement holds the facts it was computed from


_CATEGORIES = {c.label: c for c in Category}


def _wager_from(name: str, d: Mapping[str, Any]) -> WagerSettlement:
    placed = d["placed_cents"]
    return WagerSettlement(name, Wager(placed - d["token_cents"], d["token_cents"]), Outcome(d["outcome"]),
                           d["settled_cents"], d["winnings_cents"], d["collected_cents"], d["returned_cents"],
                           d["tokens_forfeited_cents"], d["net_cents"], d["rule"], d["capped"])


def _award_from(d: Mapping[str, Any]) -> ProgressiveAward:
    return ProgressiveAward(d["spot"], _CATEGORIES[d["category"]], d["amount_cents"], d["from_pool_cents"],
                            d["operator_topup_cents"], d["rule"])


def _cents_everywhere(value: object, key: str = "") -> bool:
    if key.endswith("_cents") and (not isinstance(value, int) or isinstance(value, bool)):
        return False
    if isinstance(value, Mapping):
        return all(_cents_everywhere(v, k) for k, v in value.items())
    if isinstance(value, list):
        return all(_cents_everywhere(v) for v in value)
    return True


def settlement_from_dict(data: Mapping[str, Any]) -> Settlement:
    """The :class:`Settlement` that :func:`settlement_as_dict` wrote as ``data`` (a journaled
    ``round.settled`` record). Raises :class:`RoundError` when ``data`` is not such a dict: the
    result gives back exactly ``data``, or nothing."""
    try:
        dealer = data["dealer"]
        dealer_cards = parse_cards(dealer["cards"])
        lines = []
        for d in data["spots"]:
            cards = parse_cards(d["cards"])
            lines.append(SpotSettlement(
                d["spot"], SpotStatus(d["status"]), cards,
                hand_value(cards) if d["hand"] is not None else None,
                _wager_from("ante", d["ante"]), _wager_from("bet", d["bet"]),
                _wager_from("progressive", d["progressive"]),
                _award_from(d["progressive_award"]) if d["progressive_award"] else None,
                d["contribution_reversed"], d["note"]))
        pr = data["progressive"]
        st = Settlement(
            data["profile"], dealer_cards,
            HandValue(dealer["value"]) if dealer["value"] is not None else None, dealer["qualifies"],
            RoundVoid(data["void"]) if data["void"] else None, tuple(lines),
            ProgressiveResult(pr["pool_before_cents"], tuple(_award_from(a) for a in pr["awards"]),
                              pr["pool_after_cents"], pr["reset"], pr["reset_funding_cents"]))
        same = settlement_as_dict(st) == data
    except (KeyError, TypeError, ValueError) as exc:
        raise RoundError(f"not a settlement as tabled journals it ({type(exc).__name__}: {exc})") from None
    if not same or not _cents_everywhere(data):
        raise RoundError("not a settlement as tabled journals it (its parts do not add up to it)")
    return st


def settlement_facts(st: Settlement) -> RoundFacts:
    """The facts a settlement was computed from: every spot's status, cards and wagers as placed,
    the dealer's cards, the pool before the awards and why the round is void. Spots are listed
    1 to N, as the daemon gives them (fixed awards taken from the pool are taken in that order)."""
    spots = tuple(SpotFacts(line.spot, line.status, line.ante.placed, line.bet.placed,
                            line.progressive.placed, line.cards)
                  for line in sorted(st.spots, key=lambda line: line.spot))
    spot_count = max((line.spot for line in st.spots), default=1)
    return RoundFacts(spot_count, st.dealer_cards, spots, st.progressive.pool_before_cents, st.void)


__all__ = ["Outcome", "WagerSettlement", "SpotSettlement", "Settlement", "settle", "supersedes",
           "settlement_as_dict", "settlement_from_dict", "settlement_facts", "money", "RoundError"]

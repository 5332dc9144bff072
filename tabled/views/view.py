"""What the people at the table can see: a read-only picture of the table for whoever stands at it.

:func:`dealer_view` reads a :class:`~tabled.table.core.TableCore` and returns frozen data: what the
dealer's display, the panel's lamps and the felt itself show a dealer (and the players) at this
moment, in the table's own words (phases of tabled/table/round.py, decks of 3.2). Nothing in it
can change the table; the same core gives the same view. The simulated people (tabled/sim) decide
from it, and from the effects the table emits, never from the fold's internals.

What it holds and why a person would know it:

* the table open or closed (16.8), open equipment faults and an inspector's approval (14.13),
  a failed shuffling device (15.2.2): all said on the display and shown by the FAULT lamp;
* the cards: which decks sit shuffled (4.1), which are verified (3.4), which deck the dealer's
  check would verify, the shoe's shuffle and cut (4.2);
* the round in play: its id and phase, the deck and its backs, the progressive offline (14.13);
  per spot the chips the board reads, the ante as locked at "no more bets" (5.6), the cards lying
  in front of the spot (its player looks at them, 8.1), and whether a progressive award waits for
  the dealer to pay it (9.5);
* the dealer's up card (7.3.3, 7.4.2), every card of the deck in play out on the felt (3.7), the
  spots (then the dealer) the deal goes to (7.2.2) and how many deliveries have been made.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabled.game.round_facts import Wager
from tabled.table.cardsource import DECKS
from tabled.table.core import TableCore
from tabled.table.spot import Spot


@dataclass(frozen=True)
class SpotView:
    number: int
    status: str                      # empty | playing | played | folded | conceded | absent | void | dead
    ante: Wager                      # chips and tokens as the bet-spot board reads them
    progressive: Wager
    bet: Wager
    locked_ante: Wager               # the ante as at "no more bets" (5.6): the bet is twice this (5.5)
    cards: tuple[int, ...]           # the hand in front of the spot (8.1: its player looks at it)
    award_held: bool                 # 9.5: a progressive award waits for the dealer to pay it


@dataclass(frozen=True)
class AreaPayment:
    """One area on the dealer's screen while the board checks the payments (payout_check.py)."""

    spot: int
    area: str
    state: str                       # done | to pay | over | short | not collected | removed early
    due_chips: int                   # what the area must hold: chips and tokens
    due_tokens: int
    off_cents: int                   # what the board reads minus what is due


@dataclass(frozen=True)
class RoundView:
    round_id: str
    phase: str                       # preparing | betting | dealing | deciding | revealed | settling | ...
    card_source: str                 # shuffler | shoe
    deck: str | None                 # 3.2: the deck in play (A, B; S the shoe's)
    back: str | None
    progressive_offline: bool        # 14.13: play approved with the progressive locked
    spots: dict[int, SpotView]
    dealer_up: tuple[int, ...]       # 7.3.3, 7.4.2
    cards_out: frozenset[int]        # 3.7: every card of the deck in play dealt so far
    deal_order: tuple[int | str, ...]  # 7.2.2: the spots with an ante in order, then "dealer"
    deliveries: int                  # hands (shuffler) or cards (shoe) delivered so far
    awards_to_pay: tuple[int, ...]   # 12.2, 12.4: spots whose held award the dealer pays next, in order
    #: while the board checks the payments (9.3, 9.4): each area the screen lists, as the screen says it
    payments: tuple[AreaPayment, ...] = ()

    @property
    def deliveries_due(self) -> int:
        """What the deal still needs: hands from the shuffling device (7.4), cards from the shoe (7.3)."""
        per_target = 1 if self.card_source == "shuffler" else 5
        return max(0, per_target * len(self.deal_order) - self.deliveries)


@dataclass(frozen=True)
class TableView:
    is_open: bool
    rounds_started: int              # the number in the last round's id
    rounds_finished: int
    spot_count: int
    card_source: str
    progressive_wager_cents: int
    faults: tuple[str, ...]          # 14.13: equipment with an open fault
    approved: bool                   # 14.13: an inspector approved play
    shuffler_failed: bool            # 15.2.2
    decks_shuffled: frozenset[str]   # 4.1: decks sitting shuffled (A, B of the shuffling device)
    decks_verified: frozenset[str]   # 3.4: A, B and S (the shoe's)
    deck_to_check: str | None        # 3.4: the deck the dealer's check on the panel would verify
    cut_done: bool                   # 4.2: the shoe's deck shuffled and cut
    round: RoundView | None
    staff_listed: bool = False       # a staff list is in force: people sign in at the panel
    signed_in: tuple[tuple[str, int], ...] = ()  # (role, badge) of each person signed in (the display says)
    shuffler_out: bool = False       # 15.2: the shuffling device is out of play until an inspector clears it

    def on_duty(self, role: str) -> int | None:
        """The badge signed in to ``role``, if any."""
        return dict(self.signed_in).get(role)

    def describe(self) -> str:
        """Where the table stands, in a sentence (what a person would tell a supervisor)."""
        r = self.round
        if r is not None:
            return f"round {r.round_id} is {r.phase}"
        why = ("the table is closed" if not self.is_open else
               "no dealer signed in" if self.staff_listed and self.on_duty("dealer") is None else
               f"equipment fault {list(self.faults)} awaits an inspector (14.13)" if self.faults and not self.approved
               else "the shuffling device is out of play until an inspector clears it (15.2)"
               if self.shuffler_failed and self.shuffler_out
               else "the shuffling device failed (15.2.2)" if self.shuffler_failed else "no round")
        return f"no round in play: {why}"


def _spot(s: Spot) -> SpotView:
    return SpotView(s.number, s.status, s.ante, s.progressive, s.bet, s.locked_ante, tuple(s.cards), s.award_held)


def _payments(core: TableCore) -> tuple[AreaPayment, ...]:
    check = core.payments
    if not check.waiting(core.round_id):
        return ()
    views = []
    for (n, a), due in check.due.items():
        state, off = check.states.get((n, a), ("done", 0))
        views.append(AreaPayment(n, a, state, due.chips, due.tokens, off))
    return tuple(views)


def dealer_view(core: TableCore) -> TableView:
    """The table as the people at it see it now (see the module's docstring)."""
    r = core.round
    round_view = None
    if r is not None:
        awards = r.awards["awards"] if r.awards is not None else []
        round_view = RoundView(
            r.round_id, r.phase, r.card_source, r.deck, r.back, r.progressive_offline,
            {n: _spot(s) for n, s in r.spots.items()}, tuple(r.dealer_up), frozenset(r.seen),
            tuple(r.dealt_to), r.deliveries,
            tuple(a["spot"] for a in awards if r.spots[a["spot"]].award_held), _payments(core))
    return TableView(
        is_open=core.hours.is_open, rounds_started=core.round_no, rounds_finished=core.rounds_finished,
        spot_count=core.spot_count, card_source=core.decks.source,
        progressive_wager_cents=core.hours.limits.progressive_wager_cents,
        faults=tuple(sorted(core.equipment.faults)), approved=core.equipment.approved,
        shuffler_failed=core.decks.shuffler_failed,
        decks_shuffled=frozenset(d for d in DECKS if core.decks.status[d]["shuffled"]),
        decks_verified=frozenset(d for d, state in core.decks.status.items() if state["verified"]),
        deck_to_check=core.decks.deck_to_check(core.round), cut_done=core.decks.cut_done, round=round_view,
        staff_listed=core.staff.listed, signed_in=tuple(sorted(core.staff.on.items())),
        shuffler_out=core.decks.device_out is not None)

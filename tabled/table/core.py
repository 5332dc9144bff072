"""The table's state as a pure fold of its journaled inputs (one consumer, write-ahead).

``TableCore.apply(kind, payload, t_ms)`` takes one journaled input and returns the effects it
causes (tabled/table/effects.py). It never reads a clock or touches a device: the time comes with the
input, so replaying the journal rebuilds exactly the same table (recovery, recall, tests).

The core owns what spans rounds: the table open or closed (16.8), the posted limits and announced
changes (6.1, 6.2), the cards (3.2 two decks of different backs, 3.4/3.6 new cards verified,
4.1 shuffled before every round, 4.2/4.3 the shoe's manual shuffle and cut), equipment faults
(14.13) and the shuffler's failure (15.2; a device the shuffle watch takes out of play stays out
until an inspector clears it, tabled/table/outofplay.py), the key switch (privileged actions),
seats (16.9), and the round in play (tabled/table/round.py).

Inputs (kind: payload):

* ``board.reading``: spots, each {spot, ante, progressive, bet} with {cents, token_cents, stacks} --
  the bet-spot board's whole reading; the felt (tabled/table/felt.py) applies what changed
* ``wager``: spot, area (ante | progressive | bet), cents, token_cents, stacks -- one area's change
* ``panel.button``: button, key, and the spot, spots or value keyed -- what the press means is
  decided here (tabled/table/buttons.py)
* ``panel``: action, key (dealer | supervisor | inspector), and the action's fields
* ``shuffler.shuffled``: deck, cards (the order it read, if it reads them); ``shuffler.hand``:
  cards, back, up; ``shuffler.fault``: fault
* ``shuffler.status``: ready (deck -> cards left), recognition -- what the device holds, judged in
  tabled/table/cardsource.py (15.1, 15.2); ``shuffler.refused``: command, status, reason, deck
* ``device.link``: device, up, reason -- a driver's link lost or back (tabled/table/links.py, 14.13)
* ``shuffler.door``: open (true | false) -- shown during a round (15.2)
* ``shuffler.recognition``: on (true | false) -- whether the shuffling device reads the cards it
  shuffles (its order verifies a deck, 3.4; without it the dealer's check on the panel does)
* ``shoe.card``: card, back, reader_seq -- or card, keyed: the card the shoe could not read, keyed in
* ``shoe.unreadable``: reader_seq, back; ``shoe.removed`` / ``shoe.replaced`` / ``shoe.empty``:
  cards_read -- the shoe's deal waits or stops (7.3, 14.1), folded so a restart keeps it
* ``deck.verified``: deck, cards or count, back (3.4, 3.6: 52 distinct cards through the reader;
  the shoe deck's back colour, else the first back the reader reports after it, 3.1)
* ``equipment.fault`` / ``equipment.ok``: equipment (pool | meter | betspots), reason (14.13; the
  bet-spot board is the equipment of 2.3 that records the progressive wagers); ``equipment.back``:
  equipment -- it says it works again (clears with an inspector's approval in force, 14.13)
* ``pool.contributed`` / ``pool.reversed`` / ``pool.awards``: results of pool operations
* ``pool.meter``: balance_cents, seq, change (the ledger kind), and when the pool says: table_id,
  round_id (whose operation moved it), award_cents (what it awarded) -- the primary pool's reading
  (2.4.3), in ledger order; another table's award is kept as "award pending" (:data:`AWARD_PENDING_MS`)
* ``tick``: time passes (closure and announced minimum take effect)
* ``staff.roster``: people (badge, name, roles), attempts, lockout_minutes -- the staff list a start
  runs with; ``staff.sign_in``: badge, role, pin_ok; ``staff.sign_out``: badge, role -- who is
  signed in at the panel (tabled/table/staff.py). With a list, a supervisor's or inspector's
  action needs the person signed in to that role and carries them; no round starts without a dealer
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from tabled.game.round_facts import SpotStatus
from tabled.table.phase import Phase
from tabled.table import buttons, notes
from tabled.table.board import acceptance, lock, unlock
from tabled.table.cardsource import DECKS, CardSource, read_status
from tabled.table.effects import (Command, Effect, MeterShow, Note, PanelLamp, PoolOp, Say, Shuffle,
                                   StartShoe)
from tabled.table.enclosure import INPUT as ENCLOSURE_INPUT
from tabled.table.enclosure import Enclosures
from tabled.table.felt import Felt, parse_reading
from tabled.table.selfcheck import INPUTS as INTEGRITY_INPUTS
from tabled.table.selfcheck import Integrity
from tabled.table.links import LostLink, Links, equipment_verdict, lost_while_needed, read_link, working_again
from tabled.table.outofplay import OutOfPlay, brings_back
from tabled.table.payout_check import PaymentCheck
from tabled.table.players import INPUTS as PLAYER_INPUTS, Players
from tabled.table.shuffles import Shuffles
from tabled.table.staff import Staff
from tabled.game.cards import card_text
from tabled.game.profiles import Profile
from tabled.game.progressive import ProgressiveResult
from tabled.game.settlement import settle, settlement_as_dict
from tabled.table.protection import alert_note
from tabled.table.round import DEALER, Round
from tabled.game import keys, seats
from tabled.game.limits import NOTICE_MS, Limits, check_notice, dollars

#: panel action -> the round input it becomes
ROUND_ACTIONS = {
    "no_more_bets": "no_more_bets", "reveal": "reveal", "fold": "fold", "concede": "concede",
    "absent": "absent", "exposed_card": "exposed_card", "misdeal": "misdeal",
    "hand_without_ante": "hand_without_ante", "settle": "settle", "award_paid": "award_paid",
    "resolve_past_posting": "resolve_past_posting", "play_first": "play_first",
    "invalidate_round": "invalidate", "void_player": "void_player", "dead_hand": "dead_hand",
    "count_cards": "deck_count",
}
#: what the dealer is told an equipment fault is about (14.13), where its key is not plain words
EQUIPMENT_NAMES = {"betspots": "bet-spot board"}
#: each device as the dealer names it
LINK_NAMES = {"shuffler": "shuffling device", "betspots": "bet-spot board", "meter": "meter",
              "shoe": "card-reading shoe", "panel": "dealer's panel"}
SHUFFLE_FAULTS = ("jam", "cycle_fail", "not_intermixing")  # 15.1
#: a pool's answer -> the operation it answers
POOL_ANSWERS = {"pool.contributed": "contribute", "pool.reversed": "reverse", "pool.awards": "awards"}
#: ledger kinds after which the pool may show less than before (docs/settlement.md; tabled/pool/ledger.py)
POOL_DOWN_KINDS = ("award", "reversal", "fund_reset", "reset", "settings", "correction")
SHOE_HAPPENINGS = ("shoe.unreadable", "shoe.removed", "shoe.replaced", "shoe.empty")
MINUTE_MS = 60_000
#: another linked table's hit is shown as "award pending" until that table contributes again (its
#: award paid, its next round under way) or this long after the reading (it may have closed)
AWARD_PENDING_MS = 15 * MINUTE_MS
STAFF_INPUTS = ("staff.roster", "staff.sign_in", "staff.sign_out")


def clock_text(t_ms: int) -> str:
    return datetime.fromtimestamp(t_ms / 1000, UTC).strftime("%H:%M:%S UTC")


def notice_minutes(minutes: Any) -> int:
    if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes < 0:
        raise ValueError(f"minutes={minutes!r}: a whole number of minutes from now is needed")
    return minutes


def op_key(op: str, round_id: str, spot: int | None) -> str:
    return f"{op}:{round_id}:{spot if spot is not None else '-'}"


def result_as_dict(result: ProgressiveResult) -> dict[str, Any]:
    """A pool's award result as journal data (integer cents)."""
    return {
        "pool_before_cents": result.pool_before_cents, "pool_after_cents": result.pool_after_cents,
        "reset": result.reset, "reset_funding_cents": result.reset_funding_cents,
        "awards": [{"spot": a.spot, "category": a.category.label, "amount_cents": a.amount_cents,
                    "from_pool_cents": a.from_pool_cents, "operator_topup_cents": a.operator_topup_cents,
                    "rule": a.rule} for a in result.awards],
    }


#: a link the shell reports lost, or a port it could not open: the library's words go to the pit
_NOT_ANSWERING = ("link lost", "could not open port", "[Errno", "port closed")


def fault_words(equipment: str, reason: str) -> str:
    """An equipment fault (14.13) in the dealer's words; the reason as the equipment or the
    library gave it goes to the pit (``detail``) and the log."""
    if equipment == "pool":
        if reason.startswith("refused"):
            return "progressive pool refused the table's request: call a supervisor"
        return "progressive pool cannot be reached: check the network to the pool"
    name = EQUIPMENT_NAMES.get(equipment, equipment)
    if any(sign in reason for sign in _NOT_ANSWERING):
        return f"{name} not answering: check its cable and its power"
    return f"{name} failed: {reason}"


class TableCore:
    def __init__(self, table_id: str, spots: int, limits: Limits, profile: Profile,
                 card_source: str = "shuffler"):
        self.table_id = table_id
        self.spot_count = spots
        self.limits = limits
        self.profile = profile
        self.card_source = card_source
        self.is_open = False
        self.closing_at: int | None = None         # 16.8
        self.pending_minimum: tuple[int, int] | None = None  # (cents, effective ms) 6.2
        # cards: deck -> shuffled? verified? (3.2, 3.4, 4.1); the shoe holds one deck ("S")
        self.decks: dict[str, dict[str, Any]] = {d: {"shuffled": False, "verified": False} for d in (*DECKS, "S")}
        self.next_deck = "A"
        self.recognition: bool | None = None        # the shuffling device reads its cards (3.4); None: not said
        self.cut_done = False                       # 4.2: the dealer's shuffle and cut (shoe)
        self.shuffler_failed = False                # 15.2
        self.device_out: OutOfPlay | None = None    # 15.2: out of play until an inspector clears it
        self.door_open = False                      # the shuffling device's door (15.2)
        self.fault_lamp = "OFF"                     # the panel's FAULT lamp as last commanded
        self.faults: dict[str, str] = {}            # 14.13: equipment -> reason (survives restart)
        self.approved = False                       # 14.13: an inspector approved play
        self.round_no = 0
        self.round: Round | None = None
        self.abstained: dict[int, int] = {}         # 16.9
        self.pool_cents: int | None = None          # as last reported by the pool
        self.pool_seq: int | None = None            # the ledger number of the reading shown (meter feed)
        self.awards_held: dict[str, int] = {}       # 14.13: round id -> when its award was first held (ms)
        self.award_pending: dict[str, Any] | None = None  # another linked table's hit (pool.meter)
        # pool operations not yet answered by every pool, in order: re-sent until they are (14.13)
        self.undelivered: dict[str, dict[str, Any]] = {}
        self.pool_count = 1                         # pools this table feeds (11.5): from the config
        self.rounds_finished = 0
        self.now = 0
        self.last_seq: dict[str, int] = {}          # per input source: the last sequence number folded
        self.felt = Felt()                          # what the bet-spot board last read
        self.links = Links()                        # the devices' links (tabled/table/links.py)
        self.cards = CardSource()                   # what the shuffling device was asked (cardsource.py)
        self.shuffles = Shuffles()                  # each shuffle's order judged (15.1, shuffles.py)
        self.staff = Staff()                        # who is signed in at the panel (staff.py)
        self.integrity = Integrity()                # the software and journal checked while running
        self.enclosures = Enclosures()              # the enclosures' doors (enclosure.py)
        self.payments = PaymentCheck()              # payments checked by the board (payout_check.py)
        self.players = Players(table_id, spots)     # who sits where, for ratings (players.py)

    # -- reading ---------------------------------------------------------------------------------

    @property
    def round_id(self) -> str | None:
        return self.round.round_id if self.round else None

    @property
    def progressive_offline(self) -> bool:
        return bool(self.faults) and self.approved

    def is_news(self, kind: str, payload: dict[str, Any]) -> bool:
        """Whether a device's reading would change anything the table holds (a reading it holds
        already need not be journaled): the shuffling device's status (tabled/table/cardsource.py)."""
        if kind != "shuffler.status":
            return True
        ready, recognition = read_status(payload)
        return (recognition is not None and recognition != self.recognition) or bool(
            self.cards.judge_status(self, ready))

    # -- the fold ----------------------------------------------------------------------------------

    def apply(self, kind: str, payload: dict[str, Any], t_ms: int) -> list[Effect]:
        self.now = t_ms
        src, seq = payload.get("src"), payload.get("seq")
        if src is not None and isinstance(seq, int):
            # a device repeats a frame it was not acknowledged for: sequence numbers make it harmless
            if seq <= self.last_seq.get(src, -1):
                return []
            self.last_seq[src] = seq
            payload = {k: v for k, v in payload.items() if k not in ("src", "seq")}
        try:
            effects = self._dispatch(kind, dict(payload))
        except (TypeError, KeyError, ValueError) as exc:  # a malformed input is refused, never a crash
            effects = [Say(f"{kind}: malformed input ({exc})", level="refused")]
        effects += self._progress()
        effects = self.cards.requests(self, effects)
        for e in effects:
            if isinstance(e, PoolOp):
                self._outbox(e)
        return effects

    def _dispatch(self, kind: str, p: dict[str, Any]) -> list[Effect]:
        if kind == "wager":
            if self.round is None:
                return [Say("no round is open for wagers", p.get("spot"), "5.2", "flag")] if p.get("cents") else []
            return self.round.handle("wager", p)
        if kind == "board.reading":
            return self._board_reading(p["spots"])
        if kind == "panel.button":
            return self._button(p)
        if kind == "panel":
            return self._panel(p)
        if kind == "shuffler.shuffled":
            return self._shuffled(p["deck"], p.get("cards"))
        if kind == "shuffler.status":
            return self._shuffler_status(p)
        if kind == "shuffler.refused":
            return self._shuffler_refused(p)
        if kind == "device.link":
            return self._device_link(p)
        if kind == "equipment.back":
            return self._equipment_back(p["equipment"])
        if kind == "shuffler.hand":
            return self._round_input("hand", p)
        if kind == "shoe.card":
            return self._shoe_card(p)
        if kind in SHOE_HAPPENINGS:
            return self._shoe_happening(kind, p)
        if kind == "shuffler.door":
            return self._door(p["open"])
        if kind == "shuffler.recognition":
            return self._recognition(p["on"])
        if kind == "shuffler.fault":
            rule = "15.1" if p["fault"] in SHUFFLE_FAULTS else "15.2"
            return [notes.shuffle_fault(p["fault"], p.get("deck"), rule, self.round_id),
                    *self._shuffler_fault(p["fault"], p.get("deck"))]
        if kind == "deck.verified":
            return self._verified(p["deck"], p.get("cards"), p.get("count"), p.get("back"))
        if kind == "equipment.fault":
            return self._equipment_fault(p["equipment"], p.get("reason", ""))
        if kind == "equipment.ok":
            return self._equipment_ok(p["equipment"])
        if kind in POOL_ANSWERS:
            self._delivered(kind, p)
        if kind in ("pool.contributed", "pool.reversed"):
            return [notes.pool_answer(kind, p, self.round_id), *self._pool_balance(p.get("balance_cents"))]
        if kind == "pool.balance":
            return self._pool_balance(p.get("balance_cents"))
        if kind == "pool.awards":
            return self._awards(p)
        if kind == "pool.meter":
            return self._meter_reading(p["balance_cents"], p["seq"], p.get("change", ""), p.get("table_id"),
                                       p.get("round_id"), p.get("award_cents", 0))
        if kind in STAFF_INPUTS:
            return self._staff(kind, p)
        if kind in INTEGRITY_INPUTS:
            return self.integrity.take(kind, p, self.round_id)
        if kind == ENCLOSURE_INPUT:
            return self.enclosures.take(p, self.now, dict(self.staff.on), self.round_id)
        if kind == "config.started":
            return [notes.config_in_force(p)]
        if kind == "protection.evidence":
            return alert_note(p, self.round_id)
        if kind in PLAYER_INPUTS:
            return self.players.apply(kind, p, self.now, self.round_id)
        if kind in ("tick", "journal.loss_accepted"):
            return []  # what the daemon started with is evidence for people; the table plays on
        return [Say(f"unknown input {kind!r}", level="refused")]

    def _round_input(self, name: str, p: dict[str, Any]) -> list[Effect]:
        if self.round is None:
            return [Say(f"{name}: no round in play", level="refused")]
        return self.round.handle(name, p)

    # -- the felt and the panel's buttons -------------------------------------------------------------

    def _board_reading(self, spots: Any) -> list[Effect]:
        """Each area the board reads differently is applied as its ``wager`` input (5.8: a stack
        split or joined is a change)."""
        effects: list[Effect] = []
        for wager in self.felt.read(parse_reading(spots, self.spot_count)):
            effects += self._dispatch("wager", wager)
        return effects + self.payments.reading(self.felt)

    def _button(self, p: dict[str, Any]) -> list[Effect]:
        effects: list[Effect] = []
        for kind, payload in buttons.press(self, p):
            effects += self._dispatch(kind, payload)
            if self.round is not None:  # 14.11.1: a fold of the spot playing first makes the held bets count
                effects += self._offer_bets_held_back(self.round)
        return effects

    def _betting_opens(self, r: Round) -> list[Effect]:
        """The chips lying on the ante and progressive areas are this round's wagers
        (tabled/table/felt.py); with the board's link lost nothing is read from the felt."""
        if not self.links.is_up("betspots"):
            return []
        effects: list[Effect] = []
        for wager in self.felt.carried(sorted(r.spots)):
            effects += r.handle("wager", wager)
        return effects

    def _offer_bets_held_back(self, r: Round) -> list[Effect]:
        """14.11.1: once the spot directed to play first has decided, the chips still on a playing
        spot's bet area are its bet (offered once per amount, tabled/table/felt.py)."""
        if (r.phase != Phase.DECIDING or r.first_to_play is None
                or r.spots[r.first_to_play].status == SpotStatus.PLAYING):
            return []
        effects: list[Effect] = []
        for s in r.spots.values():
            wager = self.felt.bet_to_offer(r.round_id, s.number) if s.status == SpotStatus.PLAYING else None
            if wager is not None:
                effects += r.handle("wager", wager)
        return effects

    # -- panel (keys) -------------------------------------------------------------------------------

    def _staff(self, kind: str, p: dict[str, Any]) -> list[Effect]:
        """The staff list a start runs with, and sign-ins and sign-outs at the panel (staff.py)."""
        judge = {"staff.roster": self.staff.roster, "staff.sign_in": self.staff.sign_in,
                 "staff.sign_out": self.staff.sign_out}[kind]
        return judge(p, self.now, self.round_id)

    def _panel(self, p: dict[str, Any]) -> list[Effect]:
        action, key = p.pop("action"), p.pop("key", None)
        try:
            positions, rule = keys.required(action)
        except ValueError as exc:
            return [Say(str(exc), level="refused")]
        person = self.staff.who(key) if isinstance(key, str) else {}  # with a staff list: who turned it
        if key not in positions:
            need = " or ".join(sorted(positions))
            return [Say(f"{action}: refused: needs the {need} key (key is {key})", p.get("spot"), rule, "refused"),
                    Note("panel.refused", {"action": action, "key": key, "rule": rule, **person}, self.round_id)]
        if self.staff.listed and key != keys.Key.DEALER and not person:
            # a privileged action is a person's: the key alone does not say whose
            return [Say(f"{action}: refused: {key}: sign in at the panel first", p.get("spot"), rule, "refused"),
                    Note("panel.refused", {"action": action, "key": key, "rule": rule,
                                           "reason": f"no {key} signed in"}, self.round_id)]
        if self.device_out is not None and brings_back(action, p):
            return self.device_out.refusal(action, key, person, self.round_id)  # 15.2: the inspector's
        effects: list[Effect] = [Note("panel.approved", {"action": action, "key": key, "rule": rule, **person, **p},
                                      self.round_id)]
        if action == "award_paid":
            return effects + self._award_paid(p, key, person)
        if action in ROUND_ACTIONS:
            return effects + self._round_input(ROUND_ACTIONS[action], p)
        if action == "deck_checked":
            return effects + self._action_deck_checked(key=key, person=person, **p)
        if action == "clear_device":
            return effects + self._action_clear_device(person)
        if action == "approve_play" and (self.integrity or self.enclosures):  # selfcheck.py, enclosure.py
            who = person.get("name") or person.get("person")
            return (effects + self.integrity.approve(who, self.round_id)
                    + self.enclosures.acknowledge(who, self.round_id))
        if action == "payments_done":
            return effects + self.payments.settle_done(key, person, self.staff.on.get(keys.Key.DEALER.value))
        handler: Callable[..., list[Effect]] = getattr(self, "_action_" + action)
        return effects + handler(**p)

    def _award_paid(self, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]:
        """9.5: a progressive award confirmed paid; the note names the award, the key and the person."""
        r, spot = self.round, p.get("spot")
        effects = self._round_input("award_paid", p)
        if r is not None and isinstance(spot, int) and spot in r.spots and not r.spots[spot].award_held \
                and not any(isinstance(e, Say) and e.level == "refused" for e in effects):
            effects.insert(0, notes.award_paid(r, spot, key, person))
        return effects

    def _action_open_table(self) -> list[Effect]:
        if self.is_open:
            return [Say("the table is already open", level="refused")]
        self.is_open, self.closing_at = True, None
        return [Say("table open", rule="16.8")]

    def _notice_end(self, minutes: Any, at_ms: int | None) -> int:
        """When an announced change takes effect: ``minutes`` after this input's own journal time
        (``at_ms``: an absolute time, as journals written before ``minutes`` hold it)."""
        if minutes is None and at_ms is not None:
            return at_ms
        return self.now + notice_minutes(NOTICE_MS // MINUTE_MS if minutes is None else minutes) * MINUTE_MS

    def _action_announce_closure(self, minutes: int | None = None, at_ms: int | None = None) -> list[Effect]:
        """16.8: the table closes at least 20 minutes after the closure is announced (sign displayed)."""
        if minutes is None and at_ms is None:
            raise ValueError("a closure needs the minutes until it takes effect")
        at = self._notice_end(minutes, at_ms)
        breach = check_notice(self.now, at, "16.8")
        if breach:
            return [Say(f"closure refused: {breach.message}", rule=breach.rule, level="refused")]
        self.closing_at = at
        return [Say(f"table closes at {clock_text(at)}, {(at - self.now) // MINUTE_MS} minutes from now "
                    "(sign displayed)", rule="16.8")]

    def _action_announce_minimum(self, cents: int, minutes: int | None = None,
                                 at_ms: int | None = None) -> list[Effect]:
        """6.2: a higher minimum takes effect at least 20 minutes after it is announced (by default
        at the earliest the 20 minutes allow); a lower one from the next round."""
        if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
            raise ValueError(f"cents={cents!r}: a minimum is a whole number of cents above 0")
        if cents > self.limits.minimum_cents:
            at = self._notice_end(minutes, at_ms)
            breach = check_notice(self.now, at, "6.2")
            if breach:
                return [Say(f"minimum raise refused: {breach.message}", rule="6.2", level="refused")]
            self.pending_minimum = (cents, at)
            return [Say(f"minimum rises to {dollars(cents)} at {clock_text(at)}, {(at - self.now) // MINUTE_MS} "
                        "minutes from now (sign displayed)", rule="6.2")]
        # a lower minimum may be set at any time (6.2); it applies from the next round
        self.pending_minimum = (cents, self.now)
        return [Say(f"minimum {dollars(cents)} from the next round", rule="6.2")]

    def _action_set_maximum(self, cents: int) -> list[Effect]:
        self.limits = replace(self.limits, maximum_cents=cents)
        return [Say(f"maximum {dollars(cents)}", rule="6.2")]

    def _action_shuffle_and_cut(self) -> list[Effect]:
        """4.2, 4.3: with the shoe, the dealer shuffles and cuts and confirms on the panel."""
        if self.card_source != "shoe":
            return [Say("no cut with the shuffling device", rule="4.4.2", level="refused")]
        self.cut_done = True
        # the cut deck is in the shoe: its reader counts from 1
        return [Say("shuffle and cut confirmed", rule="4.2"), StartShoe()]

    def _action_new_cards(self, deck: str) -> list[Effect]:
        """3.6: new cards; they must be verified (3.4) before use."""
        if deck not in self.decks:
            return [Say(f"no deck {deck!r}", level="refused")]
        self.decks[deck] = {"shuffled": False, "verified": False}  # the shoe deck's back is learned again
        self.cards.new_cards([deck])
        self.shuffles.new_cards(deck)
        return [Say(f"new cards for deck {deck}: verify them (3.4)", rule="3.6")]

    def _action_use_card_source(self, source: str) -> list[Effect]:
        """15.2.2: play continues with another shuffling device or the card shoe, with new cards."""
        if source not in ("shuffler", "shoe"):
            return [Say(f"no card source {source!r}", level="refused")]
        self.card_source = source
        self.shuffler_failed = False
        for d in self.decks.values():  # 15.2.2, 3.6: new cards, never the failed device's other deck
            d.update(shuffled=False, verified=False)
            d.pop("back", None)
        self.cut_done = False
        self.cards.new_cards(tuple(DECKS))
        self.shuffles.device_replaced()
        return [Say(f"cards now dealt from the {source}: load and verify new cards", rule="15.2.2")]

    def _action_clear_device(self, person: dict[str, Any]) -> list[Effect]:
        """15.2: the inspector returns the device out of play; a table waiting for it goes on with
        it and new cards (15.2.2, 3.6), one on the shoe keeps the shoe until a supervisor says."""
        out = self.device_out
        if out is None:
            return [Say("no shuffling device is out of play", rule="15.2", level="refused")]
        self.device_out = None
        effects = out.cleared(self.now, person, self.round_id)
        if self.card_source == "shuffler" and self.shuffler_failed:
            return effects + self._action_use_card_source("shuffler")
        return effects

    def _action_approve_play(self) -> list[Effect]:
        """14.13: play continues only after an inspector's approval (progressive locked)."""
        if not self.faults:
            return [Say("no equipment fault to approve", level="refused")]
        self.approved = True
        return [Say("inspector approved play: progressive offline", rule="14.13"),
                MeterShow(self.pool_cents, self.progressive_offline)]  # the meter says "offline"

    # -- cards --------------------------------------------------------------------------------------

    def _shuffled(self, deck: str, cards: list[int] | None = None) -> list[Effect]:
        """The device has ``deck`` shuffled; the order it read (``cards``) verifies a deck not yet
        verified (3.4: read by the device)."""
        if deck not in DECKS:
            return [Say(f"shuffler reported deck {deck!r}", level="refused")]
        effects = self._verified(deck, cards, None) if cards is not None and not self.decks[deck]["verified"] else []
        verdict = self.shuffles.judge(deck, cards) if isinstance(cards, list) else None
        if isinstance(cards, list):
            effects.append(notes.shuffle_read(deck, cards, verdict, self.round_id))
        if verdict is not None and verdict.alarm:
            return effects + self._not_intermixing(deck, verdict)
        self.decks[deck]["shuffled"] = True
        self.cards.shuffled(self, deck)
        return effects

    def _not_intermixing(self, deck: str, verdict: Any) -> list[Effect]:
        """15.1: the shuffle left too much of the deck's previous order: the deck is reshuffled, or,
        with alarms repeated of late, the device is out of play (15.2; tabled/table/shuffles.py)."""
        failing = self.shuffles.failing()
        note = Note("shuffle.alarm", {"deck": deck, "rising_sequences": verdict.rising, "pairs_kept": verdict.kept,
                                      "window_pairs_kept": verdict.window_kept,
                                      "window_shuffles": verdict.shuffles_in_window, "why": verdict.why(),
                                      "rule": "15.2" if failing else "15.1"}, self.round_id)
        told = Say(f"supervisor: the shuffling device is not intermixing deck {deck}: {verdict.why()}",
                   rule="15.1", level="flag")
        if failing:
            reason = "not intermixing: repeated shuffle alarms"
            effects = [note, told, *self._shuffler_fault(reason, deck)]
            self.device_out = OutOfPlay(reason, self.now, deck)
            return effects + self.device_out.taken_out(self.round_id)
        return [note, told, *self._shuffler_fault("not_intermixing", deck)]

    def _verified(self, deck: str, cards: list[int] | None, count: int | None,
                  back: str | None = None) -> list[Effect]:
        """3.4, 3.6: new cards are checked before use: 52 distinct cards through the reader."""
        if deck not in self.decks:
            return [Say(f"no deck {deck!r}", level="refused")]
        if back is not None and not isinstance(back, str):
            raise ValueError(f"back={back!r}: not a colour")
        distinct = len(set(cards)) if cards is not None else count
        n = len(cards) if cards is not None else count
        ok = n == 52 and distinct == 52 and (cards is None or all(isinstance(c, int) and 0 <= c < 52 for c in cards))
        self.decks[deck]["verified"] = ok
        if deck not in DECKS:  # 3.1: the shoe deck's colour, or the first back read after it is verified
            self.decks[deck]["back"] = back
        judged = notes.deck_judged(deck, ok, n, distinct, self.round_id)
        if not ok:
            return [judged, Say(f"deck {deck} failed verification: {n} cards, {distinct} distinct: replace it",
                                rule="3.7", level="flag")]
        return [judged, Say(f"deck {deck} verified: 52 cards", rule="3.4")]

    def _recognition(self, on: Any) -> list[Effect]:
        if not isinstance(on, bool):
            raise ValueError(f"on={on!r}: true or false")
        if on == self.recognition:
            return []
        self.recognition = on
        return [Say("shuffling device: card recognition " + ("on: it verifies each new deck as it shuffles it"
                    if on else "off: the dealer or a supervisor checks each new deck on the panel"), rule="3.4")]

    def deck_to_check(self) -> str | None:
        """The shuffling device's deck the dealer's check would verify (3.4), when the device does
        not read its cards: the round's deck if it waits for it, else the first unverified one."""
        if self.card_source != "shuffler" or self.recognition is not False:
            return None
        waiting = [d for d in DECKS if not self.decks[d]["verified"]]
        r = self.round
        if r is not None and r.deck in waiting:
            return r.deck
        return waiting[0] if waiting else None

    def _action_deck_checked(self, key: str, deck: Any, person: dict[str, Any]) -> list[Effect]:
        """3.4: "cards shall be checked by a dealer or a game supervisor" -- with a shuffling device
        that does not read its cards, their word on the panel is the deck's verification; a device
        that reads them verifies each deck itself, from the order it reports."""
        if self.card_source != "shuffler":
            return [Say("the dealer's count verifies the shoe's deck (VERIFY DECK)", rule="3.4", level="refused")]
        if deck not in DECKS:
            return [Say(f"no deck {deck!r} in the shuffling device (A red, B blue)", rule="3.4", level="refused")]
        if self.recognition is not False:
            why = ("reads the cards it shuffles: its order verifies the deck" if self.recognition
                   else "has not said whether it reads its cards: its order verifies the deck")
            return [Say(f"deck {deck}: the shuffling device {why}", rule="3.4", level="refused")]
        if self.decks[deck]["verified"]:
            return [Say(f"deck {deck} is already verified", rule="3.4", level="refused")]
        self.decks[deck]["verified"] = True
        return [Say(f"deck {deck} ({DECKS[deck]} backs) checked by the {key}: verified", rule="3.4"),
                Note("deck.checked", {"deck": deck, "key": key, **person, "rule": "3.4"}, self.round_id)]

    def back_of(self, deck: str) -> str | None:
        """3.2.2: the shuffling device's decks have fixed colours; the shoe's is learned (3.1)."""
        return DECKS.get(deck) or self.decks.get(deck, {}).get("back")

    # -- the shoe (7.3) and the shuffling device's door ---------------------------------------------

    def _shoe_dealing(self) -> Round | None:
        r = self.round
        return r if r is not None and r.card_source == "shoe" and r.phase == Phase.DEALING else None

    def _learn_back(self, back: Any) -> None:
        """3.1: the first back colour the reader reports for the shoe deck is its colour; every
        later card must match it (the input that taught it is in the journal)."""
        s = self.decks["S"]
        if isinstance(back, str) and s.get("back") is None and self.card_source == "shoe":
            s["back"] = back
            if self.round is not None and self.round.deck == "S" and self.round.back is None:
                self.round.back = back

    def _shoe_card(self, p: dict[str, Any]) -> list[Effect]:
        if p.get("keyed") and self._shoe_dealing() is None:
            card = p["card"]
            what = card_text(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)
            return [Say(f"card {what} keyed in, but no unreadable card waits for it: not dealt", rule="7.3",
                        level="refused")]
        self._learn_back(p.get("back"))
        return self._round_input("card", p)  # 7.3; the round says why not, if it is not dealing

    def _shoe_happening(self, kind: str, p: dict[str, Any]) -> list[Effect]:
        """The shoe's troubles stop the round's deal (7.3, 14.1); with no deal in progress they are
        only shown. A shoe running out also says the deck is short (3.7)."""
        r = self._shoe_dealing()
        if r is None:
            return [Say({"shoe.unreadable": f"card {p.get('reader_seq')} from the shoe could not be read "
                                            "(no deal in progress)",
                         "shoe.removed": "the shoe is off its base",
                         "shoe.replaced": "the shoe is back on its base",
                         "shoe.empty": f"the shoe is empty ({p.get('cards_read')} cards read)"}[kind])]
        if kind == "shoe.unreadable":
            self._learn_back(p.get("back"))
        effects = r.handle(kind.replace(".", "_"), p)
        if kind in ("shoe.unreadable", "shoe.removed"):
            fault = "unread" if kind == "shoe.unreadable" else "shoe_off"
            effects.insert(0, notes.device_fault(fault, kind.split(".")[1], r.round_id))
        if kind == "shoe.empty" and isinstance(p.get("cards_read"), int):
            effects += self._verified("S", None, p["cards_read"], self.decks["S"].get("back"))
        return effects

    def _door(self, opened: Any) -> list[Effect]:
        """The shuffling device's door: shown during a round, and the panel's FAULT lamp flashes
        until it is closed; whether the device can still deliver (15.2) is its next answer."""
        if not isinstance(opened, bool):
            raise ValueError(f"open={opened!r}: true or false")
        was, self.door_open = self.door_open, opened
        if not opened:
            self.cards.door_closed()  # a shuffle it refused with the door open is asked again
        noted = [notes.device_fault("door", "door open", self.round_id)] if opened and not was else []
        if opened and self._in_round():
            return [*noted, Say("shuffling device door open during the round: close it; if the device can no longer "
                        "deliver, the round is void (15.2.1)", rule="15.2", level="flag")]
        if opened:
            return [*noted, Say("shuffling device door open")]
        return [Say("shuffling device door closed")] if was else []

    def _in_round(self) -> bool:
        r = self.round
        return r is not None and r.phase not in (Phase.PREPARING, Phase.COMPLETE, Phase.VOID)

    def _wanted_fault_lamp(self) -> str:
        """FAULT flashes while the shoe's deal waits for the dealer or the device door is open in a round."""
        r = self._shoe_dealing()
        if (r is not None and r.shoe_trouble()) or (self.door_open and self._in_round()):
            return "FLASHING"
        return "OFF"

    def _shuffler_fault(self, fault: str, deck: str | None) -> list[Effect]:
        if fault in SHUFFLE_FAULTS:  # 15.1: the cards are reshuffled
            d = deck or self.next_deck
            if d in DECKS:
                self.decks[d]["shuffled"] = False
                self.cards.shuffle_over(d)  # the reshuffle is a new request
            return [Say(f"shuffling device: {fault.replace('_', ' ')}: reshuffle", rule="15.1", level="flag"),
                    Shuffle(d)]
        # 15.2: the device can no longer operate as intended
        self.shuffler_failed = True
        effects: list[Effect] = [notes.device_fault("shuffler", fault, self.round_id),
                                 Say(f"shuffling device failed ({fault}): continue with another device "
                                     "or the card shoe and new cards", rule="15.2.2", level="flag")]
        if self.round and not self.round.finished and self.round.card_source == "shuffler":
            effects += self.round.handle("shuffler_failed", {"reason": fault})
        return effects

    def _shuffler_status(self, p: dict[str, Any]) -> list[Effect]:
        """What the device says it holds: its decks judged (15.1, 15.2; tabled/table/cardsource.py)
        and its card recognition (3.4)."""
        ready, recognition = read_status(p)
        effects = self._recognition(recognition) if recognition is not None else []
        for fault, deck in self.cards.judge_status(self, ready):
            effects += self._shuffler_fault(fault, deck)
            if self.shuffler_failed:
                break
        return effects

    def _shuffler_refused(self, p: dict[str, Any]) -> list[Effect]:
        """The device refused a command. DEVICE_FAULT while delivering a hand: it can no longer
        operate as intended (15.2); asking again would not help. Any other refusal is shown."""
        command, status, reason, deck = p["command"], p["status"], p.get("reason", ""), p.get("deck")
        if command == "deliver_hand" and status == "DEVICE_FAULT":
            return self._shuffler_fault(f"device fault: {reason}", deck)  # 15.2
        if command == "shuffle" and deck in DECKS:
            self.cards.shuffle_refused(deck)
        return [Say(f"shuffling device refused {command.replace('_', ' ')} for deck {deck} ({status}: {reason})",
                    level="flag")]

    # -- links and equipment (14.13) ----------------------------------------------------------------

    def _device_link(self, p: dict[str, Any]) -> list[Effect]:
        """A device's link lost or back: 14.13 for the equipment (tabled/table/links.py); a device
        back is sent what the table needs of it again (standing effects)."""
        device, up, reason = read_link(p)
        was_needed = any(lost.device == device for lost in self.lost_while_needed())
        self.links.set(device, up, reason)
        if device == "shuffler":
            self.cards.link()
        if device == "betspots" and up:
            # what the board read before its link was lost is stale: the felt is taken to be the
            # round's wagers, and the board's next reading says what changed
            self.felt.assume(self.round.spots.values() if self.round is not None else ())
        verdict = equipment_verdict(device, up, self.faults, self.approved)
        effects: list[Effect] = []
        if verdict == "fault":
            effects += self._equipment_fault(device, f"link lost: {reason}")
        elif verdict == "clear":
            effects += self._equipment_ok(device)
        if not up:
            needed = [lost for lost in self.lost_while_needed() if lost.device == device]
            if needed:  # the round depends on it: the dealer is told what to do (a standing fault on screen)
                return effects + [Say(f"{needed[0].what}: {needed[0].dealer_does}", rule=needed[0].rule,
                                      level="flag")]
            return effects or [Say(f"{EQUIPMENT_NAMES.get(device, device)}: link lost ({reason})")]
        if was_needed:
            effects.append(Say(f"{LINK_NAMES[device]} answers again: play goes on"))
        if device == "shuffler":
            return effects  # what it is asked follows from the requests (tabled/table/cardsource.py)
        return effects + [e for e in self.standing_effects() if isinstance(e, Command) and e.device == device]

    def lost_while_needed(self) -> list[LostLink]:
        """The devices lost while the round in play needs them (tabled/table/links.py)."""
        r = self.round
        return lost_while_needed(self.links, str(r.phase) if r is not None else None,
                                 r.card_source if r is not None else None)

    def _equipment_back(self, equipment: str) -> list[Effect]:
        """Equipment says it works again: with an inspector's approval in force its fault clears
        (14.13); without it the fault stands until the inspector comes."""
        if working_again(equipment, self.faults, self.approved):
            return self._equipment_ok(equipment)
        if equipment in self.faults:
            return [Say(f"{EQUIPMENT_NAMES.get(equipment, equipment)} works again: the fault stands until an "
                        "inspector approves play", rule="14.13")]
        return []

    def _equipment_fault(self, equipment: str, reason: str) -> list[Effect]:
        self.faults[equipment] = reason or "failed"
        self.approved = False
        return [Say(f"{fault_words(equipment, reason)}: notify an inspector; the round in play may finish, no new "
                    "round without an inspector's approval",
                    rule="14.13", level="flag"),
                Note("fault.raised", {"equipment": equipment, "reason": reason, "rule": "14.13"}, self.round_id)]

    def _equipment_ok(self, equipment: str) -> list[Effect]:
        if self.faults.pop(equipment, None) is None:
            return []
        effects: list[Effect] = [Say(f"{EQUIPMENT_NAMES.get(equipment, equipment)} working again", rule="14.13"),
                                 Note("fault.cleared", {"equipment": equipment}, self.round_id)]
        if not self.faults:
            self.approved = False
            effects += self._progressive_back()
        return effects

    def _progressive_back(self) -> list[Effect]:
        """14.13 over: the meter shows the pool again and, in a round still taking bets, the board
        accepts progressive wagers again on the spots with an ante (11.1)."""
        effects: list[Effect] = [MeterShow(self.pool_cents, self.progressive_offline)]
        r = self.round
        if r is not None and r.progressive_offline and r.phase in (Phase.PREPARING, Phase.BETTING):
            r.progressive_offline = False
            if r.phase == Phase.BETTING:
                effects += [acceptance(r, s.number) for s in r.spots.values() if s.ante]
        return effects

    # -- settlement ---------------------------------------------------------------------------------

    def _awards(self, p: dict[str, Any]) -> list[Effect]:
        if self.round is None or self.round.round_id != p.get("round_id"):
            return [Say(f"pool awards for round {p.get('round_id')} not in play", level="refused")]
        rid, first = self.round.round_id, self.round.awards is None
        effects = self.round.handle("awards_applied", {"result": p["result"]})
        if first and self.round.awards is not None:
            effects.insert(0, notes.awarded(rid, p.get("pool"), p["result"]))
        if rid in self.awards_held:  # 14.13: the held hit is paid now; both times are kept
            since = self.awards_held.pop(rid)
            effects.insert(0, Note("progressive.award_released", {
                "held_since_ms": since, "paid_ms": self.now, "hits": [
                    {k: a[k] for k in ("spot", "category", "amount_cents")} for a in p["result"]["awards"]],
                "pool_before_cents": p["result"]["pool_before_cents"],
                "pool_after_cents": p["result"]["pool_after_cents"], "rule": "14.13"}, rid))
        if self.pool_seq is not None:
            return effects  # the meter follows the pool's own readings (pool.meter), never this one
        self.pool_cents = p["result"]["pool_after_cents"]
        return effects + [MeterShow(self.pool_cents, self.progressive_offline)]

    def _outbox(self, e: PoolOp) -> None:
        """docs/settlement.md: an operation committed in the journal is delivered to every pool exactly once
        (keyed), whatever happens to the link or the daemon before the pools answer."""
        key = op_key(e.op, e.round_id, e.spot)
        if key not in self.undelivered:
            self.undelivered[key] = {"op": e.op, "round_id": e.round_id, "spot": e.spot, "cents": e.cents,
                                     "reason": e.reason, "hits": [list(h) for h in e.hits], "done": []}

    def _delivered(self, kind: str, p: dict[str, Any]) -> None:
        key = op_key(POOL_ANSWERS[kind], p["round_id"], p.get("spot") if kind != "pool.awards" else None)
        entry = self.undelivered.get(key)
        if entry is None:
            return
        pool = p.get("pool", "")
        if pool not in entry["done"]:
            entry["done"].append(pool)
        if len(entry["done"]) >= self.pool_count:
            del self.undelivered[key]

    def pending_pool_ops(self) -> list[tuple[PoolOp, list[str]]]:
        """The operations some pool has not answered yet, in order, with the pools that have."""
        return [(PoolOp(d["op"], d["round_id"], d["spot"], d["cents"], d["reason"],
                        tuple((s, c) for s, c in d["hits"])), list(d["done"])) for d in self.undelivered.values()]

    def _pool_balance(self, cents: int | None) -> list[Effect]:
        """A balance read after an operation: shown only without a meter feed (a feed's readings are
        ordered; a separate read may be older than a reading already shown)."""
        if cents is None or self.pool_seq is not None or cents == self.pool_cents:
            return []
        self.pool_cents = cents
        return [MeterShow(cents, self.progressive_offline)]

    def _meter_reading(self, cents: int, seq: int, kind: str, table_id: str | None = None,
                       round_id: str | None = None, award_cents: int = 0) -> list[Effect]:
        """2.4.3: every linked table shows the pool's own readings, in ledger order; a reading older
        than the one shown is dropped. The pool goes down only on an award, a reversal, a reset or a
        recorded correction (docs/settlement.md); a reading that says otherwise is not shown.
        A reading of another table's award is kept as that table's "award pending" until a later
        reading of that table's contribution, or :data:`AWARD_PENDING_MS` (the screen shows it)."""
        if not isinstance(cents, int) or not isinstance(seq, int) or cents < 0:
            raise ValueError(f"a meter reading needs whole cents and a ledger number, got {cents!r}, {seq!r}")
        if not isinstance(award_cents, int) or award_cents < 0 or (
                table_id is not None and not isinstance(table_id, str)):
            raise ValueError(f"a meter reading's award needs a table id and whole cents, got {table_id!r}, "
                             f"{award_cents!r}")
        if self.pool_seq is not None and seq <= self.pool_seq:
            return []
        pending = self.award_pending
        if award_cents and table_id is not None and table_id != self.table_id:
            self.award_pending = {"table_id": table_id, "round_id": round_id, "cents": award_cents,
                                  "seq": seq, "since_ms": self.now}
        elif pending is not None and (kind == "contribution" and table_id == pending["table_id"]
                                      or self.now - pending["since_ms"] >= AWARD_PENDING_MS):
            self.award_pending = None
        next_one = self.pool_seq is not None and seq == self.pool_seq + 1
        if next_one and self.pool_cents is not None and cents < self.pool_cents and kind not in POOL_DOWN_KINDS:
            return [Say(f"pool reading {seq} goes down by a {kind or 'change'} from {dollars(self.pool_cents)} to "
                        f"{dollars(cents)}: not shown; call a supervisor", rule="2.4.3", level="flag")]
        self.pool_seq = seq
        if cents == self.pool_cents:
            return []
        self.pool_cents = cents
        return [MeterShow(cents, self.progressive_offline)]

    def _settlement_note(self, r: Round) -> list[Effect]:
        pool_before = r.awards["pool_before_cents"] if r.awards else (self.pool_cents or 0)
        st = settle(r.facts(pool_before), self.profile)
        data = dict(settlement_as_dict(st))
        r.settlement = data
        from tabled.table.display import settlement_lines
        return [Note("round.settled", data, r.round_id), *settlement_lines(st),
                *self.payments.expect(r.round_id, data, self.felt, self.spot_count)]

    # -- progress: what follows from the state after every input ------------------------------------

    def _progress(self) -> list[Effect]:
        effects: list[Effect] = []
        r = self.round
        if r is not None:
            effects += self._offer_bets_held_back(r)
        if r is not None and r.phase == Phase.SETTLING and r.settlement is None and (
                r.awards is not None or not any(s.award_held for s in r.spots.values())):
            effects += self._settlement_note(r)
        if r is not None and r.settlement is not None and r.phase == Phase.SETTLING \
                and self.payments.lets_finish(r.round_id):  # 9.3, 9.4: the board shows it paid (payout_check.py)
            r.try_finish()
        if r is not None and r.phase == Phase.SETTLING and r.awards is None and "pool" in self.faults \
                and r.round_id not in self.awards_held and any(s.award_held for s in r.spots.values()):
            effects += self._hold_awards(r)
        if r is not None and r.finished:
            effects += self._end_round(r)
        if self.round is None:
            effects += self._start_round()
        r = self.round
        if r is not None and r.phase == Phase.PREPARING and r.deck is not None and self._cards_ready(r.deck):
            if self.card_source == "shuffler":
                self.decks[r.deck]["shuffled"] = False  # this deck is now in play
            else:
                self.cut_done = False
            r.back = self.back_of(r.deck)  # 3.1: as verified, if the deck's colour came since the round opened
            effects += r.handle("cards_ready", {})
            effects += self._betting_opens(r)
        lamp = self._wanted_fault_lamp()
        if lamp != self.fault_lamp:
            self.fault_lamp = lamp
            effects.append(PanelLamp("FAULT", lamp))
        return effects

    def _hold_awards(self, r: Round) -> list[Effect]:
        """docs/settlement.md 14.13: the pool cannot be reached, so the round's progressive hands are held,
        their cards face up (9.5), until the pool takes the awards when the link returns."""
        self.awards_held[r.round_id] = self.now
        held = [s.number for s in r.spots.values() if s.award_held]
        return [Note("progressive.award_held", {"spots": held, "since_ms": self.now, "rule": "14.13"}, r.round_id),
                *(Say(f"spot {n}: progressive award pending: the pool cannot be reached; leave the cards face up "
                      "until it is paid", n, "9.5", "flag") for n in held)]

    def _end_round(self, r: Round) -> list[Effect]:
        effects: list[Effect] = []
        if r.phase == Phase.VOID and r.settlement is None:
            st = settle(r.facts(self.pool_cents or 0), self.profile)
            r.settlement = dict(settlement_as_dict(st))
            effects.append(Note("round.settled", r.settlement, r.round_id))
            effects += self.payments.void(r.round_id, r.settlement, self.felt, self.spot_count,  # payout_check.py
                                          self.staff.on.get(keys.Key.DEALER.value))
        self.abstained, flagged = seats.after_round(self.abstained, self.spot_count, r.wagering_spots())
        for spot in flagged:
            effects.append(Say(f"spot {spot} has not wagered for {self.abstained[spot]} rounds while every "
                               "other seat is in use: the seat may be required", spot, "16.9", "flag"))
        if r.card_source == "shuffler" and r.deck and not self.shuffler_failed:
            effects.append(Shuffle(r.deck))  # 4.1.2, 3.2.1
        effects += self.players.after_round(r.round_id, r.settlement, self.now)
        effects.append(Note("round.finished", {"phase": r.phase, "spots": {
            str(s.number): s.status for s in r.spots.values()}}, r.round_id))
        self.round = None
        self.rounds_finished += 1
        return effects

    def _start_round(self) -> list[Effect]:
        if not self.is_open:
            return []
        if self.closing_at is not None and self.now >= self.closing_at:
            self.is_open, self.closing_at = False, None
            return [Say("table closed", rule="16.8")]
        effects: list[Effect] = []
        if self.pending_minimum and self.now >= self.pending_minimum[1]:
            cents = self.pending_minimum[0]
            self.limits = replace(self.limits, minimum_cents=cents)
            self.pending_minimum = None
            effects.append(Say(f"table minimum now {dollars(cents)}", rule="6.2"))
        if (self.faults and not self.approved) or self.integrity.blocks_new_rounds or self.enclosures.blocks_new_rounds:
            return effects  # 14.13: no new round until an inspector approves
        if self.shuffler_failed and self.card_source == "shuffler":
            return effects  # 15.2.2: waiting for another device or the shoe
        if self.staff.listed and keys.Key.DEALER.value not in self.staff.on:
            return effects  # a round is dealt by a person: none starts until a dealer signs in
        self.round_no += 1
        deck = self.next_deck if self.card_source == "shuffler" else "S"
        if self.card_source == "shuffler":
            self.next_deck = "B" if deck == "A" else "A"  # 3.2: the decks alternate
        self.round = Round(f"{self.table_id}-{self.round_no:06d}", self.spot_count, self.limits, self.profile,
                           self.card_source, deck, self.back_of(deck), self.progressive_offline)
        return effects + [Note("round.started", {"deck": deck, "back": self.back_of(deck),
                                                 "card_source": self.card_source,
                                                 "limits": vars(self.limits).copy(),
                                                 "progressive_offline": self.progressive_offline,
                                                 **self._dealt_by()},
                               self.round.round_id)]

    def _dealt_by(self) -> dict[str, Any]:
        """With a staff list, the dealer who deals the round (badge and name), for its
        ``round.started`` (the settlement stays exactly the game's, which recall and disputes
        recompute)."""
        if not self.staff.listed:
            return {}
        dealer = self.staff.on.get(keys.Key.DEALER.value)
        return {"dealt_by": dealer, "dealt_by_name": self.staff.name(dealer)}

    def _cards_ready(self, deck: str) -> bool:
        """4.1: shuffled before every round; 3.4: verified cards; 4.2: cut with the shoe."""
        d = self.decks[deck]
        if not d["verified"]:
            return False
        if self.card_source == "shuffler":
            return d["shuffled"] and not self.shuffler_failed
        return self.cut_done

    # -- what to (re)send after recovery ------------------------------------------------------------

    def standing_effects(self) -> list[Effect]:
        """State-setting commands and pending pool operations: safe to send again after a restart."""
        effects: list[Effect] = list(self.standing_pool_ops())
        r = self.round
        if self.pool_cents is not None:
            effects.append(MeterShow(self.pool_cents, self.progressive_offline))
        effects.append(PanelLamp("FAULT", self.fault_lamp))
        effects += self.cards.standing(self)  # 4.1, 7.4: the shuffles asked for, the deal in progress
        if r is None:
            return effects
        if r.phase == Phase.BETTING:
            effects.append(unlock(r))
        elif r.phase != Phase.PREPARING:
            effects.append(lock(r))
        return effects

    def standing_pool_ops(self) -> list[PoolOp]:
        """Every pool operation not yet answered, in order (keyed: safe to send again)."""
        return [op for op, _ in self.pending_pool_ops()]

    # -- checkpoint -----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "limits": vars(self.limits).copy(), "card_source": self.card_source,
            "is_open": self.is_open, "closing_at": self.closing_at,
            "pending_minimum": list(self.pending_minimum) if self.pending_minimum else None,
            "decks": self.decks, "next_deck": self.next_deck, "cut_done": self.cut_done,
            "recognition": self.recognition,
            "shuffler_failed": self.shuffler_failed, "faults": self.faults, "approved": self.approved,
            "door_open": self.door_open, "fault_lamp": self.fault_lamp,
            "round_no": self.round_no, "abstained": {str(k): v for k, v in self.abstained.items()},
            "pool_cents": self.pool_cents, "pool_seq": self.pool_seq, "awards_held": self.awards_held,
            **({"award_pending": self.award_pending} if self.award_pending else {}),
            "undelivered": self.undelivered,
            "rounds_finished": self.rounds_finished, "now": self.now,
            "last_seq": self.last_seq,
            "round": self.round.snapshot() if self.round else None,
            # held once there is something to hold: a journal without board readings checkpoints
            # the same table state as before they were folded; the links follow from the faults
            **({"felt": self.felt.snapshot()} if self.felt else {}),
            **({"shuffles": self.shuffles.snapshot()} if self.shuffles else {}),
            **({"staff": self.staff.snapshot()} if self.staff else {}),
            **({"device_out": self.device_out.snapshot()} if self.device_out else {}),
            **({"integrity": self.integrity.snapshot()} if self.integrity else {}),
            **({"enclosures": self.enclosures.snapshot()} if self.enclosures else {}),
            **({"payments": self.payments.snapshot()} if self.payments else {}),
            **({"players": self.players.snapshot()} if self.players else {}),
        }

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], spots: int, profile: Profile) -> TableCore:
        limits = Limits(**snap["limits"])
        core = cls(snap["table_id"], spots, limits, profile, snap["card_source"])
        for key in ("is_open", "closing_at", "decks", "next_deck", "cut_done", "shuffler_failed", "faults",
                    "approved", "round_no", "pool_cents", "rounds_finished", "now", "last_seq"):
            setattr(core, key, snap[key])
        core.pool_seq = snap.get("pool_seq")
        core.award_pending = snap.get("award_pending")
        core.door_open = snap.get("door_open", False)
        core.recognition = snap.get("recognition")
        core.fault_lamp = snap.get("fault_lamp", "OFF")
        core.awards_held = dict(snap.get("awards_held") or {})
        core.undelivered = dict(snap.get("undelivered") or {})
        core.pending_minimum = tuple(snap["pending_minimum"]) if snap["pending_minimum"] else None
        core.abstained = {int(k): v for k, v in snap["abstained"].items()}
        core.felt = Felt.from_snapshot(snap.get("felt"))
        core.shuffles = Shuffles.from_snapshot(snap.get("shuffles"))
        core.staff = Staff.from_snapshot(snap.get("staff"))
        core.device_out = OutOfPlay.from_snapshot(snap.get("device_out"))
        core.integrity = Integrity.from_snapshot(snap.get("integrity"))
        core.enclosures = Enclosures.from_snapshot(snap.get("enclosures"))
        core.payments = PaymentCheck.from_snapshot(snap.get("payments"))
        core.players = Players.from_snapshot(snap.get("players"), core.table_id, spots)
        if snap["round"]:
            core.round = Round.from_snapshot(snap["round"], spots, limits, profile)
        core.cards = CardSource.restored(core)
        core.links = Links.restored(core.faults)
        return core


__all__ = ["TableCore", "ROUND_ACTIONS", "DECKS", "DEALER"]

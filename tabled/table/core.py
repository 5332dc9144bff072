"""The table's state as a pure fold of its journaled inputs (one consumer, write-ahead).

``TableCore.apply(kind, payload, t_ms)`` takes one journaled input and returns the effects it
causes (tabled/table/effects.py). It never reads a clock or touches a device: the time comes with
the input, so replaying the journal rebuilds exactly the same table (recovery, recall, tests).

What each input kind and each panel action does is declared in tabled/table/handlers.py; the
table's state is in parts, each judging with its own rules and keeping its own checkpoint section:

* the round in play (tabled/table/round.py) and the rounds' sequence, here;
* the hours and the sign (tabled/table/hours.py: 16.8 open and closing, 6.1, 6.2 limits, 16.9 seats);
* the cards (tabled/table/decks.py: 3.x decks and verification, 4.1 - 4.3 shuffles and the cut,
  15.1, 15.2 the shuffling device's failures and out of play);
* the equipment (tabled/table/equipment.py: 14.13 faults, the links, the FAULT lamp);
* the book of the pools (tabled/table/poolbook.py: 11.5 operations owed, 2.4.3 meter, 9.5 held awards);
* the felt, the staff, the software and journal checks, the enclosures, the payments checked by
  the board and the players (felt.py, staff.py, selfcheck.py, enclosure.py, payout_check.py,
  players.py).

Here: an input's sequence number checked, its handler called (a malformed input is refused, never
a crash), and what follows from the state after every input (:meth:`TableCore._progress`): the
settlement, the round's end, the next round's start and its cards coming into play.
"""

from __future__ import annotations

from typing import Any

from tabled.game import keys
from tabled.game.cards import card_text
from tabled.game.limits import Limits
from tabled.game.profiles import Profile
from tabled.game.round_facts import SpotStatus
from tabled.game.settlement import settle, settlement_as_dict
from tabled.table import buttons, notes
from tabled.table.board import lock, unlock
from tabled.table.cardsource import CardSource, read_status
from tabled.table.clock import ClockWatch
from tabled.table.decks import SHOE, Decks
from tabled.table.display import settlement_lines
from tabled.table.effects import Command, Effect, MeterShow, Note, PanelLamp, PoolOp, Say, Shuffle
from tabled.table.enclosure import Enclosures
from tabled.table.equipment import Equipment
from tabled.table.felt import Felt, parse_reading
from tabled.table.handlers import ACTIONS, HANDLERS
from tabled.table.hours import Hours
from tabled.table.links import read_link
from tabled.table.outofplay import brings_back
from tabled.table.payout_check import PaymentCheck
from tabled.table.phase import Phase
from tabled.table.players import Players
from tabled.table.poolbook import PoolBook
from tabled.table.round import DEALER, Round, shoe_dealing
from tabled.table.selfcheck import Integrity
from tabled.table.staff import Staff


class TableCore:
    def __init__(self, table_id: str, spots: int, limits: Limits, profile: Profile,
                 card_source: str = "shuffler"):
        self.table_id: str = table_id
        self.spot_count: int = spots
        self.profile: Profile = profile
        self.round_no: int = 0
        self.round: Round | None = None
        self.rounds_finished: int = 0
        self.now: int = 0
        self.last_seq: dict[str, int] = {}                    # per input source: the last sequence number folded
        self.hours: Hours = Hours(limits)                     # open or closing, the sign, the seats (hours.py)
        self.decks: Decks = Decks(card_source)                # the cards and the shuffling device (decks.py)
        self.equipment: Equipment = Equipment()               # faults (14.13), links, the FAULT lamp (equipment.py)
        self.pool: PoolBook = PoolBook()                      # what the pools are owed and show (poolbook.py)
        self.felt: Felt = Felt()                              # what the bet-spot board last read
        self.staff: Staff = Staff()                           # who is signed in at the panel (staff.py)
        self.integrity: Integrity = Integrity()               # the software and journal checked while running
        self.enclosures: Enclosures = Enclosures()            # the enclosures' doors (enclosure.py)
        self.clock_watch: ClockWatch = ClockWatch()           # the clock's measured offset (clock.py)
        self.payments: PaymentCheck = PaymentCheck()          # payments checked by the board (payout_check.py)
        self.players: Players = Players(table_id, spots)      # who sits where, for ratings (players.py)

    # -- reading ---------------------------------------------------------------------------------

    @property
    def round_id(self) -> str | None:
        return self.round.round_id if self.round else None

    def is_news(self, kind: str, payload: dict[str, Any]) -> bool:
        """Whether a device's reading would change anything the table holds (a reading it holds
        already need not be journaled): the shuffling device's status (tabled/table/cardsource.py)."""
        if kind != "shuffler.status":
            return True
        ready, recognition = read_status(payload)
        return (recognition is not None and recognition != self.decks.recognition) or bool(
            self.decks.requests.judge_status(self.decks, self.round, ready))

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
            effects = self.dispatch(kind, dict(payload))
        except (TypeError, KeyError, ValueError) as exc:  # a malformed input is refused, never a crash
            effects = [Say(f"{kind}: malformed input ({exc})", level="refused")]
        effects += self._progress()
        effects = self.decks.requests.requests(self, effects)
        # 11.5: every pool operation is owed until each pool has it, and carries the table's id
        return [self.pool.owe(e, self.table_id) if isinstance(e, PoolOp) else e for e in effects]

    def dispatch(self, kind: str, p: dict[str, Any]) -> list[Effect]:
        handler = HANDLERS.get(kind)
        if handler is None:
            return [Say(f"unknown input {kind!r}", level="refused")]
        return handler(self, p)

    def round_input(self, name: str, p: dict[str, Any]) -> list[Effect]:
        if self.round is None:
            return [Say(f"{name}: no round in play", level="refused")]
        return self.round.handle(name, p)

    # -- the felt and the panel's buttons -------------------------------------------------------------

    def board_reading(self, spots: Any) -> list[Effect]:
        """Each area the board reads differently is applied as its ``wager`` input (5.8: a stack
        split or joined is a change)."""
        effects: list[Effect] = []
        for wager in self.felt.read(parse_reading(spots, self.spot_count)):
            effects += self.dispatch("wager", wager)
        return effects + self.payments.reading(self.felt)

    def button(self, p: dict[str, Any]) -> list[Effect]:
        effects: list[Effect] = []
        for kind, payload in buttons.press(self, p):
            effects += self.dispatch(kind, payload)
            if self.round is not None:  # 14.11.1: a fold of the spot playing first makes the held bets count
                effects += self._offer_bets_held_back(self.round)
        return effects

    def _betting_opens(self, r: Round) -> list[Effect]:
        """The chips lying on the ante and progressive areas are this round's wagers
        (tabled/table/felt.py); with the board's link lost nothing is read from the felt."""
        if not self.equipment.links.is_up("betspots"):
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

    def panel(self, p: dict[str, Any]) -> list[Effect]:
        """A panel action under a key (tabled/game/keys.py: which positions may, by which rule);
        with a staff list a privileged action is a signed-in person's. Carried out, it is journaled
        as ``panel.approved`` with the key and the person; refused, as ``panel.refused``."""
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
        if self.decks.device_out is not None and brings_back(action, p):
            return self.decks.device_out.refusal(action, key, person, self.round_id)  # 15.2: the inspector's
        approved = Note("panel.approved", {"action": action, "key": key, "rule": rule, **person, **p}, self.round_id)
        return [approved, *ACTIONS[action](self, p, key, person)]

    def award_paid(self, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]:
        """9.5: a progressive award confirmed paid; the note names the award, the key and the person."""
        r, spot = self.round, p.get("spot")
        effects = self.round_input("award_paid", p)
        if r is not None and isinstance(spot, int) and spot in r.spots and not r.spots[spot].award_held \
                and not any(isinstance(e, Say) and e.level == "refused" for e in effects):
            effects.insert(0, notes.award_paid(r, spot, key, person))
        return effects

    # -- devices --------------------------------------------------------------------------------------

    def device_link(self, p: dict[str, Any]) -> list[Effect]:
        """A device's link lost or back: 14.13 for the equipment (tabled/table/equipment.py); a
        device back is sent what the table needs of it again (standing effects)."""
        device, up, reason = read_link(p)
        effects = self.equipment.link(device, up, reason, self.round, self.pool.cents)
        if device == "shuffler":
            self.decks.requests.link()  # what it is asked follows from the requests (cardsource.py)
            return effects
        if device == "betspots" and up:
            # what the board read before its link was lost is stale: the felt is taken to be the
            # round's wagers, and the board's next reading says what changed
            self.felt.assume(self.round.spots.values() if self.round is not None else ())
        if not up:
            return effects
        return effects + [e for e in self.standing_effects() if isinstance(e, Command) and e.device == device]

    def shoe_card(self, p: dict[str, Any]) -> list[Effect]:
        """7.3: a card the shoe read, or the one it could not read as the dealer keys it in."""
        if p.get("keyed") and shoe_dealing(self.round) is None:
            card = p["card"]
            what = card_text(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)
            return [Say(f"card {what} keyed in, but no unreadable card waits for it: not dealt", rule="7.3",
                        level="refused")]
        self.decks.learn_back(p.get("back"), self.round)
        return self.round_input("card", p)  # 7.3; the round says why not, if it is not dealing

    def shoe_happening(self, kind: str, p: dict[str, Any]) -> list[Effect]:
        """The shoe's troubles stop the round's deal (7.3, 14.1); with no deal in progress they are
        only shown. A shoe running out also says the deck is short (3.7)."""
        r = shoe_dealing(self.round)
        if r is None:
            return [Say({"shoe.unreadable": f"card {p.get('reader_seq')} from the shoe could not be read "
                                            "(no deal in progress)",
                         "shoe.removed": "the shoe is off its base",
                         "shoe.replaced": "the shoe is back on its base",
                         "shoe.empty": f"the shoe is empty ({p.get('cards_read')} cards read)"}[kind])]
        if kind == "shoe.unreadable":
            self.decks.learn_back(p.get("back"), r)
        effects = r.handle(kind.replace(".", "_"), p)
        if kind in ("shoe.unreadable", "shoe.removed"):
            fault = "unread" if kind == "shoe.unreadable" else "shoe_off"
            effects.insert(0, notes.device_fault(fault, kind.split(".")[1], r.round_id))
        if kind == "shoe.empty" and isinstance(p.get("cards_read"), int):
            effects += self.decks.verified(SHOE, None, p["cards_read"], self.decks.status[SHOE].get("back"),
                                           r.round_id)
        return effects

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
        if r is not None and r.phase == Phase.SETTLING and r.awards is None and "pool" in self.equipment.faults \
                and r.round_id not in self.pool.awards_held and any(s.award_held for s in r.spots.values()):
            effects += self.pool.hold(r, self.now)  # 9.5, 14.13
        if r is not None and r.phase == Phase.VOID and not (r.settlement and r.settlement["void"]):
            effects += self._void_settlement(r)
        if r is not None and r.finished and self.payments.lets_finish(r.round_id):  # a void waits (payout_check.py)
            effects += self._end_round(r)
        if self.round is None:
            effects += self._start_round()
        r = self.round
        if r is not None and r.phase == Phase.PREPARING and r.deck is not None and self.decks.ready(r.deck):
            self.decks.into_play(r)
            effects += r.handle("cards_ready", {})
            effects += self._betting_opens(r)
        return effects + self.equipment.lamp(self.round, self.decks.door_open)

    def _settlement_note(self, r: Round) -> list[Effect]:
        pool_before = r.awards["pool_before_cents"] if r.awards else (self.pool.cents or 0)
        st = settle(r.facts(pool_before), self.profile)
        data = dict(settlement_as_dict(st))
        r.settlement = data
        return [Note("round.settled", data, r.round_id), *settlement_lines(st),
                *self.payments.expect(r.round_id, data, self.felt, self.spot_count)]

    def _void_settlement(self, r: Round) -> list[Effect]:
        """The round void (14.4, 15.2.1, 16.4) is settled as void: every wager returned, but those of
        the spots a supervisor named forfeited, which the house collects (16.5). A round voided while it
        settles was settled already: this settlement takes the place of that one (a reader takes a
        round's last ``round.settled``, docs/settlement.md), and the board's check then expects
        every area back as the wager lay (payout_check.py)."""
        st = settle(r.facts(self.pool.cents or 0), self.profile)
        r.settlement = dict(settlement_as_dict(st))
        return [Note("round.settled", r.settlement, r.round_id),
                *self.payments.void(r.round_id, r.settlement, self.felt, self.spot_count,
                                    self.staff.on.get(keys.Key.DEALER.value))]

    def _end_round(self, r: Round) -> list[Effect]:
        effects: list[Effect] = []
        effects += self.hours.after_round(self.spot_count, r.wagering_spots())  # 16.9
        if r.card_source == "shuffler" and r.deck and not self.decks.shuffler_failed:
            effects.append(Shuffle(r.deck))  # 4.1.2, 3.2.1
        effects += self.players.after_round(r.round_id, r.settlement, self.now)
        effects.append(Note("round.finished", {"phase": r.phase, "spots": {
            str(s.number): s.status for s in r.spots.values()}}, r.round_id))
        self.round = None
        self.rounds_finished += 1
        return effects

    def _start_round(self) -> list[Effect]:
        may, effects = self.hours.next_round(self.now)  # 16.8, 6.2
        if not may:
            return effects
        if self.equipment.blocks_new_rounds or self.integrity.blocks_new_rounds \
                or self.enclosures.blocks_new_rounds:
            return effects  # 14.13: no new round until an inspector approves
        if self.decks.shuffler_failed and self.decks.source == "shuffler":
            return effects  # 15.2.2: waiting for another device or the shoe
        if self.staff.listed and keys.Key.DEALER.value not in self.staff.on:
            return effects  # a round is dealt by a person: none starts until a dealer signs in
        self.round_no += 1
        deck, limits, offline = self.decks.for_round(), self.hours.limits, self.equipment.progressive_offline
        back = self.decks.back_of(deck)
        self.round = Round(f"{self.table_id}-{self.round_no:06d}", self.spot_count, limits, self.profile,
                           self.decks.source, deck, back, offline)
        return effects + [Note("round.started", {"deck": deck, "back": back, "card_source": self.decks.source,
                                                 "limits": vars(limits).copy(), "progressive_offline": offline,
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

    # -- what to (re)send after recovery ------------------------------------------------------------

    def standing_effects(self) -> list[Effect]:
        """State-setting commands and pending pool operations: safe to send again after a restart."""
        effects: list[Effect] = list(self.standing_pool_ops())
        r = self.round
        if self.pool.cents is not None:
            effects.append(MeterShow(self.pool.cents, self.equipment.progressive_offline))
        effects.append(PanelLamp("FAULT", self.equipment.fault_lamp))
        effects += self.decks.requests.standing(self)  # 4.1, 7.4: the shuffles asked for, the deal in progress
        if r is None:
            return effects
        if r.phase == Phase.BETTING:
            effects.append(unlock(r))
        elif r.phase != Phase.PREPARING:
            effects.append(lock(r))
        return effects

    def standing_pool_ops(self) -> list[PoolOp]:
        """Every pool operation not yet answered, in order (keyed: safe to send again)."""
        return [op for op, _ in self.pool.pending()]

    # -- checkpoint -----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id, "round_no": self.round_no, "rounds_finished": self.rounds_finished,
            "now": self.now, "last_seq": self.last_seq,
            "hours": self.hours.snapshot(), "decks": self.decks.snapshot(),
            "equipment": self.equipment.snapshot(), "pool": self.pool.snapshot(),
            "round": self.round.snapshot() if self.round else None,
            # held once there is something to hold: a journal without them checkpoints the same
            # table state as before they were folded
            **({"felt": self.felt.snapshot()} if self.felt else {}),
            **({"staff": self.staff.snapshot()} if self.staff else {}),
            **({"integrity": self.integrity.snapshot()} if self.integrity else {}),
            **({"enclosures": self.enclosures.snapshot()} if self.enclosures else {}),
            **({"clock": self.clock_watch.snapshot()} if self.clock_watch else {}),
            **({"payments": self.payments.snapshot()} if self.payments else {}),
            **({"players": self.players.snapshot()} if self.players else {}),
        }

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], spots: int, profile: Profile) -> TableCore:
        """A checkpoint of today's sections, or one written before the parts had their own (each
        part's ``upcast`` reads the older top-level fields)."""
        hours, decks = Hours.from_snapshot(snap), Decks.from_snapshot(snap)
        core = cls(snap["table_id"], spots, hours.limits, profile, decks.source)
        core.hours, core.decks = hours, decks
        core.equipment = Equipment.from_snapshot(snap)
        core.pool = PoolBook.from_snapshot(snap, profile.progressive_schedule)
        for key in ("round_no", "rounds_finished", "now", "last_seq"):
            setattr(core, key, snap[key])
        core.felt = Felt.from_snapshot(snap.get("felt"))
        core.staff = Staff.from_snapshot(snap.get("staff"))
        core.integrity = Integrity.from_snapshot(snap.get("integrity"))
        core.enclosures = Enclosures.from_snapshot(snap.get("enclosures"))
        core.clock_watch = ClockWatch.from_snapshot(snap.get("clock"))
        core.payments = PaymentCheck.from_snapshot(snap.get("payments"))
        core.players = Players.from_snapshot(snap.get("players"), core.table_id, spots)
        if snap["round"]:
            core.round = Round.from_snapshot(snap["round"], spots, hours.limits, profile)
        core.decks.requests = CardSource.restored(core)
        return core


__all__ = ["TableCore", "DEALER"]

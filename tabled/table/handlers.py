"""What the fold does with each journaled input (:data:`HANDLERS`, one per input kind of
tabled/table/kinds.py) and with each panel action a key allows (:data:`ACTIONS`, one per action of
tabled/game/keys.py). Each entry hands the input to the part of the table that judges it, with
what that part needs of the rest.

The parts: the round in play (tabled/table/round.py), the table's hours and sign
(tabled/table/hours.py), its cards (tabled/table/decks.py), its equipment (tabled/table/equipment.py),
its book of the pools (tabled/table/poolbook.py), the felt, the staff, the software and journal
checks, the enclosures, the payments and the players, each in its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tabled.game.keys import Key
from tabled.table import notes
from tabled.table.clock import INPUT as CLOCK_INPUT
from tabled.table.clock import ClockWatch
from tabled.table.decks import Decks
from tabled.table.effects import Effect, Say
from tabled.table.enclosure import INPUT as ENCLOSURE_INPUT
from tabled.table.enclosure import Enclosures
from tabled.table.equipment import Equipment
from tabled.table.hours import Hours
from tabled.table.payout_check import PaymentCheck
from tabled.table.players import INPUTS as PLAYER_INPUTS
from tabled.table.players import Players
from tabled.table.poolbook import PoolBook
from tabled.table.protection import alert_note
from tabled.table.round import Round
from tabled.table.selfcheck import INPUTS as INTEGRITY_INPUTS
from tabled.table.selfcheck import Integrity
from tabled.table.staff import Staff


class TableCore(Protocol):
    """What the handlers hand an input to (tabled.table.core.TableCore): its parts, and its own
    steps for the inputs that span them."""

    table_id: str
    now: int
    round: Round | None
    hours: Hours
    decks: Decks
    equipment: Equipment
    pool: PoolBook
    staff: Staff
    integrity: Integrity
    enclosures: Enclosures
    clock_watch: ClockWatch
    payments: PaymentCheck
    players: Players

    @property
    def round_id(self) -> str | None: ...

    def round_input(self, name: str, p: dict[str, Any]) -> list[Effect]: ...

    def board_reading(self, spots: Any) -> list[Effect]: ...

    def button(self, p: dict[str, Any]) -> list[Effect]: ...

    def panel(self, p: dict[str, Any]) -> list[Effect]: ...

    def award_paid(self, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]: ...

    def device_link(self, p: dict[str, Any]) -> list[Effect]: ...

    def shoe_card(self, p: dict[str, Any]) -> list[Effect]: ...

    def shoe_happening(self, kind: str, p: dict[str, Any]) -> list[Effect]: ...


Handler = Callable[[TableCore, dict[str, Any]], list[Effect]]
#: a panel action carried out: the table, the action's fields, the key turned, the person signed in to it
Action = Callable[[TableCore, dict[str, Any], str, dict[str, Any]], list[Effect]]

#: panel action -> the round input it becomes
ROUND_ACTIONS = {
    "no_more_bets": "no_more_bets", "reveal": "reveal", "fold": "fold", "concede": "concede",
    "absent": "absent", "exposed_card": "exposed_card", "misdeal": "misdeal",
    "hand_without_ante": "hand_without_ante", "settle": "settle",
    "resolve_past_posting": "resolve_past_posting", "play_first": "play_first",
    "invalidate_round": "invalidate", "void_player": "void_player", "dead_hand": "dead_hand",
    "count_cards": "deck_count",
}


def _round_action(name: str) -> Action:
    def act(core: TableCore, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]:
        return core.round_input(name, p)
    return act


def _approve(core: TableCore, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]:
    """14.13: the inspector approves play after a fault of the table's software, journal or
    enclosures (selfcheck.py, enclosure.py), else after an equipment fault (equipment.py)."""
    if core.integrity or core.enclosures:
        who = person.get("name") or person.get("person")
        return core.integrity.approve(who, core.round_id) + core.enclosures.acknowledge(who, core.round_id)
    return core.equipment.approve_play(core.pool.cents, **p)


def _payments_done(core: TableCore, p: dict[str, Any], key: str, person: dict[str, Any]) -> list[Effect]:
    """9.3, 9.4: the dealer has paid and collected (tabled/table/payout_check.py)."""
    return core.payments.settle_done(key, person, core.staff.on.get(Key.DEALER.value))


#: every panel action a key allows -> what carries it out
ACTIONS: dict[str, Action] = {
    **{action: _round_action(name) for action, name in ROUND_ACTIONS.items()},
    "award_paid": lambda core, p, key, person: core.award_paid(p, key, person),  # 9.5
    "payments_done": _payments_done,
    "approve_play": _approve,
    "open_table": lambda core, p, key, person: core.hours.open_table(**p),  # 16.8
    "announce_closure": lambda core, p, key, person: core.hours.announce_closure(core.now, **p),  # 16.8
    "announce_minimum": lambda core, p, key, person: core.hours.announce_minimum(core.now, **p),  # 6.2
    "set_maximum": lambda core, p, key, person: core.hours.set_maximum(**p),  # 6.2
    "shuffle_and_cut": lambda core, p, key, person: core.decks.shuffle_and_cut(**p),  # 4.2, 4.3
    "new_cards": lambda core, p, key, person: core.decks.new_cards(**p),  # 3.6
    "use_card_source": lambda core, p, key, person: core.decks.use_source(**p),  # 15.2.2
    "deck_checked": lambda core, p, key, person: core.decks.deck_checked(key, person=person,
                                                                          round_id=core.round_id, **p),  # 3.4
    "clear_device": lambda core, p, key, person: core.decks.clear_device(core.now, person, core.round),  # 15.2
}


def _wager(core: TableCore, p: dict[str, Any]) -> list[Effect]:
    """5.2: a wager is taken only by a round open for it; chips put down between rounds are flagged."""
    if core.round is None:
        return [Say("no round is open for wagers", p.get("spot"), "5.2", "flag")] if p.get("cents") else []
    return core.round.handle("wager", p)


def _integrity(kind: str) -> Handler:
    """The software and the journal checked while running (selfcheck.py)."""
    return lambda core, p: core.integrity.take(kind, p, core.round_id)


def _players(kind: str) -> Handler:
    """Who sits where, for ratings (players.py)."""
    return lambda core, p: core.players.apply(kind, p, core.now, core.round_id)


def _shoe(kind: str) -> Handler:
    """The shoe's troubles (7.3, 14.1, 3.7: TableCore.shoe_happening)."""
    return lambda core, p: core.shoe_happening(kind, p)


def _nothing(core: TableCore, p: dict[str, Any]) -> list[Effect]:
    """What the daemon started with is evidence for people; the table plays on."""
    return []


#: every input kind of the registry (tabled/table/kinds.py) -> what the fold does with it
HANDLERS: dict[str, Handler] = {
    "wager": _wager,
    "board.reading": lambda core, p: core.board_reading(p["spots"]),
    "panel.button": lambda core, p: core.button(p),
    "panel": lambda core, p: core.panel(p),
    "device.link": lambda core, p: core.device_link(p),
    "shuffler.shuffled": lambda core, p: core.decks.shuffled(p["deck"], p.get("cards"), core.round, core.now),
    "shuffler.status": lambda core, p: core.decks.status_report(p, core.round),
    "shuffler.refused": lambda core, p: core.decks.refused(p, core.round),
    "shuffler.hand": lambda core, p: core.round_input("hand", p),
    "shuffler.door": lambda core, p: core.decks.door(p["open"], core.round),
    "shuffler.recognition": lambda core, p: core.decks.recognise(p["on"]),
    "shuffler.fault": lambda core, p: core.decks.reported_fault(p, core.round),
    "shoe.card": lambda core, p: core.shoe_card(p),
    **{kind: _shoe(kind) for kind in ("shoe.unreadable", "shoe.removed", "shoe.replaced", "shoe.empty")},
    "deck.verified": lambda core, p: core.decks.verified(p["deck"], p.get("cards"), p.get("count"), p.get("back"),
                                                         core.round_id),
    "equipment.fault": lambda core, p: core.equipment.fault(p["equipment"], p.get("reason", ""), core.round_id),
    "equipment.ok": lambda core, p: core.equipment.ok(p["equipment"], core.round, core.pool.cents),
    "equipment.back": lambda core, p: core.equipment.back(p["equipment"], core.round, core.pool.cents),
    "pool.contributed": lambda core, p: core.pool.answered("pool.contributed", p, core.round_id,
                                                           core.equipment.progressive_offline),
    "pool.reversed": lambda core, p: core.pool.answered("pool.reversed", p, core.round_id,
                                                        core.equipment.progressive_offline),
    "pool.awards": lambda core, p: core.pool.awards(p, core.round, core.now, core.equipment.progressive_offline),
    "pool.balance": lambda core, p: core.pool.balance(p.get("balance_cents"), core.equipment.progressive_offline),
    "pool.meter": lambda core, p: core.pool.meter(p, core.table_id, core.now, core.equipment.progressive_offline),
    "staff.roster": lambda core, p: core.staff.roster(p, core.now, core.round_id),
    "staff.sign_in": lambda core, p: core.staff.sign_in(p, core.now, core.round_id),
    "staff.sign_out": lambda core, p: core.staff.sign_out(p, core.now, core.round_id),
    "staff.pin_change": lambda core, p: core.staff.pin_change(p, core.now, core.round_id),
    **{kind: _integrity(kind) for kind in INTEGRITY_INPUTS},
    ENCLOSURE_INPUT: lambda core, p: core.enclosures.take(p, core.now, dict(core.staff.on), core.round_id),
    CLOCK_INPUT: lambda core, p: core.clock_watch.take(p, core.now, core.round_id),
    "config.started": lambda core, p: [notes.config_in_force(p)],
    "protection.evidence": lambda core, p: alert_note(p, core.round_id),
    **{kind: _players(kind) for kind in PLAYER_INPUTS},
    "tick": _nothing,
    "journal.loss_accepted": _nothing,
}

__all__ = ["HANDLERS", "ACTIONS", "ROUND_ACTIONS", "Handler", "Action"]

"""Every button of the dealer's panel: what it takes, the key(s) it needs and what it means.

A ``panel.button`` input names the button and the key turned, with the spot, the spots or the
number keyed where the button takes one. The panel has no button per action: what a press
means depends on the key and on the table's state when it is folded, and it becomes the table's
own inputs (``panel`` actions, whose key tabled/game/keys.py checks and whose refusal or
approval is journaled as a note; a keyed card; a deck's verification; equipment working again).
The choices where the rules leave room, each made below where the button is described:

* REVEAL folds every spot still deciding whose bet area on the felt is empty (8.3; 8.6: the
  reveal comes after the bets of every player continuing), then reveals.
* SETTLE DONE confirms the next progressive award still held, in the order of 12.2 / 12.4 (the
  pool's award list is in that order), and settles when none is held (9.5). With the payments
  checked by the board, the press after the settlement says the dealer has paid and collected
  (tabled/table/payout_check.py: refused while an area is wrong, unless the supervisor's key); in a
  round voided while it settled, that every wager is back as it was placed.
* APPROVE does what the key allows and the table needs: the inspector approves play after an
  equipment fault and clears the faults of equipment that is back (14.13), and clears a shuffling
  device out of play (15.2, tabled/table/outofplay.py); a supervisor opens the table (16.8) or
  continues after a shuffling device failure (15.2.2: refused while the device is out of play,
  since the table cannot tell another device from that one); a supervisor or the dealer
  resolves past posting (5.6); anything else is an approval of play the table refuses, saying why.
* EXPOSED CARD on the dealer's hand (spot 0) names no card: with the shoe it is the card the shoe
  last dealt to the dealer (the dealer presses it before the dealer's next card); it becomes the
  dealer's up card (14.6, NZ 14.6).
* A closure (16.8) carries the minutes keyed; a raised minimum (6.2) none, so it takes effect at
  the earliest the 20 minutes allow, counted from the input's own journal time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tabled.game.round_facts import SpotStatus
from tabled.table.phase import Phase
from tabled.game import keys
from tabled.game.cards import DECK
from tabled.table.felt import Felt
from tabled.table.decks import Decks
from tabled.table.equipment import Equipment
from tabled.table.hours import Hours
from tabled.table.names import EQUIPMENT
from tabled.table.outofplay import CLEAR_ACTION
from tabled.table.payout_check import PaymentCheck
from tabled.table.round import DEALER, Round


class TableCore(Protocol):
    """What a button reads of the table (tabled.table.core.TableCore)."""

    round: Round | None
    felt: Felt
    hours: Hours
    decks: Decks
    equipment: Equipment
    payments: PaymentCheck


Input = tuple[str, dict[str, Any]]
Meaning = Callable[[TableCore, str | None, Any], list[Input]]

DEALER_HAND = 0      # the spot of the dealer's own hand on the panel
DECK_SIZE = len(DECK)  # 3.4, 3.7: a full deck


@dataclass(frozen=True)
class PanelButton:
    name: str
    takes: str | None           # spot | spots | value | None
    actions: tuple[str, ...]    # the panel actions a press may become (tabled/game/keys.py)
    rules: str
    means: Meaning

    @property
    def key_positions(self) -> frozenset[str]:
        """The key positions under which a press can do anything (every one for a button that
        becomes no panel action)."""
        if not self.actions:
            return frozenset(keys.Key)
        return frozenset().union(*(keys.required(a)[0] for a in self.actions))


def panel(action: str, key: str | None, **fields: Any) -> Input:
    return ("panel", {"action": action, "key": key, **fields})


def action(name: str, **fixed: Any) -> Meaning:
    """A button that is always the one panel action, taking nothing from the panel."""
    def means(core: TableCore, key: str | None, taken: Any) -> list[Input]:
        return [panel(name, key, **fixed)]
    return means


def spot_action(name: str, **fixed: Any) -> Meaning:
    def means(core: TableCore, key: str | None, spot: Any) -> list[Input]:
        return [panel(name, key, spot=spot, **fixed)]
    return means


def number_action(name: str, field: str) -> Meaning:
    def means(core: TableCore, key: str | None, value: Any) -> list[Input]:
        return [panel(name, key, **{field: value})]
    return means


def nothing(what: str) -> Meaning:
    """A button the table keeps in its journal but does not act on."""
    def means(core: TableCore, key: str | None, taken: Any) -> list[Input]:
        return []
    means.__doc__ = what
    return means


# -- the buttons whose meaning depends on the table ----------------------------------------------------

def reveal(core: TableCore, key: str | None, taken: Any) -> list[Input]:
    """8.3, 8.6: every spot still deciding with nothing on its bet area folds, then the reveal."""
    r = core.round
    if r is None or r.phase != Phase.DECIDING:
        return [panel("reveal", key)]  # the round says why not
    folds = [panel("fold", key, spot=s.number) for s in r.spots.values()
             if s.status == SpotStatus.PLAYING and core.felt.at(s.number, "bet").empty]
    return [*folds, panel("reveal", key)]


def settle_done(core: TableCore, key: str | None, taken: Any) -> list[Input]:
    """9.5: the next held progressive award is confirmed paid, in the pool's order (12.2, 12.4);
    then, with the payments checked by the board, the dealer has paid and collected (9.3, 9.4)."""
    r = core.round
    if r is not None and r.phase == Phase.SETTLING and r.awards is not None:
        held = [a["spot"] for a in r.awards.get("awards", []) if r.spots[a["spot"]].award_held]
        if held:
            return [panel("award_paid", key, spot=held[0])]
    if r is not None and core.payments.waiting(r.round_id):  # settling, or void while it settled
        return [panel("payments_done", key)]
    return [panel("settle", key)]


def exposed_card(core: TableCore, key: str | None, spot: Any) -> list[Input]:
    """14.5 on a player's hand; 14.6 on the dealer's: the card the shoe last dealt the dealer."""
    if spot != DEALER_HAND:
        return [panel("exposed_card", key, target=spot)]
    r = core.round
    card = {}
    if r is not None and r.card_source == "shoe" and r.phase == Phase.DEALING and r.dealer_cards:
        card = {"card": r.dealer_cards[-1]}
    return [panel("exposed_card", key, target=DEALER, **card)]  # without a card the round says why not


def void_round(core: TableCore, key: str | None, spots: Any) -> list[Input]:
    """16.4, 16.5: the round void, the wagers of the spots named forfeited."""
    return [panel("invalidate_round", key, reason="voided at the panel", forfeit=list(spots or []))]


def new_cards(core: TableCore, key: str | None, taken: Any) -> list[Input]:
    """3.6: every deck of the card source in use is replaced, each to be verified (3.4)."""
    decks = ["S"] if core.decks.source == "shoe" else ["A", "B"]
    return [panel("new_cards", key, deck=d) for d in decks]


def verify_deck(core: TableCore, key: str | None, taken: Any) -> list[Input]:
    """3.4: the shoe's deck counted by the dealer; the shuffling device's deck checked by the
    dealer when the device does not read its cards; else a count of a full deck (3.7)."""
    if core.decks.source == "shoe":
        return [("deck.verified", {"deck": "S", "count": DECK_SIZE})]
    deck = core.decks.deck_to_check(core.round)
    if deck is not None:
        return [panel("deck_checked", key, deck=deck)]
    return [panel("count_cards", key, count=DECK_SIZE)]


def approve(core: TableCore, key: str | None, taken: Any) -> list[Input]:
    """What the key allows and the table needs (see the module docstring)."""
    r = core.round
    if key == keys.Key.INSPECTOR:
        faults = core.equipment.faults
        back = [d for d in EQUIPMENT if d in faults and core.equipment.links.is_up(d)]
        clear = [panel(CLEAR_ACTION, key)] if core.decks.device_out is not None else []  # 15.2
        approve_play = [panel("approve_play", key)] if faults or not clear else []
        return clear + approve_play + [("equipment.ok", {"equipment": d}) for d in back]  # 14.13
    if r is not None and any(s.past_posting for s in r.spots.values()):
        return [panel("resolve_past_posting", key, spot=s.number) for s in r.spots.values() if s.past_posting]
    if key == keys.Key.SUPERVISOR:
        if not core.hours.is_open:
            return [panel("open_table", key)]  # 16.8
        if core.decks.shuffler_failed:
            return [panel("use_card_source", key, source="shuffler")]  # 15.2.2: another device, new cards
    return [panel("approve_play", key)]  # the table says why not


def enter_card(core: TableCore, key: str | None, value: Any) -> list[Input]:
    """7.3: the card the shoe could not read, as the dealer reads it; the table says if one waits."""
    return [("shoe.card", {"card": value, "keyed": True})]


def _buttons(*buttons: PanelButton) -> dict[str, PanelButton]:
    return {b.name: b for b in buttons}


B = PanelButton
#: every panel button, by the name a ``panel.button`` input gives it
BUTTONS: dict[str, PanelButton] = _buttons(
    B("no_more_bets", None, ("no_more_bets",), "7.2.1", action("no_more_bets")),
    B("deal", None, (), "7.4", nothing("the hands come when the round reaches dealing (7.4)")),
    B("reveal", None, ("fold", "reveal"), "8.3, 8.6", reveal),
    B("settle_done", None, ("award_paid", "settle", "payments_done"), "9.3, 9.4, 9.5, 12.2, 12.4", settle_done),
    B("misdeal", None, ("misdeal",), "14.1", action("misdeal")),
    B("void_round", "spots", ("invalidate_round",), "16.4, 16.5", void_round),
    B("confirm_shuffle", None, (), "4.1", nothing("the shuffling device reports its own shuffles (4.1)")),
    B("confirm_cut", None, ("shuffle_and_cut",), "4.2, 4.3", action("shuffle_and_cut")),
    B("approve", None, ("approve_play", "clear_device", "open_table", "resolve_past_posting", "use_card_source"),
      "14.13, 15.2, 16.8, 5.6, 15.2.2", approve),
    B("verify_deck", None, ("deck_checked", "count_cards"), "3.4, 3.7", verify_deck),
    B("call_supervisor", None, (), "", nothing("the supervisor is called by the panel's own signal")),
    B("concede", "spot", ("concede",), "9.7", spot_action("concede")),
    B("absent", "spot", ("absent",), "14.12", spot_action("absent")),
    B("exposed_card", "spot", ("exposed_card",), "14.5, 14.6", exposed_card),
    B("no_ante_hand", "spot", ("hand_without_ante",), "14.8, NZ 14.7", spot_action("hand_without_ante")),
    B("play_first", "spot", ("play_first",), "14.11.1", spot_action("play_first")),
    B("void_player", "spot", ("void_player",), "16.3.1", spot_action("void_player", forfeit=False)),
    B("dead_hand", "spot", ("dead_hand",), "NZ 14.1", spot_action("dead_hand")),
    B("forfeit", "spot", ("void_player",), "16.3.1, 16.5", spot_action("void_player", forfeit=True)),
    B("new_cards", None, ("new_cards",), "3.6", new_cards),
    B("switch_to_shoe", None, ("use_card_source",), "15.2.2", action("use_card_source", source="shoe")),
    B("verify_count", "value", ("count_cards",), "3.7, NZ 14.9", number_action("count_cards", "count")),
    B("announce_closure", "value", ("announce_closure",), "16.8", number_action("announce_closure", "minutes")),
    B("announce_minimum", "value", ("announce_minimum",), "6.2", number_action("announce_minimum", "cents")),
    B("enter_card", "value", (), "7.3", enter_card),
)


def press(core: TableCore, payload: dict[str, Any]) -> list[Input]:
    """The table's inputs a ``panel.button`` input becomes, read against the table as it stands."""
    name, key = payload.get("button"), payload.get("key")
    button = BUTTONS.get(name) if isinstance(name, str) else None
    if button is None:
        raise ValueError(f"button={name!r}: the panel has no such button")
    extra = sorted(set(payload) - {"button", "key", *([button.takes] if button.takes else [])})
    if extra:
        raise ValueError(f"{name} takes {button.takes or 'nothing'}, not {', '.join(extra)}")
    if button.takes and button.takes not in payload:
        raise ValueError(f"{name} needs the {button.takes} keyed on the panel")
    return button.means(core, key, payload.get(button.takes) if button.takes else None)

"""The deal through the card-reading shoe (7.3): one card read at a time to each spot with an ante,
then the dealer, five passes; and the shoe's troubles (14.1): a card it cannot read waits for the
dealer to key it in, the shoe lifted off its base or running out. Every step is a journaled input
folded here, so a restart finds the deal where it stood."""

from __future__ import annotations

from typing import Any

from tabled.game.cards import HAND_SIZE, card_text
from tabled.game.round_facts import RoundVoid
from tabled.table.effects import Effect, Say
from tabled.table.integrity import IntegrityFault, check_back, check_cards, take
from tabled.table.refused import Refused
from tabled.table.spot import DEALER
from tabled.table.state import RoundState


def stop_deal(r: RoundState, why: str) -> list[Effect]:
    """14.1: the cards have been dealt incorrectly: no further card is dealt, a misdeal is due."""
    r.deal_stopped = why
    return [Say(f"{why}: the cards have been dealt incorrectly: declare a misdeal (14.1)", rule="14.1",
                level="flag")]


def _count(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise Refused(None, f"the shoe sent {name}={v!r}: not a count")
    return v


def _not_dealt(what: str) -> list[Effect]:
    return [Say(f"{what} drawn: not dealt, the deal is stopped: declare a misdeal (14.1)", rule="14.1",
                level="flag")]


def card(r: RoundState, card: int, back: str | None = None, reader_seq: int | None = None,
         keyed: bool = False) -> list[Effect]:
    """7.3: the next card to the next target. ``keyed``: the card the shoe could not read, as the
    dealer read it and keyed it in on the panel."""
    if r.card_source != "shoe":
        raise Refused("7.4", "this table deals from the shuffling device")
    check_cards([card])
    what = f"card {reader_seq} ({card_text(card)})" if reader_seq is not None else f"card {card_text(card)}"
    try:
        check_back(back, r.back, "3.1")  # 3.1: a deck's backs are one colour; 16.4.2: a card from elsewhere
    except IntegrityFault as f:
        return r.void(RoundVoid.INVALIDATED, f.rule, f"card integrity (16.4.2): {what}: {f}")
    if keyed:
        if r.unread is None or r.deal_stopped:
            raise Refused("7.3", f"{what} keyed in, but no unreadable card waits for it: not dealt")
        r.unread = None
    elif r.deal_stopped:
        return _not_dealt(what)
    elif r.unread is not None:  # 14.1: the unreadable card's place in the deal is not known
        return stop_deal(r, f"{what} drawn before unreadable card {r.unread} was keyed in")
    try:
        take(r.seen, [card])
    except IntegrityFault as f:
        return r.void(RoundVoid.INVALIDATED, f.rule, f"card integrity: {f}")
    n = len(r.dealt_to)
    if r.deliveries >= HAND_SIZE * n:
        return r.void(RoundVoid.MISDEAL, "14.2", "more cards than five passes")
    target = r.dealt_to[r.deliveries % n]
    r.deliveries += 1
    effects: list[Effect] = []
    if target == DEALER:
        r.dealer_cards.append(card)
        if len(r.dealer_cards) == HAND_SIZE:
            if not r.dealer_up:
                r.dealer_up = [card]  # 7.3.3: the dealer's last card face up
            else:  # 14.6, NZ 14.6: a card exposed in error is the up card; the fifth goes face down
                effects.append(Say(f"the dealer's fifth card face down: {card_text(r.dealer_up[0])} "
                                   "is the dealer's up card", rule="14.6"))
    else:
        r.spot(target).cards.append(card)
    return effects + r.dealt()


def shoe_unreadable(r: RoundState, reader_seq: int, back: str | None = None) -> list[Effect]:
    """7.3, 14.1: the deal waits until the dealer keys the card in or declares a misdeal."""
    _count("reader_seq", reader_seq)
    try:
        check_back(back, r.back, "3.1")
    except IntegrityFault as f:
        return r.void(RoundVoid.INVALIDATED, f.rule, f"card integrity (16.4.2): card {reader_seq}: {f}")
    if r.deal_stopped:
        return _not_dealt(f"card {reader_seq}")
    if r.unread is not None:
        return stop_deal(r, f"card {reader_seq} drawn while the deal was stopped")
    r.unread = reader_seq
    return [Say(f"card {reader_seq} could not be read by the shoe: look at it and key it in (ENTER CARD) "
                "before drawing the next card, or declare a misdeal (14.1)", rule="7.3", level="flag")]


def shoe_removed(r: RoundState, cards_read: int) -> list[Effect]:
    """7.3: a card drawn while the shoe is off its base is not read."""
    r.shoe_off = _count("cards_read", cards_read)
    return [Say("the shoe was lifted off its base during the deal: put it back before drawing "
                "(a card drawn meanwhile is not read)", rule="7.3", level="flag")]


def shoe_replaced(r: RoundState, cards_read: int) -> list[Effect]:
    """Put back with no card drawn meanwhile: the deal goes on; otherwise a misdeal is due (14.1)."""
    _count("cards_read", cards_read)
    off, r.shoe_off = r.shoe_off, None
    if off is not None and cards_read != off:
        return stop_deal(r, f"{cards_read - off} card(s) drawn while the shoe was off its base")
    if off is not None and not r.deal_stopped and r.unread is None:
        return [Say("the shoe is back on its base: the deal continues", rule="7.3")]
    return []


def shoe_empty(r: RoundState, cards_read: int) -> list[Effect]:
    """A deck of 52 never runs out in one deal: cards are missing (3.7), a misdeal is due (14.1)."""
    return stop_deal(r, f"the shoe ran out after {_count('cards_read', cards_read)} cards")


__all__ = ["stop_deal", "card", "shoe_unreadable", "shoe_removed", "shoe_replaced", "shoe_empty"]

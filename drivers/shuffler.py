"""The shuffling device (rules 3.2, 4.4, 7.4, 15): two decks with different back colours, one in
play while the other is shuffled (3.2.1, 3.2.2); deals five cards at a time (7.4).

Commands: shuffle a deck, deliver a five-card hand from a shuffled deck, status, self-test.
Events: shuffle started / complete (with the card order when card recognition is on), hand
delivered (five cards, and which is the bottom card, turned up for the dealer's hand, 7.4.2), and
the faults of rule 15.1 (jam, shuffle cycle failed, not intermixing), door open, card count wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabled_drivers.base import DeviceDataError, DeviceEvent, DeviceFault, Driver
from tabled_drivers.cards import DECK_SIZE, HAND_SIZE, card_text
from tabled_drivers.link import messages as m
from tabled_drivers.link.messages import U8, U8_LIST, U16, Command, EventSpec


class DeckColour(IntEnum):
    """Back colour of a deck; the two decks in the device must differ (3.2.2)."""

    RED = 1
    BLUE = 2
    GREEN = 3
    BLACK = 4


class SelfTest(IntEnum):
    PASSED = 0
    MECHANISM = 1
    CARD_READER = 2
    DOOR_SENSOR = 3


# -- the command table -------------------------------------------------------------------------
SHUFFLE = Command("shuffle", 0x20, request=(("deck", U8),))
DELIVER_HAND = Command("deliver_hand", 0x21, request=(("deck", U8),))
STATUS = Command("status", 0x22, response=(
    ("ready", U8_LIST),  # colours of decks shuffled and ready to deal from
    ("cards_left", U8_LIST),  # cards left in each ready deck, same order
    ("door_open", U8),
    ("recognition", U8),  # 1 when the device reads the cards it shuffles
))
SELF_TEST = Command("self_test", 0x23, response=(("result", U8),))
COMMANDS = m.table(SHUFFLE, DELIVER_HAND, STATUS, SELF_TEST)

# -- the event table ---------------------------------------------------------------------------
SHUFFLE_STARTED = EventSpec("shuffle_started", 0x80, (("deck", U8),))
SHUFFLE_COMPLETE = EventSpec("shuffle_complete", 0x81, (("deck", U8), ("card_count", U8), ("order", U8_LIST)))
HAND_DELIVERED = EventSpec("hand_delivered", 0x82, (("deck", U8), ("hand_number", U16), ("cards", U8_LIST),
                                                    ("bottom", U8)))
JAM = EventSpec("jam", 0x83, (("deck", U8), ("at_card", U8)))
CYCLE_FAILED = EventSpec("cycle_failed", 0x84, (("deck", U8),))
NOT_INTERMIXING = EventSpec("not_intermixing", 0x85, (("deck", U8),))
CARD_COUNT_WRONG = EventSpec("card_count_wrong", 0x86, (("deck", U8), ("counted", U8)))
DOOR_OPEN = EventSpec("door_open", 0x87)
DOOR_CLOSED = EventSpec("door_closed", 0x88)
EVENTS = m.table(SHUFFLE_STARTED, SHUFFLE_COMPLETE, HAND_DELIVERED, JAM, CYCLE_FAILED, NOT_INTERMIXING,
                 CARD_COUNT_WRONG, DOOR_OPEN, DOOR_CLOSED)


# -- typed events ------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ShuffleStarted(DeviceEvent):
    deck: DeckColour


@dataclass(frozen=True, kw_only=True)
class ShuffleComplete(DeviceEvent):
    deck: DeckColour
    card_count: int
    order: tuple[int, ...]  # empty unless card recognition is on


@dataclass(frozen=True, kw_only=True)
class HandDelivered(DeviceEvent):
    """Five cards at a time (7.4.1); ``bottom`` indexes the card turned up on the dealer's hand (7.4.2)."""

    deck: DeckColour
    hand_number: int
    cards: tuple[int, ...]
    bottom: int

    @property
    def bottom_card(self) -> int:
        return self.cards[self.bottom]


@dataclass(frozen=True, kw_only=True)
class ShufflerJam(DeviceFault):
    deck: DeckColour
    at_card: int


@dataclass(frozen=True, kw_only=True)
class ShuffleCycleFailed(DeviceFault):
    deck: DeckColour


@dataclass(frozen=True, kw_only=True)
class NotIntermixing(DeviceFault):
    deck: DeckColour


@dataclass(frozen=True, kw_only=True)
class CardCountWrong(DeviceFault):
    deck: DeckColour
    counted: int


@dataclass(frozen=True, kw_only=True)
class DoorOpen(DeviceFault):
    pass


@dataclass(frozen=True, kw_only=True)
class DoorClosed(DeviceEvent):
    pass


@dataclass(frozen=True)
class ShufflerStatus:
    ready: dict[DeckColour, int]  # deck -> cards left
    door_open: bool
    recognition: bool


def _deck(value: int) -> DeckColour:
    try:
        return DeckColour(value)
    except ValueError:
        raise DeviceDataError(f"no deck with back colour code {value}") from None


def _cards(values, what: str) -> tuple[int, ...]:
    cards = tuple(values)
    bad = [c for c in cards if not 0 <= c < DECK_SIZE]
    if bad:
        raise DeviceDataError(f"{what}: {bad[0]} is not a card (0-51)")
    if len(set(cards)) != len(cards):
        raise DeviceDataError(f"{what}: the same card twice")
    return cards


class ShufflerDriver(Driver):
    KIND = m.DeviceKind.SHUFFLER
    EVENTS = EVENTS
    DEFAULT_NAME = "shuffler"

    async def shuffle(self, deck: DeckColour) -> None:
        """Start shuffling ``deck`` (4.4.1); progress arrives as events."""
        await self.call(SHUFFLE, deck=DeckColour(deck))

    async def deliver_hand(self, deck: DeckColour) -> None:
        """Deliver five cards from ``deck`` (7.4.1); the cards arrive as :class:`HandDelivered`."""
        await self.call(DELIVER_HAND, deck=DeckColour(deck))

    async def status(self) -> ShufflerStatus:
        r = await self.call(STATUS)
        return ShufflerStatus(ready={_deck(d): n for d, n in zip(r["ready"], r["cards_left"])},
                              door_open=bool(r["door_open"]), recognition=bool(r["recognition"]))

    async def self_test(self) -> SelfTest:
        return SelfTest((await self.call(SELF_TEST))["result"])

    def build_event(self, spec: EventSpec, v: dict) -> DeviceEvent:
        d = self.name
        if spec is DOOR_OPEN:
            return DoorOpen(device=d, reason="shuffling device door open")
        if spec is DOOR_CLOSED:
            return DoorClosed(device=d)
        deck = _deck(v["deck"])
        if spec is SHUFFLE_STARTED:
            return ShuffleStarted(device=d, deck=deck)
        if spec is SHUFFLE_COMPLETE:
            if v["card_count"] != DECK_SIZE:  # a "complete" shuffle of a short deck is still wrong
                return CardCountWrong(device=d, deck=deck, counted=v["card_count"],
                                      reason=f"{deck.name.lower()} deck has {v['card_count']} cards, not 52")
            order = _cards(v["order"], "shuffled order")
            if order and len(order) != DECK_SIZE:
                raise DeviceDataError(f"shuffled order lists {len(order)} cards, not 52")
            return ShuffleComplete(device=d, deck=deck, card_count=v["card_count"], order=order)
        if spec is HAND_DELIVERED:
            cards = _cards(v["cards"], "delivered hand")
            if len(cards) != HAND_SIZE:
                raise DeviceDataError(f"delivered hand has {len(cards)} cards, not five (7.4)")
            if not 0 <= v["bottom"] < HAND_SIZE:
                raise DeviceDataError(f"bottom card index {v['bottom']} is not 0-4")
            return HandDelivered(device=d, deck=deck, hand_number=v["hand_number"], cards=cards, bottom=v["bottom"])
        colour = deck.name.lower()
        if spec is JAM:
            return ShufflerJam(device=d, deck=deck, at_card=v["at_card"],
                               reason=f"jammed at card {v['at_card']} of the {colour} deck: reshuffle (15.1)")
        if spec is CYCLE_FAILED:
            return ShuffleCycleFailed(device=d, deck=deck,
                                      reason=f"{colour} deck shuffle cycle not completed: reshuffle (15.1)")
        if spec is NOT_INTERMIXING:
            return NotIntermixing(device=d, deck=deck,
                                  reason=f"stopped intermixing the {colour} deck: reshuffle (15.1)")
        if spec is CARD_COUNT_WRONG:
            return CardCountWrong(device=d, deck=deck, counted=v["counted"],
                                  reason=f"{colour} deck has {v['counted']} cards, not 52")
        raise DeviceDataError(f"no builder for {spec.name}")  # pragma: no cover


def describe(event: HandDelivered) -> str:
    """``'As Kd 7h 7c 2s (bottom 2s)'`` for logs and the dealer display."""
    return " ".join(card_text(c) for c in event.cards) + f" (bottom {card_text(event.bottom_card)})"

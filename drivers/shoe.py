"""The card-reading shoe (USB): every card dealt from it is read as it is drawn (rules 3.5, 7.3).

The shoe reads each card's face and, where its reader can see it, the colour of the back, so the
daemon can tell a card of the deck in play from one of the other deck in the shuffling device,
whose backs must differ (3.2.2). The daemon follows the deal order of 7.3 from these events; the
shoe itself knows nothing of the game.

The wire messages are the tables below (byte by byte in docs/protocols-usb.md); the frames,
acknowledgements and reconnection are the common link (docs/protocols.md) carried over USB bulk
endpoints (:mod:`tabled_drivers.link.usb`). A card on the wire is one byte in the
:mod:`tabled_drivers.cards` numbering, ``rank * 4 + suit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from tabled_drivers.base import DeviceDataError, DeviceEvent, UsbDriver
from tabled_drivers.cards import card_text
from tabled_drivers.link import messages as m

# -- USB identity: a vendor-specific interface with one bulk pipe each way -------------------------
VENDOR_ID = 0x1209  # pid.codes' shared vendor id; product ids from its test range (placeholders)
PRODUCT_ID = 0x0007
EP_OUT = 0x01  # bulk, 64-byte packets, host to shoe
EP_IN = 0x81  # bulk, 64-byte packets, shoe to host


class BackColour(IntEnum):
    """Colour of a card's back as the reader sees it (3.2.2: the two decks' backs differ)."""

    NOT_SEEN = 0  # this reader cannot see backs, or could not this time
    RED = 1
    BLUE = 2
    GREEN = 3
    BLACK = 4


class ShoeState(IntEnum):
    READY = 0  # in place, cards in it
    EMPTY = 1  # in place, no card left to draw
    REMOVED = 2  # lifted off its base: nothing drawn now can be trusted to the deal order


# -- the declarative tables -------------------------------------------------------------------------
STATUS = m.Command("status", 0x20, response=(("state", m.U8), ("cards_read", m.U16)))
START_SHOE = m.Command("start_shoe", 0x21)  # a freshly shuffled and cut deck: count from 1 again

COMMANDS = m.table(STATUS, START_SHOE)

CARD_DRAWN = m.EventSpec("card_drawn", 0x80,
                         (("reader_seq", m.U16), ("card", m.U8), ("back", m.U8)))
CARD_UNREADABLE = m.EventSpec("card_unreadable", 0x81, (("reader_seq", m.U16), ("back", m.U8)))
SHOE_EMPTY = m.EventSpec("shoe_empty", 0x82, (("cards_read", m.U16),))
SHOE_REMOVED = m.EventSpec("shoe_removed", 0x83, (("cards_read", m.U16),))
SHOE_REPLACED = m.EventSpec("shoe_replaced", 0x84, (("cards_read", m.U16),))

EVENTS = m.table(CARD_DRAWN, CARD_UNREADABLE, SHOE_EMPTY, SHOE_REMOVED, SHOE_REPLACED)


# -- typed events -----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CardDrawn(DeviceEvent):
    """A card left the shoe and was read. ``reader_seq`` numbers the shoe's reads from 1 since
    the last start_shoe (unreadable cards count too), so a gap means a card was missed."""

    reader_seq: int
    card: int  # tabled_drivers.cards numbering
    back: BackColour

    def __str__(self) -> str:
        return f"{self.device}: card {self.reader_seq} drawn: {card_text(self.card)}"


@dataclass(frozen=True, kw_only=True)
class CardUnreadable(DeviceEvent):
    """A card left the shoe but its face could not be read: the dealer must look at it."""

    reader_seq: int
    back: BackColour


@dataclass(frozen=True, kw_only=True)
class ShoeEmpty(DeviceEvent):
    cards_read: int


@dataclass(frozen=True, kw_only=True)
class ShoeRemoved(DeviceEvent):
    cards_read: int


@dataclass(frozen=True, kw_only=True)
class ShoeReplaced(DeviceEvent):
    cards_read: int


@dataclass(frozen=True)
class ShoeStatus:
    state: ShoeState
    cards_read: int


def _back(code: Any) -> BackColour:
    try:
        return BackColour(code)
    except ValueError:
        raise DeviceDataError(f"back colour code {code} is not a colour this table knows") from None


def _reader_seq(n: Any) -> int:
    if n == 0:
        raise DeviceDataError("reader sequence number 0: the shoe counts cards from 1")
    return n


def _card(n: Any) -> int:
    if not 0 <= n < 52:
        raise DeviceDataError(f"card code {n} is not a card (0-51, rank * 4 + suit)")
    return n


class ShoeDriver(UsbDriver):
    """The daemon's shoe (built as every :class:`UsbDriver`: default, the first shoe on the bus)."""

    KIND = m.DeviceKind.SHOE
    EVENTS = EVENTS
    DEFAULT_NAME = "shoe"
    VENDOR_ID = VENDOR_ID
    PRODUCT_ID = PRODUCT_ID

    def build_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:
        d = self.name
        if spec is CARD_DRAWN:
            return CardDrawn(device=d, reader_seq=_reader_seq(values["reader_seq"]),
                             card=_card(values["card"]), back=_back(values["back"]))
        if spec is CARD_UNREADABLE:
            return CardUnreadable(device=d, reader_seq=_reader_seq(values["reader_seq"]),
                                  back=_back(values["back"]))
        kind = {SHOE_EMPTY: ShoeEmpty, SHOE_REMOVED: ShoeRemoved, SHOE_REPLACED: ShoeReplaced}[spec]
        return kind(device=d, cards_read=values["cards_read"])

    async def status(self) -> ShoeStatus:
        r = await self.call(STATUS)
        try:
            return ShoeStatus(ShoeState(r["state"]), r["cards_read"])
        except ValueError:
            raise DeviceDataError(f"{self.name} reports unknown state {r['state']}") from None

    async def start_shoe(self) -> None:
        """A new deck is in the shoe (after shuffle and cut): its reader counts from 1 again."""
        await self.call(START_SHOE)

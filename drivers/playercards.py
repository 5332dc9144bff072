"""The player card reader: a casino's player card read at a spot, or keyed at the dealer's panel
for a spot (docs/protocols-usb.md, "Player card reader").

One USB device serves the table: a reader slot per spot, and the slot at the dealer's panel, for
which the dealer chooses the spot. Events: a card inserted (spot, card number as ASCII letters and
digits) and a card taken out (spot). Command: which slots hold a card. The card number is the
casino's identifier of a player; the reader knows no name.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabled_drivers.base import DeviceDataError, DeviceEvent, UsbDriver
from tabled_drivers.link import messages as m
from tabled_drivers.link.messages import U8, U8_LIST, Command, EventSpec

VENDOR_ID = 0x1209  # pid.codes' shared vendor id; product ids from its test range (placeholders)
PRODUCT_ID = 0x0009
EP_OUT = 0x03   # interrupt, 64-byte packets, every 10 ms: host to reader
EP_IN = 0x83    # interrupt, 64-byte packets, every 10 ms: reader to host
POLL_INTERVAL_MS = 10
MAX_SPOT = 7
CARD_CHARACTERS = range(4, 33)  # a card number's length

# -- the command table -------------------------------------------------------------------------
SLOTS = Command("slots", 0x20, response=(("spots", U8),))   # bit n-1: a card in spot n's slot
COMMANDS = m.table(SLOTS)

# -- the event table ---------------------------------------------------------------------------
CARD_INSERTED = EventSpec("card_inserted", 0x80, (("spot", U8), ("card", U8_LIST)))
CARD_REMOVED = EventSpec("card_removed", 0x81, (("spot", U8),))
EVENTS = m.table(CARD_INSERTED, CARD_REMOVED)


@dataclass(frozen=True, kw_only=True)
class CardInserted(DeviceEvent):
    spot: int
    card: str

    def __str__(self) -> str:
        return f"{self.device}: a player card at spot {self.spot} (\u2022\u2022\u2022\u2022{self.card[-4:]})"


@dataclass(frozen=True, kw_only=True)
class CardRemoved(DeviceEvent):
    spot: int

    def __str__(self) -> str:
        return f"{self.device}: the player card taken out at spot {self.spot}"


def card_bytes(card: str) -> list[int]:
    """A card number as the frame carries it: its ASCII letters and digits."""
    if not card.isascii() or not card.isalnum() or len(card) not in CARD_CHARACTERS:
        raise ValueError(f"a player card number is {CARD_CHARACTERS.start} to {CARD_CHARACTERS.stop - 1} "
                         "letters and digits")
    return list(card.encode("ascii"))


def _spot(value: int) -> int:
    if not 1 <= value <= MAX_SPOT:
        raise DeviceDataError(f"spot {value}: spots are 1 to {MAX_SPOT}")
    return value


class PlayerCardDriver(UsbDriver):
    """The daemon's player card reader (default: the first one on the bus)."""

    KIND = m.DeviceKind.PLAYER_CARDS
    EVENTS = EVENTS
    DEFAULT_NAME = "cards"
    VENDOR_ID = VENDOR_ID
    PRODUCT_ID = PRODUCT_ID

    def build_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:
        spot = _spot(values["spot"])
        if spec is CARD_REMOVED:
            return CardRemoved(device=self.name, spot=spot)
        raw = bytes(values["card"])
        text = raw.decode("ascii", errors="replace")
        if not raw.isascii() or not text.isalnum() or len(text) not in CARD_CHARACTERS:
            # the bytes are not put in the message: they may be a real card number misread
            raise DeviceDataError(f"spot {spot}: a card number of {len(raw)} bytes that are not "
                                  f"{CARD_CHARACTERS.start} to {CARD_CHARACTERS.stop - 1} letters and digits")
        return CardInserted(device=self.name, spot=spot, card=text)

    async def slots(self) -> tuple[int, ...]:
        """The spots whose slot holds a card."""
        mask = (await self.call(SLOTS))["spots"]
        return tuple(n for n in range(1, MAX_SPOT + 1) if mask >> (n - 1) & 1)

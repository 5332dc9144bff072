"""A simulated card-reading shoe behind the simulated USB backend: product code, not a mock.

Built from the shoe driver's own tables in the device role. Scriptable::

    shoe = ShoeSimulator()
    shoe.plug_into(backend)
    shoe.load("7h As Kd")          # the cards in the shoe, top first
    shoe.draw()                    # 7h leaves the shoe and is read
    shoe.draw_unreadable()         # the next card's face cannot be read (As stays unread)
    shoe.script("Qs ? 2c")         # draw these: '?' is an unreadable card
    shoe.remove(); shoe.replace()  # the dealer lifts the shoe off its base and puts it back
    shoe.unplug(); shoe.replug()   # the USB cable
"""

from __future__ import annotations

import collections

import usb.util

from tabled_drivers import shoe as proto
from tabled_drivers.cards import parse_card, parse_cards
from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.shoe import BackColour, ShoeState
from tabled_drivers.sim.base import Refused
from tabled_drivers.sim.usb_backend import DeviceSpec, EndpointSpec, UsbDeviceSimulator

UNREADABLE = "?"


def usb_spec(serial_number: str = "SHOE-0001") -> DeviceSpec:
    """The shoe's descriptors (docs/protocols-usb.md)."""
    return DeviceSpec(proto.VENDOR_ID, proto.PRODUCT_ID, manufacturer="tabled",
                      product="card-reading shoe", serial_number=serial_number,
                      endpoints=(EndpointSpec(proto.EP_OUT, usb.util.ENDPOINT_TYPE_BULK, 64),
                                 EndpointSpec(proto.EP_IN, usb.util.ENDPOINT_TYPE_BULK, 64)))


class ShoeSimulator(UsbDeviceSimulator):
    COMMANDS = proto.COMMANDS

    def __init__(self, *, serial_number: str = "SHOE-0001", back: BackColour = BackColour.RED,
                 boot_id: int | None = None, timing: LinkTiming = LinkTiming()) -> None:
        super().__init__(usb_spec(serial_number), m.DeviceKind.SHOE, name="shoe-sim",
                         boot_id=boot_id, timing=timing)
        self.back = back  # what the reader reports for the cards it draws (NOT_SEEN: cannot see)
        self.state = ShoeState.EMPTY
        self.cards_read = 0
        self._cards: collections.deque[int] = collections.deque()

    # -- scripting
    def load(self, cards: str | list[str]) -> None:
        """Put these cards in the shoe, top first (after the ones still in it)."""
        self._cards.extend(parse_cards(cards))
        if self._cards and self.state is ShoeState.EMPTY:
            self.state = ShoeState.READY

    def draw(self, card: str | int | None = None, *, back: BackColour | None = None) -> int:
        """The next card (or ``card``) leaves the shoe and is read. Returns its reader number."""
        if card is None:
            if not self._cards:
                raise ValueError("the shoe is empty: load() cards first or name the card")
            card = self._cards.popleft()
        elif isinstance(card, str):
            card = parse_card(card)
        self.cards_read += 1
        self.send_event(proto.CARD_DRAWN, reader_seq=self.cards_read, card=card,
                        back=self.back if back is None else back)
        self._after_draw()
        return self.cards_read

    def draw_unreadable(self, *, back: BackColour | None = None) -> int:
        if self._cards:
            self._cards.popleft()
        self.cards_read += 1
        self.send_event(proto.CARD_UNREADABLE, reader_seq=self.cards_read,
                        back=self.back if back is None else back)
        self._after_draw()
        return self.cards_read

    def script(self, text: str) -> None:
        """Draw the named cards in order: ``"7h ? As"`` (``?`` is an unreadable card)."""
        for word in text.split():
            if word == UNREADABLE:
                self.draw_unreadable()
            else:
                self.draw(word)

    def remove(self) -> None:
        self.state = ShoeState.REMOVED
        self.send_event(proto.SHOE_REMOVED, cards_read=self.cards_read)

    def replace(self) -> None:
        self.state = ShoeState.READY if self._cards else ShoeState.EMPTY
        self.send_event(proto.SHOE_REPLACED, cards_read=self.cards_read)

    def _after_draw(self) -> None:
        if not self._cards and self.state is ShoeState.READY:
            self.state = ShoeState.EMPTY
            self.send_event(proto.SHOE_EMPTY, cards_read=self.cards_read)

    # -- commands from the host
    async def on_status(self) -> dict:
        return {"state": self.state, "cards_read": self.cards_read}

    async def on_start_shoe(self) -> None:
        if self.state is ShoeState.REMOVED:
            raise Refused(m.Status.REFUSED, "shoe removed")
        self.cards_read = 0

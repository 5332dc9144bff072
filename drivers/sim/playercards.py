"""A simulated player card reader behind the simulated USB backend, built from the driver's own
tables in the device role::

    reader = PlayerCardSimulator()
    reader.plug_into(backend)
    reader.insert(3, "4000100010001001")   # a card in spot 3's slot (or keyed at the panel for 3)
    reader.remove(3)
"""

from __future__ import annotations

import usb.util

from tabled_drivers import playercards as proto
from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.sim.usb_backend import DeviceSpec, EndpointSpec, UsbDeviceSimulator


def usb_spec(serial_number: str = "CARDS-0001") -> DeviceSpec:
    """The reader's descriptors (docs/protocols-usb.md)."""
    return DeviceSpec(proto.VENDOR_ID, proto.PRODUCT_ID, manufacturer="tabled",
                      product="player card reader", serial_number=serial_number,
                      endpoints=(EndpointSpec(proto.EP_OUT, usb.util.ENDPOINT_TYPE_INTR, 64,
                                              proto.POLL_INTERVAL_MS),
                                 EndpointSpec(proto.EP_IN, usb.util.ENDPOINT_TYPE_INTR, 64,
                                              proto.POLL_INTERVAL_MS)))


class PlayerCardSimulator(UsbDeviceSimulator):
    COMMANDS = proto.COMMANDS

    def __init__(self, *, serial_number: str = "CARDS-0001", boot_id: int | None = None,
                 timing: LinkTiming = LinkTiming()) -> None:
        super().__init__(usb_spec(serial_number), m.DeviceKind.PLAYER_CARDS, name="cards-sim",
                         boot_id=boot_id, timing=timing)
        self.held: dict[int, str] = {}

    def insert(self, spot: int, card: str) -> int:
        if not 1 <= spot <= proto.MAX_SPOT:
            raise ValueError(f"no spot {spot}: spots are 1 to {proto.MAX_SPOT}")
        payload = proto.card_bytes(card)
        self.held[spot] = card
        return self.send_event(proto.CARD_INSERTED, spot=spot, card=payload)

    def remove(self, spot: int) -> int:
        if spot not in self.held:
            raise ValueError(f"no card in spot {spot}'s slot")
        del self.held[spot]
        return self.send_event(proto.CARD_REMOVED, spot=spot)

    async def on_slots(self) -> dict:
        return {"spots": sum(1 << (n - 1) for n in self.held)}

"""The dealer button panel (USB, HID-style interrupt endpoints): buttons, key switch, lamps.

The dealer runs the table from here. Each button is named after the dealer's action it starts;
the key switch says whose authority the panel carries now (dealer, supervisor, inspector), so a
privileged action (void a round, approve after a malfunction, 14.13) is checked against the key
position reported *with* the press, not against a position read a moment later. Each button has a
lamp of the same code (lit: that action is available now), and there are two status lamps.

The wire messages are the tables below (byte by byte in docs/protocols-usb.md); frames,
acknowledgements and reconnection are the common link (docs/protocols.md) carried over USB
interrupt endpoints (:mod:`drivers.link.usb`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from drivers.base import DeviceDataError, DeviceEvent, Driver
from drivers.link import messages as m
from drivers.link.client import Opener
from drivers.link.endpoint import LinkTiming
from drivers.link.usb import UsbAddress, usb_opener

# -- USB identity: a vendor-specific interface with one interrupt pipe each way --------------------
VENDOR_ID = 0x1209  # pid.codes' shared vendor id; product ids from its test range (placeholders)
PRODUCT_ID = 0x0008
EP_OUT = 0x02  # interrupt, 64-byte packets, every 10 ms: host to panel
EP_IN = 0x82  # interrupt, 64-byte packets, every 10 ms: panel to host
POLL_INTERVAL_MS = 10


class Button(IntEnum):
    """The dealer's actions, one button each."""

    NO_MORE_BETS = 1  # 7.2.1: wagers closed, progressive acceptance locked
    DEAL = 2
    REVEAL = 3  # the dealer's hand is exposed
    SETTLE_DONE = 4
    MISDEAL = 5  # 14.1-14.4
    VOID_ROUND = 6  # 15.2.1, 16.4-16.5: supervisor key
    CONFIRM_SHUFFLE = 7
    CONFIRM_CUT = 8
    APPROVE = 9  # a supervisor's or inspector's approval, e.g. to continue after 14.13
    VERIFY_DECK = 10  # 3.7: the cards are counted and checked
    CALL_SUPERVISOR = 11


class KeyPosition(IntEnum):
    DEALER = 0
    SUPERVISOR = 1
    INSPECTOR = 2


class Lamp(IntEnum):
    """One lamp per button (same code), plus the two status lamps."""

    NO_MORE_BETS = Button.NO_MORE_BETS
    DEAL = Button.DEAL
    REVEAL = Button.REVEAL
    SETTLE_DONE = Button.SETTLE_DONE
    MISDEAL = Button.MISDEAL
    VOID_ROUND = Button.VOID_ROUND
    CONFIRM_SHUFFLE = Button.CONFIRM_SHUFFLE
    CONFIRM_CUT = Button.CONFIRM_CUT
    APPROVE = Button.APPROVE
    VERIFY_DECK = Button.VERIFY_DECK
    CALL_SUPERVISOR = Button.CALL_SUPERVISOR
    FAULT = 0x20  # a device or the game is faulted: see the dealer display
    SUPERVISOR_NEEDED = 0x21  # the next step needs the supervisor's key


class LampState(IntEnum):
    OFF = 0
    ON = 1
    FLASHING = 2


# -- the declarative tables -------------------------------------------------------------------------
KEY_POSITION = m.Command("key_position", 0x20, response=(("position", m.U8),))
SET_LAMP = m.Command("set_lamp", 0x21, request=(("lamp", m.U8), ("state", m.U8)))

COMMANDS = m.table(KEY_POSITION, SET_LAMP)

BUTTON_PRESSED = m.EventSpec("button_pressed", 0x80, (("button", m.U8), ("key", m.U8)))
KEY_TURNED = m.EventSpec("key_turned", 0x81, (("position", m.U8),))

EVENTS = m.table(BUTTON_PRESSED, KEY_TURNED)


# -- typed events -----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ButtonPressed(DeviceEvent):
    button: Button
    key: KeyPosition  # where the key switch stood when the button was pressed

    def __str__(self) -> str:
        return f"{self.device}: {self.button.name} pressed (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class KeyTurned(DeviceEvent):
    position: KeyPosition


def _decode(enum: type[IntEnum], code: Any, what: str) -> Any:
    try:
        return enum(code)
    except ValueError:
        raise DeviceDataError(f"{what} code {code} is not one this panel has") from None


class PanelDriver(Driver):
    """The daemon's button panel. ``address=`` a :class:`UsbAddress` (default: the first panel
    on the bus), ``backend=`` pyusb's backend; or an ``opener=`` of your own."""

    KIND = m.DeviceKind.PANEL
    EVENTS = EVENTS
    DEFAULT_NAME = "panel"

    def __init__(self, *, consumer, address: UsbAddress | None = None, backend: Any = None,
                 opener: Opener | None = None, name: str | None = None,
                 timing: LinkTiming = LinkTiming()) -> None:
        if opener is None:
            opener = usb_opener(address or UsbAddress(VENDOR_ID, PRODUCT_ID), backend=backend)
        super().__init__(consumer=consumer, opener=opener, name=name, timing=timing)

    def build_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:
        if spec is BUTTON_PRESSED:
            return ButtonPressed(device=self.name, button=_decode(Button, values["button"], "button"),
                                 key=_decode(KeyPosition, values["key"], "key position"))
        return KeyTurned(device=self.name,
                         position=_decode(KeyPosition, values["position"], "key position"))

    async def key_position(self) -> KeyPosition:
        r = await self.call(KEY_POSITION)
        return _decode(KeyPosition, r["position"], "key position")

    async def set_lamp(self, lamp: Lamp, state: LampState) -> None:
        if not isinstance(lamp, Lamp) or not isinstance(state, LampState):
            raise ValueError(f"set_lamp needs a Lamp and a LampState, got {lamp!r}, {state!r}")
        await self.call(SET_LAMP, lamp=lamp, state=state)

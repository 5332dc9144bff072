"""The dealer button panel (USB, HID-style interrupt endpoints): buttons, key switch, lamps.

The dealer runs the table from here. Each button is named after the dealer's action it starts;
the key switch says whose authority the panel carries now (dealer, supervisor, inspector), so a
privileged action (void a round, approve after a malfunction, 14.13) is checked against the key
position reported *with* the press, not against a position read a moment later. Each button has a
lamp of the same code (lit: that action is available now), and there are two status lamps.

Some actions name a spot (concede, absent, void one player...) or a number (the cards counted, a
new minimum, minutes to a closure, a card the shoe could not read). The panel's spot-select
buttons and keypad hold that choice in the panel itself and send it *in the same frame* as the
action button and the key position: one frame is one journaled input, so a key turned between
choosing and pressing, a lost frame or a restart can never pair an action with a stale spot.

A person signs in at the panel with the badge number and the PIN keyed on its keypad and the key
turned to the role they sign in to (SIGN IN), and out with the badge (SIGN OUT). The PIN goes to
the host as its digits in the sign-in frame and nowhere else: the daemon checks it against the
staff list's salted hash and keeps only whether it was right (docs/staff.md); the typed event
never shows it (``repr``, ``str``).

The wire messages are the tables below (byte by byte in docs/protocols-usb.md); frames,
acknowledgements and reconnection are the common link (docs/protocols.md) carried over USB
interrupt endpoints (:mod:`tabled_drivers.link.usb`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from tabled_drivers.base import DeviceDataError, DeviceEvent, UsbDriver
from tabled_drivers.link import messages as m

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
    VERIFY_DECK = 10  # 3.4, 3.7: the cards are counted and checked (verifies a deck the device cannot read)
    CALL_SUPERVISOR = 11
    # -- with a spot (spot_action, 0x82): a spot-select button 1..7, or 0 for the dealer's hand
    CONCEDE = 12  # 9.7
    ABSENT = 13  # 14.12
    EXPOSED_CARD = 14  # 14.3, 14.5, 14.6 (spot 0: the dealer's hand)
    NO_ANTE_HAND = 15  # 14.8; NZ 14.7, 14.8
    PLAY_FIRST = 16  # 14.11.1: supervisor key
    VOID_PLAYER = 17  # 16.3.1: supervisor key; the wagers are returned
    DEAD_HAND = 18  # NZ 14.1: supervisor key
    FORFEIT = 19  # 16.3.1 with 16.5: supervisor key; the player's wagers are forfeited
    # -- without a spot or number
    NEW_CARDS = 20  # 3.6: supervisor key
    SWITCH_TO_SHOE = 22  # 15.2.2: supervisor key
    # -- with a number from the keypad (number_entered, 0x83)
    VERIFY_COUNT = 21  # 3.7, NZ 14.9: the number of cards counted
    ANNOUNCE_CLOSURE = 23  # 16.8: minutes from now (at least 20); supervisor key
    ANNOUNCE_MINIMUM = 24  # 6.2: the new minimum in cents; supervisor key
    ENTER_CARD = 25  # the card the shoe could not read, as the dealer reads it (rank * 4 + suit)


#: which frame carries which button (anything else is nonsense from the panel)
SPOT_BUTTONS = frozenset({Button.CONCEDE, Button.ABSENT, Button.EXPOSED_CARD, Button.NO_ANTE_HAND,
                          Button.PLAY_FIRST, Button.VOID_PLAYER, Button.DEAD_HAND, Button.FORFEIT})
NUMBER_BUTTONS = frozenset({Button.VERIFY_COUNT, Button.ANNOUNCE_CLOSURE, Button.ANNOUNCE_MINIMUM,
                            Button.ENTER_CARD})
SPOTS_BUTTONS = frozenset({Button.VOID_ROUND})  # 16.4.2, 16.5: the players whose wagers are forfeited
PLAIN_BUTTONS = frozenset(Button) - SPOT_BUTTONS - NUMBER_BUTTONS
DEALER_HAND = 0  # the spot number of the dealer's own hand in spot_action
MAX_SPOT = 7
MAX_BADGE = 999_999       # a badge number keyed on the panel
PIN_DIGITS = range(4, 9)  # a PIN keyed on the panel: 4 to 8 digits


class KeyPosition(IntEnum):
    DEALER = 0
    SUPERVISOR = 1
    INSPECTOR = 2


#: One lamp per button (same code), plus two status lamps: FAULT 0x20 (a device or the game is
#: faulted: see the dealer display) and SUPERVISOR_NEEDED 0x21 (the next step needs that key).
Lamp = IntEnum(  # type: ignore[misc]  # its members are made from Button's, which mypy cannot list
    "Lamp", [(b.name, int(b)) for b in Button] + [("FAULT", 0x20), ("SUPERVISOR_NEEDED", 0x21)], module=__name__)


class Enclosure(IntEnum):
    """The enclosures whose door switch is wired to the panel's input (docs/protocols-usb.md)."""

    TABLE_PC = 0
    POOL_SERVER = 1


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
SPOT_ACTION = m.EventSpec("spot_action", 0x82, (("button", m.U8), ("key", m.U8), ("spot", m.U8)))
NUMBER_ENTERED = m.EventSpec("number_entered", 0x83, (("button", m.U8), ("key", m.U8), ("value", m.U32)))
SPOTS_ACTION = m.EventSpec("spots_action", 0x84, (("button", m.U8), ("key", m.U8), ("spots", m.U8)))
SIGN_IN = m.EventSpec("sign_in", 0x85, (("key", m.U8), ("badge", m.U32), ("pin", m.U8_LIST)))
SIGN_OUT = m.EventSpec("sign_out", 0x86, (("key", m.U8), ("badge", m.U32)))
ENCLOSURE_DOOR = m.EventSpec("enclosure_door", 0x87, (("door", m.U8), ("open", m.U8)))

EVENTS = m.table(BUTTON_PRESSED, KEY_TURNED, SPOT_ACTION, NUMBER_ENTERED, SPOTS_ACTION, SIGN_IN, SIGN_OUT,
                 ENCLOSURE_DOOR)


# -- typed events -----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ButtonPressed(DeviceEvent):
    button: Button
    key: KeyPosition  # where the key switch stood when the button was pressed

    def __str__(self) -> str:
        return f"{self.device}: {self.button.name} pressed (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class SpotAction(ButtonPressed):
    """An action on one spot (1..7), or on the dealer's hand (0, :data:`DEALER_HAND`)."""

    spot: int

    def __str__(self) -> str:
        return f"{self.device}: {self.button.name} on spot {self.spot} (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class NumberEntered(ButtonPressed):
    """An action with a number keyed in: cards counted, cents, minutes or a card code."""

    value: int

    def __str__(self) -> str:
        return f"{self.device}: {self.button.name} {self.value} (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class SpotsAction(ButtonPressed):
    """An action naming a set of spots (possibly none), e.g. void the round, forfeiting these."""

    spots: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class KeyTurned(DeviceEvent):
    position: KeyPosition


@dataclass(frozen=True, kw_only=True)
class SignIn(DeviceEvent):
    """A badge and its PIN keyed to sign in to the role the key is turned to. The PIN is for the
    staff list's check only: it is left out of ``repr`` and ``str``, so no log line shows it."""

    key: KeyPosition
    badge: int
    pin: str = field(repr=False)

    def __str__(self) -> str:
        return f"{self.device}: badge {self.badge} signs in (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class SignOut(DeviceEvent):
    """A badge signed out of the role the key is turned to."""

    key: KeyPosition
    badge: int

    def __str__(self) -> str:
        return f"{self.device}: badge {self.badge} signs out (key at {self.key.name})"


@dataclass(frozen=True, kw_only=True)
class EnclosureDoor(DeviceEvent):
    """An enclosure's door switch changed: ``open`` True when the door opened, False when it closed."""

    door: Enclosure
    open: bool

    def __str__(self) -> str:
        return f"{self.device}: {self.door.name.lower()} enclosure door {'opened' if self.open else 'closed'}"


def pin_digits(pin: str) -> list[int]:
    """A PIN as the sign-in frame's digits (each 0-9, 4 to 8 of them)."""
    if not pin.isascii() or not pin.isdigit() or len(pin) not in PIN_DIGITS:
        raise ValueError(f"a PIN is {PIN_DIGITS.start} to {PIN_DIGITS.stop - 1} digits")
    return [int(c) for c in pin]


def spots_mask(spots) -> int:
    """Spots 1..7 as the ``spots`` byte: bit n-1 is spot n."""
    mask = 0
    for n in spots:
        if not 1 <= n <= MAX_SPOT:
            raise ValueError(f"no spot {n}: spots are 1 to {MAX_SPOT}")
        mask |= 1 << (n - 1)
    return mask


def _decode(enum: type[IntEnum], code: Any, what: str) -> Any:
    try:
        return enum(code)
    except ValueError:
        raise DeviceDataError(f"{what} code {code} is not one this panel has") from None


class PanelDriver(UsbDriver):
    """The daemon's button panel (built as every :class:`UsbDriver`: default, the first panel on the bus)."""

    KIND = m.DeviceKind.PANEL
    EVENTS = EVENTS
    DEFAULT_NAME = "panel"
    VENDOR_ID = VENDOR_ID
    PRODUCT_ID = PRODUCT_ID

    def build_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:
        if spec is KEY_TURNED:
            return KeyTurned(device=self.name,
                             position=_decode(KeyPosition, values["position"], "key position"))
        if spec in (SIGN_IN, SIGN_OUT):
            return self._staff_event(spec, values)
        if spec is ENCLOSURE_DOOR:
            if values["open"] not in (0, 1):
                raise DeviceDataError(f"enclosure door state {values['open']}: 0 closed or 1 open")
            return EnclosureDoor(device=self.name, door=_decode(Enclosure, values["door"], "enclosure"),
                                 open=bool(values["open"]))
        button = _decode(Button, values["button"], "button")
        key = _decode(KeyPosition, values["key"], "key position")
        family = {BUTTON_PRESSED: PLAIN_BUTTONS | SPOTS_BUTTONS, SPOT_ACTION: SPOT_BUTTONS,
                  NUMBER_ENTERED: NUMBER_BUTTONS, SPOTS_ACTION: SPOTS_BUTTONS}[spec]
        if button not in family:
            raise DeviceDataError(f"{button.name} does not come in a {spec.name} frame "
                                  f"(docs/protocols-usb.md)")
        if spec is BUTTON_PRESSED:
            return ButtonPressed(device=self.name, button=button, key=key)
        if spec is SPOT_ACTION:
            spot = values["spot"]
            if spot > MAX_SPOT or (spot == DEALER_HAND and button is not Button.EXPOSED_CARD):
                raise DeviceDataError(f"{button.name} on spot {spot}: spots are 1 to {MAX_SPOT}"
                                      + (" (0, the dealer's hand, only for EXPOSED_CARD)" if spot == 0 else ""))
            return SpotAction(device=self.name, button=button, key=key, spot=spot)
        if spec is NUMBER_ENTERED:
            if button is Button.ENTER_CARD and not 0 <= values["value"] < 52:
                raise DeviceDataError(f"card code {values['value']} is not a card (0-51, rank * 4 + suit)")
            return NumberEntered(device=self.name, button=button, key=key, value=values["value"])
        mask = values["spots"]
        if mask >> MAX_SPOT:
            raise DeviceDataError(f"spots byte {mask:#04x} names a spot above {MAX_SPOT}")
        return SpotsAction(device=self.name, button=button, key=key,
                           spots=tuple(n for n in range(1, MAX_SPOT + 1) if mask >> (n - 1) & 1))

    def _staff_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:
        key = _decode(KeyPosition, values["key"], "key position")
        badge = values["badge"]
        if not 1 <= badge <= MAX_BADGE:
            raise DeviceDataError(f"badge number {badge}: badges are 1 to {MAX_BADGE}")
        if spec is SIGN_OUT:
            return SignOut(device=self.name, key=key, badge=badge)
        digits = values["pin"]
        if len(digits) not in PIN_DIGITS or any(d > 9 for d in digits):
            # the PIN's digits are never put in the message: it may be a real PIN mistyped
            raise DeviceDataError(f"sign-in of badge {badge}: a PIN is {PIN_DIGITS.start} to "
                                  f"{PIN_DIGITS.stop - 1} digits 0-9")
        return SignIn(device=self.name, key=key, badge=badge, pin="".join(map(str, digits)))

    async def key_position(self) -> KeyPosition:
        r = await self.call(KEY_POSITION)
        return _decode(KeyPosition, r["position"], "key position")

    async def set_lamp(self, lamp: Lamp, state: LampState) -> None:
        if not isinstance(lamp, Lamp) or not isinstance(state, LampState):
            raise ValueError(f"set_lamp needs a Lamp and a LampState, got {lamp!r}, {state!r}")
        await self.call(SET_LAMP, lamp=lamp, state=state)

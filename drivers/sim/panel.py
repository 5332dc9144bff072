"""A simulated dealer button panel behind the simulated USB backend: product code, not a mock.

Built from the panel driver's own tables in the device role. Scriptable::

    panel = PanelSimulator()
    panel.plug_into(backend)
    panel.press(Button.NO_MORE_BETS)        # or panel.press("no-more-bets")
    panel.turn_key(KeyPosition.SUPERVISOR)  # or panel.turn_key("supervisor")
    panel.press("void-player", spot=3)      # spot-select 3, then the action (spot_action)
    panel.press("exposed-card", spot=0)     # 0: the dealer's hand
    panel.press("announce-minimum", value=2500)  # keyed on the keypad (number_entered)
    panel.press("void-round", spots=[2, 5])  # forfeiting spots 2 and 5 (spots_action)
    panel.sign_in(1001, "2468")             # badge and PIN keyed, SIGN IN (the key says the role)
    panel.sign_out(1001)
    panel.lamps[Lamp.DEAL]                  # what the host last set
    panel.unplug(); panel.replug()
"""

from __future__ import annotations

import usb.util

from tabled_drivers import panel as proto
from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.panel import Button, KeyPosition, Lamp, LampState
from tabled_drivers.sim.base import Refused
from tabled_drivers.sim.usb_backend import DeviceSpec, EndpointSpec, UsbDeviceSimulator


def usb_spec(serial_number: str = "PANEL-0001") -> DeviceSpec:
    """The panel's descriptors (docs/protocols-usb.md)."""
    return DeviceSpec(proto.VENDOR_ID, proto.PRODUCT_ID, manufacturer="tabled",
                      product="dealer button panel", serial_number=serial_number,
                      endpoints=(EndpointSpec(proto.EP_OUT, usb.util.ENDPOINT_TYPE_INTR, 64,
                                              proto.POLL_INTERVAL_MS),
                                 EndpointSpec(proto.EP_IN, usb.util.ENDPOINT_TYPE_INTR, 64,
                                              proto.POLL_INTERVAL_MS)))


def _named(enum, value):
    """``Button.DEAL``, ``"deal"``, ``"DEAL"`` or ``"no-more-bets"`` -> the member."""
    if isinstance(value, enum):
        return value
    try:
        return enum[str(value).strip().upper().replace("-", "_").replace(" ", "_")]
    except KeyError:
        names = ", ".join(e.name.lower().replace("_", "-") for e in enum)
        raise ValueError(f"no {enum.__name__} {value!r}; one of: {names}") from None


class PanelSimulator(UsbDeviceSimulator):
    COMMANDS = proto.COMMANDS

    def __init__(self, *, serial_number: str = "PANEL-0001", boot_id: int | None = None,
                 timing: LinkTiming = LinkTiming()) -> None:
        super().__init__(usb_spec(serial_number), m.DeviceKind.PANEL, name="panel-sim",
                         boot_id=boot_id, timing=timing)
        self.key = KeyPosition.DEALER
        self.lamps: dict[Lamp, LampState] = {lamp: LampState.OFF for lamp in Lamp}

    # -- scripting
    def press(self, button: Button | str, *, spot: int | None = None, value: int | None = None,
              spots: list[int] | None = None) -> int:
        """The button, with the spot selected, the number keyed or the spots selected before it.
        The frame sent is the one the button comes in (docs/protocols-usb.md)."""
        b = _named(Button, button)
        if spot is not None:
            return self.send_event(proto.SPOT_ACTION, button=b, key=self.key, spot=spot)
        if value is not None:
            return self.send_event(proto.NUMBER_ENTERED, button=b, key=self.key, value=value)
        if spots is not None:
            return self.send_event(proto.SPOTS_ACTION, button=b, key=self.key, spots=proto.spots_mask(spots))
        if b in proto.SPOT_BUTTONS or b in proto.NUMBER_BUTTONS:
            raise ValueError(f"{b.name.lower().replace('_', '-')} needs a "
                             + ("spot" if b in proto.SPOT_BUTTONS else "number") + " first")
        return self.send_event(proto.BUTTON_PRESSED, button=b, key=self.key)

    def sign_in(self, badge: int, pin: str) -> int:
        """The badge number and the PIN keyed, then SIGN IN, for the role the key is turned to."""
        return self.send_event(proto.SIGN_IN, key=self.key, badge=badge, pin=proto.pin_digits(pin))

    def sign_out(self, badge: int) -> int:
        return self.send_event(proto.SIGN_OUT, key=self.key, badge=badge)

    def enclosure_door(self, door: str, is_open: bool) -> int:
        """An enclosure's door switch (``table_pc`` or ``pool_server``) opened or closed."""
        return self.send_event(proto.ENCLOSURE_DOOR, door=_named(proto.Enclosure, door), open=int(is_open))

    def turn_key(self, position: KeyPosition | str) -> int:
        self.key = _named(KeyPosition, position)
        return self.send_event(proto.KEY_TURNED, position=self.key)

    # -- commands from the host
    async def on_key_position(self) -> dict:
        return {"position": self.key}

    async def on_set_lamp(self, lamp: int, state: int) -> None:
        try:
            self.lamps[Lamp(lamp)] = LampState(state)
        except ValueError as exc:
            raise Refused(m.Status.BAD_REQUEST, str(exc)) from None

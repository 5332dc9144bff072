"""The interface the daemon uses for every device, and the typed events every driver shares.

A driver is built with a port (or an opener) and a consumer, started, given commands, stopped::

    async def consumer(event: DeviceEvent, ack: Callable[[], None]) -> None:
        journal.append(event)   # durable first...
        ack()                   # ...then the device may forget it

    driver = ShufflerDriver(port="/dev/tabled/shuffler", consumer=consumer)
    await driver.start()        # returns at once; the link connects (and reconnects) by itself
    await driver.shuffle(DeckColour.RED)   # raises LinkDownError while the link is down
    await driver.stop()

Every event is a frozen dataclass naming its ``device``. Link state arrives through the same
consumer, in order with the device's events: :class:`LinkUp`, and :class:`LinkFailed` (a
:class:`DeviceFault`). Nonsense from a device becomes :class:`BadDeviceData`, never an exception.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import structlog

from tabled_drivers.link import messages as m
from tabled_drivers.link.client import LinkClient, LinkState, Opener, serial_opener
from tabled_drivers.link.codec import Frame
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.usb import UsbAddress, usb_opener

log = structlog.get_logger("drivers")


@dataclass(frozen=True, kw_only=True)
class DeviceEvent:
    device: str


@dataclass(frozen=True, kw_only=True)
class DeviceFault(DeviceEvent):
    """Something is wrong with a device; ``reason`` says what, in words for the log and the dealer."""

    reason: str


@dataclass(frozen=True, kw_only=True)
class LinkUp(DeviceEvent):
    boot_id: int  # changes when the device restarts


@dataclass(frozen=True, kw_only=True)
class LinkFailed(DeviceFault):
    """The device cannot be reached (unplugged, silent, wrong device). Reported once per outage."""


@dataclass(frozen=True, kw_only=True)
class BadDeviceData(DeviceFault):
    """A frame that arrived intact but says something impossible (a card that is not a card, a
    negative amount, a spot that does not exist, an unknown event)."""

    message_type: int
    payload: bytes


class DeviceDataError(ValueError):
    """Raised by a driver's event builder for nonsense; becomes :class:`BadDeviceData`."""


Ack = Callable[[], None]
Consumer = Callable[[DeviceEvent, Ack], Awaitable[None]]


def _no_ack() -> None:
    """Link state events come from us, not from a device frame: nothing to acknowledge."""


class Driver:
    """Base of every driver: the serial ones (``port=``), and the USB ones through :class:`UsbDriver`.

    A subclass sets ``KIND`` and ``EVENTS`` (``{code: EventSpec}``) and implements
    :meth:`build_event`; its command methods call ``await self.call(COMMAND, **fields)``.
    """

    KIND: ClassVar[m.DeviceKind]
    EVENTS: ClassVar[dict[int, m.EventSpec]] = {}
    DEFAULT_NAME: ClassVar[str] = "device"

    def __init__(self, *, consumer: Consumer, port: str | None = None, opener: Opener | None = None,
                 name: str | None = None, timing: LinkTiming = LinkTiming(), baudrate: int = 115200) -> None:
        if opener is None and port is not None:
            opener = serial_opener(port, baudrate)
        elif opener is None or port is not None:
            raise ValueError("give exactly one of port= (a serial device path) or opener=")
        self.name = name or self.DEFAULT_NAME
        self.consumer = consumer
        self.client = LinkClient(self.name, int(self.KIND), opener,
                                 on_event=self._on_frame, on_state=self._on_state, timing=timing)

    @property
    def state(self) -> LinkState:
        return self.client.state

    @property
    def stats(self):
        return self.client.stats

    async def start(self) -> None:
        await self.client.start()

    async def stop(self) -> None:
        await self.client.stop()

    async def wait_up(self, timeout: float | None = None) -> None:
        await self.client.wait_up(timeout)

    async def call(self, command: m.Command, **values) -> dict:
        """Run a command from the table; raises LinkDownError / NoAnswerError / CommandRejected."""
        return await self.client.request(command, **values)

    def build_event(self, spec: m.EventSpec, values: dict) -> DeviceEvent:  # pragma: no cover
        raise NotImplementedError

    async def _on_state(self, up: bool, reason: str, boot_id: int | None) -> None:
        event = (LinkUp(device=self.name, boot_id=boot_id or 0) if up
                 else LinkFailed(device=self.name, reason=reason))
        await self.consumer(event, _no_ack)

    async def _on_frame(self, frame: Frame, ack: Ack) -> None:
        await self.consumer(self.decode_event(frame), ack)

    def decode_event(self, frame: Frame) -> DeviceEvent:
        """A typed event for an event frame, or BadDeviceData: never raises."""
        spec = self.EVENTS.get(frame.type)
        try:
            if spec is None:
                raise DeviceDataError(f"unknown event type {frame.type:#04x}")
            return self.build_event(spec, m.unpack(spec.fields, frame.payload))
        except (DeviceDataError, m.PayloadError, ValueError) as exc:
            log.debug("driver.bad_data", device=self.name, type=f"{frame.type:#04x}",
                      payload=frame.payload.hex(" "), error=str(exc))
            return BadDeviceData(device=self.name, reason=str(exc), message_type=frame.type,
                                 payload=frame.payload)


class UsbDriver(Driver):
    """Base of the USB drivers: the same link, carried over the device's USB endpoints.

    A subclass also sets ``VENDOR_ID`` and ``PRODUCT_ID``. Give it ``address=`` (a
    :class:`UsbAddress`; default: the first device with those ids on the bus) and optionally
    pyusb's ``backend=``; or an ``opener=`` of your own.
    """

    VENDOR_ID: ClassVar[int]
    PRODUCT_ID: ClassVar[int]

    def __init__(self, *, consumer: Consumer, address: UsbAddress | None = None, backend: Any = None,
                 opener: Opener | None = None, name: str | None = None,
                 timing: LinkTiming = LinkTiming()) -> None:
        if opener is None:
            opener = usb_opener(address or UsbAddress(self.VENDOR_ID, self.PRODUCT_ID), backend=backend)
        super().__init__(consumer=consumer, opener=opener, name=name, timing=timing)

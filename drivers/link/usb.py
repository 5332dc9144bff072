"""USB transport: the link protocol's byte stream over a USB device's bulk or interrupt endpoints.

pyusb blocks, so each open device gets two threads: a reader that loops on the IN endpoint with a
short timeout, and a writer that drains a queue onto the OUT endpoint. The event loop never waits
on USB; bytes reach the protocol through ``loop.call_soon_threadsafe``. To the link layer this is
an ordinary ``asyncio.Transport``/``asyncio.Protocol`` pair, exactly as a serial port gives it:
``data_received(bytes)``, ``transport.write(bytes)``, and ``connection_lost(exc)`` when the device
is unplugged (``exc`` is the ``usb.core.USBError``, errno ENODEV) or fails.

A device is named by :class:`UsbAddress` (vendor id, product id, and the serial number when the
table has two of a kind); :func:`open_usb_connection` finds it afresh each time, so reconnecting
after an unplug is simply calling it again (the bus address changes when a device is replugged).
:func:`usb_opener` wraps it as an *opener* for :class:`tabled_drivers.link.client.LinkClient`, which
reconnects with capped backoff (first failure logged loudly, repeats quietly).
"""

from __future__ import annotations

import asyncio
import errno
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import usb.core
import usb.util

from tabled_drivers.link.client import Opener

READ_POLL_MS = 50  # how often the reader looks up from a quiet endpoint to see if it should stop
WRITE_TIMEOUT_MS = 1000


class UsbDeviceNotFound(ConnectionError):
    """No device on the bus matches the address (unplugged, or not yet enumerated)."""

    def __init__(self, address: UsbAddress) -> None:
        super().__init__(errno.ENODEV, f"no USB device {address.describe()}")
        self.address = address


class UsbDeviceUnusable(ConnectionError):
    """The device is there but is not one we can talk to (wrong endpoints, busy, refused), or no
    USB device can be reached at all (no libusb)."""


NO_LIBUSB = ("no USB backend: the libusb-1.0 library is not installed (Debian/Ubuntu: apt install "
             "libusb-1.0-0); the card shoe and the dealer panel need it")


@dataclass(frozen=True)
class UsbAddress:
    """Which device: ids from its descriptor, and its serial number when more than one may exist."""

    vendor_id: int
    product_id: int
    serial_number: str | None = None
    interface: int = 0

    def describe(self) -> str:
        ids = f"{self.vendor_id:04x}:{self.product_id:04x}"
        return ids if self.serial_number is None else f"{ids} serial {self.serial_number!r}"

    def find(self, backend: Any = None) -> usb.core.Device | None:
        """Blocking: enumerate the bus. Call through ``asyncio.to_thread``."""
        def serial_matches(dev: usb.core.Device) -> bool:
            try:
                return dev.serial_number == self.serial_number
            except (usb.core.USBError, ValueError):  # vanished mid-enumeration, or no strings
                return False
        match = None if self.serial_number is None else serial_matches
        try:
            return usb.core.find(backend=backend, idVendor=self.vendor_id, idProduct=self.product_id,
                                 custom_match=match)
        except usb.core.NoBackendError:  # pyusb's "No backend available": the C library is missing
            raise UsbDeviceUnusable(errno.ELIBACC, NO_LIBUSB) from None


class UsbTransport(asyncio.Transport):
    """An open USB device as an asyncio transport (see the module docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.Protocol,
                 device: usb.core.Device, ep_in: usb.core.Endpoint, ep_out: usb.core.Endpoint,
                 address: UsbAddress) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._device = device
        self._ep_in = ep_in
        self._ep_out = ep_out
        self._address = address
        self._closing = False
        self._close_requested = False
        self._lost = False
        self._reading = threading.Event()
        self._reading.set()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._pending_bytes = 0
        is_interrupt = usb.util.endpoint_type(ep_in.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR
        self._read_size = ep_in.wMaxPacketSize if is_interrupt else 8 * ep_in.wMaxPacketSize
        self._out_chunk = (ep_out.wMaxPacketSize
                           if usb.util.endpoint_type(ep_out.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR
                           else 1 << 16)
        name = address.describe()
        self._writer = threading.Thread(target=self._write_loop, name=f"usb-write {name}",
                                        daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name=f"usb-read {name}",
                                        daemon=True)

    def _start(self) -> None:
        self._protocol.connection_made(self)
        self._writer.start()
        self._reader.start()

    # -- asyncio.Transport ------------------------------------------------------------------------

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing:
            return
        data = bytes(data)
        if data:
            self._pending_bytes += len(data)
            self._outbox.put(data)

    def get_write_buffer_size(self) -> int:
        return self._pending_bytes

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """Send what is queued, then stop; ``connection_lost(None)`` follows."""
        if not self._closing:
            self._closing = self._close_requested = True
            self._outbox.put(None)

    def abort(self) -> None:
        self.close()

    def pause_reading(self) -> None:
        self._reading.clear()

    def resume_reading(self) -> None:
        self._reading.set()

    def is_reading(self) -> bool:
        return self._reading.is_set() and not self._closing

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        info = {"usb_device": self._device, "usb_address": self._address,
                "peername": self._address.describe()}
        return info.get(name, default)

    # -- the threads ------------------------------------------------------------------------------

    def _read_loop(self) -> None:
        try:
            while not self._closing:
                if not self._reading.wait(READ_POLL_MS / 1000):
                    continue
                try:
                    data = self._ep_in.read(self._read_size, timeout=READ_POLL_MS)
                except usb.core.USBTimeoutError:
                    continue
                if data:
                    self._call_soon(self._deliver, bytes(data))
        except Exception as exc:  # USBError (ENODEV on unplug) or pyusb complaining
            self._fail(exc)
        finally:
            self._writer.join()
            usb.util.dispose_resources(self._device)

    def _write_loop(self) -> None:
        while True:
            data = self._outbox.get()
            if data is None:
                break
            try:
                for start in range(0, len(data), self._out_chunk):
                    self._ep_out.write(data[start:start + self._out_chunk],
                                       timeout=WRITE_TIMEOUT_MS)
            except Exception as exc:
                self._fail(exc)
                break
            finally:
                self._call_soon(self._sent, len(data))
        if self._close_requested:  # an orderly close: everything queued has gone out
            self._call_lost(None)

    def _deliver(self, data: bytes) -> None:
        if not self._lost:
            self._protocol.data_received(data)

    def _sent(self, n: int) -> None:
        self._pending_bytes -= n

    def _fail(self, exc: Exception) -> None:
        self._call_lost(exc)
        self._closing = True
        self._outbox.put(None)

    def _call_lost(self, exc: Exception | None) -> None:
        def lost() -> None:
            if not self._lost:
                self._lost = True
                self._protocol.connection_lost(exc)
        self._call_soon(lost)

    def _call_soon(self, callback: Callable[..., Any], *args: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(callback, *args)
        except RuntimeError:  # the loop has already been closed: nobody left to tell
            pass


def _open_blocking(address: UsbAddress, backend: Any) -> tuple[usb.core.Device, Any, Any]:
    device = address.find(backend)
    if device is None:
        raise UsbDeviceNotFound(address)
    try:
        device.set_configuration()
        interface = device.get_active_configuration()[(address.interface, 0)]
        usb.util.claim_interface(device, interface)
        ep_in = usb.util.find_descriptor(interface, custom_match=lambda e: usb.util.endpoint_direction(
            e.bEndpointAddress) == usb.util.ENDPOINT_IN)
        ep_out = usb.util.find_descriptor(interface, custom_match=lambda e: usb.util.endpoint_direction(
            e.bEndpointAddress) == usb.util.ENDPOINT_OUT)
    except usb.core.USBError as exc:
        usb.util.dispose_resources(device)
        if exc.errno == errno.ENODEV:
            raise UsbDeviceNotFound(address) from exc
        raise UsbDeviceUnusable(exc.errno, f"USB device {address.describe()}: {exc}") from exc
    if ep_in is None or ep_out is None:
        usb.util.dispose_resources(device)
        raise UsbDeviceUnusable(errno.EPROTO, f"USB device {address.describe()} lacks an IN and an "
                                              f"OUT endpoint on interface {address.interface}")
    return device, ep_in, ep_out


async def open_usb_connection(protocol_factory: Callable[[], asyncio.Protocol],
                              address: UsbAddress, *, backend: Any = None
                              ) -> tuple[UsbTransport, asyncio.Protocol]:
    """Find, configure and claim the device, then start reading. Like
    ``loop.create_connection``: returns ``(transport, protocol)`` after ``connection_made``.

    Raises :class:`UsbDeviceNotFound` when it is not on the bus, :class:`UsbDeviceUnusable` when it
    is there but will not talk. ``backend`` is pyusb's (None = the system's libusb).
    """
    loop = asyncio.get_running_loop()
    device, ep_in, ep_out = await asyncio.to_thread(_open_blocking, address, backend)
    protocol = protocol_factory()
    transport = UsbTransport(loop, protocol, device, ep_in, ep_out, address)
    transport._start()
    return transport, protocol


def usb_opener(address: UsbAddress, *, backend: Any = None) -> Opener:
    """An opener for :class:`tabled_drivers.link.client.LinkClient`: finds the device afresh on every call,
    so after an unplug the client's capped-backoff reconnect finds it wherever it re-enumerated.
    Failures are ``OSError``s (:class:`UsbDeviceNotFound`, :class:`UsbDeviceUnusable`, pyusb's
    ``USBError``), which the client logs and retries."""

    async def open_(factory: Callable[[], asyncio.Protocol]):
        return await open_usb_connection(factory, address, backend=backend)

    open_.port = f"usb:{address.describe()}"  # type: ignore[attr-defined]
    return open_

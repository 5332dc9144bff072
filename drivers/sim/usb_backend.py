"""A simulated pyusb backend: USB devices that live in this process.

:class:`SimBackend` is a real ``usb.backend.IBackend``. ``usb.core.find(backend=SimBackend(...),
idVendor=..., idProduct=...)`` returns a real ``usb.core.Device``, and a driver's
``dev.set_configuration()``, ``dev.write()`` and ``dev.read()`` run through pyusb's own code down to
the transfer calls below. Errors are the ones libusb gives: a read with nothing pending raises
``usb.core.USBTimeoutError`` (errno ETIMEDOUT); any call on a device that has been unplugged raises
``usb.core.USBError`` with errno ENODEV, including a read already waiting when the plug is pulled.

The device end is a :class:`SimUsbDevice` (a "gadget"): what the host writes to the OUT endpoint
is handed to the gadget's ``on_host_data`` callback; what the gadget ``send()``s waits on the IN
endpoint until the host reads it. ``backend.plug(gadget)`` / ``backend.unplug(gadget)`` may be
called at any moment from any thread; a replugged gadget gets a new bus address, as on real USB,
so a host must find it again. The gadget keeps its own state across an unplug (a self-powered
device): whatever it had not yet got acknowledged it can send again after the replug.

:func:`serve_protocol` joins a gadget to an asyncio protocol in the device role (a simulator), so
the simulator sees the host's bytes in ``data_received`` and answers with ``transport.write``.
:class:`UsbDeviceSimulator` is the body every USB simulator shares: the common link's
``DeviceLink`` behind a gadget, the simulators' shared command dispatch
(:class:`tabled_drivers.sim.base.CommandDispatch`) over the device's command table, and plug/unplug for
scripts.
"""

from __future__ import annotations

import array
import asyncio
import collections
import errno
import itertools
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

import usb.backend
import usb.core
import usb.util

from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import DeviceLink, LinkTiming
from tabled_drivers.sim.base import CommandDispatch

# libusb's own error codes, so the errors look exactly like the libusb1 backend's.
_LIBUSB_ERROR_NO_DEVICE = -4
_LIBUSB_ERROR_BUSY = -6
_LIBUSB_ERROR_TIMEOUT = -7
_LIBUSB_ERROR_PIPE = -9
_LIBUSB_ERROR_INVALID_PARAM = -2

ENGLISH_US = 0x0409
_STRING_MANUFACTURER, _STRING_PRODUCT, _STRING_SERIAL = 1, 2, 3
_GET_DESCRIPTOR = 0x06
_DESC_TYPE_STRING = 0x03
VENDOR_SPECIFIC_CLASS = 0xFF


def no_device_error() -> usb.core.USBError:
    return usb.core.USBError("No such device (it may have been disconnected)",
                             _LIBUSB_ERROR_NO_DEVICE, errno.ENODEV)


def timeout_error() -> usb.core.USBTimeoutError:
    return usb.core.USBTimeoutError("Operation timed out", _LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT)


def _pipe_error(why: str) -> usb.core.USBError:
    return usb.core.USBError(f"Pipe error ({why})", _LIBUSB_ERROR_PIPE, errno.EPIPE)


@dataclass(frozen=True)
class EndpointSpec:
    """One endpoint: address (bit 7 set = IN, device to host) and transfer type."""

    address: int
    transfer: int = usb.util.ENDPOINT_TYPE_BULK  # or usb.util.ENDPOINT_TYPE_INTR
    max_packet: int = 64
    interval_ms: int = 0  # polling interval, interrupt endpoints only

    @property
    def is_in(self) -> bool:
        return usb.util.endpoint_direction(self.address) == usb.util.ENDPOINT_IN


@dataclass(frozen=True)
class DeviceSpec:
    """What a device says about itself in its descriptors: one configuration, one interface."""

    vendor_id: int
    product_id: int
    manufacturer: str
    product: str
    serial_number: str
    endpoints: tuple[EndpointSpec, ...]
    bcd_device: int = 0x0100
    interface_class: int = VENDOR_SPECIFIC_CLASS
    max_power_ma: int = 100

    def endpoint(self, address: int) -> EndpointSpec | None:
        return next((e for e in self.endpoints if e.address == address), None)


class SimUsbDevice:
    """The device end of a simulated USB device: descriptors, an OUT pipe in, an IN pipe out.

    ``on_host_data(bytes)`` is called, in the host's thread, with each OUT transfer.
    ``on_configured()`` is called when the host selects the configuration (after each plug-in), the
    moment a real device knows a host is talking to it. ``on_unplugged()`` when the plug is pulled.
    """

    def __init__(self, spec: DeviceSpec) -> None:
        self.spec = spec
        self.on_host_data: Callable[[bytes], None] = lambda data: None
        self.on_configured: Callable[[], None] = lambda: None
        self.on_unplugged: Callable[[], None] = lambda: None
        self.dropped_while_unplugged = 0  # bytes the device sent with no host to read them
        self._backend: SimBackend | None = None
        self._attachment: _Attachment | None = None

    @property
    def plugged(self) -> bool:
        return self._attachment is not None

    def send(self, data: bytes) -> None:
        """Queue one IN transfer for the host. Thread-safe. Lost if the device is unplugged."""
        att = self._attachment
        if att is None or not att.put_in(bytes(data)):
            self.dropped_while_unplugged += len(data)

    def unplug(self) -> None:
        if self._backend is not None:
            self._backend.unplug(self)

    def replug(self) -> None:
        if self._backend is None:
            raise RuntimeError("replug() needs the device to have been plugged into a backend once")
        self._backend.plug(self)


class _Attachment:
    """One plug-in of a device: a bus address and the pipes. Gone for good once unplugged."""

    def __init__(self, device: SimUsbDevice, bus: int, address: int) -> None:
        self.device = device
        self.bus = bus
        self.address = address
        self.connected = True
        self.configuration = 0
        self.claimed: set[int] = set()
        self._cond = threading.Condition()
        self._in_queue: collections.deque[bytes] = collections.deque()

    def check(self) -> None:
        if not self.connected:
            raise no_device_error()

    def put_in(self, data: bytes) -> bool:
        with self._cond:
            if not self.connected:
                return False
            self._in_queue.append(data)
            self._cond.notify_all()
            return True

    def take_in(self, size: int, timeout_ms: int) -> bytes:
        """Wait for device data; 0 ms waits for ever (as libusb). One read never spans two
        transfers, so a short transfer ends the read as a short packet does on the wire."""
        deadline = None if timeout_ms == 0 else timeout_ms / 1000
        with self._cond:
            if not self._cond.wait_for(lambda: self._in_queue or not self.connected, deadline):
                raise timeout_error()
            if not self.connected:
                raise no_device_error()
            head = self._in_queue.popleft()
            if len(head) > size:
                self._in_queue.appendleft(head[size:])
                head = head[:size]
            return head

    def disconnect(self) -> None:
        with self._cond:
            self.connected = False
            self._in_queue.clear()  # bytes on a cable that is gone
            self._cond.notify_all()


class _Handle:
    def __init__(self, attachment: _Attachment) -> None:
        self.attachment = attachment
        self.open = True

    def live(self) -> _Attachment:
        if not self.open:
            raise usb.core.USBError("Invalid parameter (handle closed)", _LIBUSB_ERROR_INVALID_PARAM,
                                    errno.EINVAL)
        self.attachment.check()
        return self.attachment


class SimBackend(usb.backend.IBackend):
    """A USB bus with simulated devices on it, for ``usb.core.find(backend=...)``."""

    def __init__(self, bus: int = 1) -> None:
        super().__init__()
        self.bus = bus
        self._lock = threading.Lock()
        self._attached: dict[SimUsbDevice, _Attachment] = {}
        self._addresses = itertools.count(2)  # address 1 is the root hub

    # -- the bench: plug and unplug -------------------------------------------------------------

    def plug(self, device: SimUsbDevice) -> None:
        with self._lock:
            if device in self._attached:
                return
            if device._backend not in (None, self):
                raise RuntimeError(f"{device.spec.product} is plugged into another bus")
            att = _Attachment(device, self.bus, next(self._addresses))
            self._attached[device] = att
            device._backend, device._attachment = self, att

    def unplug(self, device: SimUsbDevice) -> None:
        with self._lock:
            att = self._attached.pop(device, None)
            if att is None:
                return
            device._attachment = None
        att.disconnect()
        device.on_unplugged()

    def devices(self) -> list[SimUsbDevice]:
        with self._lock:
            return list(self._attached)

    # -- IBackend: enumeration and descriptors ----------------------------------------------------

    def enumerate_devices(self):
        with self._lock:
            return list(self._attached.values())

    def get_parent(self, dev):
        return None

    def get_device_descriptor(self, dev: _Attachment):
        spec = dev.device.spec
        return SimpleNamespace(
            bLength=18, bDescriptorType=usb.util.DESC_TYPE_DEVICE, bcdUSB=0x0200,
            bDeviceClass=0, bDeviceSubClass=0, bDeviceProtocol=0, bMaxPacketSize0=64,
            idVendor=spec.vendor_id, idProduct=spec.product_id, bcdDevice=spec.bcd_device,
            iManufacturer=_STRING_MANUFACTURER, iProduct=_STRING_PRODUCT,
            iSerialNumber=_STRING_SERIAL, bNumConfigurations=1,
            address=dev.address, bus=dev.bus, port_number=dev.address, port_numbers=(dev.address,),
            speed=usb.util.SPEED_FULL)

    def get_configuration_descriptor(self, dev: _Attachment, config: int):
        if config != 0:
            raise IndexError(f"configuration index {config} out of range")
        spec = dev.device.spec
        return SimpleNamespace(
            bLength=9, bDescriptorType=usb.util.DESC_TYPE_CONFIG,
            wTotalLength=9 + 9 + 7 * len(spec.endpoints), bNumInterfaces=1,
            bConfigurationValue=1, iConfiguration=0,
            bmAttributes=0xC0,  # self-powered: the device outlives its cable
            bMaxPower=spec.max_power_ma // 2, extra_descriptors=[])

    def get_interface_descriptor(self, dev: _Attachment, intf: int, alt: int, config: int):
        if config != 0 or intf != 0 or alt != 0:
            raise IndexError(f"no interface {intf} alt {alt} in configuration {config}")
        spec = dev.device.spec
        return SimpleNamespace(
            bLength=9, bDescriptorType=usb.util.DESC_TYPE_INTERFACE, bInterfaceNumber=0,
            bAlternateSetting=0, bNumEndpoints=len(spec.endpoints),
            bInterfaceClass=spec.interface_class, bInterfaceSubClass=0, bInterfaceProtocol=0,
            iInterface=0, extra_descriptors=[])

    def get_endpoint_descriptor(self, dev: _Attachment, ep: int, intf: int, alt: int, config: int):
        endpoints = dev.device.spec.endpoints
        if config != 0 or intf != 0 or alt != 0 or not 0 <= ep < len(endpoints):
            raise IndexError(f"no endpoint {ep}")
        e = endpoints[ep]
        return SimpleNamespace(
            bLength=7, bDescriptorType=usb.util.DESC_TYPE_ENDPOINT, bEndpointAddress=e.address,
            bmAttributes=e.transfer, wMaxPacketSize=e.max_packet, bInterval=e.interval_ms,
            bRefresh=0, bSynchAddress=0, extra_descriptors=[])

    # -- IBackend: handles, configuration, interfaces ---------------------------------------------

    def open_device(self, dev: _Attachment) -> _Handle:
        dev.check()
        return _Handle(dev)

    def close_device(self, dev_handle: _Handle) -> None:
        dev_handle.open = False
        dev_handle.attachment.claimed.clear()

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        att = dev_handle.live()
        if config_value not in (0, 1):
            raise usb.core.USBError("Entity not found", -5, errno.ENOENT)
        att.configuration = config_value
        if config_value == 1:
            att.device.on_configured()

    def get_configuration(self, dev_handle: _Handle) -> int:
        return dev_handle.live().configuration

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        dev_handle.live()
        if intf != 0 or altsetting != 0:
            raise usb.core.USBError("Entity not found", -5, errno.ENOENT)

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        att = dev_handle.live()
        if intf != 0:
            raise usb.core.USBError("Entity not found", -5, errno.ENOENT)
        att.claimed.add(intf)

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        dev_handle.live().claimed.discard(intf)

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        dev_handle.live()
        return False

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        dev_handle.live()

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        dev_handle.live()

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        dev_handle.live()

    def reset_device(self, dev_handle: _Handle) -> None:
        dev_handle.live().configuration = 0

    # -- IBackend: transfers ----------------------------------------------------------------------

    def _endpoint(self, att: _Attachment, ep: int, transfer: int, want_in: bool) -> EndpointSpec:
        if att.configuration != 1:
            raise _pipe_error("device not configured")
        spec = att.device.spec.endpoint(ep)
        if spec is None or spec.transfer != transfer or spec.is_in != want_in:
            raise _pipe_error(f"endpoint {ep:#04x} cannot do that transfer")
        return spec

    def _write(self, dev_handle: _Handle, ep: int, data: array.array, transfer: int) -> int:
        att = dev_handle.live()
        self._endpoint(att, ep, transfer, want_in=False)
        payload = bytes(data)
        att.device.on_host_data(payload)
        return len(payload)

    def _read(self, dev_handle: _Handle, ep: int, buff: array.array, timeout: int,
              transfer: int) -> int:
        att = dev_handle.live()
        self._endpoint(att, ep, transfer, want_in=True)
        data = att.take_in(len(buff), timeout)
        buff[:len(data)] = array.array("B", data)
        return len(data)

    def bulk_write(self, dev_handle, ep, intf, data, timeout):
        return self._write(dev_handle, ep, data, usb.util.ENDPOINT_TYPE_BULK)

    def bulk_read(self, dev_handle, ep, intf, buff, timeout):
        return self._read(dev_handle, ep, buff, timeout, usb.util.ENDPOINT_TYPE_BULK)

    def intr_write(self, dev_handle, ep, intf, data, timeout):
        return self._write(dev_handle, ep, data, usb.util.ENDPOINT_TYPE_INTR)

    def intr_read(self, dev_handle, ep, intf, buff, timeout):
        return self._read(dev_handle, ep, buff, timeout, usb.util.ENDPOINT_TYPE_INTR)

    def ctrl_transfer(self, dev_handle, bmRequestType, bRequest, wValue, wIndex, data, timeout):
        """Only what a host asks a simple vendor device: its string descriptors."""
        att = dev_handle.live()
        wants_string = (bmRequestType == 0x80 and bRequest == _GET_DESCRIPTOR
                        and wValue >> 8 == _DESC_TYPE_STRING)
        if not wants_string:
            raise _pipe_error(f"request {bmRequestType:#04x}/{bRequest:#04x} not supported")
        index = wValue & 0xFF
        if index == 0:
            body = ENGLISH_US.to_bytes(2, "little")
        else:
            spec = att.device.spec
            strings = {_STRING_MANUFACTURER: spec.manufacturer, _STRING_PRODUCT: spec.product,
                       _STRING_SERIAL: spec.serial_number}
            if index not in strings or wIndex != ENGLISH_US:
                raise _pipe_error(f"no string {index} in language {wIndex:#06x}")
            body = strings[index].encode("utf-16-le")
        desc = bytes([2 + len(body), _DESC_TYPE_STRING]) + body
        n = min(len(desc), len(data))
        data[:n] = array.array("B", desc[:n])
        return n


class _GadgetTransport(asyncio.Transport):
    """The device role's view of its cable: ``write`` queues IN transfers for the host."""

    def __init__(self, device: SimUsbDevice) -> None:
        super().__init__()
        self._device = device
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._closing:
            self._device.send(bytes(data))

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True

    def abort(self) -> None:
        self._closing = True

    def get_extra_info(self, name, default=None):
        return {"usb_device": self._device}.get(name, default)


def serve_protocol(device: SimUsbDevice, loop: asyncio.AbstractEventLoop,
                   protocol: asyncio.Protocol) -> None:
    """Run ``protocol`` (a device-role simulator) behind ``device``.

    Each time a host configures the device the protocol gets ``connection_made`` with a fresh
    transport; each unplug ends it with ``connection_lost``. Host bytes arrive in
    ``data_received`` on ``loop``, whichever thread the host wrote them from.
    """
    current: list[_GadgetTransport] = []

    def soon(callback: Callable[[], None]) -> None:
        try:
            loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the simulator's loop has ended: the device is powered off
            pass

    def configured() -> None:
        def up() -> None:
            if current:
                down_now()
            current.append(_GadgetTransport(device))
            protocol.connection_made(current[0])
        soon(up)

    def down_now() -> None:
        transport = current.pop()
        transport.close()
        protocol.connection_lost(ConnectionResetError(errno.ENODEV, "USB cable unplugged"))

    def unplugged() -> None:
        soon(lambda: down_now() if current else None)

    def host_data(data: bytes) -> None:
        soon(lambda: protocol.data_received(data) if current else None)

    device.on_configured = configured
    device.on_unplugged = unplugged
    device.on_host_data = host_data


class UsbDeviceSimulator(CommandDispatch):
    """A simulator's body: the common link in the device role, behind a simulated USB device.

    A subclass sets ``COMMANDS`` (its driver's command table) and defines an ``on_<command name>``
    handler for each, as the serial simulators do (:class:`tabled_drivers.sim.base.CommandDispatch`,
    which also keeps ``commands_seen`` and ``command_counts``); its scripting methods call
    :meth:`send_event`. The device keeps unacknowledged events across an unplug and sends them
    again once a host says HELLO (the DeviceLink does that).
    """

    def __init__(self, spec: DeviceSpec, kind: int, *, name: str, boot_id: int | None = None,
                 timing: LinkTiming = LinkTiming()) -> None:
        super().__init__()
        self.gadget = SimUsbDevice(spec)
        if boot_id is None:  # a real device draws one at power-up
            boot_id = int.from_bytes(os.urandom(4), "big")
        self.link = DeviceLink(name, int(kind), boot_id, self.handle, timing)
        self._backend: SimBackend | None = None

    # -- the bench
    def plug_into(self, backend: SimBackend) -> None:
        """Connect to ``backend`` (call from the event loop the simulator runs on)."""
        serve_protocol(self.gadget, asyncio.get_running_loop(), self.link)
        self._backend = backend
        backend.plug(self.gadget)

    def unplug(self) -> None:
        self.gadget.unplug()

    def replug(self) -> None:
        self.gadget.replug()

    def close(self) -> None:
        self.gadget.unplug()
        self.link.close()

    @property
    def unacknowledged(self) -> int:
        return self.link.unacknowledged

    async def wait_delivered(self, timeout: float = 5.0) -> None:
        """Until the host has acknowledged every event sent so far."""
        async with asyncio.timeout(timeout):
            while self.link.unacknowledged:
                await asyncio.sleep(0.002)

    # -- events out
    def send_event(self, spec: m.EventSpec, **values: object) -> int:
        return self.link.send_event(spec.code, m.pack(spec.fields, values))

    def send_raw_event(self, code: int, payload: bytes) -> int:
        """Anything at all, for testing how the host copes with nonsense."""
        return self.link.send_event(code, bytes(payload))

"""The USB transport: a byte stream over simulated USB, read off the event loop."""

import asyncio
import errno

import pytest
import usb.core
import usb.util

from tabled_drivers.link.usb import (UsbAddress, UsbDeviceNotFound, UsbTransport, open_usb_connection,
                              usb_opener)
from tabled_drivers.sim.usb_backend import (DeviceSpec, EndpointSpec, SimBackend, SimUsbDevice,
                                     serve_protocol)

pytestmark = pytest.mark.timeout(20)

BULK = DeviceSpec(0x1209, 0xCA51, "tabled", "echo", "E-1", (EndpointSpec(0x01), EndpointSpec(0x81)))
INTR = DeviceSpec(0x1209, 0xCA52, "tabled", "echo-intr", "E-2",
                  (EndpointSpec(0x02, usb.util.ENDPOINT_TYPE_INTR, 8, 1),
                   EndpointSpec(0x82, usb.util.ENDPOINT_TYPE_INTR, 8, 1)))


class Recorder(asyncio.Protocol):
    """Host side: collects bytes and the end of the connection."""

    def __init__(self):
        self.data = bytearray()
        self.arrived = asyncio.Event()
        self.lost = asyncio.get_running_loop().create_future()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.data += data
        self.arrived.set()

    def connection_lost(self, exc):
        self.lost.set_result(exc)

    async def wait_for(self, n):
        while len(self.data) < n:
            self.arrived.clear()
            await self.arrived.wait()
        return bytes(self.data)


class Echo(asyncio.Protocol):
    """Device side: answers each chunk upper-cased."""

    def __init__(self):
        self.ups = 0
        self.downs = []

    def connection_made(self, transport):
        self.transport = transport
        self.ups += 1

    def data_received(self, data):
        self.transport.write(data.upper())

    def connection_lost(self, exc):
        self.downs.append(exc)


def bench(spec):
    backend = SimBackend()
    gadget = SimUsbDevice(spec)
    echo = Echo()
    serve_protocol(gadget, asyncio.get_running_loop(), echo)
    backend.plug(gadget)
    return backend, gadget, echo


def address(spec, serial=None):
    return UsbAddress(spec.vendor_id, spec.product_id, serial)


@pytest.mark.parametrize("spec", [BULK, INTR], ids=["bulk", "interrupt"])
async def test_bytes_both_ways_and_orderly_close(spec):
    backend, _, echo = bench(spec)
    transport, host = await open_usb_connection(Recorder, address(spec, spec.serial_number),
                                                backend=backend)
    assert isinstance(transport, UsbTransport) and host.transport is transport
    transport.write(b"hello, ")
    transport.write(b"shoe: a longer message than one packet")
    assert await host.wait_for(45) == b"HELLO, SHOE: A LONGER MESSAGE THAN ONE PACKET"
    transport.close()
    assert await host.lost is None
    assert echo.ups == 1


async def test_the_loop_is_not_blocked_while_the_device_is_silent():
    backend, _, _ = bench(BULK)
    transport, host = await open_usb_connection(Recorder, address(BULK), backend=backend)
    ticks = 0
    for _ in range(20):  # the reader thread is sitting in a blocking read all this time
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 20 and host.data == b""
    transport.close()
    await host.lost


async def test_unplug_is_connection_lost_with_no_such_device():
    backend, gadget, echo = bench(BULK)
    transport, host = await open_usb_connection(Recorder, address(BULK), backend=backend)
    transport.write(b"x")
    await host.wait_for(1)
    gadget.unplug()
    exc = await host.lost
    assert isinstance(exc, usb.core.USBError) and exc.errno == errno.ENODEV
    transport.write(b"after the end")  # harmless
    await asyncio.sleep(0)
    assert len(echo.downs) == 1


async def test_a_missing_device_is_a_clear_error():
    backend = SimBackend()
    with pytest.raises(UsbDeviceNotFound, match="no USB device 1209:ca51 serial 'E-9'"):
        await open_usb_connection(Recorder, address(BULK, "E-9"), backend=backend)


async def test_serial_number_picks_one_of_two_identical_devices():
    backend = SimBackend()
    for serial in ("E-1", "E-2"):
        spec = DeviceSpec(BULK.vendor_id, BULK.product_id, "tabled", "echo", serial, BULK.endpoints)
        gadget = SimUsbDevice(spec)
        gadget.on_host_data = (lambda g: lambda data: g.send(g.spec.serial_number.encode()))(gadget)
        backend.plug(gadget)
    transport, host = await open_usb_connection(Recorder, address(BULK, "E-2"), backend=backend)
    transport.write(b"who?")
    assert await host.wait_for(3) == b"E-2"
    transport.close()
    await host.lost


async def test_the_opener_finds_the_device_again_after_a_replug():
    backend, gadget, echo = bench(BULK)
    opener = usb_opener(address(BULK, "E-1"), backend=backend)
    assert opener.port == "usb:1209:ca51 serial 'E-1'"
    transport, host = await opener(Recorder)
    first_address = transport.get_extra_info("usb_device").address
    gadget.unplug()
    assert (await host.lost).errno == errno.ENODEV
    with pytest.raises(UsbDeviceNotFound):  # an OSError: the link client backs off and retries
        await opener(Recorder)
    gadget.replug()
    transport, host = await opener(Recorder)
    assert transport.get_extra_info("usb_device").address != first_address
    transport.write(b"back")
    assert await host.wait_for(4) == b"BACK"
    assert echo.ups == 2 and len(echo.downs) == 1
    transport.close()
    await host.lost


async def test_without_libusb_the_error_names_the_package_to_install(monkeypatch):
    """pyusb with no C library finds no backend ("No backend available"): the driver's error, which
    the link client logs once as why the link is down, says in one line what to install."""
    import usb.backend.libusb0
    import usb.backend.libusb1
    import usb.backend.openusb
    for backend in (usb.backend.libusb1, usb.backend.openusb, usb.backend.libusb0):
        monkeypatch.setattr(backend, "get_backend", lambda *a, **k: None)  # as on a PC without libusb
    with pytest.raises(usb.core.NoBackendError):
        usb.core.find(idVendor=0x1209)
    with pytest.raises(OSError) as raised:
        await open_usb_connection(Recorder, UsbAddress(0x1209, 0x0007), backend=None)
    message = str(raised.value)
    assert raised.value.errno == errno.ELIBACC
    assert "libusb-1.0-0" in message and "\n" not in message and "No backend available" not in message

"""The simulated pyusb backend, driven through the real usb.core code."""

import errno
import threading

import pytest
import usb.core
import usb.util

from tabled_drivers.sim.usb_backend import DeviceSpec, EndpointSpec, SimBackend, SimUsbDevice

SPEC = DeviceSpec(vendor_id=0x1209, product_id=0xCA50, manufacturer="tabled", product="test gadget",
                  serial_number="T-0001",
                  endpoints=(EndpointSpec(0x01), EndpointSpec(0x81),
                             EndpointSpec(0x82, usb.util.ENDPOINT_TYPE_INTR, 8, 10)))


@pytest.fixture
def bench():
    backend = SimBackend()
    gadget = SimUsbDevice(SPEC)
    received: list[bytes] = []
    gadget.on_host_data = received.append
    backend.plug(gadget)
    return backend, gadget, received


def find(backend, **kw):
    return usb.core.find(backend=backend, idVendor=0x1209, idProduct=0xCA50, **kw)


def test_find_returns_a_real_device_with_descriptors_and_strings(bench):
    backend, _, _ = bench
    dev = find(backend)
    assert isinstance(dev, usb.core.Device)
    assert (dev.serial_number, dev.product, dev.manufacturer) == ("T-0001", "test gadget", "tabled")
    cfg = dev[0]
    intf = cfg[(0, 0)]
    addresses = [ep.bEndpointAddress for ep in intf]
    assert addresses == [0x01, 0x81, 0x82]
    assert usb.util.endpoint_type(intf[2].bmAttributes) == usb.util.ENDPOINT_TYPE_INTR
    assert usb.core.find(backend=backend, idVendor=0x1209, idProduct=0xBEEF) is None
    assert find(backend, custom_match=lambda d: d.serial_number == "nope") is None


def test_write_reaches_the_gadget_and_read_returns_what_it_sent(bench):
    backend, gadget, received = bench
    dev = find(backend)
    dev.set_configuration()
    assert dev.write(0x01, b"\x7e\x01\x02") == 3
    assert received == [b"\x7e\x01\x02"]
    gadget.send(b"abcdef")
    assert bytes(dev.read(0x81, 4, timeout=100)) == b"abcd"
    assert bytes(dev.read(0x81, 64, timeout=100)) == b"ef"
    gadget.send(b"\x01")
    assert bytes(dev.read(0x82, 8, timeout=100)) == b"\x01"  # interrupt endpoint


def test_read_with_nothing_pending_times_out_with_the_real_timeout_error(bench):
    backend, _, _ = bench
    dev = find(backend)
    dev.set_configuration()
    with pytest.raises(usb.core.USBTimeoutError) as caught:
        dev.read(0x81, 64, timeout=20)
    assert caught.value.errno == errno.ETIMEDOUT


def test_wrong_direction_or_unconfigured_device_is_a_pipe_error(bench):
    """Straight on the backend (pyusb's IBackend calls), as usb.core would call it."""
    backend, _, _ = bench
    [attached] = backend.enumerate_devices()
    handle = backend.open_device(attached)
    with pytest.raises(usb.core.USBError) as caught:
        backend.bulk_read(handle, 0x81, 0, bytearray(4), 10)
    assert caught.value.errno == errno.EPIPE
    backend.set_configuration(handle, 1)
    with pytest.raises(usb.core.USBError) as caught:
        backend.bulk_write(handle, 0x81, 0, b"x", 10)
    assert caught.value.errno == errno.EPIPE


def test_unplug_wakes_a_waiting_read_with_no_such_device(bench):
    backend, gadget, _ = bench
    dev = find(backend)
    dev.set_configuration()
    waiting = threading.Event()
    result: list[BaseException] = []

    def reader():
        waiting.set()
        try:
            dev.read(0x81, 64, timeout=0)  # 0 = wait for ever, as libusb
        except usb.core.USBError as e:
            result.append(e)

    t = threading.Thread(target=reader)
    t.start()
    waiting.wait()
    gadget.unplug()
    t.join(timeout=5)
    assert not t.is_alive()
    assert result[0].errno == errno.ENODEV
    with pytest.raises(usb.core.USBError) as caught:
        dev.write(0x01, b"x")
    assert caught.value.errno == errno.ENODEV
    assert find(backend) is None
    usb.util.dispose_resources(dev)  # must not raise on a vanished device


def test_replug_is_a_new_address_and_old_bytes_are_gone(bench):
    backend, gadget, received = bench
    dev = find(backend)
    dev.set_configuration()
    gadget.send(b"lost in the cable")
    gadget.unplug()
    gadget.send(b"nobody listening")
    assert gadget.dropped_while_unplugged == len(b"nobody listening")
    gadget.replug()
    again = find(backend, custom_match=lambda d: d.serial_number == "T-0001")
    assert again is not None and again.address != dev.address
    again.set_configuration()
    with pytest.raises(usb.core.USBTimeoutError):
        again.read(0x81, 64, timeout=10)
    gadget.send(b"fresh")
    assert bytes(again.read(0x81, 64, timeout=100)) == b"fresh"
    with pytest.raises(usb.core.USBError) as caught:
        dev.read(0x81, 64, timeout=10)  # the old handle stays dead
    assert caught.value.errno == errno.ENODEV


def test_configured_and_unplugged_callbacks(bench):
    backend, gadget, _ = bench
    events = []
    gadget.on_configured = lambda: events.append("configured")
    gadget.on_unplugged = lambda: events.append("unplugged")
    find(backend).set_configuration()
    gadget.unplug()
    gadget.unplug()  # twice is harmless
    assert events == ["configured", "unplugged"]

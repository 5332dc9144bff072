"""HELLO agrees on the frames' check: CRC-32 between a host and a device that both speak protocol 2,
CRC-16 with a device (or a host) that speaks only protocol 1; HELLO and its answer always carry
CRC-16, so a session can start afresh whatever the device spoke before (docs/protocols.md)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import NEED_MORE, Decoder, Frame, Garbage, encode
from tabled_drivers.link.crc import CRC32_CHECK, crc32
from tabled_drivers.link.endpoint import DeviceLink
from tabled_drivers.link.memory import memory_opener
from tests.drivers.helpers import FAST, Counted, EchoDevice, EchoDriver, Recorder


class Tap:
    """Forwards a direction's bytes to its protocol, keeping a copy."""

    def __init__(self, protocol) -> None:
        self.protocol, self.data = protocol, bytearray()

    def connection_made(self, transport) -> None:
        self.protocol.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.data += data
        self.protocol.data_received(data)

    def connection_lost(self, exc) -> None:
        self.protocol.connection_lost(exc)


def frames(data: bytes, protocol: int) -> list[Frame | Garbage]:
    d = Decoder(protocol)
    return d.decode(data)


def test_crc32_is_the_catalogues_crc_32_iso_hdlc():
    assert crc32(b"123456789") == CRC32_CHECK == 0xCBF43926
    assert crc32(b"") == 0


def test_the_documented_ping_under_protocol_2():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocols.md").read_text(encoding="utf-8")
    wire = encode(2, m.PING, b"", protocol=2)
    assert wire.hex(" ") == "7e 00 02 11 a7 c7 9b 62" and f"protocol 2: `{wire.hex(' ')}`" in doc


def test_under_protocol_2_a_frame_carries_four_check_bytes_and_hello_keeps_crc16():
    ping = encode(5, m.PING, b"", protocol=2)
    assert ping == encode(5, m.PING)[:4] + crc32(bytes((0, 5, m.PING))).to_bytes(4, "big")
    hello = m.pack(m.HELLO_COMMAND.request, {"protocol": 2, "mark": m.HELLO_MARK})
    assert hello == b"\x02TBL2"
    assert encode(1, m.HELLO, hello, protocol=2) == encode(1, m.HELLO, hello, protocol=1)
    assert frames(encode(1, m.HELLO, hello), 2) == [Frame(1, m.HELLO, hello)]


def test_a_crc16_frame_is_refused_under_protocol_2_and_a_crc32_frame_under_protocol_1():
    event = encode(9, 0x80, b"\x01\x02\x03")
    assert frames(event, 2) == []  # two check bytes short: it waits for them...
    assert [type(x) for x in frames(event + b"\x7e", 2)] == [Garbage]  # ...and the next frame cuts it
    assert [x.reason for x in frames(encode(9, 0x80, b"\x01\x02\x03", protocol=2), 1)] == [
        "bad crc", "no start marker"]
    assert frames(encode(9, 0x80, b"\x01\x02\x03", protocol=2), 2) == [Frame(9, 0x80, b"\x01\x02\x03")]


def test_the_check_changes_between_two_frames_of_one_chunk():
    d = Decoder()
    d.feed(encode(1, m.PING) + encode(2, m.PING, protocol=2))
    assert d.next() == Frame(1, m.PING, b"")
    d.protocol = 2
    assert d.next() == Frame(2, m.PING, b"") and d.next() is NEED_MORE


def test_the_device_answers_the_lower_of_the_protocol_asked_and_its_own():
    agree = m.agree
    assert agree(bytes((2,)), 2) == 2 and agree(bytes((1,)), 2) == 1 and agree(bytes((2,)), 1) == 1
    assert agree(bytes((9,)), 2) == 2 and agree(b"", 2) == 1 and agree(bytes((0,)), 2) == 1


async def _plugged(device, **kw):
    rec = Recorder()
    to_host: list[Tap] = []

    def tap(protocol):
        to_host.append(Tap(protocol))
        return to_host[-1]

    driver = EchoDriver(opener=memory_opener(device.link, to_host=tap), consumer=rec, timing=FAST, **kw)
    await driver.start()
    await driver.wait_up(5)
    return driver, rec, to_host


async def test_a_host_and_a_device_speaking_protocol_2_agree_on_crc32():
    dev = EchoDevice()
    driver, rec, to_host = await _plugged(dev)
    assert driver.client.link.protocol == dev.link.protocol == 2
    assert await driver.echo(7) == 7
    dev.emit(3)
    await rec.wait_for(lambda r: r.of(Counted))
    wire = bytes(to_host[-1].data)  # HELLO's answer, then the echo's and the event
    first = wire.index(b"\x7e", 1)
    assert frames(wire[:first], 1)[0].type == m.response_type(m.HELLO)  # HELLO's answer: CRC-16
    after = frames(wire[first:], 2)
    assert len(after) >= 2 and all(isinstance(f, Frame) for f in after)  # the rest: CRC-32...
    assert not any(isinstance(f, Frame) for f in frames(wire[first:], 1))  # ...never CRC-16
    await driver.stop()


async def test_a_device_speaking_only_protocol_1_still_works_with_crc16():
    dev = EchoDevice()
    dev.link = DeviceLink("old-device", m.DeviceKind.METER, 1, dev.handle, FAST, protocol=1)
    driver, rec, to_host = await _plugged(dev)
    assert driver.client.link.protocol == dev.link.protocol == 1
    assert await driver.echo(11) == 11 and dev.executed == {11: 1}
    dev.emit(4)
    await rec.wait_for(lambda r: r.of(Counted))
    assert all(isinstance(x, Frame) for x in frames(bytes(to_host[-1].data), 1))  # every frame CRC-16
    await driver.stop()


class Wire(asyncio.Transport):
    """A device's port: what it writes is kept."""

    def __init__(self) -> None:
        super().__init__()
        self.out = bytearray()

    def write(self, data) -> None:
        self.out.extend(data)

    def is_closing(self) -> bool:
        return False


def hello(seq: int, protocol: int) -> bytes:
    """A host's HELLO asking for ``protocol``, with the mark, as a host speaking protocol 2 sends it."""
    return encode(seq, m.HELLO, m.pack(m.HELLO_COMMAND.request, {"protocol": protocol, "mark": m.HELLO_MARK}))


def old_hello(seq: int) -> bytes:
    """The HELLO of a host from before CRC-32: its protocol byte alone."""
    return encode(seq, m.HELLO, bytes((1,)))


def answered(wire: Wire, protocol: int) -> list[Frame | Garbage]:
    got = frames(bytes(wire.out), protocol)
    wire.out.clear()
    return got


async def test_a_host_asking_for_protocol_1_is_answered_1_and_the_device_stays_on_crc16():
    dev, wire = EchoDevice(), Wire()
    dev.link.connection_made(wire)
    dev.link.data_received(old_hello(1))
    (answer,) = answered(wire, 1)
    assert m.unpack(m.HELLO_COMMAND.response, answer.payload[1:])["protocol"] == 1 and dev.link.protocol == 1
    dev.link.data_received(encode(2, m.PING))
    assert answered(wire, 1) == [Frame(2, m.response_type(m.PING), b"\x00")]
    dev.link.close()


async def test_a_device_on_crc32_hears_a_new_hello_in_crc16_and_starts_afresh():
    """The host reopens a serial port: the device never saw it close and still speaks protocol 2.
    The host's HELLO, in CRC-16, is heard and agrees again; a CRC-16 PING before it is not."""
    dev, wire = EchoDevice(), Wire()
    dev.link.connection_made(wire)
    dev.link.data_received(hello(1, 2))
    (answer,) = answered(wire, 1)  # the answer itself in CRC-16
    assert answer.type == m.response_type(m.HELLO) and dev.link.protocol == 2
    dev.link.data_received(encode(2, m.PING) + hello(1, 1))  # a CRC-16 PING, then a HELLO asking for 1
    nak, answer = wire.out[:wire.out.index(0x7E, 1)], wire.out[wire.out.index(0x7E, 1):]
    assert frames(bytes(nak), 2) == [Frame(0, m.NAK, bytes((m.NakReason.DAMAGED,)))]  # the PING: damaged
    (answer,) = frames(bytes(answer), 1)
    wire.out.clear()
    assert m.unpack(m.HELLO_COMMAND.response, answer.payload[1:])["protocol"] == 1 and dev.link.protocol == 1
    dev.link.data_received(encode(2, m.PING))
    assert answered(wire, 1) == [Frame(2, m.response_type(m.PING), b"\x00")]
    dev.link.close()


async def test_a_device_on_crc32_does_not_take_a_hello_without_the_mark():
    """Past protocol 1 a HELLO of a host from before CRC-32 (its protocol byte alone) is not heard:
    that host reaches the device once it has restarted (power), back on protocol 1."""
    dev, wire = EchoDevice(), Wire()
    dev.link.connection_made(wire)
    dev.link.data_received(hello(1, 2))
    answered(wire, 1)
    dev.link.data_received(old_hello(2) + hello(3, 2))
    assert dev.link.protocol == 2 and dev.link.stats.garbage["bad crc"] + dev.link.stats.garbage["truncated"] == 1
    dev.link.close()


def test_past_protocol_1_a_crc16_hello_is_taken_only_with_the_mark_and_a_protocol_there_is():
    """Noise forms a CRC-16 frame once in 65,536: a HELLO, still CRC-16 under protocol 2, must also
    carry the mark ("TBL2") and ask for protocol 1 or 2, so noise or a damaged frame starts no
    session afresh."""
    for asked in (1, 2):
        assert frames(hello(3, asked), 2) == [Frame(3, m.HELLO, bytes((asked,)) + b"TBL2")]
    for payload in (b"\x00TBL2", b"\x03TBL2", b"\x02TBL3", b"\x02\x00\x00\x00\x00"):
        wire = encode(3, m.HELLO, payload)
        assert [x.reason for x in frames(wire, 2)] == ["bad crc"]
        assert frames(wire, 1) == [Frame(3, m.HELLO, payload)]  # protocol 1 is as it always was

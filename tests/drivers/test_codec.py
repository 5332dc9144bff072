"""The frame codec: CRC vectors, byte tables, every split point, one byte at a time, and a fuzz."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled_drivers.link.codec import (MAX_PAYLOAD, MAX_STUFFED_FRAME, NEED_MORE, Decoder, Frame,
                                FrameError, Garbage, encode, encode_frame)
from tabled_drivers.link.crc import CRC_CHECK, crc16


# Published CRC-16/CCITT-FALSE check values (reveng catalogue "check"; the 0xFFFF column of the
# well-known CRC-CCITT table by Joe Geluso / lammertbies).
@pytest.mark.parametrize("data, crc", [
    (b"123456789", 0x29B1),
    (b"", 0xFFFF),
    (b"A", 0xB915),
    (b"A" * 256, 0xEA0B),
])
def test_crc16_ccitt_false_vectors(data, crc):
    assert crc16(data) == crc
    assert CRC_CHECK == 0x29B1


# Byte tables: hand-checked wire images (docs/protocols.md shows the same two).
PING_1 = bytes.fromhex("7e 00 01 11 fd bd")  # PING, SEQ 1, no payload, CRC 0xFDBD
STUFFED = bytes.fromhex("7e 03 2a 81 7d 5e 00 7d 5d 49 55")  # payload 7e 00 7d, both stuffed


def test_encode_matches_byte_table():
    assert encode(1, 0x11) == PING_1
    assert encode(0x2A, 0x81, bytes([0x7E, 0x00, 0x7D])) == STUFFED


def _frames(items):
    return [i for i in items if isinstance(i, Frame)]


def _garbage(items):
    return [(i.reason, i.data) for i in items if isinstance(i, Garbage)]


@pytest.mark.parametrize("wire, frames, garbage", [
    (PING_1, [Frame(1, 0x11)], []),
    (STUFFED, [Frame(0x2A, 0x81, b"\x7e\x00\x7d")], []),
    (b"\x00\xffjunk" + PING_1, [Frame(1, 0x11)], [("no start marker", b"\x00\xffjunk")]),
    (PING_1 + b"tail", [Frame(1, 0x11)], [("no start marker", b"tail")]),
    (b"ab" + PING_1 + b"cd" + STUFFED, [Frame(1, 0x11), Frame(0x2A, 0x81, b"\x7e\x00\x7d")],
     [("no start marker", b"ab"), ("no start marker", b"cd")]),
    # bad CRC: last byte flipped; the following frame still decodes
    (PING_1[:-1] + b"\x00" + PING_1, [Frame(1, 0x11)], [("bad crc", PING_1[:-1] + b"\x00")]),
    # truncated: cut short by the next start marker
    (PING_1[:4] + STUFFED, [Frame(0x2A, 0x81, b"\x7e\x00\x7d")], [("truncated", PING_1[:4])]),
    (b"\x7e" + PING_1, [Frame(1, 0x11)], [("truncated", b"\x7e")]),
    # oversized: LEN 241 > MAX_PAYLOAD
    (b"\x7e\xf1\x01\x11" + b"\x00" * 10 + PING_1, [Frame(1, 0x11)],
     [("oversized", b"\x7e\xf1\x01\x11" + b"\x00" * 10)]),
    # an escape followed by something that is not 0x5D/0x5E
    (b"\x7e\x01\x01\x80\x7d\x41\x00\x00" + PING_1, [Frame(1, 0x11)],
     [("bad escape", b"\x7e\x01\x01\x80\x7d\x41\x00\x00")]),
])
def test_byte_table(wire, frames, garbage):
    out = Decoder().decode(wire)
    assert _frames(out) == frames
    assert _garbage(out) == garbage


def test_truncated_at_end_waits_for_more():
    d = Decoder()
    assert d.decode(STUFFED[:-3]) == []
    assert d.next() is NEED_MORE
    assert d.decode(STUFFED[-3:]) == [Frame(0x2A, 0x81, b"\x7e\x00\x7d")]


@pytest.mark.parametrize("frame", [encode(1, 0x11), STUFFED, encode(255, 0xBF, bytes(range(240)))])
def test_every_split_point(frame):
    for i in range(len(frame) + 1):
        d = Decoder()
        out = d.decode(frame[:i]) + d.decode(frame[i:])
        assert out == [Decoder().decode(frame)[0]], f"split at {i}"
        assert len(d) == 0


def test_one_byte_at_a_time():
    wire = b"noise" + b"".join(encode(s, 0x80 + s % 64, bytes([s, 0x7E, 0x7D]) * (s % 7)) for s in range(1, 60))
    d = Decoder()
    out = []
    for b in wire:
        out += d.decode(bytes([b]))
    assert [f.seq for f in _frames(out)] == list(range(1, 60))
    assert {reason for reason, _ in _garbage(out)} == {"no start marker"}
    assert b"".join(g.data for g in out if isinstance(g, Garbage)) == b"noise"


def test_largest_payload_roundtrips_and_larger_is_refused():
    payload = bytes([0x7E]) * MAX_PAYLOAD  # every byte stuffed: the worst case on the wire
    wire = encode(9, 0x80, payload)
    assert len(wire) <= MAX_STUFFED_FRAME
    assert Decoder().decode(wire) == [Frame(9, 0x80, payload)]
    with pytest.raises(FrameError):
        encode(9, 0x80, payload + b"x")
    with pytest.raises(FrameError):
        encode(256, 0x80)


@given(st.binary(max_size=600), st.integers(1, 255), st.integers(0, 255), st.binary(max_size=MAX_PAYLOAD),
       st.lists(st.integers(1, 40), max_size=6))
@settings(max_examples=400, deadline=None)
def test_fuzz_never_raises_and_never_swallows_the_next_frame(junk, seq, type_, payload, cuts):
    """Arbitrary bytes, then a valid frame, fed in arbitrary chunks: no exception, the frame is
    the last thing decoded, and the buffer stays capped."""
    good = Frame(seq, type_, payload)
    wire = junk + encode_frame(good)
    d = Decoder()
    out = []
    pos = 0
    for c in cuts + [len(wire)]:
        out += d.decode(wire[pos:pos + c])
        pos += c
        assert len(d) <= MAX_STUFFED_FRAME
    out += d.decode(wire[pos:])
    frames = _frames(out)
    assert frames and frames[-1] == good
    assert len(d) == 0


@given(st.binary(max_size=2000))
@settings(max_examples=300, deadline=None)
def test_fuzz_arbitrary_bytes_are_bounded(junk):
    d = Decoder()
    d.decode(junk)
    assert len(d) <= MAX_STUFFED_FRAME

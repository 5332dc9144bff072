"""Frames on the wire: encoder and a decoder that never raises.

A frame (byte by byte in docs/protocols.md)::

    0x7E | stuffed( LEN SEQ TYPE PAYLOAD[LEN] CHECK )

``0x7E`` is the start marker. Inside the frame any 0x7E or 0x7D byte is sent as 0x7D followed by
the byte XOR 0x20 (HDLC-style stuffing), so a 0x7E on the wire always starts a frame: after
garbage, or a frame cut short by an unplug, the decoder resynchronises on the very next frame
and can never swallow it. The check covers LEN, SEQ, TYPE and the payload before stuffing, high
byte first: CRC-16/CCITT-FALSE (2 bytes) under protocol 1, CRC-32 (4 bytes) under protocol 2.
HELLO and its response always carry CRC-16 (:func:`check_of`), so either end can start a session
afresh whatever it spoke before; HELLO negotiates the protocol (tabled_drivers.link.endpoint).

The decoder is the three-way check: :meth:`Decoder.next` answers :data:`NEED_MORE`, a
:class:`Garbage` (bytes thrown away, with the reason) or a :class:`Frame`. Whatever bytes it is
fed, it never raises, and after draining it holds at most :data:`MAX_STUFFED_FRAME` bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabled_drivers.link.crc import crc16, crc32

SOF = 0x7E  # start of frame
ESC = 0x7D  # next byte is XOR 0x20
_SOF_B = b"\x7e"
_ESC_B = b"\x7d"
MAX_PAYLOAD = 240  # a LEN above this is an oversized frame
HEADER = 3  # LEN SEQ TYPE
TRAILER = 2  # CRC-16
TRAILER_32 = 4  # CRC-32
MAX_RAW_FRAME = HEADER + MAX_PAYLOAD + TRAILER_32
#: the protocols and the check each frame carries under them
CRC16_PROTOCOL = 1
CRC32_PROTOCOL = 2
HELLO = 0x10
#: what follows the protocol byte in the HELLO of a host speaking protocol 2 (a device from before
#: CRC-32 reads the first byte only): past protocol 1 a CRC-16 frame is taken for a HELLO only with
#: it, so noise or a damaged frame does not start a session afresh
HELLO_MARK = b"TBL2"
#: HELLO (TYPE 0x10: protocol and mark, five payload bytes) and its response (TYPE 0x50, seven
#: payload bytes): always CRC-16
HELLO_FRAMES = {HELLO: 1 + len(HELLO_MARK), 0x50: 7}
PROTOCOLS = (CRC16_PROTOCOL, CRC32_PROTOCOL)
MAX_STUFFED_FRAME = 1 + 2 * MAX_RAW_FRAME  # worst case: every byte stuffed


class FrameError(ValueError):
    """We were asked to encode something that is not a frame (a bug on our side, not the device's)."""


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: int
    payload: bytes = b""


@dataclass(frozen=True, slots=True)
class Garbage:
    """Bytes the decoder threw away and why: ``no start marker``, ``truncated``, ``oversized``,
    ``bad escape`` or ``bad crc``."""

    data: bytes
    reason: str


class NeedMore:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_MORE"


NEED_MORE = NeedMore()


def stuff(raw: bytes) -> bytes:
    return raw.replace(_ESC_B, b"\x7d\x5d").replace(_SOF_B, b"\x7d\x5e")


def unstuff(stuffed: bytes) -> bytes:
    # Left-to-right, non-overlapping replacement is exactly right here: in valid input every
    # 0x7D starts a pair, and the replacement output is never rescanned.
    return stuffed.replace(b"\x7d\x5e", _SOF_B).replace(b"\x7d\x5d", _ESC_B)


def check_of(protocol: int, length: int, type_: int) -> int:
    """The check a frame of this LEN and TYPE carries under ``protocol``: its size in bytes, 2 for
    CRC-16 or 4 for CRC-32. HELLO and its response, at their own lengths, always carry CRC-16."""
    if protocol == CRC16_PROTOCOL or HELLO_FRAMES.get(type_) == length:
        return TRAILER
    return TRAILER_32


def _check(raw: bytes | bytearray, size: int) -> int:
    return crc16(raw) if size == TRAILER else crc32(raw)


def encode(seq: int, type_: int, payload: bytes = b"", protocol: int = CRC16_PROTOCOL) -> bytes:
    """One frame, ready to write, with the check ``protocol`` gives it."""
    if not (0 <= seq <= 255 and 0 <= type_ <= 255):
        raise FrameError(f"sequence {seq} and type {type_} must each fit in one byte")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds the {MAX_PAYLOAD}-byte maximum")
    raw = bytes((len(payload), seq, type_)) + bytes(payload)
    size = check_of(protocol, len(payload), type_)
    return _SOF_B + stuff(raw + _check(raw, size).to_bytes(size, "big"))


def encode_frame(frame: Frame, protocol: int = CRC16_PROTOCOL) -> bytes:
    return encode(frame.seq, frame.type, frame.payload, protocol)


def _first_bad_escape(stuffed: bytes) -> int:
    """Index of the first 0x7D that is not followed by 0x5D or 0x5E (a lone 0x7D at the end
    counts), or -1 when every escape starts a valid pair."""
    n = stuffed.count(_ESC_B)
    if not n or n == stuffed.count(b"\x7d\x5d") + stuffed.count(b"\x7d\x5e"):
        return -1  # the patterns cannot overlap, so equal counts mean every 0x7D is paired
    i = stuffed.find(_ESC_B)
    while i >= 0:
        if i + 1 >= len(stuffed) or stuffed[i + 1] not in (0x5D, 0x5E):
            return i
        i = stuffed.find(_ESC_B, i + 2)
    return -1  # pragma: no cover - the counts above said there is one


class Decoder:
    """Feed it bytes in any chunks; take frames and garbage out with :meth:`next`. ``protocol``
    says which check the frames carry (:func:`check_of`); it may change between two frames."""

    def __init__(self, protocol: int = CRC16_PROTOCOL) -> None:
        self._buf = bytearray()
        self.protocol = protocol

    def __len__(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        self._buf += data

    def decode(self, data: bytes | bytearray | memoryview) -> list[Frame | Garbage]:
        """Feed ``data`` and drain: every frame and garbage it completes, in order."""
        self._buf += data
        out: list[Frame | Garbage] = []
        while (item := self.next()) is not NEED_MORE:
            out.append(item)  # type: ignore[arg-type]
        return out

    def next(self) -> Frame | Garbage | NeedMore:
        buf = self._buf
        if not buf:
            return NEED_MORE
        if buf[0] != SOF:
            i = buf.find(_SOF_B)
            cut = len(buf) if i < 0 else i
            return self._drop(cut, "no start marker")
        j = buf.find(_SOF_B, 1)
        complete = j > 0  # another frame starts at j: this one cannot grow any more
        end = j if complete else len(buf)  # the candidate; nothing past it is ever dropped
        body = bytes(buf[1:end])
        bad = _first_bad_escape(body)
        if bad == len(body) - 1 and not complete:
            body, bad = body[:-1], -1  # half an escape pair: wait for its second byte
        valid = body if bad < 0 else body[:bad]  # the stuffed bytes before any bad escape
        raw = unstuff(valid)
        if raw and raw[0] > MAX_PAYLOAD:
            return self._drop(end, "oversized")
        trailer = check_of(self.protocol, raw[0], raw[2]) if len(raw) >= HEADER else TRAILER
        need = HEADER + raw[0] + trailer if raw else HEADER + trailer
        if len(raw) < need:  # the frame does not fit in what arrived, or before a bad escape
            if bad >= 0:
                return self._drop(end, "bad escape")
            return self._drop(end, "truncated") if complete else NEED_MORE
        used = need  # stuffed bytes making up `need` raw bytes (every escape in them is a pair)
        while (grown := need + valid.count(_ESC_B, 0, used)) != used:
            used = grown
        raw = raw[:need]
        if _check(raw[:-trailer], trailer) != int.from_bytes(raw[-trailer:], "big") or (
                trailer == TRAILER and self.protocol != CRC16_PROTOCOL and raw[2] == HELLO
                and (raw[HEADER] not in PROTOCOLS or raw[HEADER + 1:-trailer] != HELLO_MARK)):
            # past protocol 1 a HELLO, still under CRC-16, must also carry the mark and ask for a
            # protocol there is
            return self._drop(1 + used, "bad crc")
        del buf[: 1 + used]
        return Frame(raw[1], raw[2], raw[HEADER:-trailer])

    def _drop(self, n: int, reason: str) -> Garbage:
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return Garbage(data, reason)

"""Message types shared by every device, and the declarative payload schema the device modules use.

TYPE byte ranges (docs/protocols.md has the table):

* 0x01 ACK, 0x02 NAK: link control.
* 0x10-0x3F commands, host -> device. 0x10 HELLO and 0x11 PING are the same for every device;
  each device module's command table starts at 0x20.
* 0x50-0x7F responses, device -> host: the command's TYPE | 0x40, same SEQ, payload starts with a
  :class:`Status` byte. The response is the command's acknowledgement.
* 0x80-0xBF events, device -> host, each acknowledged by an ACK with the event's SEQ.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

#: the protocols this side speaks: 1 frames checked by CRC-16, 2 by CRC-32 (HELLO agrees on one)
PROTOCOLS = (1, 2)
PROTOCOL_VERSION = max(PROTOCOLS)  # the newest, asked for in HELLO
HELLO_RESPONSE_SIZE = 6  # protocol u8, kind u8, boot_id u32 (after the status byte)

ACK = 0x01
NAK = 0x02
HELLO = 0x10
PING = 0x11
RESPONSE_BIT = 0x40


def response_type(command: int) -> int:
    return command | RESPONSE_BIT


def is_command(t: int) -> bool:
    return 0x10 <= t <= 0x3F


def is_response(t: int) -> bool:
    return 0x50 <= t <= 0x7F


def is_event(t: int) -> bool:
    return 0x80 <= t <= 0xBF


class Status(IntEnum):
    """First payload byte of every response."""

    OK = 0
    BUSY = 1  # try again later
    BAD_REQUEST = 2  # the payload does not fit the command
    REFUSED = 3  # not possible in the device's state (door open, spots locked, ...)
    DEVICE_FAULT = 4  # the device is faulty (jam, self-test failed, ...)
    UNKNOWN_COMMAND = 5


class NakReason(IntEnum):
    """Payload byte of a NAK. A NAK with SEQ 0 answers a frame whose SEQ could not be trusted."""

    DAMAGED = 1  # bad CRC, bad escape, truncated or oversized: resend what is unacknowledged
    UNKNOWN_TYPE = 2  # a TYPE this side never accepts


class DeviceKind(IntEnum):
    """Reported in the HELLO response, so a device on the wrong port is noticed at once."""

    SHUFFLER = 1
    SHOE = 2
    BETSPOTS = 3
    METER = 4
    PANEL = 5
    PLAYER_CARDS = 6


class PayloadError(ValueError):
    """A payload that does not fit its message's schema."""


# --- declarative schema -------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """One field type: a struct format for one item, and whether it is a count-prefixed list."""

    name: str
    fmt: str
    is_list: bool = False
    item: struct.Struct = field(init=False, repr=False, compare=False)  # compiled once, used per frame

    def __post_init__(self) -> None:
        object.__setattr__(self, "item", struct.Struct(">" + self.fmt))

    @property
    def size(self) -> int:
        return self.item.size


_COUNT = struct.Struct(">B")  # a list's count byte


U8 = Kind("u8", "B")
U16 = Kind("u16", "H")
U32 = Kind("u32", "I")
I32 = Kind("i32", "i")  # signed on purpose: a negative amount is decoded and reported, not hidden
U8_LIST = Kind("u8[]", "B", True)  # one count byte, then the items
I32_LIST = Kind("i32[]", "i", True)
U32_LIST = Kind("u32[]", "I", True)

Field = tuple[str, Kind]


def pack(fields: tuple[Field, ...], values: dict[str, object]) -> bytes:
    if not fields:
        return b""
    out = bytearray()
    for name, kind in fields:
        if name not in values:
            raise PayloadError(f"missing field {name!r}")
        v = values[name]
        try:
            if kind.is_list:
                items = list(v)  # type: ignore[call-overload]
                if len(items) > 255:
                    raise PayloadError(f"{name}: {len(items)} items, at most 255")
                out += struct.pack(f">B{len(items)}{kind.fmt}", len(items), *items)
            else:
                out += kind.item.pack(v)
        except (struct.error, TypeError) as exc:
            raise PayloadError(f"{name}={v!r} does not fit {kind.name}: {exc}") from None
    return bytes(out)


def unpack(fields: tuple[Field, ...], payload: bytes) -> dict[str, object]:
    """Decode ``payload`` exactly; raises :class:`PayloadError` on short, long or malformed input."""
    values: dict[str, object] = {}
    pos = 0
    for name, kind in fields:
        try:
            if kind.is_list:
                (count,) = _COUNT.unpack_from(payload, pos)
                pos += 1
                values[name] = struct.unpack_from(f">{count}{kind.fmt}", payload, pos)
                pos += count * kind.item.size
            else:
                (values[name],) = kind.item.unpack_from(payload, pos)
                pos += kind.item.size
        except struct.error:
            raise PayloadError(f"payload too short at field {name!r}: {payload.hex(' ')}") from None
    if pos != len(payload):
        raise PayloadError(f"{len(payload) - pos} unexpected bytes after the last field: {payload.hex(' ')}")
    return values


@dataclass(frozen=True)
class Command:
    """A row of a device's command table: TYPE code, request fields, response fields."""

    name: str
    code: int
    request: tuple[Field, ...] = ()
    response: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        if not (0x10 <= self.code <= 0x3F):
            raise ValueError(f"command {self.name}: code {self.code:#04x} outside 0x10-0x3F")


@dataclass(frozen=True)
class EventSpec:
    """A row of a device's event table: TYPE code and payload fields."""

    name: str
    code: int
    fields: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        if not is_event(self.code):
            raise ValueError(f"event {self.name}: code {self.code:#04x} outside 0x80-0xBF")


def table(*rows):
    """``{code: row}`` for a command or event table, refusing duplicate codes or names."""
    by_code = {}
    names = set()
    for row in rows:
        if row.code in by_code or row.name in names:
            raise ValueError(f"duplicate table row {row.name} {row.code:#04x}")
        by_code[row.code] = row
        names.add(row.name)
    return by_code


#: the mark after the protocol in a HELLO (tabled_drivers.link.codec.HELLO_MARK, "TBL2")
HELLO_MARK = int.from_bytes(b"TBL2", "big")
HELLO_COMMAND = Command(
    "hello", HELLO,
    request=(("protocol", U8), ("mark", U32)),
    response=(("protocol", U8), ("kind", U8), ("boot_id", U32)),
)
PING_COMMAND = Command("ping", PING)


def agree(hello_payload: bytes, highest: int = PROTOCOL_VERSION) -> int:
    """The protocol a device answers a HELLO with: the lower of the one asked for and ``highest``,
    the newest it speaks (a request without a protocol, or with 0, is protocol 1)."""
    asked = hello_payload[0] if hello_payload else 1
    return max(1, min(asked, highest))

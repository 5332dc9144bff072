"""The frame checks: CRC-16/CCITT-FALSE (protocol 1, and HELLO and its response always) and
CRC-32 (protocol 2, every other frame).

CRC-16 parameters (Williams/Rocksoft model, as catalogued in reveng's CRC catalogue): width 16,
poly 0x1021, init 0xFFFF, refin false, refout false, xorout 0x0000, check ("123456789") 0x29B1.
The standard library's ``binascii.crc_hqx`` computes exactly this when seeded with 0xFFFF,
in C, so we use it rather than a table of our own.
"""

from __future__ import annotations

import binascii
import zlib

CRC_NAME = "CRC-16/CCITT-FALSE"
CRC_INIT = 0xFFFF
CRC_CHECK = 0x29B1  # crc16(b"123456789"), the catalogue's check value


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE of ``data``."""
    return binascii.crc_hqx(data, CRC_INIT)


CRC32_NAME = "CRC-32/ISO-HDLC"
CRC32_CHECK = 0xCBF43926  # crc32(b"123456789"), the catalogue's check value


def crc32(data: bytes | bytearray | memoryview) -> int:
    """CRC-32/ISO-HDLC of ``data`` (width 32, poly 0x04C11DB7, init 0xFFFFFFFF, reflected in and
    out, xorout 0xFFFFFFFF): the standard library's ``zlib.crc32``, in C."""
    return zlib.crc32(data)

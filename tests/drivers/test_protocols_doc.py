"""docs/protocols.md stays true: every command and event of the serial devices is documented with
its TYPE code, and the example frames are what the encoder produces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabled_drivers import betspots, meter, shuffler
from tabled_drivers.link.codec import Decoder, Frame

DOC = (Path(__file__).resolve().parents[2] / "docs" / "protocols.md").read_text()


@pytest.mark.parametrize("module", [shuffler, betspots, meter])
def test_every_table_row_is_documented(module):
    rows = list(module.COMMANDS.values()) + list(module.EVENTS.values())
    for row in rows:
        assert re.search(rf"\| 0x{row.code:02X} \| {row.name} \|", DOC), f"{module.__name__}: {row.name}"


def test_example_frames_decode_as_described():
    examples = {
        "7e 00 02 11 a8 ee": Frame(2, 0x11),
        "7e 01 02 51 00 a1 9a": Frame(2, 0x51, b"\x00"),
        "7e 03 2a 81 7d 5e 00 7d 5d 49 55": Frame(0x2A, 0x81, b"\x7e\x00\x7d"),
        "7e 0a 07 82 02 00 01 05 33 2f 2b 27 23 04 dd 2b":
            Frame(7, 0x82, bytes.fromhex("02 00 01 05 33 2f 2b 27 23 04")),
        "7e 00 07 01 45 2a": Frame(7, 0x01),
    }
    for text, frame in examples.items():
        assert text in DOC
        assert Decoder().decode(bytes.fromhex(text)) == [frame]

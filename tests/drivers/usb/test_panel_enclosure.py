"""The enclosures' door switches on the panel's input: the enclosure_door frame end to end through
real usb.core and the simulated backend, its bytes as docs/protocols-usb.md gives them, nonsense
reported."""

from pathlib import Path

import pytest

from tabled_drivers.base import BadDeviceData
from tabled_drivers.link import codec, messages as m
from tabled_drivers.panel import ENCLOSURE_DOOR, Enclosure, EnclosureDoor, PanelDriver
from tabled_drivers.sim.panel import PanelSimulator

from .support import FAST, plugged_in

DOC = (Path(__file__).resolve().parents[3] / "docs" / "protocols-usb.md").read_text()


async def test_a_door_opened_and_closed_reaches_the_driver_as_its_events():
    async with plugged_in(PanelSimulator(timing=FAST), PanelDriver, None) as (sim, driver, journal):
        sim.enclosure_door("table_pc", True)
        sim.enclosure_door("table-pc", False)
        sim.enclosure_door("pool_server", True)
        await journal.until_count(EnclosureDoor, 3)
        assert [(e.door, e.open) for e in journal.of(EnclosureDoor)] == [
            (Enclosure.TABLE_PC, True), (Enclosure.TABLE_PC, False), (Enclosure.POOL_SERVER, True)]
        assert str(journal.of(EnclosureDoor)[0]) == "panel: table_pc enclosure door opened"


async def test_a_door_code_or_state_out_of_range_is_nonsense():
    async with plugged_in(PanelSimulator(timing=FAST), PanelDriver, None) as (sim, driver, journal):
        sim.send_event(ENCLOSURE_DOOR, door=7, open=1)
        sim.send_event(ENCLOSURE_DOOR, door=0, open=2)
        bad = await journal.until_count(BadDeviceData, 2)
        assert "enclosure code 7" in bad[0].reason and "enclosure door state 2" in bad[1].reason


def test_the_documented_frames_are_what_the_panel_sends():
    opened = codec.encode(9, ENCLOSURE_DOOR.code, m.pack(ENCLOSURE_DOOR.fields, {"door": 0, "open": 1}))
    closed = codec.encode(10, ENCLOSURE_DOOR.code, m.pack(ENCLOSURE_DOOR.fields, {"door": 0, "open": 0}))
    assert opened.hex(" ") in DOC and closed.hex(" ") in DOC and "| 0x87 | enclosure_door |" in DOC


def test_the_simulator_names_only_its_doors():
    with pytest.raises(ValueError, match="no Enclosure 'cellar'"):
        PanelSimulator().enclosure_door("cellar", True)

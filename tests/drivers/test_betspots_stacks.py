"""Rule 5.8 on the wire: the bet-spot board reports how many separate stacks lie on each wagering
area, and a count that cannot be (stacks without chips, chips without a stack, an absurd count)
is a typed device fault, as other nonsense is."""

from __future__ import annotations

import pytest

from tabled_drivers.base import BadDeviceData
from tabled_drivers.betspots import MAX_SPOTS, MAX_STACKS, POLL, BetSpotsDriver, Wager, WagersChanged, parse_reading
from tabled_drivers.link.codec import encode
from tabled_drivers.link import messages as m
from tabled_drivers.sim.base import ScriptError
from tabled_drivers.sim.betspots import BetSpotsSim
from tests.drivers.helpers import FAST, connect

TWO_ANTES = {"spots": 7, "place": [{"spot": 1, "ante": 500},
                                   {"spot": 3, "ante": 1000, "ante_stacks": 2}]}  # "spot 3 places two separate antes"


async def test_each_area_reports_its_stacks_5_8():
    device = BetSpotsSim(TWO_ANTES, timing=FAST, seed=1)
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=10)
    reading = await driver.poll()
    assert reading.spot(3).ante == Wager(1000, 0, 2) and reading.spot(3).ante.stacks == 2
    assert reading.spot(1).ante.stacks == 1 and reading.spot(2).ante.stacks == 0
    assert reading.spot(3).bet.stacks == 0 and reading.spot(3).progressive.stacks == 0
    device.place(3, ante=1000)  # the player joins the two stacks into one: news though the amount is not
    joined = await driver.poll()
    assert joined.spot(3).ante == Wager(1000, 0, 1)
    assert [e.reading for e in rec.of(WagersChanged)] == [reading, joined]
    await driver.stop()


async def test_the_largest_reading_fits_one_frame():
    """A u8 per area makes the reading 229 bytes for 8 spots: within the 240-byte payload."""
    sim = BetSpotsSim({"spots": MAX_SPOTS})
    for spot in range(1, MAX_SPOTS + 1):
        sim.place(spot, ante=10**6, ante_tokens=1, bet=2 * 10**6, progressive=100, ante_stacks=MAX_STACKS)
    status, payload = await sim.handle(POLL.code, b"")
    assert status == m.Status.OK
    assert 1 + len(payload) == 229  # with the status byte
    encode(9, m.response_type(POLL.code), bytes([m.Status.OK]) + payload)  # the codec takes it
    reading = parse_reading(m.unpack(POLL.response, payload), MAX_SPOTS)
    assert reading.spot(MAX_SPOTS).ante == Wager(10**6, 1, MAX_STACKS)


@pytest.mark.parametrize("placement, words", [
    ({"ante": 0, "ante_stacks": 2}, "spot 4: 2 stacks but no amount on the ante area"),
    ({"bet": 2000, "bet_stacks": 0}, "spot 4: 2000 cents but no stack on the bet area"),
    ({"progressive": 100, "progressive_stacks": 200}, "spot 4: 200 stacks on the progressive area"),
])
async def test_nonsense_stack_counts_are_typed_faults(placement, words):
    device = BetSpotsSim(TWO_ANTES, timing=FAST, seed=1)
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=0.01)
    await rec.wait_for(lambda r: r.of(WagersChanged))
    device.place(4, **placement)
    await rec.wait_for(lambda r: r.of(BadDeviceData))
    assert words in rec.of(BadDeviceData)[0].reason
    device.place(4, ante=0, bet=0, progressive=0)  # sane again: readings flow
    device.place(6, ante=100)
    await rec.wait_for(lambda r: any(e.reading.spot(6).ante.total == 100 for e in r.of(WagersChanged)))
    await driver.stop()


@pytest.mark.parametrize("script, words", [
    ({"place": [{"spot": 1, "ante": 5, "ante_stacks": -1}]}, "place[0].ante_stacks: a count of stacks 0-255"),
    ({"after_lock": [{"spot": 1, "bet_stacks": "two"}]}, "after_lock[0].bet_stacks"),
    ({"place": [{"spot": 1, "ante_stack": 2}]}, "place[0]: a table with 'spot'"),
])
def test_stack_script_errors_name_the_key(script, words):
    with pytest.raises(ScriptError) as exc:
        BetSpotsSim(script)
    assert words in str(exc.value)


async def test_the_documented_reading_example_is_what_the_simulator_sends():
    """docs/protocols.md's POLL response example: two antes on spot 2 (5.8), byte by byte."""
    from pathlib import Path

    from tabled_drivers.link.codec import Decoder
    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocols.md").read_text()
    sim = BetSpotsSim({"spots": 2, "place": [{"spot": 1, "ante": 500}, {"spot": 2, "ante": 1000, "ante_stacks": 2}]})
    status, payload = await sim.handle(POLL.code, b"")
    wire = encode(5, m.response_type(POLL.code), bytes([status]) + payload)
    assert wire.hex(" ") in doc
    (frame,) = Decoder().decode(wire)
    reading = parse_reading(m.unpack(POLL.response, frame.payload[1:]), 2)
    assert reading.spot(2).ante == Wager(1000, 0, 2) and reading.spot(1).ante == Wager(500, 0, 1)

"""The bet-spot board through its driver and in-process simulator (rules 5.1, 7.2.1, 11.1, 11.2)."""

from __future__ import annotations

import pytest

from drivers.base import BadDeviceData
from drivers.betspots import (ENABLE_PROGRESSIVE, BetSpotsDriver, Lamp, Wager, WagerAfterLock,
                              WagersChanged)
from drivers.link.errors import CommandRejected
from drivers.sim.base import ScriptError
from drivers.sim.betspots import BetSpotsSim
from tests.drivers.helpers import FAST, connect

TABLE = {
    "spots": 7,
    "place": [
        {"spot": 1, "ante": 500, "ante_tokens": 500, "progressive": 100},  # 5.1: chips and tokens
        {"spot": 3, "ante": 1000},
    ],
}


def board(script=TABLE, **kw):
    return BetSpotsSim(script, timing=FAST, seed=1, **kw)


async def test_poll_reports_each_wager_as_chips_and_tokens():
    driver, rec = await connect(board(), BetSpotsDriver, poll_interval=0.01)
    await rec.wait_for(lambda r: r.of(WagersChanged))
    reading = rec.of(WagersChanged)[0].reading
    assert not reading.locked and len(reading.spots) == 7
    assert reading.spot(1).ante == Wager(chips=500, tokens=500) and reading.spot(1).ante.total == 1000
    assert reading.spot(1).progressive == Wager(100, 0)
    assert reading.spot(3).ante == Wager(1000, 0) and reading.spot(2).ante.total == 0
    await driver.stop()


async def test_a_changed_wager_is_reported_once_per_change():
    device = board()
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=0.01)
    await rec.wait_for(lambda r: r.of(WagersChanged))
    device.place(5, ante=2500, bet=5000)
    await rec.wait_for(lambda r: len(r.of(WagersChanged)) == 2)
    for _ in range(5):
        await driver.poll()  # unchanged: nothing more to report
    assert len(rec.of(WagersChanged)) == 2
    assert rec.of(WagersChanged)[1].reading.spot(5).bet == Wager(5000, 0)
    await driver.stop()


async def test_progressive_acceptance_only_where_an_ante_is_present():
    """11.1: refused by the driver before sending, and by the board if asked anyway."""
    device = board()
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=10)
    with pytest.raises(ValueError, match=r"rule 11.1: no ante on spot 2"):
        await driver.enable_progressive([1, 2])
    with pytest.raises(CommandRejected, match=r"REFUSED.*no ante on spot 2"):
        await driver.call(ENABLE_PROGRESSIVE, spots=[1, 2])
    await driver.enable_progressive([1, 3])
    assert device.accepting == [True, False, True, False, False, False, False]
    with pytest.raises(ValueError, match="no spot 8"):
        await driver.enable_progressive([8])
    await driver.stop()


async def test_lock_at_no_more_bets_and_a_wager_after_the_lock_is_a_fault():
    """7.2.1: "no more bets" locks every spot; spot 3 adding a progressive wager after it is reported."""
    script = dict(TABLE, after_lock=[{"spot": 3, "progressive": 100}])
    driver, rec = await connect(board(script), BetSpotsDriver, poll_interval=0.01)
    await driver.enable_progressive([1, 3])
    locked = await driver.lock()
    assert locked.locked and locked.spot(3).progressive.total == 0  # as it stood at the lock
    assert locked.spot(1).accepting_progressive and not locked.spot(2).accepting_progressive
    await rec.wait_for(lambda r: r.of(WagerAfterLock))
    fault = rec.of(WagerAfterLock)[0]
    assert fault.spot == 3 and fault.after.progressive == Wager(100, 0) and "7.2.1" in fault.reason
    with pytest.raises(CommandRejected, match="locked"):
        await driver.enable_progressive([1])
    await driver.unlock()
    reading = await driver.poll()
    assert not reading.locked and not any(s.accepting_progressive for s in reading.spots)
    await driver.stop()


async def test_lamps_show_the_accepted_progressive_wagers():
    """11.2: the player can see the progressive wager accepted."""
    device = board()
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=10)
    await driver.set_lamps({1: Lamp.ON, 3: Lamp.FLASH})
    assert device.lamps == [Lamp.ON, Lamp.OFF, Lamp.FLASH, Lamp.OFF, Lamp.OFF, Lamp.OFF, Lamp.OFF]
    with pytest.raises(ValueError, match="no spot 0"):
        await driver.set_lamps({0: Lamp.ON})
    await driver.stop()


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.place(4, bet=-200), "spot 4: negative amount -200"),
    (lambda d: setattr(d, "accepting", [2] + d.accepting[1:]), "spot 1: progressive acceptance flag 2"),
])
async def test_nonsense_readings_are_typed_faults(mutate, words):
    device = board()
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=0.01)
    await rec.wait_for(lambda r: r.of(WagersChanged))
    mutate(device)
    await rec.wait_for(lambda r: r.of(BadDeviceData))
    assert words in rec.of(BadDeviceData)[0].reason
    device.place(4, bet=0)
    device.accepting[0] = False
    device.place(6, ante=100)  # sane again: readings flow
    await rec.wait_for(lambda r: any(e.reading.spot(6).ante.total == 100 for e in r.of(WagersChanged)))
    await driver.stop()


async def test_a_board_with_other_spots_than_the_table_is_a_fault():
    driver, rec = await connect(board({"spots": 5}), BetSpotsDriver, spots=7, poll_interval=0.01)
    await rec.wait_for(lambda r: r.of(BadDeviceData))
    assert "board reports 5 spots" in rec.of(BadDeviceData)[0].reason
    await driver.stop()


@pytest.mark.parametrize("script, words", [
    ({"spots": 12}, "spots must be 1-9"),
    ({"place": [{"spot": 9, "ante": 5}]}, "place[0].spot: no spot 9"),
    ({"after_lock": [{"spot": 1, "ante": 2.5}]}, "after_lock[0].ante: whole cents"),
    ({"place": [{"ante": 5}]}, "place[0]"),
])
def test_script_errors_name_the_key(script, words):
    with pytest.raises(ScriptError) as exc:
        BetSpotsSim(script)
    assert words in str(exc.value)


def test_driver_spot_count_is_checked():
    with pytest.raises(ValueError, match="1 to 9 spots"):
        BetSpotsDriver(port="/dev/null", consumer=None, spots=10)

"""The bet-spot board through its driver and in-process simulator (rules 5.1, 7.2.1, 11.1, 11.2)."""

from __future__ import annotations

import pytest

from tabled_drivers.base import BadDeviceData
from tabled_drivers.betspots import (ENABLE_PROGRESSIVE, NO_MORE_BETS, Area, BetSpotsDriver, Lamp, Wager,
                              WagerAfterLock, WagersChanged)
from tabled_drivers.link.errors import CommandRejected
from tabled_drivers.sim.base import ScriptError
from tabled_drivers.sim.betspots import BetSpotsSim
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
    assert fault.areas == (Area.PROGRESSIVE,) and driver.locked_areas == NO_MORE_BETS
    with pytest.raises(CommandRejected, match="locked"):
        await driver.enable_progressive([1])
    await driver.unlock()
    reading = await driver.poll()
    assert not reading.locked and not any(s.accepting_progressive for s in reading.spots)
    await driver.stop()


async def _quiet_board():
    """A board polled only when the test says so, its first reading in."""
    device = board()
    driver, rec = await connect(device, BetSpotsDriver, poll_interval=10)
    await driver.poll()
    assert len(rec.of(WagersChanged)) == 1
    return device, driver, rec


async def test_a_bet_placed_while_players_decide_is_not_a_fault_5_5_8_5():
    """7.2.1 closes the ante and progressive areas only; a player who bets places it after the
    deal (5.5, 8.5), so the bet area stays open until the deciding phase closes."""
    device, driver, rec = await _quiet_board()
    await driver.lock()
    assert driver.locked_areas == {Area.ANTE, Area.PROGRESSIVE}
    device.place(1, bet=2000)  # twice the ante of 1,000 (5.5)
    reading = await driver.poll()
    assert reading.spot(1).bet == Wager(2000, 0)
    assert rec.of(WagersChanged)[-1].reading == reading  # still reported as a change...
    assert rec.of(WagerAfterLock) == []  # ...but not as a fault
    await driver.stop()


async def test_a_bet_changed_after_the_deciding_phase_closed_is_a_fault_8_6():
    device, driver, rec = await _quiet_board()
    await driver.lock()
    device.place(1, bet=2000)
    closed = await driver.close_bets()  # 8.6: the bets are in, the dealer reveals
    assert closed.spot(1).bet == Wager(2000, 0) and rec.of(WagerAfterLock) == []
    assert driver.locked_areas == {Area.ANTE, Area.BET, Area.PROGRESSIVE}
    device.place(1, bet=4000)
    await driver.poll()
    (fault,) = rec.of(WagerAfterLock)
    assert (fault.spot, fault.areas) == (1, (Area.BET,))
    assert fault.before.bet == Wager(2000, 0) and fault.after.bet == Wager(4000, 0)
    assert "the deciding phase closed (8.6)" in fault.reason and "7.2.1" not in fault.reason
    await driver.stop()


async def test_an_ante_changed_after_no_more_bets_names_its_area_7_2_1():
    device, driver, rec = await _quiet_board()
    await driver.lock()
    device.place(3, ante=2000, bet=4000)  # ante raised after the lock; the bet is still allowed
    await driver.poll()
    (fault,) = rec.of(WagerAfterLock)
    assert (fault.spot, fault.areas) == (3, (Area.ANTE,))
    assert fault.reason == 'spot 3: ante changed after "no more bets" (7.2.1)'
    await driver.stop()


async def test_the_bet_area_closes_only_after_no_more_bets():
    _, driver, _ = await _quiet_board()
    with pytest.raises(ValueError, match="after 'no more bets'"):
        await driver.close_bets()
    assert driver.locked_areas == frozenset()
    await driver.stop()


async def test_locking_again_keeps_a_closed_bet_area_closed():
    """After a restart the table locks the board again mid-round: the bets stay closed."""
    _, driver, _ = await _quiet_board()
    await driver.lock()
    await driver.close_bets()
    await driver.lock()
    assert Area.BET in driver.locked_areas
    await driver.stop()


async def test_settlement_and_the_next_round_open_every_area_9_3_9_4():
    device, driver, rec = await _quiet_board()
    await driver.lock()
    await driver.close_bets()
    await driver.open_for_settlement()
    assert driver.locked_areas == frozenset()
    device.place(1, ante=0, ante_tokens=0, progressive=0)  # collected by the dealer
    await driver.poll()
    assert device.locked and rec.of(WagerAfterLock) == []  # the board still accepts no progressive
    await driver.lock()
    await driver.unlock()
    assert driver.locked_areas == frozenset() and not device.locked
    device.place(1, ante=500)
    await driver.poll()
    assert rec.of(WagerAfterLock) == []
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
    ({"spots": 9}, "spots must be 1-8"),
    ({"place": [{"spot": 9, "ante": 5}]}, "place[0].spot: no spot 9"),
    ({"after_lock": [{"spot": 1, "ante": 2.5}]}, "after_lock[0].ante: whole cents"),
    ({"place": [{"ante": 5}]}, "place[0]"),
])
def test_script_errors_name_the_key(script, words):
    with pytest.raises(ScriptError) as exc:
        BetSpotsSim(script)
    assert words in str(exc.value)


def test_driver_spot_count_is_checked():
    with pytest.raises(ValueError, match="1 to 8 spots"):
        BetSpotsDriver(port="/dev/null", consumer=None, spots=9)

"""The progressive meter through its driver and in-process simulator (rules 2.4.3, 14.13)."""

from __future__ import annotations

import pytest

from tabled_drivers.base import BadDeviceData, LinkFailed
from tabled_drivers.link.errors import LinkDownError
from tabled_drivers.meter import (Display, MeterDriver, MeterFault, MeterFaultCleared, MeterFaultCode,
                           MeterMessage)
from tabled_drivers.sim.base import ScriptError
from tabled_drivers.sim.meter import MeterSim
from tests.drivers.helpers import FAST, connect


def meter(script=None):
    return MeterSim(script, timing=FAST, seed=2)


async def test_show_one_or_more_pools_in_cents():
    """2.4.3: the meter displays the jackpot pool; several pools for linked tables."""
    driver, rec = await connect(meter(), MeterDriver)
    await driver.show(1_234_567)
    assert await driver.showing() == Display(MeterMessage.AMOUNTS, (1_234_567,))
    await driver.show(3_000_000, 12_345_67)
    assert (await driver.showing()).amounts == (3_000_000, 1_234_567)
    await driver.blank()
    assert await driver.showing() == Display(MeterMessage.BLANK, ())
    await driver.show_offline()  # 14.13: play approved without the pool
    assert (await driver.showing()).message is MeterMessage.PROGRESSIVE_OFFLINE
    assert await driver.self_test() == 0
    await driver.stop()


@pytest.mark.parametrize("amounts, words", [
    ((-1,), "whole cents"), ((1.5,), "whole cents"), ((2**32,), "whole cents"), ((), "1 to 8 pools"),
    (tuple(range(9)), "1 to 8 pools"),
])
async def test_bad_amounts_are_refused_before_sending(amounts, words):
    device = meter()
    driver, rec = await connect(device, MeterDriver)
    with pytest.raises(ValueError, match=words):
        await driver.show(*amounts)
    assert "show" not in device.commands_seen
    await driver.stop()


async def test_faults_are_reported_for_rule_14_13():
    device = meter({"fault_after_commands": 1, "fault": "overheat"})
    driver, rec = await connect(device, MeterDriver)
    await driver.show(100)
    await rec.wait_for(lambda r: r.of(MeterFault))
    fault = rec.of(MeterFault)[0]
    assert fault.code is MeterFaultCode.OVERHEAT and "14.13" in fault.reason
    device.clear_fault(MeterFaultCode.OVERHEAT)
    await rec.wait_for(lambda r: r.of(MeterFaultCleared))
    device.emit_raw(0x80, bytes([77]))  # no such fault code
    await rec.wait_for(lambda r: r.of(BadDeviceData))
    assert "unknown meter fault code 77" in rec.of(BadDeviceData)[0].reason
    await driver.stop()


async def test_the_meter_stops_answering():
    """A silent meter is a lost link: reported once as a fault; commands fail at once after."""
    device = meter({"silent_after_commands": 2})
    driver, rec = await connect(device, MeterDriver)
    await driver.show(100)
    await driver.show(200)  # answered, then silence
    with pytest.raises(LinkDownError):
        await driver.show(300)
    await rec.wait_for(lambda r: r.of(LinkFailed))
    with pytest.raises(LinkDownError):
        await driver.blank()
    assert device.amounts == (200,)  # a dead meter neither hears nor answers
    await driver.stop()


@pytest.mark.parametrize("script, words", [
    ({"fault": "smoke"}, "fault: unknown value 'smoke'"),
    ({"self_test": "maybe"}, "self_test"),
    ({"silent_after_commands": -1}, "silent_after_commands"),
])
def test_script_errors_name_the_key(script, words):
    with pytest.raises(ScriptError) as exc:
        MeterSim(script)
    assert words in str(exc.value)

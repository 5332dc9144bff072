"""How long a fault has stood counts from when it was raised: the journal record's time, also
after the daemon restarts (not from the daemon's start). The dealer's screen and the pit's view
show the same age."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.harness import journal_records
from tests.web.daemon import browser, play, screen_of

pytestmark = pytest.mark.timeout(120)


def meter_fault(view) -> dict:
    fault, = [f for f in view["faults"] if f["id"] == "equipment:meter"]
    return fault


@pytest.mark.slow
async def test_a_fault_stands_since_its_record_also_after_a_restart(tmp_path):
    seen: dict = {}

    async def before(run):
        await run.rounds(1)
        run.table.submit("equipment.fault", {"equipment": "meter", "reason": "display dark"})
        await run.until(lambda: "meter" in run.core.equipment.faults, act=False)
        await run.until(lambda: screen_of(run).view["faults"], act=False)
        seen["live"] = meter_fault(screen_of(run).view)["since_ms"]
        run.floor.paused = True

    await play(tmp_path, before)
    raised, = journal_records(tmp_path, "fault.raised")
    # live, the fault counts from its input's time; its note is journaled just after that input
    assert seen["live"] <= raised.time_us // 1000 < seen["live"] + 1000
    last_before = journal_records(tmp_path)[-1].seq

    async def after(run):  # the same journal: the fault stands (14.13), no inspector came
        started = journal_records(tmp_path)[last_before]  # the first record of this start
        server = screen_of(run)
        assert "meter" in run.core.equipment.faults
        assert meter_fault(server.view)["since_ms"] == raised.time_us // 1000 < started.time_us // 1000
        async with asyncio.timeout(5):
            while server.pit is None:
                await asyncio.sleep(0.02)
        assert meter_fault(server.pit["screen"])["since_ms"] == raised.time_us // 1000
        async with browser() as b:
            page = await b.new_page()
            await page.goto(server.url)
            await page.wait_for_selector("#faults .fault")
            assert await page.get_attribute("#faults .fault", "data-since") == str(raised.time_us // 1000)
        run.floor.paused = True

    await play(tmp_path, after)

"""The shuffling device's simulator killed while a round deals from it: the dealer's screen shows a
standing fault, decided by the fold from the lost link (tabled/table/links.py), with its rule (15.2),
what the dealer does and the key that acts. The delay from the kill to the fault in the page is
measured and printed (benchmarks/bench_lost_link.py measures it over many kills)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.integration.harness import journal_records
from tests.web.daemon import browser, play, screen_of

pytestmark = pytest.mark.timeout(180)

ATTEMPTS = 10  # rounds in which to catch the deal before its hands are all delivered
Kill = asyncio.Future  # when the kill was sent (time.monotonic())


@pytest.mark.slow
async def test_the_shuffling_device_killed_mid_deal_is_a_fault_on_screen_with_its_rule_and_key_15_2(tmp_path):
    measured: dict[str, float] = {}

    async def scenario(run):
        await run.rounds(1)
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url)
            await page.wait_for_selector("#next")
            for _ in range(ATTEMPTS):
                killed: Kill = asyncio.get_running_loop().create_future()

                def at_the_deal(_effects, killed: Kill = killed) -> None:  # the first input finding it dealing
                    r = run.core.round
                    if r is not None and not killed.done() and r.phase == "dealing" and not r.deliveries:
                        killed.set_result(time.monotonic())
                        run.sims.serial["shuffler"].proc.kill()  # SIGKILL: the cable pulled, now
                run.table.listeners.append(at_the_deal)
                try:
                    await run.until(lambda: killed.done())  # noqa: B023
                finally:
                    run.table.listeners.remove(at_the_deal)
                t_kill = killed.result()
                await run.until(lambda: not run.core.equipment.links.is_up("shuffler"), act=False)
                if run.core.round is not None and run.core.round.phase == "dealing":
                    break  # caught mid-deal
                await run.sims.unplug("shuffler")  # the deal was done before the kill: again
                await run.sims.replug("shuffler")
                await run.rounds(1)
            else:
                pytest.fail(f"no deal caught in {ATTEMPTS} rounds")
            row = page.locator("#faults .fault", has_text="shuffling device not answering while dealing")
            await row.wait_for()
            measured["kill_to_page_s"] = time.monotonic() - t_kill
            text = await row.inner_text()
            assert "15.2" in text and "key: supervisor" in text and "void the round (15.2.1)" in text
            (fault,) = [f for f in screen_of(run).view["faults"] if f["id"] == "link:shuffler"]
            assert fault["rule"] == "15.2" and fault["key"] == "supervisor"
            await run.sims.unplug("shuffler")  # the device comes back: the deal goes on
            await run.sims.replug("shuffler")
            await row.wait_for(state="detached")
        await run.rounds(1)

    await play(tmp_path, scenario)
    lost = [r for r in journal_records(tmp_path, "device.link") if not r.payload["up"]]
    assert lost and lost[-1].payload["device"] == "shuffler"
    print(f"\nshuffling device killed mid-deal -> fault in the page: {measured['kill_to_page_s'] * 1000:.0f} ms")

"""A shuffling device out of play (15.2) on the dealer's screen, in Chromium: what it is, that the
inspector must clear it and the key, since when; after a restart the same (the table's state from
the checkpoint and the journal), until the inspector clears it and play goes on with it."""

from __future__ import annotations

import pytest

from tests.integration.harness import journal_records
from tests.web.daemon import browser, play, screen_of

pytestmark = pytest.mark.timeout(120)


def out_of_play(view) -> list[dict]:
    return [f for f in view["faults"] if f["id"] == "shuffler_out"]


@pytest.mark.slow
async def test_the_device_out_of_play_is_on_screen_across_a_restart_until_the_inspector_clears_it_15_2(tmp_path):
    async def before(run):
        await run.rounds(2)
        shuffler = run.sims.control("shuffler")
        for _ in range(2):  # two shuffles that only cut: 15.1, then 15.2
            await shuffler.call("plan_shuffle", mixing="cut")
        await run.until(lambda: run.core.decks.device_out is not None)
        await run.until(lambda: bool(out_of_play(screen_of(run).view)), act=False)

    await play(tmp_path, before)
    (out,) = journal_records(tmp_path, "device.out_of_play")

    async def after(run):  # the same journal: the device is still out, nobody cleared it
        assert run.core.decks.device_out is not None and run.core.decks.shuffler_failed and run.core.round is None
        (fault,) = out_of_play(screen_of(run).view)
        assert fault["key"] == "inspector" and fault["since_ms"] == out.payload["since_ms"]
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url)
            row = page.locator("#faults .fault", has_text="out of play")
            await row.wait_for()
            text = await row.inner_text()
            assert "shuffling device out of play: not intermixing: repeated shuffle alarms" in text
            assert "inspector must clear it (APPROVE with the inspector key)" in text and "key: inspector" in text
            assert await row.get_attribute("data-since") == str(out.payload["since_ms"])
            run.floor.inspector = True  # the inspector comes and clears it
            await run.until(lambda: run.core.decks.device_out is None)
            await row.wait_for(state="detached")
        await run.rounds(1)  # play goes on with the device

    run = await play(tmp_path, after)
    (cleared,) = journal_records(tmp_path, "device.cleared")
    later = [r for r in journal_records(tmp_path, "round.started") if r.seq > cleared.seq]
    assert later and all(r.payload["card_source"] == "shuffler" for r in later)
    assert run.core.decks.device_out is None

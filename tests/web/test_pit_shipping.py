"""A table whose config says its shipping may wait (``journal.ship_may_wait``) starts without the
shipping's password: it plays, the pit shows a standing warning that the journal is not shipped,
and the log says it once (no retry a second)."""

from __future__ import annotations

import dataclasses
import io

import pytest
from structlog.testing import capture_logs

from tabled.commands.run import Seams, run_table
from tests.integration import harness
from tests.web.daemon import LOCAL, browser, screen_of

pytestmark = pytest.mark.timeout(180)

MISSING = "journal.ship_to: systemd's credential journal-central-password is missing"


@pytest.mark.slow
async def test_shipping_that_may_wait_plays_unshipped_with_a_standing_warning_on_the_pit(tmp_path, monkeypatch):
    (tmp_path / "credentials").mkdir()
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path / "credentials"))
    seen: dict = {}

    async def scenario(run: harness.Run) -> None:
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url + "pit")
            await run.rounds(1)
            await page.wait_for_selector("#shipping:not([hidden])", timeout=10_000)
            seen["pit"] = await page.text_content("#shipping")
            seen["view"] = screen_of(run).pit["journal"]["shipping_waits"]

    cfg = harness.config(tmp_path)
    cfg = dataclasses.replace(cfg, screen=LOCAL, journal=dataclasses.replace(
        cfg.journal, ship_to="postgresql://tabled_sim01@127.0.0.1/journal", ship_may_wait=True))
    with capture_logs() as logs:
        await run_table(cfg, 0, out=io.StringIO(), human=True,
                        seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL,
                                    hooks=harness.Run(scenario)))
    assert seen["view"].startswith(MISSING) and "journal.ship_may_wait" in seen["view"]
    assert seen["pit"] == "NOT SHIPPED to the central copy: " + seen["view"]
    shipping = [e for e in logs if e["event"].startswith("shipping.")]
    assert [e["event"] for e in shipping] == ["shipping.waiting"] and shipping[0]["reason"] == seen["view"]
    assert len(harness.journal_records(tmp_path)) > 10  # the round was played and journaled


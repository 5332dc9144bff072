"""The floor's view in a real browser (Debian's chromium through Playwright) against 20 simulated
tables shipping their sealed journals to a PostgreSQL the test started: every table shown, a fault
on one shown with how long it has stood, its alert acknowledged by a named person (the row is on
the central server, and stays), and one table's central copy rewritten by someone with more
rights than a table, re-hashed so its chain is intact, flagged by its seals."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from datetime import datetime

import psycopg
import pytest

from tabled.commands.run import Seams, run_table
from tabled.floor.service import Floor
from tests.floor.casino import Casino, rewrite_central
from tests.integration.harness import FAST, POLL, Discard, Run, config
from tests.web.daemon import browser

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300)]
STOOD_S = 754  # how long the fault is made to have stood when the page is looked at (12 min 34 s)


@pytest.mark.slow
def test_the_floor_shows_twenty_tables_a_fault_an_acknowledged_alert_and_a_broken_seal(tmp_path, pg_dsn,
                                                                                          monkeypatch):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    casino = Casino(pg_dsn, tmp_path / "casino", 20)
    faulty, rewritten = casino.tables[6], casino.tables[12]   # T07 plays in this process; T13's copy is changed
    others = [t for t in casino.tables if t is not faulty]
    begun = time.monotonic()
    casino.play(3, others)
    played = time.monotonic()
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(faulty.credentials))  # T07's shipper's password
    cfg = config(faulty.folder)
    cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, id=faulty.table_id),
                              journal=dataclasses.replace(cfg.journal, signing_key=faulty.private_key,
                                                          ship_to=faulty.dsn),
                              screen=dataclasses.replace(cfg.screen, enabled=False))
    shift = [0.0]
    floor = casino.floor(tmp_path, clock=lambda: time.time() + shift[0], poll_ms=200, silent_after_s=3600)
    seen: dict = {}

    async def on_the_floor(run: Run) -> None:
        await run.rounds(2)
        await run.sims.control("meter").call("silent", on=True)   # the meter stops answering: 14.13
        await run.until(lambda: "meter" in run.core.equipment.faults, act=False)
        async with asyncio.timeout(60):
            while not any(w.faults for w in floor.tables.values()):
                await floor.polled()
        fault = floor.tables[faulty.table_id].faults["meter"]
        shift[0] = fault.since_s + STOOD_S - time.time()   # the floor looks 12 min 34 s after the fault
        await floor.polled()
        async with browser() as b:
            page = await b.new_page()
            await page.goto(floor.url)
            await page.wait_for_selector("body[data-link=up]")
            await page.wait_for_function("document.querySelectorAll('.table').length === 20")
            seen["tables"] = await page.eval_on_selector_all(".table h3", "hs => hs.map(h => h.textContent)")
            card = f".table[data-table={faulty.table_id}]"
            await page.wait_for_selector(f"{card} .fault-line")
            seen["fault"] = await page.text_content(f"{card} .fault-line")
            seen["state"] = await page.text_content(".table[data-table=T01] .state")
            seen["today"] = await page.text_content(".table[data-table=T01] .today")
            seen["same_day"] = datetime.fromtimestamp(floor.clock()).date() == datetime.fromtimestamp(
                fault.since_s).date()
            seen["verify"] = await page.text_content(".table[data-table=T01] .verify")
            seen["lag"] = await page.text_content(".table[data-table=T01] .lag")
            bad = f".table[data-table={rewritten.table_id}]"
            await page.wait_for_selector(f"{bad}[data-verify=failed]")
            seen["broken"] = await page.text_content(f"{bad} .verify")
            await page.screenshot(path=str(shots / "floor.png"), full_page=True)

            alert = f"li[data-alert^='{faulty.table_id}:fault:']"
            seen["alert"] = await page.text_content(f"{alert} .text")
            await page.click(f"{alert} button")   # no name typed: refused on the page
            seen["no_name"] = await page.text_content("#ack-error")
            await page.fill("#who", "Dana Whitfield")
            await page.click(f"{alert} button")
            await page.wait_for_selector(f"{alert}.acked")
            seen["acked"] = await page.text_content(f"{alert} .ack")
            seen["seal_alert"] = await page.text_content(f"li[data-alert^='{rewritten.table_id}:seal:'] .text")
            await page.screenshot(path=str(shots / "floor-alerts.png"), full_page=True)
        seen["fault_alert_id"] = await page_alert_id(floor, faulty.table_id)

    async def main() -> None:
        await casino.catch_up(others)
        # T13's first reading of the bet-spot board: spot 1's $5.00 ante made $90.00 on the central copy
        with psycopg.connect(pg_dsn) as conn:
            seen["wager"] = conn.execute("SELECT min(seq) FROM journal_records WHERE table_id = %s AND kind = "
                                         "'board.reading'", (rewritten.table_id,)).fetchone()[0]
        rewrite_central(pg_dsn, rewritten.table_id, seen["wager"], raise_spot_1)
        await floor.start()
        polling = asyncio.create_task(floor.run())
        try:
            await run_table(cfg, 0, out=Discard(), human=True,
                            seams=Seams(timing=FAST, poll_interval=POLL, state_dir=faulty.folder / "dev",
                                        hooks=Run(on_the_floor)))
        finally:
            polling.cancel()
            await floor.stop()

    started = time.monotonic()
    asyncio.run(main())
    print(f"the tables in processes played in {played - begun:.1f} s; the rest took {time.monotonic() - started:.1f} s")
    print(f"screenshots: {shots}")
    assert seen["tables"] == [f"T{n:02d}" for n in range(1, 21)]
    assert seen["fault"].startswith("FAULT meter: link lost") and "open for 12 min 3" in seen["fault"]
    assert seen["state"] == "T01-000004: betting"  # three rounds played, the fourth open for wagers
    # T01's three rounds are today's, unless the floor's clock, 12 min 34 s on, has passed midnight
    assert seen["today"].startswith("today: 3 rounds, house win " if seen["same_day"] else "today: 0 rounds")
    assert seen["lag"].startswith("journal: record ") and seen["lag"].endswith(", 0 records behind")
    assert seen["verify"].startswith("chain and ") and "seals verify through record" in seen["verify"]
    assert seen["broken"] == f"seal check failed at record {seen['wager']}"
    assert "meter failed" in seen["alert"]
    assert seen["no_name"] == "type your name first: an alert is acknowledged by a named person"
    assert seen["acked"].startswith(" - acknowledged by Dana Whitfield at ")
    assert seen["seal_alert"].startswith(f"{rewritten.table_id}: record {seen['wager']} is not the record its seal "
                                         "signed (rewritten)")
    with psycopg.connect(pg_dsn) as conn:   # the acknowledgement is journaled centrally, and stays
        acks = conn.execute("SELECT alert, table_id, who, viewer FROM floor_acks").fetchall()
        assert acks == [(seen["fault_alert_id"], faulty.table_id, "Dana Whitfield", "local")]
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
            conn.execute("UPDATE floor_acks SET who = 'someone else'")


async def page_alert_id(floor: Floor, table_id: str) -> str:
    return next(a for a in floor.alerts if a.startswith(f"{table_id}:fault:"))


def raise_spot_1(reading: dict) -> dict:
    spots = [dict(s) for s in reading["spots"]]
    spots[0]["ante"] = {**spots[0]["ante"], "cents": 9000}
    return {**reading, "spots": spots}

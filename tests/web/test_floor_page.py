"""The floor's page in Chromium (tabled/web_assets/floor.js) against a PostgreSQL the test started:
it updates in place, so a click on "acknowledge" while updates keep arriving lands on the button
it was aimed at; when the central database stops answering every table is shown stale (never a
green "live" over old data); its times are UTC, as everywhere else in tabled."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import pytest

from tests.floor.casino import Casino
from tests.pool.proxy import LinkProxy
from tests.web.floorpage import floor_page

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300)]
SIZES = [(1024, 768), (1280, 800), (1920, 1080)]
UPDATES = 10   # views the page takes while the person types a name and clicks


def journals(casino: Casino, faulty: tuple[int, ...] = ()) -> None:
    """A round started at every table; a fault at those numbered ``faulty`` (from 0)."""
    for n, t in enumerate(casino.tables):
        with t.open_journal() as j:  # sealed, as the daemon writes it (the floor has the key)
            j.append("round.started", {}, f"{t.table_id}-000001")
            if n in faulty:
                j.append("fault.raised", {"equipment": "betspots", "reason": "link lost", "rule": "14.13"})


def test_a_click_on_acknowledge_while_updates_arrive_succeeds(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 3)
    journals(casino, faulty=(1,))
    seen: dict = {}

    async def go() -> None:
        await casino.catch_up()
        floor = casino.floor(tmp_path, poll_ms=50)
        async with floor_page(floor) as (page, errors):
            alert = "li[data-alert='T02:fault:3']"  # record 3: the round's start and its seal before it
            await page.wait_for_selector(f"{alert} button")
            await page.evaluate(f"window.aimed = document.querySelector(\"{alert} button\")")
            polls = int(await page.get_attribute("body", "data-polls"))
            await page.wait_for_function(f"Number(document.body.dataset.polls) >= {polls + UPDATES}")
            seen["same_button"] = await page.evaluate(f"document.querySelector(\"{alert} button\") === aimed")
            seen["same_card"] = await page.evaluate(
                "(() => { const c = document.querySelector('.table[data-table=T01]'); window.seenCard = c;"
                " return c !== null; })()")
            await page.fill("#who", "Dana Whitfield")
            await page.click(f"{alert} button")
            await page.wait_for_function(f"document.querySelector(\"{alert}.acked\") || "
                                         "document.getElementById('ack-error').textContent")
            seen["error"] = await page.text_content("#ack-error")
            seen["acked"] = await page.text_content(f"{alert} .ack")
            seen["card_kept"] = await page.evaluate("document.querySelector('.table[data-table=T01]') === seenCard")
            seen["summary"] = await page.text_content("#summary")
            seen["at_s"] = floor.acks["T02:fault:3"]["at_s"]
            for width, height in SIZES:
                await page.set_viewport_size({"width": width, "height": height})
                await page.screenshot(path=str(tmp_path / f"floor-{width}x{height}.png"), full_page=True)
            print(f"screenshots: {tmp_path}")
            seen["errors"] = errors

    asyncio.run(go())
    assert seen["error"] == "" and seen["errors"] == []
    assert seen["same_button"] and seen["same_card"] and seen["card_kept"]
    at = datetime.fromtimestamp(seen["at_s"], UTC)
    assert seen["acked"] == f" - acknowledged by Dana Whitfield at {at:%Y-%m-%d %H:%M:%S} UTC"
    assert seen["summary"].startswith("3 tables, 0 alerts open, as of 20") and seen["summary"].endswith(" UTC")


def test_the_central_database_stopped_shows_every_table_stale(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 3)
    journals(casino)
    seen: dict = {}
    shift = [0.0]

    async def go() -> None:
        await casino.catch_up()
        proxy = await LinkProxy(casino.floor_dsn).start()
        floor = casino.floor(tmp_path, central=proxy.dsn, clock=lambda: time.time() + shift[0], poll_ms=100)
        try:
            async with floor_page(floor, {"width": 1280, "height": 800}) as (page, _):
                await page.wait_for_function("document.querySelectorAll('.table[data-stale=no]').length === 3")
                seen["live"] = await page.text_content("#link")
                proxy.cut()                        # the central database stops answering the floor
                await floor.polled()
                shift[0] = floor.stale_after_s + 1    # and stays silent for longer than three polls
                await page.wait_for_function("document.querySelectorAll('.table[data-stale=yes]').length === 3")
                seen["link"] = await page.text_content("#link")
                seen["body"] = await page.get_attribute("body", "data-link")
                seen["central"] = await page.text_content("#central")
                seen["line"] = await page.text_content(".table[data-table=T01] .stale-line")
                seen["read_s"] = floor.tables["T01"].read_s
                await page.screenshot(path=str(tmp_path / "floor-stale.png"), full_page=True)
                proxy.restore()                    # back: fresh again
                await page.wait_for_function("document.querySelectorAll('.table[data-stale=no]').length === 3")
                seen["again"] = await page.text_content("#link")
        finally:
            proxy.cut()

    asyncio.run(go())
    assert seen["live"] == "live" and seen["again"] == "live"
    assert seen["link"] == "stale: the central data is not moving" and seen["body"] == "stale"
    assert seen["central"].startswith("central database unreachable: ")
    read = datetime.fromtimestamp(seen["read_s"], UTC)
    assert seen["line"] == f"stale: its central copy was last read at {read:%Y-%m-%d %H:%M:%S} UTC"


def test_the_page_filters_by_pit_by_trouble_and_by_table(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 4)
    journals(casino, faulty=(1,))  # T02's bet-spot board failed
    seen: dict = {}
    visible = ("Array.from(document.querySelectorAll('.table')).filter(c => c.offsetParent !== null)"
               ".map(c => c.dataset.table).join(',')")
    alerts = ("Array.from(document.querySelectorAll('#alert-list li')).filter(l => l.offsetParent !== null)"
              ".map(l => l.dataset.alert).join(',')")

    async def go() -> None:
        await casino.catch_up()
        floor = casino.floor(tmp_path, pits={"A": ["T01", "T02"], "B": ["T03", "T04"]}, poll_ms=100)
        async with floor_page(floor) as (page, _):
            await page.wait_for_function(f"{visible} === 'T01,T02,T03,T04'")
            seen["pits"] = await page.evaluate(
                "Array.from(document.querySelectorAll('#pit-filter option')).map(o => o.textContent)")
            await page.select_option("#pit-filter", "B")
            await page.wait_for_function(f"{visible} === 'T03,T04'")
            seen["pit B alerts"] = await page.evaluate(alerts)
            seen["shown"] = await page.text_content("#shown")
            await page.select_option("#pit-filter", "")
            await page.check("#trouble-filter")
            await page.wait_for_function(f"{visible} === 'T02'")
            seen["trouble alerts"] = await page.evaluate(alerts)
            await page.uncheck("#trouble-filter")
            await page.fill("#table-filter", "t04")
            await page.wait_for_function(f"{visible} === 'T04'")
            await page.fill("#table-filter", "")
            await page.wait_for_function(f"{visible} === 'T01,T02,T03,T04'")
            seen["shown again"] = await page.text_content("#shown")

    asyncio.run(go())
    assert seen["pits"] == ["every pit", "A", "B"]
    assert seen["pit B alerts"] == "" and seen["trouble alerts"] == "T02:fault:3"
    assert seen["shown"] == "showing 2 of 4 tables" and seen["shown again"] == ""

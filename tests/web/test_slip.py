"""The hand-pay slip of a progressive award (9.5, 12.2, 12.4) in the browser: opened from the
progressive banner of the dealer's screen, its figures are the journal's. The daemon's controller
(journal and pool) with the screen's server, fed a scripted round with a straight flush and a
royal flush (the simulated shuffler cannot be told to deal them)."""

from __future__ import annotations

import pytest

import asyncio
from datetime import UTC, datetime
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from tabled.daemon.config import ScreenConfig
from tabled.daemon.controller import Table
from tabled.journal.store import Journal
from tabled.daemon.web import ScreenServer
from tabled.game.cards import parse_cards
from tabled.game.limits import Limits
from tabled.game.progressive import payment_order
from tabled.game.settlement import money, settlement_from_dict
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings
from tabled.profiles import load_profile
from tabled.table.core import TableCore
from tests.web.daemon import browser, shows

PROFILE = load_profile("nsw")
SIZES = [(1024, 768), (1280, 800), (1920, 1080)]
HITS = {2: "9s 8s 7s 6s 5s", 5: "Ah Kh Qh Jh Th", "dealer": "Ac Kc 4c 3s 2h"}


@pytest.mark.slow
async def test_the_slip_opened_from_the_banner_shows_the_journals_figures(tmp_path):
    journal = Journal.open(tmp_path / "journal.db")
    settings = PoolSettings(PROFILE.contribution_basis_points, PROFILE.progressive_schedule.reset_cents)
    pool = await LocalPool.open(tmp_path / "pool.db", "main", "T01", settings)
    core = TableCore("T01", 7, Limits(500, 50_000, 100, PROFILE.progressive_wager_cents), PROFILE)
    table = Table(core, journal, pool, retry_interval=0.05, follow_meter=False)
    heading = ScreenConfig(port=0, property_name="Harbour Casino", table_name="Table 7", time_zone="Australia/Sydney")
    server = ScreenServer(table, heading)
    table.listeners.append(server.listener)
    consumer = asyncio.create_task(table.run())

    async def feed(kind, **payload):
        table.submit(kind, payload)
        await table.folded()

    await server.start()
    try:
        await feed("panel", action="open_table", key="supervisor")
        for deck in ("A", "B"):
            await feed("deck.verified", deck=deck, cards=list(range(52)))
            await feed("shuffler.shuffled", deck=deck)
        for spot in (2, 5):
            await feed("wager", spot=spot, area="ante", cents=1000)
            await feed("wager", spot=spot, area="progressive", cents=PROFILE.progressive_wager_cents)
        await feed("panel", action="no_more_bets", key="dealer")
        rid = core.round.round_id
        for target in list(core.round.dealt_to):
            await feed("shuffler.hand", cards=list(parse_cards(HITS[target])), back=core.round.back)
        for spot in (2, 5):
            await feed("wager", spot=spot, area="bet", cents=2000)
        await feed("panel", action="reveal", key="dealer")
        await feed("panel", action="settle", key="dealer")
        async with asyncio.timeout(10):
            while core.round.awards is None:  # the pool's answer comes through its worker
                await asyncio.sleep(0.01)
        await feed("panel", action="award_paid", key="dealer", spot=2)  # 12.4: the straight flush first
        await asyncio.sleep(0)
        async with browser() as b:
            page = await b.new_page()
            await page.goto(server.url)
            await shows(page, server.seq)
            # the banner stands for the royal flush still face up, with its slip
            link = page.locator("#banner a.slip[data-spot='5']")
            assert await link.get_attribute("href") == "/slip?" + urlencode({"round": rid, "spot": 5})
            async with b.expect_page() as opened:
                await link.click()
            slip = await opened.value
            await slip.wait_for_selector("body[data-state=shown]")
            assert await slip.text_content("#confirmed") == "not yet confirmed on the panel (9.5)"

            await feed("panel", action="award_paid", key="dealer", spot=5)
            settled = [r for r in journal.records_for_round(rid) if r.kind == "round.settled"]
            # the slip's records are the fold's notes: the awards determined, each confirmed paid (9.5)
            awards = [r for r in journal.records_for_round(rid) if r.kind == "progressive.awarded"]
            paid = [r for r in journal.records_for_round(rid) if r.kind == "progressive.award_paid"]
            assert [r.payload["spot"] for r in paid] == [2, 5]
            st = settlement_from_dict(settled[0].payload)
            order = list(payment_order(st.progressive.awards))
            assert [a.spot for a in order] == [2, 5]
            sf, royal = order
            before = awards[0].payload["result"]["pool_before_cents"] - sf.from_pool_cents
            await slip.reload()
            await slip.wait_for_selector("body[data-state=shown]")

            async def cents(cell):
                return int(await slip.get_attribute(cell, "data-cents"))

            assert await cents("#amount") == royal.amount_cents
            assert await cents("#from-pool") == royal.from_pool_cents
            assert await cents("#topup") == royal.operator_topup_cents
            assert await cents("#pool-before") == before
            assert await cents("#pool-after") == before - royal.from_pool_cents
            assert (await slip.text_content("#amount")).startswith(money(royal.amount_cents))
            assert await slip.text_content("#hand") == "royal flush"
            assert await slip.text_content("#cards") == "Ah Kh Qh Jh Th"
            assert await slip.text_content("#round-id") == rid
            assert await slip.text_content("#confirmed") == "dealer key"
            assert await slip.text_content("#records") == (
                f"settlement {settled[0].seq}; pool's awards {awards[0].seq}; confirmation {paid[-1].seq}")
            assert "reset" in await slip.text_content("#round-pool-after")  # the royal won the jackpot
            # the heading: the property, the slip's number (the table's second award), the award's time
            assert await slip.text_content("#property") == "Harbour Casino"
            assert await slip.text_content("#number") == "no. T01-000002"
            assert await slip.text_content("#table-id") == "Table 7 (T01)"
            at = datetime.fromtimestamp(awards[0].time_us / 1e6, UTC)
            assert await slip.text_content("#time-utc") == at.strftime("%Y-%m-%d %H:%M:%S UTC")
            assert await slip.text_content("#time-local") == at.astimezone(ZoneInfo("Australia/Sydney")).strftime(
                "%Y-%m-%d %H:%M:%S %Z") + " (Australia/Sydney)"
            # the player's name and identification are written in by hand beside the signatures
            assert await slip.eval_on_selector_all(".player .line", "ls => ls.map(l => l.textContent)") == [
                "player's name", "player's identification (kind and number)"]
            assert await slip.eval_on_selector_all(".sign div", "ds => ds.map(d => d.textContent)") == [
                "player", "dealer", "supervisor", "cage"]
            first = await b.new_page()
            await first.goto(server.url + "slip?" + urlencode({"round": rid, "spot": 2}))
            await first.wait_for_selector("body[data-state=shown]")
            assert await first.text_content("#number") == "no. T01-000001"
            for width, height in SIZES:
                await slip.set_viewport_size({"width": width, "height": height})
                await slip.screenshot(path=str(tmp_path / f"slip-{width}x{height}.png"), full_page=True)
            await slip.set_viewport_size({"width": 1280, "height": 800})
            await slip.emulate_media(media="print")
            await slip.screenshot(path=str(tmp_path / "slip.png"), full_page=True)
            print(f"screenshots: {tmp_path}")

            # the pit's view links each hit to its slip too
            pit = await b.new_page()
            await pit.goto(server.url + "pit")
            await pit.wait_for_selector("#hits li a.slip >> nth=1")
            hrefs = await pit.eval_on_selector_all("#hits li a.slip", "links => links.map(a => a.getAttribute('href'))")
            assert hrefs == ["/slip?" + urlencode({"round": rid, "spot": spot}) for spot in (5, 2)]  # newest first

            # a round or spot without an award says so, as text
            missing = await b.new_page()
            await missing.goto(server.url + "slip?" + urlencode({"round": rid, "spot": 3}))
            await missing.wait_for_selector("body[data-state=problem]")
            assert await missing.text_content("#problem") == f"round {rid} spot 3 has no progressive award"
            bad = await missing.request.get(server.url + "slip.json?round=<script>&spot=x")
            assert bad.status == 400
            superscript = await missing.request.get(server.url + "slip.json?" + urlencode({"round": rid, "spot": "²"}))
            assert superscript.status == 400   # a digit to str.isdigit, not a spot number
    finally:
        await server.stop()
        table.stop()
        await consumer
        await pool.close()
        journal.close()

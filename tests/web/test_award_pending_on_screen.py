"""Another linked table's hit beside the meter on the page (2.4.3): shown as text from the
pool's reading, gone once that table contributes again."""

from __future__ import annotations

from types import SimpleNamespace

from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tests.table.harness import Harness
from tests.web.daemon import screen_page, shown


async def test_award_pending_beside_the_meter_until_that_table_contributes_again():
    h = Harness()
    server = ScreenServer(SimpleNamespace(core=h.core), ScreenConfig(port=0))

    async with screen_page(server) as page:
        async def reading(**payload):
            await shown(page, server, h.feed("pool.meter", **payload))

        await reading(balance_cents=1_000_000, seq=7, change="reset", table_id="T03<script>",
                      round_id="T03-000042", award_cents=1_250_000)
        assert await page.text_content("#meter") == "$10,000.00"
        assert await page.is_visible("#award-pending")
        assert await page.text_content("#award-pending") == (
            "progressive hit at table T03<script>, $12,500.00: award pending")  # text, never markup
        await reading(balance_cents=1_000_025, seq=8, change="contribution", table_id="T03<script>",
                      round_id="T03-000043")
        assert await page.is_hidden("#award-pending")

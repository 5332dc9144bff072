"""The board's check of the payments on the dealer's screen (9.3, 9.4): each spot's areas with
their verdict as the dealer pays and collects, from the fold's notes, in the browser."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tests.table.test_payout_check import FLUSH, LOSER, board, checked, settled
from tests.web.daemon import screen_page, shown


@pytest.mark.slow  # a browser's start
async def test_each_area_shows_done_still_to_pay_over_short_and_not_collected_as_it_happens():
    h = checked()
    server = ScreenServer(SimpleNamespace(core=h.core), ScreenConfig(port=0))

    async with screen_page(server) as page:
        async def fold(effects) -> None:
            await shown(page, server, effects)

        async def check(spot: int, area: str) -> str | None:
            return await page.text_content(f"#spots [data-spot='{spot}'] [data-area='{area}'] .check")

        settled(h, {1: {"ante": 500}, 2: {"ante": 1000}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
        await fold([])
        assert await check(1, "bet") == "still to pay $50.00"
        assert await check(2, "ante") == "not collected $10.00"
        assert await check(1, "progressive") == "done"
        await fold(board(h, {1: {"ante": 1500, "bet": 5000}, 2: {"bet": 2000}}))
        assert await check(1, "ante") == "over by $5.00"
        assert await check(1, "bet") == "still to pay $10.00"
        assert await check(2, "ante") == "done"
        assert await check(2, "bet") == "not collected $20.00"
        assert await check(3, "ante") == "done"
        assert "spot 1 ante: over by $5.00" in await page.text_content("#next")  # the error first
        await fold(board(h, {1: {"ante": 1000, "bet": 5000}, 2: {"bet": 2000}, 3: {"bet": 500}}))
        assert await check(3, "bet") == "over by $5.00"                      # a payment on an empty spot
        await fold(board(h, {1: {"ante": 1000, "bet": 500}, 2: {"bet": 2000}}))
        assert await check(1, "bet") == "short by $55.00"                     # less than the bet itself
        await fold(h.press("settle_done"))
        assert "SETTLE DONE refused" in await page.text_content("#messages")
        await fold(board(h, {1: {"ante": 1000, "bet": 6000}, 2: {}}))
        assert [await check(1, a) for a in ("ante", "progressive", "bet")] == ["done"] * 3
        assert "SETTLE/DONE on the panel" in await page.text_content("#next")
        await fold(h.press("settle_done"))
        assert await page.locator("#spots .check").count() == 0  # the round is over: nothing to check

"""Progressive payments on the page (9.5, 12.2, 12.4): the banner "leave the cards face up", the
next payment highlighted and each struck through as the panel confirms it. The screen's own
server and page, fed by a table core folding a scripted round with three progressive hands (the
simulated shuffler cannot be told to deal them)."""

from __future__ import annotations

from types import SimpleNamespace

from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tabled.game.cards import parse_cards
from tests.table.harness import Harness
from tests.web.daemon import screen_page, shown

HITS = {2: "9s 8s 7s 6s 5s", 5: "Ah Kh Qh Jh Th", 6: "2d 5d 9d Jd Kd", "dealer": "Ac Kc 4c 3s 2h"}


async def test_the_banner_then_each_payment_highlighted_and_struck_through_in_order(tmp_path):
    h = Harness()
    server = ScreenServer(SimpleNamespace(core=h.core), ScreenConfig(port=0))

    def feed(kind, **payload):
        server.listener(h.feed(kind, **payload))

    async with screen_page(server) as page:
        for spot in (2, 5, 6):
            feed("wager", spot=spot, area="ante", cents=1000)
            feed("wager", spot=spot, area="progressive", cents=100)
        feed("panel", action="no_more_bets", key="dealer")
        for target in h.round.dealt_to:
            feed("shuffler.hand", cards=list(parse_cards(HITS[target])), back=h.round.back)
        for spot in (2, 5, 6):
            feed("wager", spot=spot, area="bet", cents=2000)
        feed("panel", action="reveal", key="dealer")
        await shown(page, server)

        async def spots():
            return await page.eval_on_selector_all(
                "#payments li[data-kind=spot]", "items => items.map(li => [Number(li.dataset.spot), "
                "li.className, getComputedStyle(li).textDecorationLine])")

        # what SETTLE/DONE confirms, from spot N (9.4, 12.2), shown from the reveal
        assert await spots() == [[6, "next", "none"], [5, "todo", "none"], [2, "todo", "none"]]
        feed("panel", action="settle", key="dealer")
        await shown(page, server)
        assert [s[1:] for s in await spots()] == [["done", "line-through"]] * 3
        banner = await page.text_content("#banner")
        assert "leave the cards face up" in banner and "spots 2, 5 and 6" in banner and "9.5" in banner

        async def progressive():
            return await page.eval_on_selector_all(
                "#payments li[data-kind=progressive]", "items => items.map(li => [Number(li.dataset.spot), "
                "li.className, getComputedStyle(li).textDecorationLine])")

        # 12.2 right to left; 12.4: the straight flush (spot 2) before the royal (spot 5)
        assert await progressive() == [[6, "next", "none"], [2, "todo", "none"], [5, "todo", "none"]]
        await page.screenshot(path=str(tmp_path / "progressive.png"), full_page=True)
        print(f"screenshot: {tmp_path / 'progressive.png'}")
        feed("panel", action="award_paid", key="dealer", spot=6)
        await shown(page, server)
        assert await progressive() == [[6, "done", "line-through"], [2, "next", "none"], [5, "todo", "none"]]
        feed("panel", action="award_paid", key="dealer", spot=2)
        feed("panel", action="award_paid", key="dealer", spot=5)
        await shown(page, server)
        assert await progressive() == [[6, "done", "line-through"], [2, "done", "line-through"],
                                       [5, "done", "line-through"]]
        assert await page.is_hidden("#banner")

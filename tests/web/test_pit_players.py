"""The pit's view in a real browser shows the players seated now with their running figures, each
card number masked (tabled/table/players.py), as the table rates them."""

from __future__ import annotations

import pytest

from tests.web.daemon import caught_up, pit_page, play

pytestmark = pytest.mark.timeout(180)

CARD = "4000100010001001"


@pytest.mark.slow
async def test_the_pit_shows_the_players_seated_with_their_figures_and_masked_cards(tmp_path):
    seen: dict = {}

    async def scenario(run):
        async with pit_page(run) as page:
            run.table.submit("player.tracking", {"on": True, "interval_minutes": 0})
            run.table.submit("player.card", {"spot": 2, "card": CARD})   # as the card reader reports it
            await run.rounds(2)
            run.floor.paused = True
            await caught_up(run, page)
            seen["carded"] = await page.text_content("#players tr[data-spot='2']")
            seen["anonymous"] = await page.text_content("#players tr[data-spot='1']")
            seen["page"] = await page.content()
            seen["figures"] = next(s for s in run.core.players.seated() if s.spot == 2).figures()

    await play(tmp_path, scenario)
    f = seen["figures"]
    assert f["rounds_played"] >= 2
    assert "\u2022\u2022\u2022\u20221001" in seen["carded"] and CARD not in seen["page"]
    assert f"{f['rounds_played']} rounds" in seen["carded"] and "average ante $10.00" in seen["carded"]
    assert "anonymous" in seen["anonymous"]      # spot 1 plays without a card: an anonymous seat session

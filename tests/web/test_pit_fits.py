"""The pit's view on a supervisor's desk screen: at 1024x768, 1280x800 and 1920x1080 nothing is
wider than the screen (the settlement's monospace lines included, 16.11), and a box with nothing
to show says "none" rather than standing empty."""

from __future__ import annotations

import pytest

from tests.web.daemon import pit_page, play

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

SIZES = ((1024, 768), (1280, 800), (1920, 1080))


async def test_the_pit_fits_a_desk_screen_and_an_empty_box_says_none(tmp_path):
    seen: dict[tuple[int, int], dict] = {}

    async def scenario(run):
        async with pit_page(run) as page:
            await run.rounds(3)
            await page.wait_for_selector("pre.settlement")
            for width, height in SIZES:
                await page.set_viewport_size({"width": width, "height": height})
                await page.wait_for_function(f"document.documentElement.clientWidth === {width}")
                await page.screenshot(path=str(tmp_path / f"pit-{width}x{height}.png"), full_page=True)
                seen[(width, height)] = {
                    "page": await page.evaluate("document.documentElement.scrollWidth"),
                    "settlements": await page.eval_on_selector_all(
                        "pre.settlement", "ps => ps.map(p => p.scrollWidth - p.clientWidth)"),
                    "empty": await page.evaluate(
                        """['#protection', '#mispays'].map(s => getComputedStyle(
                               document.querySelector(s), '::before').content)"""),
                    "no players": await page.evaluate(
                        "getComputedStyle(document.querySelector('#players-box'), '::after').content"),
                }

    await play(tmp_path, scenario)
    print(f"screenshots: {tmp_path}")
    for (width, _), s in seen.items():
        assert s["page"] == width, f"the page scrolls sideways at {width}: {s['page']} px"
        assert s["settlements"] and max(s["settlements"]) <= 0, f"a settlement is cut at {width}: {s}"
        assert s["empty"] == ['"none"', '"none"'] and s["no players"] == '"none"', s

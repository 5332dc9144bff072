"""The floor's page (tabled/web_assets/floor.js) in Chromium, over a floor service of a casino the
test made (tests/floor/casino.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from tabled.floor.service import Floor
from tests.web.daemon import browser


@contextlib.asynccontextmanager
async def floor_page(floor: Floor, viewport: dict[str, int] | None = None) -> AsyncIterator[tuple]:
    """``floor`` started and polling, and a page open on it (at ``viewport`` if given); yields the
    page and the list its script errors are collected in. The service stops afterwards."""
    await floor.start()
    polling = asyncio.create_task(floor.run())
    try:
        async with browser() as b:
            page = await b.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            if viewport is not None:
                await page.set_viewport_size(viewport)
            await page.goto(floor.url)
            yield page, errors
    finally:
        polling.cancel()
        await floor.stop()

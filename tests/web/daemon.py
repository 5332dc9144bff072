"""The daemon with its dealer's screen, on simulated devices (tests/integration/harness.py), and
Debian's chromium driven by Playwright to look at it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import os
from pathlib import Path

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tests.integration import harness

CHROMIUM = "/usr/bin/chromium"  # Debian's; .ci/ensure-chromium.sh installs it
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"] + (["--no-sandbox"] if os.geteuid() == 0 else [])


#: the screen on this PC, on any free port
LOCAL = ScreenConfig(port=0)


async def play(tmp: Path, scenario, screen: ScreenConfig = LOCAL, out: io.StringIO | None = None,
               **cfg_kw) -> harness.Run:
    """Run the table with its screen as ``screen`` says until ``scenario(run)`` returns; what
    ``tabled run`` prints in a terminal goes to ``out``."""
    run = harness.Run(scenario)
    cfg = dataclasses.replace(harness.config(tmp, **cfg_kw), screen=screen)
    await run_table(cfg, 0, out=out if out is not None else io.StringIO(), human=True,
                    seams=Seams(state_dir=tmp / "dev", timing=harness.FAST, poll_interval=harness.POLL, hooks=run))
    return run


def screen_of(run: harness.Run) -> ScreenServer:
    """The screen the daemon serves (its listener is the server's)."""
    return next(f.__self__ for f in run.table.listeners if isinstance(getattr(f, "__self__", None), ScreenServer))


@contextlib.asynccontextmanager
async def browser():
    """A browser whose pages let the test evaluate its own scripts (the screen's Content Security
    Policy forbids them): what the page does with data is then shown by the DOM alone."""
    from playwright.async_api import async_playwright
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = await b.new_context(bypass_csp=True, viewport={"width": 1600, "height": 1000})
        try:
            yield context
        finally:
            await b.close()


async def shows(page, seq: int, timeout_ms: float = 5000) -> None:
    """Wait until the page shows the screen numbered ``seq`` or a later one."""
    await page.wait_for_function(f"Number(document.body.dataset.seq || 0) >= {seq}", timeout=timeout_ms)


@contextlib.asynccontextmanager
async def screen_page(server: ScreenServer):
    """``server`` started and a page open on it, its link to the table up; the server stops afterwards."""
    await server.start()
    try:
        async with browser() as b:
            page = await b.new_page()
            await page.goto(server.url)
            await page.wait_for_selector("body[data-link=up]")
            yield page
    finally:
        await server.stop()


async def shown(page, server: ScreenServer, effects: list | None = None) -> None:
    """``effects``, a batch of the fold's, given to the screen (if any), and the page showing the
    screen made last."""
    if effects is not None:
        server.listener(effects)
    await asyncio.sleep(0)  # the screen is made once the loop takes its turn, as after a batch
    await shows(page, server.seq)


@contextlib.asynccontextmanager
async def pit_page(run: harness.Run):
    """A page on the pit's view of the table ``run`` plays, its link to the table up."""
    async with browser() as b:
        page = await b.new_page()
        await page.goto(screen_of(run).url + "pit")
        await page.wait_for_selector("body[data-link=up]")
        yield page


async def caught_up(run, page) -> None:
    """The floor stands still: the page shows the pit's view made from the journal's head."""
    server = screen_of(run)
    async with asyncio.timeout(10):
        while True:
            await run.table.idle.wait()
            head = run.table.journal.head[0]
            if server.pit is not None and server.pit["journal"]["head_seq"] == head:
                await shows(page, server.pit_seq)
                if run.table.journal.head[0] == head:
                    return
            await asyncio.sleep(0.02)

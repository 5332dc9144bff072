"""A device lost mid-round to the fault on the dealer's screen (measured, not asserted): the whole
daemon over real ports, the shuffling device's simulator killed (SIGKILL: the cable pulled) at the
first input that finds a round dealing from it, and Debian's chromium looking at the screen.

For each kill, from the signal sent:

1. kill -> fold: the fold has taken the lost link (``device.link``) and judged it a fault for the round;
2. kill -> page: the page's DOM shows the fault ("shuffling device not answering while dealing", 15.2).

A kill that lands after the deal was done is not counted (the round no longer needs the device);
the device is plugged back and the next round tried. The link timers are the drivers' own
(``LinkTiming()``) unless ``--fast`` (the tests' timers).

    .venv/bin/python benchmarks/bench_lost_link.py [--kills 20] [--fast]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabled_drivers.link.endpoint import LinkTiming
from tabled.commands.run import Seams, run_table
from tabled.daemon.config import ScreenConfig, load_config
from tabled.daemon.web import ScreenServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
FAST = LinkTiming(ack_timeout=0.1, retries=2, heartbeat=0.2, backoff_initial=0.02, backoff_max=0.2)
FAULT_TEXT = "shuffling device not answering while dealing"
BOUND_S = 60.0  # a wait longer than this is a hang, not a measurement


class Bench:
    """Plays in place of the floor (``Seams.hooks``): the simulated people, a kill per round."""

    def __init__(self, kills: int) -> None:
        self.kills = kills
        self.to_fold: list[float] = []
        self.to_page: list[float] = []
        self.missed = 0

    async def started(self, *, table, devices, sims, floor) -> None:
        self.table, self.sims, self.floor = table, sims, floor

    async def until(self, cond) -> None:
        async with asyncio.timeout(BOUND_S):
            while not cond():
                await self.table.idle.wait()
                if cond():
                    return
                self.floor.changed.clear()
                if not await self.floor.step():
                    try:
                        await asyncio.wait_for(self.floor.changed.wait(), 0.05)
                    except TimeoutError:
                        pass

    async def play(self) -> None:
        from playwright.async_api import async_playwright
        core = lambda: self.table.core  # noqa: E731
        server = next(f.__self__ for f in self.table.listeners
                      if isinstance(getattr(f, "__self__", None), ScreenServer))
        await self.until(lambda: core().rounds_finished >= 1)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = await (await browser.new_context(viewport={"width": 1600, "height": 1000})).new_page()
            await page.goto(server.url)
            await page.wait_for_selector("#next")
            while len(self.to_page) < self.kills:
                killed: dict[str, float] = {}

                def watch(_effects, killed: dict[str, float] = killed) -> None:
                    r = core().round
                    if "at" not in killed and r is not None and r.phase == "dealing" and r.deliveries == 0:
                        killed["at"] = time.monotonic()
                        self.sims.serial["shuffler"].proc.kill()
                    elif "at" in killed and "fold" not in killed and not core().links.is_up("shuffler"):
                        killed["fold"] = time.monotonic()

                self.table.listeners.append(watch)
                try:
                    await self.until(lambda: "fold" in killed)  # noqa: B023
                finally:
                    self.table.listeners.remove(watch)
                r = core().round
                if r is not None and r.phase == "dealing":
                    await page.locator("#faults .fault", has_text=FAULT_TEXT).wait_for(timeout=BOUND_S * 1000)
                    self.to_page.append(time.monotonic() - killed["at"])
                    self.to_fold.append(killed["fold"] - killed["at"])
                else:
                    self.missed += 1
                await self.sims.unplug("shuffler")
                await self.sims.replug("shuffler")
                await self.until(lambda: core().round is None or core().round.phase != "dealing")
                await self.until(lambda: core().rounds_finished >= 1 and core().round is not None
                                 and core().round.phase == "betting")
            await browser.close()


def ms(values: list[float]) -> str:
    v = sorted(x * 1000 for x in values)
    return (f"min {v[0]:.0f} ms, median {statistics.median(v):.0f} ms, "
            f"p90 {v[min(len(v) - 1, int(0.9 * len(v)))]:.0f} ms, max {v[-1]:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=20, help="kills caught mid-deal to measure (1 to 1000)")
    ap.add_argument("--fast", action="store_true", help="the tests' link timers instead of the drivers' own")
    args = ap.parse_args()
    if not 1 <= args.kills <= 1000:
        ap.error(f"--kills {args.kills}: 1 to 1000")
    logging.disable(logging.CRITICAL)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    timing = FAST if args.fast else LinkTiming()
    bench = Bench(args.kills)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        cfg = load_config(None)
        cfg = dataclasses.replace(cfg, screen=ScreenConfig(port=0),
                                  pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools),
                                  journal=dataclasses.replace(cfg.journal, path=d / "journal.db"))
        asyncio.run(run_table(cfg, 0, out=io.StringIO(), human=True,
                              seams=Seams(timing=timing, state_dir=d / "dev", hooks=bench)))
    print(f"link timers: {timing}")
    print(f"kills caught mid-deal: {len(bench.to_page)} (kills after the deal was done, not counted: {bench.missed})")
    print(f"kill -> fold takes the lost link: {ms(bench.to_fold)}")
    print(f"kill -> fault in the page's DOM:  {ms(bench.to_page)}")


if __name__ == "__main__":
    main()

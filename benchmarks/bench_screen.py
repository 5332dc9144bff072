"""Dealer's screen and pit's view benchmark (measured, not asserted), the whole daemon over real
ports with its screen served (tabled/daemon/web.py) and looked at by Debian's chromium:

1. device event -> the page's DOM showing it: from the input handed to the table (the driver's
   consumer submits it as the frame is decoded) until a page's DOM holds the screen made after
   that input was journaled and folded (or a later one: a page that is behind skips to the
   latest), p50 and p99 (target p99 <= 100 ms);
2. event -> effects (journaled, acknowledged, folded, carried out, the screen made and handed to
   the server) with 0 pages open, with 5 in chromium, and with 5 plain readers of the same event
   streams (no browser), p50 and p99: what the pages cost the table, and how much of that is the
   daemon's own serving rather than the browser rendering on the same CPUs;
3. device event -> the pit's view (``/pit``) in a page's DOM: the pit's view is made in a thread of
   its own from the journal's new records after each screen, so it comes later than the screen;
   its pages (``--pit-pages``, 1 by default) are open beside the dealer's in the run with pages;
4. what making one pit's view costs its thread, on a copy of the run's journal: the first read
   (the whole chain checked once) and one made after a batch of new records (read, checked from
   the last record verified, the view and its JSON).

The simulated people act every ``--pace-ms`` (a real table is far slower than full speed).

    .venv/bin/python benchmarks/bench_screen.py [--rounds 30] [--pages 5] [--pit-pages 1] [--pace-ms 20]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import io
import logging
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import ScreenConfig, load_config
from tabled.journal.store import Journal
from tabled.daemon.pit import PitReader
from tabled.daemon.web import ScreenServer
from tabled.views.pit import pit_view

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run"] + (["--no-sandbox"] if os.geteuid() == 0 else [])
#: each page notes when its DOM took each screen (the wall clock, as the daemon's time.time()); a
#: pit's page, the screen its view was made with
WATCH_DOM = """
window.__shown = [];
const pit = location.pathname === "/pit";
new MutationObserver(() => {
  const seq = pit ? document.body.dataset.screenSeq : document.body.dataset.seq;
  window.__shown.push([Number(seq), performance.timeOrigin + performance.now()]);
}).observe(document, {subtree: true, attributes: true, attributeFilter: [pit ? "data-screen-seq" : "data-seq"]});
"""


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Bench:
    """Hooks into run_table: stamps every input, notes the screen made after it, opens the pages."""

    def __init__(self, rounds: int, pages: int, pace_s: float, warm_up: int = 2, pit_pages: int = 0,
                 readers: bool = False) -> None:
        self.rounds, self.pages, self.pace_s, self.warm_up = rounds, pages, pace_s, warm_up
        self.pit_pages = pit_pages
        self.readers = readers  # the pages' event streams read without a browser
        self.effect_ms: list[float] = []
        self.inputs: list[tuple[float, int]] = []  # (submitted, wall clock s; the screen after it)
        self.shown: list[list[tuple[int, float]]] = []
        self.pit_shown: list[list[tuple[int, float]]] = []
        self.measuring = False

    async def started(self, *, table, devices, sims, floor) -> None:
        self.table, self.floor = table, floor
        screen = next(f.__self__ for f in table.listeners if isinstance(getattr(f, "__self__", None), ScreenServer))
        stamps: collections.deque[tuple[float, float]] = collections.deque()
        submit, process = table.submit, table.process

        def timed_submit(kind, payload, ack=None):
            stamps.append((time.perf_counter(), time.time()))
            submit(kind, payload, ack)

        async def timed_process(batch):
            t0 = [stamps.popleft() for _ in batch if stamps]
            first = screen.seq + 1
            await process(batch)
            t1 = time.perf_counter()
            if self.measuring:
                self.effect_ms += [(t1 - p) * 1000 for p, _ in t0]
                self.inputs += [(wall, first + i) for i, (_, wall) in enumerate(t0)]

        table.submit, table.process = timed_submit, timed_process
        self.url = screen.url

    async def play(self) -> None:
        if self.readers:
            await self.read_streams()
            return
        from playwright.async_api import async_playwright
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = await browser.new_context(bypass_csp=True, viewport={"width": 1600, "height": 1000})
            await context.add_init_script(WATCH_DOM)
            pages = [await context.new_page() for _ in range(self.pages)]
            pits = [await context.new_page() for _ in range(self.pit_pages)]
            for page in pages:
                await page.goto(self.url)
                await page.wait_for_selector("body[data-link=up]")
            for page in pits:
                await page.goto(self.url + "pit")
                await page.wait_for_selector("body[data-link=up]")
            await self.measure()
            await asyncio.sleep(0.5)  # the last screens reach the pages
            for page in pages:
                self.shown.append([(int(s), t / 1000) for s, t in await page.evaluate("window.__shown")])
            for page in pits:
                self.pit_shown.append([(int(s), t / 1000) for s, t in await page.evaluate("window.__shown")])
            await browser.close()

    async def measure(self) -> None:
        """The warm-up rounds, then the rounds measured."""
        await self.floor.play(self.warm_up, pace_s=self.pace_s)
        self.measuring = True
        t0 = time.perf_counter()
        await self.floor.play(self.rounds, pace_s=self.pace_s)
        self.elapsed = time.perf_counter() - t0
        self.measuring = False

    async def read_streams(self) -> None:
        """The same streams the pages follow, each read to its end by a plain HTTP client."""
        import aiohttp

        async def read(session: aiohttp.ClientSession, path: str) -> None:
            async with session.get(self.url.rstrip("/") + path) as response:
                async for _ in response.content.iter_any():
                    pass

        async with aiohttp.ClientSession() as session:
            streams = [asyncio.create_task(read(session, "/events")) for _ in range(self.pages)]
            streams += [asyncio.create_task(read(session, "/pit/events")) for _ in range(self.pit_pages)]
            await self.measure()
            for stream in streams:
                stream.cancel()
            await asyncio.gather(*streams, return_exceptions=True)

    def dom_ms(self, pit: bool = False) -> list[float]:
        """Per input and page: until the page's DOM first held this input's screen or a later one
        (``pit``: the pit's view made with it or a later one)."""
        out: list[float] = []
        for shown in self.pit_shown if pit else self.shown:
            for submitted, seq in self.inputs:
                at = next((t for s, t in shown if s >= seq), None)
                if at is not None:
                    out.append((at - submitted) * 1000)
        return out


def run(rounds: int, pages: int, pace_s: float, d: Path, pit_pages: int = 0, readers: bool = False) -> Bench:
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools),
                              screen=ScreenConfig(port=0))
    bench = Bench(rounds, pages, pace_s, pit_pages=pit_pages, readers=readers)
    asyncio.run(run_table(cfg, 0, out=io.StringIO(),
                          seams=Seams(journal_path=d / "journal.db", state_dir=d / "dev", hooks=bench,
                                      poll_interval=0.05)))
    return bench


def pit_cost(journal: Path, d: Path, batch: int = 20, times: int = 50) -> str:
    """Making the pit's view on a copy of ``journal``: the first read, then one per batch of
    ``batch`` new records (the kinds the pit reads among them)."""
    copy = d / "pit-journal.db"
    shutil.copy(journal, copy)
    reader = PitReader(copy)
    t0 = time.perf_counter()
    reader.read()
    first_ms = (time.perf_counter() - t0) * 1000
    records = reader.verified_seq
    made: list[float] = []
    with Journal.open(copy) as writer:
        for _ in range(times):
            writer.append_many([("panel.refused", {"action": "approve_play", "key": "dealer", "rule": "14.13"}, None)]
                               + [("bench.input", {"i": i}, None) for i in range(batch - 1)])
            t0 = time.perf_counter()
            state = reader.read()
            json.dumps(pit_view({}, [], reader.log, state), separators=(",", ":"))
            made.append((time.perf_counter() - t0) * 1000)
    reader.close()
    return (f"making the pit's view: first read of a {records}-record journal {first_ms:.1f} ms; after each "
            f"batch of {batch} records: p50 {statistics.median(made):.2f} ms, max {max(made):.2f} ms "
            f"({len(reader.log.rounds)} rounds shown)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--pages", type=int, default=5)
    ap.add_argument("--pit-pages", type=int, default=1, help="pit's pages open beside the dealer's")
    ap.add_argument("--pace-ms", type=int, default=20)
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    pace = args.pace_ms / 1000
    results = {}
    cost = ""
    for name, pages, readers in (("none", 0, False), ("browser", args.pages, False), ("readers", args.pages, True)):
        with tempfile.TemporaryDirectory() as tmp:
            results[name] = run(args.rounds, pages, pace, Path(tmp), args.pit_pages if pages else 0, readers)
            if name == "browser":
                cost = pit_cost(Path(tmp) / "journal.db", Path(tmp))
    for name, b in results.items():
        e = b.effect_ms
        shown = f"{b.pages} page(s)" + (f" and {b.pit_pages} pit's" if b.pit_pages else "")
        how = {"none": "", "browser": " in chromium", "readers": " as plain readers of their streams"}[name]
        print(f"event -> effects, {shown} open{how}: {len(e)} inputs in {args.rounds} rounds "
              f"(pace {args.pace_ms} ms), p50 {pct(e, .5):.2f} ms, p99 {pct(e, .99):.2f} ms, max {max(e):.2f} ms")
    b = results["browser"]
    dom = b.dom_ms()
    if dom:
        p99 = pct(dom, .99)
        print(f"device event -> page DOM ({args.pages} pages, every input on every page): {len(dom)} samples, "
              f"p50 {pct(dom, .5):.2f} ms, p99 {p99:.2f} ms, max {max(dom):.2f} ms "
              f"(target p99 <= 100 ms: {'met' if p99 <= 100 else 'not met'})")
    pit = b.dom_ms(pit=True)
    if pit:
        print(f"device event -> pit's view in the DOM ({b.pit_pages} page(s)): {len(pit)} samples, "
              f"p50 {pct(pit, .5):.2f} ms, p99 {pct(pit, .99):.2f} ms, max {max(pit):.2f} ms")
    print(cost)


if __name__ == "__main__":
    main()

"""A daemon killed with ``kill -9`` while the dealer's screen is open: within 2 s the whole page
says NOT LIVE over its figures (measured from the kill), its timers stop, and once the daemon is
started again on the same journal the page comes back by itself with the recovered round.
``tabled run`` on the simulated table is a subprocess; the page is Debian's chromium."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.integration.test_restart_sim import ROOT, child_env, sim_config, simulator_children, tabled_argv
from tests.web.daemon import browser
from tests.web.test_dealer_screen import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

STALE_WITHIN_S = 2.0


class Daemon:
    """``tabled run`` on the simulated table with its screen on ``port``; its JSON lines kept."""

    def __init__(self, config: Path, pace_ms: int = 150) -> None:
        self.proc = subprocess.Popen(tabled_argv("run", "--config", str(config), "--pace-ms", str(pace_ms)),
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
                                     env=child_env(config.parent))
        self.records: list[dict] = []
        self.children: list[int] = []  # its simulators, as they were when it was killed
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.records.append(json.loads(line))

    def said(self, text: str) -> bool:
        return any(text in str(r.get("event")) for r in self.records)

    def kill_9(self) -> None:
        self.children = simulator_children(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)  # kill -9: no goodbye, the sockets close with it

    def stop(self) -> None:
        """Stopped (SIGTERM) if still running; its simulators gone before the next test's start."""
        children = self.children + simulator_children(self.proc.pid)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait(timeout=30)
        self.reader.join(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
            time.sleep(0.05)


def config_on(tmp: Path, port: int) -> Path:
    path = sim_config(tmp)
    path.write_text(path.read_text().replace('listen = "127.0.0.1:0"', f'listen = "127.0.0.1:{port}"'))
    return path


async def until(cond, what: str, timeout: float = 60.0) -> None:
    """Bounds a hang only."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


@pytest.mark.slow
async def test_kill_9_shows_not_live_within_2_s_timers_stop_and_the_recovered_round_comes_back(tmp_path):
    port = free_port()
    config = config_on(tmp_path, port)
    first = Daemon(config)
    second = None
    try:
        async with browser() as b:
            page = await b.new_page()
            await until(lambda: first.said("round.finished"), "a round")
            await page.goto(f"http://127.0.0.1:{port}/")
            await page.wait_for_selector("body[data-link=up]", timeout=10_000)
            # a standing fault with its timer: the meter unplugged (its simulator killed) while a
            # round takes bets, 14.13: that round plays on, no new one starts
            await page.wait_for_function("document.body.dataset.phase === 'betting'", timeout=60_000)
            (meter,) = [pid for pid in simulator_children(first.proc.pid)
                        if b"meter" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]
            os.kill(meter, signal.SIGKILL)
            await page.wait_for_selector("#faults .fault .for:has-text('for')", timeout=20_000)
            # killed while the players decide: the restarted daemon has the rest of the round to play
            await page.wait_for_function("document.body.dataset.phase === 'deciding'", timeout=60_000)
            assert await page.is_hidden("#not-live")
            t0 = time.monotonic()
            first.kill_9()
            await page.wait_for_selector("#not-live", state="visible", timeout=10_000)
            stale_after = time.monotonic() - t0
            print(f"NOT LIVE shown {stale_after:.2f} s after kill -9")
            assert stale_after <= STALE_WITHIN_S
            assert await page.text_content("#not-live .say") == "NOT LIVE: do not pay from this screen"
            assert await page.get_attribute("body", "data-link") == "down"
            # the figures are under the cover: what is at the meter's and the next payment's place is it
            for target in ("#meter", "#next", ".spot[data-spot='7']"):
                covered = await page.eval_on_selector(target, """e => { const r = e.getBoundingClientRect();
                    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                    return at !== null && at.closest('#not-live') !== null; }""")
                assert covered, target
            for part in ("header", "main", "#faults", "#phase-bar"):  # and greyed
                assert "grayscale(1)" in await page.eval_on_selector(part, "e => getComputedStyle(e).filter"), part
            # the fault's timer no longer counts (it counted every 250 ms while live)
            stopped_at = await page.text_content("#faults .fault .for")
            await page.wait_for_function("(t) => Date.now() > t + 1500", arg=await page.evaluate("Date.now()"))
            assert await page.text_content("#faults .fault .for") == stopped_at
            await page.screenshot(path=str(tmp_path / "not-live.png"))
            print(f"screenshot: {tmp_path / 'not-live.png'}")
            first.stop()  # reaped; its simulators follow it
            killed_in = await page.text_content("#round-id")
            await page.evaluate("""() => { window.seen = []; new MutationObserver(() =>
                window.seen.push(document.body.dataset.link + ' ' + document.querySelector('#round-id').textContent))
                .observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}); }""")
            # started again on the same journal (people at a slower pace, so the recovered round is
            # still in play when the page is back): the page reconnects by itself to that round
            second = Daemon(config, pace_ms=1000)
            await page.wait_for_selector("#not-live", state="hidden", timeout=60_000)
            assert await page.get_attribute("body", "data-link") == "up"
            seen = [s for s in await page.evaluate("window.seen") if s.startswith("up ")]
            assert seen[0] == f"up {killed_in}", seen
    finally:
        first.stop()
        if second is not None:
            second.stop()

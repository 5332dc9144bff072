"""The dealer's screen in a real browser (Debian's chromium through Playwright) against the
daemon and its simulated devices: a round seen phase by phase, the figures equal to `tabled
settle`'s, data shown as text (never markup), and a daemon that stops seen as NOT LIVE within
2 s, and the page back by itself when the daemon is."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import socket
from pathlib import Path

import pytest

from tabled.cli import main as tabled_main
from tabled.daemon.config import ScreenConfig
from tabled.game.settlement import money
from tests.web.daemon import browser, play, screen_of, shows

pytestmark = pytest.mark.timeout(120)


def tabled(*argv: str, stdin: str | None = None) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        if stdin is not None:
            import sys
            real, sys.stdin = sys.stdin, io.StringIO(stdin)
            try:
                code = tabled_main(list(argv))
            finally:
                sys.stdin = real
        else:
            code = tabled_main(list(argv))
    assert code == 0, out.getvalue()
    return out.getvalue()


async def settle_here(run, page, name: str, shots: Path) -> None:
    """The floor stands still: the page catches up with the daemon's latest screen; a screenshot."""
    await shows(page, screen_of(run).seq)
    await page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


@pytest.mark.slow
async def test_a_round_phase_by_phase_with_the_figures_of_tabled_settle(tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    seen: dict = {}

    async def scenario(run):
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url)
            await page.wait_for_selector("body[data-link=up]")
            assert await page.text_content("#table-id") == "table SIM01"
            assert await page.text_content("#limits") == "$5.00 to $500.00, units of $1.00; progressive $1.00"
            core = run.core
            # betting: the wagers the board senses, per area (5.8)
            await run.until(lambda: core.round is not None and core.round.phase == "betting"
                            and sum(1 for s in core.round.spots.values() if s.ante) >= 5)
            await settle_here(run, page, "1-betting", shots)
            assert await page.text_content("#phase") == "place your bets"
            spot4 = core.round.spots[4]
            assert money(spot4.ante.cents) in await page.text_content(".spot[data-spot='4'] .area")
            # deciding: the dealer's up card, the wagers locked at "no more bets" (7.2.1)
            await run.phase("deciding")
            await settle_here(run, page, "2-deciding", shots)
            up = await page.text_content("#dealer-cards")
            assert up.startswith("up: ") and len(up.split()) == 2
            assert "fold or bet (8.1)" in await page.text_content("#next")
            assert await page.text_content(".spot[data-spot='4'] .cards") == ""  # not seen before 8.6
            # revealed: the dealer's hand and the hands in play (8.6)
            await run.phase("revealed")
            await settle_here(run, page, "3-revealed", shots)
            assert len((await page.text_content("#dealer-cards")).split()) == 5
            assert await page.text_content("#dealer-hand")
            # what SETTLE/DONE confirms, the first highlighted (9.4); struck through once settled
            assert await page.get_attribute("#payments li", "class") == "next"
            # settled: pay or collect per spot, in the order of 12.2
            rid = core.round.round_id
            await run.until(lambda: core.rounds_finished >= 1)
            await settle_here(run, page, "4-settled", shots)
            assert rid in await page.text_content("#settlement-title")
            seen["round"] = rid
            seen["payments"] = await page.eval_on_selector_all(
                "#payments li", "items => items.map(li => [li.dataset.kind, Number(li.dataset.spot), "
                "li.dataset.verb, Number(li.dataset.cents)])")
            seen["totals"] = await page.text_content("#totals")
            assert set(await page.eval_on_selector_all("#payments li", "items => items.map(li => li.className)")) \
                == {"done"}
        run.floor.paused = True

    await play(tmp_path, scenario)
    print(f"screenshots: {shots}")
    # the same round recomputed by `tabled settle` from the journal's facts
    facts = tabled("recall", "--journal", str(tmp_path / "journal.db"), "--round", seen["round"], "--round-json")
    st = json.loads(tabled("settle", "-", "--json", stdin=facts))
    told = {"folded", "conceded", "absent", "dead", "void"}  # settled when it happened: listed first

    def verb(net: int) -> str:
        return "PAY" if net > 0 else "COLLECT" if net < 0 else "EVEN"

    expected = [[s["status"], s["spot"], verb(s["net_cents"]), abs(s["net_cents"])] for s in st["spots"]
                if s["status"] in told and s["net_cents"]]
    expected += [["spot", s["spot"], verb(s["net_cents"]), abs(s["net_cents"])] for s in st["spots"]
                 if s["status"] not in told and s["status"] != "empty"]
    expected += [["progressive", a["spot"], "PAY", a["amount_cents"]] for a in st["progressive"]["awards"]]
    assert seen["payments"] == expected and expected
    assert seen["totals"] == f"house pays {money(st['house_pays_cents'])}, collects {money(st['house_collects_cents'])}"
    for name in ("1-betting", "2-deciding", "3-revealed", "4-settled"):
        assert (shots / f"{name}.png").stat().st_size > 10_000


async def test_what_the_table_reports_is_shown_as_text_never_as_markup(tmp_path):
    hostile = '<script>window.__owned = 1</script><img src=x onerror="window.__owned = 2">'

    async def scenario(run):
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url)
            await page.wait_for_selector("body[data-link=up]")
            await run.phase("betting")
            run.table.submit("equipment.fault", {"equipment": "meter", "reason": hostile})
            await run.until(lambda: "meter" in run.core.equipment.faults, act=False)
            await shows(page, screen_of(run).seq)
            assert await page.text_content("#faults .what") == f"meter failed: {hostile}"
            assert "14.13" in await page.text_content("#faults")
            assert await page.evaluate("window.__owned") is None
            assert await page.query_selector("#faults img, #faults script") is None
            assert hostile in await page.text_content("#lines")  # the dealer's line, as text too
            await page.screenshot(path=str(tmp_path / "fault.png"), full_page=True)
            print(f"screenshot: {tmp_path / 'fault.png'}")
        run.floor.paused = True

    await play(tmp_path, scenario)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
async def test_a_stopped_daemon_shows_not_live_within_2_s_and_the_page_comes_back_by_itself(tmp_path):
    port = free_port()
    screen = ScreenConfig(port=port)
    loop = asyncio.get_running_loop()
    async with browser() as b:
        page = await b.new_page()
        timing: dict[str, float] = {}

        async def first(run):
            await page.goto(screen_of(run).url)
            await page.wait_for_selector("body[data-link=up]")
            await run.rounds(1)
            timing["down"] = loop.time()  # from here on the daemon stops
            timing["watch"] = asyncio.ensure_future(page.wait_for_selector("#not-live", state="visible", timeout=5000))

        await play(tmp_path / "a", first, screen=screen)
        await timing["watch"]
        shown_down = loop.time() - timing["down"]
        assert await page.text_content("#link") == "NOT LIVE"
        assert await page.is_visible("#not-live")
        assert shown_down <= 2.0, f"NOT LIVE shown {shown_down:.2f} s after the daemon began to stop"

        async def second(run):  # the daemon is back on the same address: the page reconnects itself
            await page.wait_for_selector("body[data-link=up]", timeout=5000)
            await shows(page, screen_of(run).seq)
            assert await page.text_content("#link") == "live"

        (tmp_path / "b").mkdir()
        await play(tmp_path / "b", second, screen=screen)

"""The pit's view in a real browser (Debian's chromium through Playwright) against the daemon and
its simulated devices: the last rounds as `tabled settle` prints them (16.11), a 14.13 fault shown
and who let it clear, the key's approval, the devices' links, and the journal's head as the
journal holds it, its chain verified."""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys

import pytest

from tabled.cli import main as tabled_main
from tests.daemon.tamper import rewrite
from tests.integration.harness import journal_records
from tests.web.daemon import browser, caught_up, pit_page, play, screen_of

pytestmark = pytest.mark.timeout(180)


def tabled(*argv: str, stdin: str | None = None) -> str:
    out = io.StringIO()
    real = sys.stdin
    try:
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out):
            code = tabled_main(list(argv))
    finally:
        sys.stdin = real
    assert code == 0, out.getvalue()
    return out.getvalue()


@pytest.mark.slow
async def test_the_pit_shows_the_last_rounds_a_fault_and_who_cleared_it_and_the_journal_head(tmp_path):
    seen: dict = {}

    async def scenario(run):
        async with pit_page(run) as page:
            assert await page.text_content("#table-id") == "table SIM01"
            await run.rounds(3)
            # a 14.13 fault: shown within 1 s, with its rule and the key that must act
            loop = asyncio.get_running_loop()
            run.table.submit("equipment.fault", {"equipment": "meter", "reason": "display dark"})
            raised_at = loop.time()
            await page.wait_for_selector("#faults-open li:has-text('meter failed: display dark')", timeout=1000)
            assert loop.time() - raised_at <= 1.0
            shown = await page.text_content("#faults-open")
            assert "(14.13)" in shown and "key: inspector" in shown
            assert "fault (14.13): display dark" in await page.text_content("#devices tr[data-device=meter]")
            # the inspector approves play (14.13); the meter works again and its fault clears
            run.table.submit("panel", {"action": "approve_play", "key": "inspector"})
            run.table.submit("equipment.ok", {"equipment": "meter"})
            await run.until(lambda: "meter" not in run.core.equipment.faults, act=False)
            await run.rounds(1)
            run.floor.paused = True
            await caught_up(run, page)
            seen["cleared"] = await page.text_content("#faults-cleared li[data-equipment=meter]")
            seen["decisions"] = await page.text_content("#decisions")
            seen["open"] = await page.text_content("#faults-open")
            seen["head"] = (await page.text_content("#head-seq"), await page.text_content("#head-hash"))
            seen["journal_head"] = run.table.journal.head
            seen["chain"] = await page.text_content("#chain")
            seen["rounds"] = await page.eval_on_selector_all(
                ".round", "rs => rs.map(r => [r.dataset.round, r.querySelector('pre').textContent])")
            # the newest round open, the others one line each until the supervisor opens them
            seen["opened"] = await page.eval_on_selector_all(".round[open]", "rs => rs.map(r => r.dataset.round)")
            await page.screenshot(path=str(tmp_path / "pit.png"), full_page=True)
            # a round the supervisor opens stays open while new rounds come in
            older = seen["rounds"][1][0]
            await page.click(f".round[data-round='{older}'] summary")
            run.floor.paused = False
            await run.rounds(1)
            run.floor.paused = True
            await caught_up(run, page)
            newest = await page.get_attribute(".round", "data-round")
            assert newest != seen["rounds"][0][0]
            assert await page.eval_on_selector_all(".round[open]", "rs => rs.map(r => r.dataset.round)") == [
                newest, older]

    await play(tmp_path, scenario)
    print(f"screenshot: {tmp_path / 'pit.png'}")
    assert (tmp_path / "pit.png").stat().st_size > 10_000
    # the journal's head, number and hash, as the journal held it; its chain verified to it
    assert seen["head"] == (str(seen["journal_head"][0]), seen["journal_head"][1])
    assert seen["chain"] == f"hash chain verified to record {seen['journal_head'][0]}"
    # the last rounds, newest first, each the table `tabled settle` prints for it (16.11)
    settled = [r for r in journal_records(tmp_path, "round.settled") if r.seq <= seen["journal_head"][0]]
    assert len(seen["rounds"]) == min(10, len(settled)) >= 4
    assert [rid for rid, _ in seen["rounds"]] == [r.round_id for r in reversed(settled)][:10]
    assert seen["opened"] == [settled[-1].round_id]
    journal = str(tmp_path / "journal.db")
    for rid, table in seen["rounds"]:
        facts = tabled("recall", "--journal", journal, "--round", rid, "--round-json")
        assert table == tabled("settle", "-", stdin=facts).rstrip("\n")
    # the fault and who let it clear: the inspector's approval, by record number
    raised, = journal_records(tmp_path, "fault.raised")
    cleared, = journal_records(tmp_path, "fault.cleared")
    approval, = [r for r in journal_records(tmp_path, "panel.approved") if r.payload["action"] == "approve_play"]
    assert raised.seq < approval.seq < cleared.seq
    assert f"#{raised.seq}" in seen["cleared"] and f"#{cleared.seq}" in seen["cleared"]
    assert f"by inspector approved play (14.13) at {approval.time:%Y-%m-%d %H:%M:%S} UTC #{approval.seq}" \
        in seen["cleared"]
    assert "inspector key: approve_play approved(14.13)" in seen["decisions"]
    assert seen["open"] == ""


@pytest.mark.slow
async def test_a_page_from_the_pit_is_data_as_text(tmp_path):
    hostile = '<img src=x onerror="window.__owned = 1">'

    async def scenario(run):
        async with pit_page(run) as page:
            run.table.submit("equipment.fault", {"equipment": "betspots", "reason": hostile})
            await page.wait_for_selector("#faults-open li", timeout=2000)
            assert hostile in await page.text_content("#faults-open")
            assert hostile in await page.text_content("#devices")
            assert await page.query_selector("#faults-open img, #devices img") is None
            assert await page.evaluate("window.__owned") is None
        run.floor.paused = True

    await play(tmp_path, scenario)


async def test_a_journal_changed_under_the_daemon_is_refused_at_its_next_write(tmp_path):
    """Someone who can write the file changes an early record and hashes the chain again while the
    pit shows the chain verified: the daemon's next write finds the journal is not as it left it,
    writes nothing more and stops, naming the record."""
    from tabled.journal.store import JournalUnsealed

    async def scenario(run):
        async with browser() as b:
            page = await b.new_page()
            await page.goto(screen_of(run).url + "pit")
            await run.rounds(1)
            run.floor.paused = True
            await caught_up(run, page)
            assert (await page.text_content("#chain")).startswith("hash chain verified to record ")
            rewrite(tmp_path / "journal.db", 5, lambda p: {**p, "changed": True})
            run.floor.paused = False
            await run.rounds(1)

    with pytest.raises(JournalUnsealed, match=r"record \d+ was changed in the journal by something else than this "
                                              r"tabled after its last commit: refused"):
        await play(tmp_path, scenario)

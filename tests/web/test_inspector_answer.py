"""The inspector's answer on the pit page (tabled/daemon/answers.py): an inspector's badge and PIN,
the method and the seed in the request's body; SHA-1 and HMAC-SHA1 as GSA's GAT answers, over the
installed files, checked here with the standard library; a wrong PIN, another role's badge and a
bad request refused; every request journaled (``software.answered``)."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import io
from pathlib import Path

import aiohttp
import pytest

from tabled.commands.run import Seams, run_table
from tabled.daemon.staff import read_staff
from tabled.host import software
from tests.integration import harness
from tests.web.daemon import LOCAL, browser, screen_of

pytestmark = pytest.mark.slow

STAFF_FILE = Path(__file__).resolve().parents[2] / "config" / "sim-staff.toml"


def stream() -> bytes:
    """docs/verification.md's bytes over the installed files, read again here."""
    return b"".join(f.name.encode() + b"\0" + len(data).to_bytes(8, "big") + data
                    for f in software.installed_files() for data in [f.path.read_bytes()])


async def play_with_staff(tmp: Path, scenario) -> harness.Run:
    run = harness.Run(scenario)
    cfg = dataclasses.replace(harness.config(tmp), screen=LOCAL, staff=read_staff(STAFF_FILE, 5, 15))
    await run_table(cfg, 0, out=io.StringIO(), human=True,
                    seams=Seams(state_dir=tmp / "dev", timing=harness.FAST, poll_interval=harness.POLL, hooks=run))
    return run


async def test_the_inspector_is_answered_others_are_refused_and_every_request_is_journaled(tmp_path):
    facts: dict = {}

    async def scenario(run: harness.Run) -> None:
        url = screen_of(run).url.rstrip("/") + "/pit/answer"
        async with aiohttp.ClientSession() as http:
            async def ask(body):
                async with http.post(url, json=body) as r:
                    return r.status, await r.json()
            facts["wrong"] = await ask({"badge": 3001, "pin": "1111", "method": "sha1"})
            facts["dealer"] = await ask({"badge": 1001, "pin": "2468", "method": "sha1"})
            facts["bad"] = await ask({"badge": 3001, "pin": "9753", "method": "md5"})
            facts["seedless"] = await ask({"badge": 3001, "pin": "9753", "method": "hmac-sha1"})
            facts["sha1"] = await ask({"badge": 3001, "pin": "9753", "method": "sha1"})
            facts["hmac"] = await ask({"badge": "3001", "pin": "9753", "method": "hmac-sha1", "seed": "A5F3-24"})
        await run.until(lambda: run.table.journal.count() and len(
            [r for r in run.table.journal.records_after(0) if r.kind == "software.answered"]) == 5, act=False)
        run.floor.paused = True

    await play_with_staff(tmp_path, scenario)
    data = stream()
    assert facts["wrong"] == (403, {"error": "wrong badge or PIN"})
    assert facts["dealer"] == (403, {"error": "badge 1001 is not an inspector's"})
    assert facts["bad"][0] == 400 and facts["bad"][1]["error"].startswith("method must be one of")
    assert facts["seedless"][0] == 400 and "empty" in facts["seedless"][1]["error"]
    status, sha1 = facts["sha1"]
    assert status == 200 and sha1["answer"] == hashlib.sha1(data).hexdigest() and sha1["name"] == "Sim Inspector"
    status, keyed = facts["hmac"]
    assert status == 200 and keyed["answer"] == hmac.new(b"A5F3-24", data, hashlib.sha1).hexdigest()
    records = harness.journal_records(tmp_path, "software.answered")
    assert [r.payload["result"] for r in records] == ["refused", "refused", "refused", "answered", "answered"]
    assert records[-1].payload["answer"] == keyed["answer"] and records[-1].payload["seed"] == "A5F3-24"
    assert records[0].payload["badge"] == 3001 and records[0].payload["reason"] == "wrong badge or PIN"
    assert all("pin" not in r.payload for r in records)


async def test_the_pit_page_asks_and_shows_the_answer_in_a_browser(tmp_path):
    facts: dict = {}

    async def scenario(run: harness.Run) -> None:
        async with browser() as context:
            page = await context.new_page()
            await page.goto(screen_of(run).url.rstrip("/") + "/pit")
            await page.fill("#answer-badge", "3001")
            await page.fill("#answer-pin", "9753")
            await page.select_option("#answer-method", "hmac-sha1")
            await page.fill("#answer-seed", "NSW-7")
            await page.click("#answer-form button")
            await page.wait_for_function("document.getElementById('answer').dataset.state === 'answered'",
                                         timeout=60_000)  # bounds a hang: the files are read on a busy machine
            facts["shown"] = await page.text_content("#answer")
            facts["pin_left"] = await page.input_value("#answer-pin")
            facts["url"] = page.url
        run.floor.paused = True

    await play_with_staff(tmp_path, scenario)
    expected = hmac.new(b"NSW-7", stream(), hashlib.sha1).hexdigest()
    assert facts["shown"].endswith(f"hmac-sha1 seed NSW-7: {expected}")
    assert facts["pin_left"] == "" and "9753" not in facts["url"]

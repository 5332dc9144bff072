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


async def test_the_inspector_asks_on_the_pit_page_over_tls_and_nothing_secret_is_in_a_url(tmp_path):
    """Off the table PC (AGCO 6.1.7, 12.1.3): Debian's chromium, pinned to the certificate of the
    test's own authority, opens the pit page with a viewer's token, which becomes a cookie; the
    inspector's badge and PIN go in the request's body over TLS, the answer is shown and journaled."""
    from playwright.async_api import async_playwright

    from tabled.daemon.config import ScreenConfig
    from tests.web.certificates import make_authority
    from tests.web.daemon import CHROMIUM, CHROMIUM_ARGS
    from tests.web.test_access import own_address
    from tests.web.test_tls import PIT
    address = own_address()
    ca = make_authority(tmp_path / "tls", addresses=(address,))
    facts: dict = {}

    async def scenario(run: harness.Run) -> None:
        port = int(screen_of(run).url.rsplit(":", 1)[1].split("/")[0])
        async with async_playwright() as p:
            pinned = f"--ignore-certificate-errors-spki-list={ca.spki_sha256}"
            b = await p.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, pinned])
            try:
                context = await b.new_context(bypass_csp=True, viewport={"width": 1600, "height": 1000})
                page = await context.new_page()
                requested: list[str] = []
                page.on("request", lambda request: requested.append(request.url))
                await page.goto(f"https://{address}:{port}/pit?token={PIT.token}")
                facts["url"] = page.url
                await page.fill("#answer-badge", "3001")
                await page.fill("#answer-pin", "9753")
                await page.select_option("#answer-method", "sha1")
                await page.click("#answer-form button")
                await page.wait_for_function("document.getElementById('answer').dataset.state === 'answered'",
                                             timeout=60_000)  # bounds a hang: the files are read on a busy machine
                facts["shown"] = await page.text_content("#answer")
                facts["requested"] = requested
                facts["cookies"] = await context.cookies()
            finally:
                await b.close()
        run.floor.paused = True

    run = harness.Run(scenario)
    cfg = dataclasses.replace(harness.config(tmp_path), staff=read_staff(STAFF_FILE, 5, 15),
                              screen=ScreenConfig(True, "0.0.0.0", 0, (PIT,), tls=ca.tls))
    await run_table(cfg, 0, out=io.StringIO(), human=True,
                    seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL, hooks=run))
    assert facts["url"] == f"https://{address}:{facts['url'].split(':')[2].split('/')[0]}/pit"
    assert facts["shown"].endswith(f"sha1: {hashlib.sha1(stream()).hexdigest()}")
    assert all(u.startswith("https://") for u in facts["requested"])
    assert [u for u in facts["requested"] if PIT.token in u] == [facts["requested"][0]]
    assert not [u for u in facts["requested"] if "9753" in u or "3001" in u]
    assert [(c["name"], c["httpOnly"], c["secure"]) for c in facts["cookies"]] == [("tabled_screen", True, True)]
    (answered,) = harness.journal_records(tmp_path, "software.answered")
    assert answered.payload["result"] == "answered" and answered.payload["name"] == "Sim Inspector"

"""Game protection's alert on the floor's page in Chromium, against a PostgreSQL the test started:
a table's ``protection.alert`` note, shipped to the central copy, is raised on the floor naming
the spot, the player by the masked card (never the whole number) and the hidden cards the
decisions follow; a named person acknowledges it (docs/floor.md, "Alerts")."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from tabled.table.effects import Note
from tabled.table.protection import alert_note
from tests.floor.casino import Casino
from tests.web.floorpage import floor_page

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300)]
CARD = "4000100010002002"
EVIDENCE = {"spot": 3, "card": CARD, "hypothesis": "spots-1+1", "follows": "the hands at spots 2 and 4",
            "decisions": 212, "evidence_ln_milli": 16_400, "gain_milliantes": 9_250, "rounds": []}


def test_a_protection_alert_shows_on_the_floor_naming_the_masked_player_and_is_acknowledged(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 2)
    note, = [e for e in alert_note(EVIDENCE, "T02-000001") if isinstance(e, Note)]
    with casino.tables[0].open_journal() as j:  # sealed, as the daemon writes it
        j.append("round.started", {}, "T01-000001")
    with casino.tables[1].open_journal() as j:
        j.append("round.started", {}, "T02-000001")
        seq = j.append(note.kind, note.payload, "T02-000001").seq
    alert = f"li[data-alert='T02:protection:{seq}']"
    seen: dict = {}

    async def go() -> None:
        await casino.catch_up()
        floor = casino.floor(tmp_path, poll_ms=100)
        async with floor_page(floor, {"width": 1280, "height": 800}) as (page, errors):
            await page.wait_for_selector(f"{alert} button")
            seen["text"] = await page.text_content(f"{alert} .text")
            seen["body"] = await page.text_content("body")
            await page.fill("#who", "Dana Whitfield")
            await page.click(f"{alert} button")
            await page.wait_for_selector(f"{alert}.acked")
            seen["acked"] = await page.text_content(f"{alert} .ack")
            seen["at_s"] = floor.acks[f"T02:protection:{seq}"]["at_s"]
            await page.screenshot(path=str(tmp_path / "floor-protection.png"), full_page=True)
            print(f"screenshot: {tmp_path / 'floor-protection.png'}")
            seen["errors"] = errors

    asyncio.run(go())
    assert seen["errors"] == []
    assert seen["text"].startswith("T02: game protection: spot 3, player \u2022\u2022\u2022\u20222002: its decisions "
                                   "follow the hands at spots 2 and 4 (evidence e^16.4 = 1.33e+07, at most 7.5e-08 "
                                   "for an honest player over 212 decisions; +9.25 antes over the honest optimum) (")
    assert CARD not in seen["body"]
    at = datetime.fromtimestamp(seen["at_s"], UTC)
    assert seen["acked"] == f" - acknowledged by Dana Whitfield at {at:%Y-%m-%d %H:%M:%S} UTC"

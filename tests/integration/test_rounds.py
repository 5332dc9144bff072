"""Whole rounds end to end over real ports: the serial simulators in their own processes on ptys,
the shoe and panel behind the simulated pyusb backend, the daemon's real drivers and journal."""

from __future__ import annotations

import asyncio

from tabled.pool.local import LocalPool
from tests.integration.harness import journal_records, play


async def test_normal_rounds_settle_and_feed_the_pool_7_2_1_11_6_9(tmp_path):
    async def scenario(run):
        await run.rounds(3)
        # 2.4.3: the meter (its own process) shows what the pool holds (once its command is through)
        await run.until(lambda: True, act=False)
        shown = await eventually(lambda: run.sims.control("meter").call("showing"),
                                 lambda v: v["amounts"] == [run.core.pool.cents])
        assert shown["amounts"] == [run.core.pool.cents]
        # 7.2.1, 11.2: after "no more bets" the board is locked and the lamps of the spots whose
        # progressive wager was accepted are lit
        await run.phase("deciding", act=True)
        board = await eventually(lambda: run.sims.control("betspots").call("reading"),
                                 lambda v: v["lamps"] == [1, 0, 1, 1, 0, 1, 1])
        assert board["locked"] is True
        assert board["lamps"] == [1, 0, 1, 1, 0, 1, 1]
        assert run.devices.up == {"shuffler", "betspots", "meter", "shoe", "panel"}

    run = await play(tmp_path, scenario)
    settled = journal_records(tmp_path, "round.settled")
    assert len(settled) >= 3
    for rec in settled[:3]:
        d = rec.payload
        assert d["void"] is None and len(d["dealer"]["cards"]) == 5
        assert {s["spot"] for s in d["spots"] if s["status"] != "empty"} == set(range(1, 8))
    # the hands came from the shuffling device, five at a time (7.4), and every frame was acked
    hands = journal_records(tmp_path, "shuffler.hand")
    assert len(hands) >= 3 * 8 and all(len(h.payload["cards"]) == 5 for h in hands)
    # 11.6: five spots wager the progressive each round: 25 cents of each $1 goes to the pool
    contributions = journal_records(tmp_path, "pool.contributed")
    assert len(contributions) >= 15 and all(c.payload["pool_cents"] == 25 for c in contributions)
    pool = await LocalPool.open(tmp_path / "pool.db", "main", "SIM01")
    try:
        assert await pool.balance() == run.core.pool.cents
    finally:
        await pool.close()
    assert run.said("9.1") or run.said("9.2")


async def eventually(read, ok, timeout: float = 3.0):
    """Read a simulator's state until ``ok`` (a device command may still be on its way)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = await read()
        if ok(value) or loop.time() > end:
            return value
        await asyncio.sleep(0.01)

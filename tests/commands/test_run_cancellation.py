"""No wait in the daemon swallows a cancellation. On Python 3.11 ``asyncio.wait_for`` returns the
inner result and drops the cancellation when both land in the same turn of the loop; the simulated
floor's wait for the table did exactly that, so a SIGTERM (which cancels play) could be lost and the
table played on. These tests cancel at exactly that moment."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from types import SimpleNamespace

from tabled.commands.run import STOP_WAIT_S, until_done
from tabled.sim.players import DeviceFloor

ROOT = Path(__file__).resolve().parents[2]


class StandingFloor(DeviceFloor):
    """People standing still: the floor's loop only waits for the table to change."""

    async def step(self) -> bool:
        return False


def idle_floor() -> DeviceFloor:
    """A floor at a table with nothing to do: it waits for the table to change, for ever."""
    idle = asyncio.Event()
    idle.set()
    table = SimpleNamespace(idle=idle, listeners=[])
    sims = SimpleNamespace(control=lambda device: None)
    return StandingFloor(table, sims, devices=None, players=[], view=lambda: SimpleNamespace(rounds_finished=0))


async def test_the_floor_stops_when_cancelled_as_the_table_changes():
    floor = idle_floor()
    play = asyncio.create_task(floor.play(None, stall_s=30))
    for _ in range(3):
        await asyncio.sleep(0)  # the floor is now waiting for the table to change
    floor.changed.set()         # the table changes ...
    play.cancel()               # ... in the same turn as SIGTERM cancels play
    done, _ = await asyncio.wait({play}, timeout=2)
    assert play in done and play.cancelled(), "the cancellation was swallowed: the floor plays on"


async def test_a_stop_ends_play_even_if_play_ignores_its_cancellation():
    """The last line of defence: the daemon never waits on play for longer than STOP_WAIT_S."""
    released = asyncio.Event()

    async def stubborn() -> None:
        while not released.is_set():
            try:
                await asyncio.sleep(0.01)
            except asyncio.CancelledError:
                pass  # the bug this guards against: a cancellation lost

    stop = asyncio.Event()
    consumer = asyncio.create_task(asyncio.Event().wait())
    loop = asyncio.get_running_loop()
    loop.call_later(0.05, stop.set)
    t0 = loop.time()
    await until_done(stubborn(), consumer, stop)
    assert loop.time() - t0 < STOP_WAIT_S + 1
    released.set()
    consumer.cancel()


def test_no_wait_for_in_the_daemon():
    """asyncio.wait_for is the wait that can drop a cancellation on 3.11: the daemon's code uses
    asyncio.timeout (or asyncio.wait) instead."""
    found = [f"{p.relative_to(ROOT)}:{n}" for d in ("tabled", "drivers") for p in sorted((ROOT / d).rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"\basyncio\.wait_for\(|\bawait wait_for\(", line)]
    assert found == []

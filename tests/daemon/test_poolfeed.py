"""The pool feed on its own (tabled/daemon/poolfeed.py; 11.5, 14.13): operations go to each pool in
order, an operation that cannot reach its pool waits and is sent again until the pool takes it
(once: keyed), the fault is raised while it waits and cleared when all is delivered, and the
awards go to the primary pool only (12)."""

from __future__ import annotations

import asyncio

from structlog.testing import capture_logs

from tabled.journal.store import Journal
from tabled.daemon.poolfeed import PoolFeed
from tabled.game.limits import Limits
from tabled.pool.base import PoolUnavailable, ProgressivePool
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings
from tabled.profiles import load_profile
from tabled.table.core import TableCore
from tabled.table.effects import PoolOp

PROFILE = load_profile("nsw")
SETTINGS = PoolSettings(PROFILE.contribution_basis_points, PROFILE.progressive_schedule.reset_cents)


class Unplugged:
    """A pool behind a link the test pulls: while ``down``, every call raises PoolUnavailable."""

    def __init__(self, pool: LocalPool):
        self.pool, self.down, self.calls = pool, False, 0

    def __getattr__(self, name: str):
        member = getattr(self.pool, name)
        if not callable(member) or name == "subscribe_meter":
            return member

        async def call(*args, **kwargs):
            self.calls += 1
            if self.down:
                raise PoolUnavailable(f"pool {self.pool.name}: no route to host")
            return await member(*args, **kwargs)
        return call


class Feeding:
    """A feed as the table runs it: answers collected, folding immediate."""

    def __init__(self, core: TableCore, journal: Journal, primary, others=()):
        self.answers: list[tuple[str, dict]] = []
        self.settled = 0

        async def folded() -> None:
            await asyncio.sleep(0)

        def settled() -> None:
            self.settled += 1

        self.feed = PoolFeed(core, journal, primary, others, submit=lambda k, p: self.answers.append((k, p)),
                             folded=folded, settled=settled, retry_interval=0.01, follow_meter=False)

    def kinds(self) -> list[str]:
        return [k for k, _ in self.answers]

    async def until(self, cond, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not cond():
                await asyncio.sleep(0.005)


async def open_pool(tmp, name: str) -> LocalPool:
    return await LocalPool.open(tmp / f"{name}.db", name, "T01", SETTINGS)


def fresh(tmp) -> tuple[TableCore, Journal]:
    core = TableCore("T01", 7, Limits(500, 50_000, 100, PROFILE.progressive_wager_cents), PROFILE)
    return core, Journal.open(tmp / "journal.db")


async def test_an_operation_that_cannot_reach_the_pool_waits_under_the_fault_then_is_taken_once_14_13(tmp_path):
    local = await open_pool(tmp_path, "main")
    core, journal = fresh(tmp_path)
    pool = Unplugged(local)
    try:
        f = Feeding(core, journal, pool)
        f.feed.start()
        pool.down = True
        with capture_logs() as logged:
            assert f.feed.send([PoolOp("contribute", "T01-000001", 3, PROFILE.progressive_wager_cents,
                                       table_id="T01")])
            await f.until(lambda: "equipment.fault" in f.kinds() and pool.calls >= 3)   # sent again and again
        # said once when it starts, not at every re-send
        assert [e["event"] for e in logged if e["event"].startswith("pool.unreachable")] == ["pool.unreachable"]
        assert logged[0]["error"] == "pool main: no route to host" and logged[0]["round_id"] == "T01-000001"
        assert f.feed.pending == 0 and f.settled == 1   # parked: the table is not held up by it
        assert f.answers[0] == ("equipment.fault", {"equipment": "pool",
                                                    "reason": "pool main: no route to host"})
        pool.down = False
        with capture_logs() as logged:
            await f.until(lambda: "equipment.ok" in f.kinds())
        ended = [e for e in logged if e["event"] == "pool.unreachable.ended"]
        assert len(ended) == 1 and ended[0]["failures"] >= 3 and ended[0]["pool"] == "main"
        assert f.kinds() == ["equipment.fault", "pool.contributed", "equipment.ok"]
        (_, contributed), = [a for a in f.answers if a[0] == "pool.contributed"]
        assert contributed["spot"] == 3 and contributed["balance_cents"] == await local.balance()
        assert await local.balance() == SETTINGS.reset_cents + contributed["pool_cents"]   # once
        assert f.settled == 1   # the parked batch counted as settled once, not again when delivered
    finally:
        f.feed.stop()
        await local.close()
        journal.close()


async def test_awards_go_to_the_primary_pool_only_contributions_to_every_pool_11_5_12(tmp_path):
    main, side = await open_pool(tmp_path, "main"), await open_pool(tmp_path, "side")
    core, journal = fresh(tmp_path)
    try:
        assert isinstance(main, ProgressivePool) and isinstance(side, ProgressivePool)
        f = Feeding(core, journal, main, [side])
        assert core.pool.count == 2
        f.feed.start()
        f.feed.send([PoolOp("contribute", "T01-000001", 1, PROFILE.progressive_wager_cents, table_id="T01"),
                     PoolOp("contribute", "T01-000001", 2, PROFILE.progressive_wager_cents, table_id="T01"),
                     PoolOp("awards", "T01-000001", hits=((1, "FLUSH"),), table_id="T01",
                            schedule=PROFILE.progressive_schedule)])
        await f.until(lambda: f.feed.pending == 0 and len(f.answers) == 5)
        by_pool = sorted((p["pool"], k) for k, p in f.answers)
        assert by_pool == [("main", "pool.awards"), ("main", "pool.contributed"), ("main", "pool.contributed"),
                           ("side", "pool.contributed"), ("side", "pool.contributed")]
        assert all("balance_cents" not in p for k, p in f.answers if p["pool"] == "side")  # the meter: primary's
    finally:
        f.feed.stop()
        await main.close()
        await side.close()
        journal.close()


async def test_an_award_goes_to_the_pool_as_the_operation_carries_it_hands_and_held_time_9_5_14_13(tmp_path):
    # the feed reads nothing of the table for an award: the table, the hands, the pay table and
    # the time the table held it while the pool was down are the operation's own
    local = await open_pool(tmp_path, "main")
    core, journal = fresh(tmp_path)
    held_ms = 1_700_000_000_000
    try:
        f = Feeding(core, journal, local)
        f.feed.start()
        f.feed.send([PoolOp("awards", "T01-000001", hits=((3, "ROYAL_FLUSH"),), table_id="T01",
                            hands=((3, (51, 47, 43, 39, 35)),), schedule=PROFILE.progressive_schedule,
                            held_since_ms=held_ms)])
        await f.until(lambda: f.feed.pending == 0 and f.answers)
        (kind, answer), = f.answers
        assert kind == "pool.awards" and answer["held_since_ms"] == held_ms
        (hit,) = await local.history()
        assert (hit.table_id, hit.round_id, hit.spot, hit.category) == ("T01", "T01-000001", 3, "ROYAL_FLUSH")
        assert hit.hand is not None and len(hit.hand.split()) == 5 and hit.held_since is not None
        assert hit.held_since.startswith("2023-11-14T22:13:20")
    finally:
        f.feed.stop()
        await local.close()
        journal.close()

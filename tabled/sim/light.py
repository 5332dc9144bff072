"""Light tables: many tables against one central server, on one machine, for measuring the floor.

A light table has no devices and no rules engine: it journals rounds (recorded or generated
records, each round's given a new round id) into a real :class:`~tabled.journal.store.Journal`,
one commit at a time spread over the round's play, wakes its real
:class:`~tabled.daemon.shipping.Shipper` after each commit as ``tabled run`` does, and puts each
round's progressive wagers (7.2.1) and now and then an award (12.1) into the linked pool through the
real :class:`~tabled.pool.postgresql.PostgresPool`. Rounds come at a casino's pace: one every
``pace_s`` (45 to 90 s), with bursts of quick rounds.

A pool operation that fails (the pool out of reach, 14.13) is sent again under the same key until
the pool confirms it, as the daemon re-sends what its journal holds: so every confirmed operation is
kept in ``confirmed`` and a failover can be checked for operations lost or counted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabled.daemon import shipping
from tabled.journal.store import Journal
from tabled.game.progressive import ProgressiveHit, ProgressiveSchedule
from tabled.game.ranking import Category
from tabled.pool.base import PoolError, PoolUnavailable
from tabled.pool.local import finish_even_if_cancelled
from tabled.pool.postgresql import PostgresPool

#: a round's records: (kind, payload) in order
Round = Sequence[tuple[str, Mapping[str, Any]]]


@dataclass(frozen=True)
class Pace:
    """How often rounds come and how long a round's records take to be journaled."""

    between_s: tuple[float, float] = (45.0, 90.0)   # from one round's start to the next
    burst: float = 0.1                               # the share of rounds that follow at once
    burst_s: tuple[float, float] = (5.0, 15.0)
    play_s: float = 20.0                             # a round's records spread over this long

    def scaled(self, factor: float) -> Pace:
        """The same pace ``factor`` times faster (tests)."""
        return Pace((self.between_s[0] / factor, self.between_s[1] / factor), self.burst,
                    (self.burst_s[0] / factor, self.burst_s[1] / factor), self.play_s / factor)


@dataclass
class LightTable:
    """One table: a journal, its shipper and its pool client. ``central``: the shipper's connection
    string (a table's own role; its password in ``credentials``, systemd's credential folder);
    ``pool_dsn``: the pool client's."""

    table_id: str
    folder: Path
    central: str
    credentials: Path
    pool_dsn: str
    pool_name: str
    schedule: ProgressiveSchedule
    rounds: Sequence[Round]
    pace: Pace = field(default_factory=Pace)
    award_every: int = 40          # about one round in this many has a progressive hit
    retry_s: float = 0.5
    seed: int = 1
    confirmed: dict[str, set[str]] = field(default_factory=lambda: {"contribution": set(), "award": set()})
    played: int = 0
    shipper: shipping.Shipper | None = None

    @property
    def journal_path(self) -> Path:
        return self.folder / "journal.db"

    async def run(self, stop: asyncio.Event, clock: Callable[[], float] = time.monotonic) -> None:
        """Play until ``stop`` is set; then ship what is left (bounded) and close."""
        self.folder.mkdir(parents=True, exist_ok=True)
        rng = random.Random(self.seed)
        connect = shipping.connector(self.central, {"CREDENTIALS_DIRECTORY": str(self.credentials)})
        self.shipper = shipping.Shipper(self.journal_path, self.table_id, connect, retry_s=self.retry_s, clock=clock)
        ship = asyncio.create_task(self.shipper.run())
        pool = await PostgresPool.open(self.pool_dsn, self.pool_name, self.table_id, wait_for_link=True)
        try:
            with Journal.open(self.journal_path) as journal:
                n = journal.count()
                await _pause(stop, rng.uniform(0, self.pace.between_s[1]))  # tables do not all start at once
                while not stop.is_set():
                    n += 1
                    started = clock()
                    await self._play(journal, pool, f"{self.table_id}-{n:06d}", rng, stop)
                    self.played += 1
                    quick = rng.random() < self.pace.burst
                    gap = rng.uniform(*(self.pace.burst_s if quick else self.pace.between_s))
                    await _pause(stop, max(0.0, started + gap - clock()))
            await self.shipper.finish(30)
        finally:
            ship.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ship
            await pool.close()

    async def _play(self, journal: Journal, pool: PostgresPool, round_id: str, rng: random.Random,
                    stop: asyncio.Event) -> None:
        records = self.rounds[rng.randrange(len(self.rounds))]
        step = self.pace.play_s / max(len(records), 1)
        wagers = {spot: 100 * rng.choice((1, 1, 1, 5)) for spot in rng.sample(range(1, 8), rng.randint(1, 4))}
        bets_at = len(records) // 3      # no more bets (7.2.1): the wagers go to the pool
        for i, (kind, payload) in enumerate(records):
            if i == bets_at:
                await self._until_confirmed(
                    "contribution", round_id, lambda: pool.contribute_round(self.table_id, round_id, wagers), stop)
            # a table has its PC to itself: here many share a process, so one table's commit (its
            # fsync) does not hold the others' play and shipping
            # to its end even if the table is stopped meanwhile: the journal closes after it, not under it
            await finish_even_if_cancelled(asyncio.to_thread(journal.append, kind, payload, round_id))
            assert self.shipper is not None
            self.shipper.wake()
            await asyncio.sleep(step * rng.uniform(0.5, 1.5))
        if rng.randrange(self.award_every) == 0:
            spot = min(wagers)
            hit = [ProgressiveHit(spot, rng.choice((Category.FLUSH, Category.FULL_HOUSE, Category.FOUR_OF_A_KIND)))]
            await self._until_confirmed(
                "award", round_id, lambda: pool.apply_awards(self.table_id, round_id, hit, self.schedule), stop)

    async def _until_confirmed(self, kind: str, round_id: str, operation: Callable[[], Any],
                               stop: asyncio.Event) -> None:
        """The operation again, under its key, until the pool confirms it (the daemon re-sends what
        its journal holds after a 14.13 fault); given up only when the table stops."""
        while True:
            try:
                await operation()
            except PoolUnavailable:
                if stop.is_set():
                    return
                await asyncio.sleep(self.retry_s * random.uniform(0.5, 1.5))
                continue
            except PoolError:
                raise
            self.confirmed[kind].add(round_id)
            return


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()


__all__ = ["LightTable", "Pace", "Round"]

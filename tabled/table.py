"""The table controller: one asyncio queue, one consumer owning all table state (DESIGN.md).

Write-ahead: inputs waiting in the queue together are journaled in ONE commit (group commit), each
device's frame is acknowledged only after that commit, and only then does the core
(tabled/core.py) fold them and the controller carry out the effects: dealer display and log,
device commands, pool operations (whose results come back as journaled inputs) and notes.

Recovery (:meth:`Table.recover`): load the last checkpoint, replay the records after it through
the same fold with the devices told nothing, write the notes a crash lost, and only then re-send
the standing effects (state-setting commands and keyed pool operations, all safe to repeat).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from tabled.core import TableCore, result_as_dict
from tabled.effects import Command, Effect, Note, PoolOp, Say
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.journal import Journal
from tabled.pool.base import PoolError, PoolUnavailable

log = structlog.get_logger("tabled.table")

#: journal kinds that are inputs (folded); everything else a note derived from them
INPUT_PREFIXES = ("wager", "panel", "shuffler.", "shoe.", "deck.", "equipment.", "pool.", "tick")
NOTE_KINDS_PREFIXES = ("round.", "panel.approved", "panel.refused", "fault.")


def is_input(kind: str) -> bool:
    if kind.startswith(NOTE_KINDS_PREFIXES):
        return False
    return kind == "wager" or kind == "panel" or kind == "tick" or kind.startswith(INPUT_PREFIXES)


CommandSink = Callable[[Command], Awaitable[None]]


class Table:
    def __init__(self, core: TableCore, journal: Journal, pool: Any, *,
                 commands: CommandSink | None = None, display: Callable[[Say, str | None], None] | None = None,
                 checkpoint_every: int = 100, clock: Callable[[], float] = time.time):
        self.core = core
        self.journal = journal
        self.pool = pool
        self.commands = commands
        self.display = display
        self.checkpoint_every = checkpoint_every
        self.clock = clock
        self.queue: asyncio.Queue[tuple[str, dict[str, Any], Callable[[], None] | None]] = asyncio.Queue()
        self.idle = asyncio.Event()
        self.stop_after_records: int | None = None  # tests: crash after this many journal records
        self.listeners: list[Callable[[list[Effect]], None]] = []
        self._stopped = False
        # pool operations run beside the consumer, in order; their results come back as inputs
        self._pool_ops: asyncio.Queue[list[PoolOp]] = asyncio.Queue()
        self._pool_pending = 0
        self._processing = False
        self._pool_worker: asyncio.Task | None = None

    # -- intake ------------------------------------------------------------------------------------

    def submit(self, kind: str, payload: dict[str, Any], ack: Callable[[], None] | None = None) -> None:
        """Put an input on the queue (drivers, panel, timers, the pool's answers)."""
        self.idle.clear()
        self.queue.put_nowait((kind, payload, ack))

    # -- the consumer -----------------------------------------------------------------------------

    async def run(self) -> None:
        self._pool_worker = asyncio.get_running_loop().create_task(self._pool_work(), name="table-pool")
        try:
            await self._consume()
        finally:
            self._pool_worker.cancel()

    async def _consume(self) -> None:
        while not self._stopped:
            if self.queue.empty() and not self._pool_pending:
                self.idle.set()
            item = await self.queue.get()
            batch = [item]
            while not self.queue.empty():
                batch.append(self.queue.get_nowait())
            self._processing = True
            try:
                await self.process(batch)
            finally:
                self._processing = False

    def stop(self) -> None:
        self._stopped = True
        self.queue.put_nowait(("tick", {}, None))

    async def process(self, batch: list[tuple[str, dict[str, Any], Callable[[], None] | None]]) -> None:
        rid = self.core.round_id
        records = self._journal([(kind, payload, rid) for kind, payload, _ in batch])
        for _, _, ack in batch[:len(records)]:
            if ack is not None:
                ack()  # durable: the device may forget this frame
        for rec in records:
            before = self.core.round_id  # the lines an input causes belong to the round it came in
            effects = self.core.apply(rec.kind, rec.payload, rec.time_us // 1000)
            await self.carry_out(effects, before)

    def _journal(self, items: list[tuple[str, dict[str, Any], str | None]]):
        if self.stop_after_records is not None:
            room = self.stop_after_records - self.journal.count()
            if room <= 0:
                raise Crash("stopped at the scripted journal step")
            if room < len(items):
                recs = self.journal.append_many(items[:room])
                raise Crash("stopped at the scripted journal step", recs)
        return self.journal.append_many(items)

    async def carry_out(self, effects: list[Effect], round_id: str | None = None) -> None:
        notes = [e for e in effects if isinstance(e, Note)]
        if notes:
            self._journal([(n.kind, n.payload, n.round_id) for n in notes])
        for listener in self.listeners:
            listener(effects)
        rid = self.core.round_id if round_id is None else round_id
        ops = []
        for e in effects:
            if isinstance(e, Note) and e.round_id:
                rid = e.round_id  # a round's notes come before the lines that belong to it
            if isinstance(e, Say):
                self._say(e, rid)
            elif isinstance(e, Command):
                await self._command(e)
            elif isinstance(e, PoolOp):
                ops.append(e)
        if ops:
            self._pool_pending += 1
            self.idle.clear()
            self._pool_ops.put_nowait(ops)
        if any(n.kind == "round.finished" for n in notes) and self.checkpoint_every \
                and self.core.rounds_finished % self.checkpoint_every == 0:
            self._checkpoint()

    def _checkpoint(self) -> None:
        if self.stop_after_records is not None and self.journal.count() >= self.stop_after_records:
            raise Crash("stopped at the scripted journal step")
        self.journal.checkpoint(self.core.snapshot())

    def _say(self, e: Say, round_id: str | None = None) -> None:
        level = {"info": "info", "flag": "warning", "refused": "warning"}[e.level]
        round_id = round_id or self.core.round_id
        getattr(log, level)(e.text, round_id=round_id, spot=e.spot, rule=e.rule, kind=e.level)
        if self.display is not None:
            self.display(e, round_id)

    async def _command(self, e: Command) -> None:
        if self.commands is None:
            return
        try:
            await self.commands(e)
        except Exception as exc:  # a device that is down: its driver reconnects and reports a fault
            log.warning("device command failed", device=e.device, command=e.name, error=str(exc),
                        round_id=self.core.round_id)

    async def _pool_work(self) -> None:
        while True:
            ops = await self._pool_ops.get()
            try:
                contributions = [e for e in ops if e.op == "contribute"]
                if len(contributions) > 1 and hasattr(self.pool, "contribute_round") \
                        and len({e.round_id for e in contributions}) == 1:
                    await self._contribute_round(contributions)  # 7.2.1: one transaction for the lock
                    ops = [e for e in ops if e.op != "contribute"]
                for e in ops:
                    await self._pool(e)
            finally:
                self._pool_pending -= 1
                if self.queue.empty() and not self._pool_pending and not self._processing:
                    self.idle.set()  # nothing came back (or it is already folded): the table is idle

    async def _contribute_round(self, ops: list[PoolOp]) -> None:
        t, rid = self.core.table_id, ops[0].round_id
        try:
            done = await self.pool.contribute_round(t, rid, {e.spot: e.cents for e in ops})
        except (PoolUnavailable, PoolError):
            for e in ops:  # one by one: the error is reported as for a single contribution
                await self._pool(e)
            return
        balance = await self.pool.balance()
        for e, c in zip(ops, done):
            self.submit("pool.contributed", {"round_id": rid, "spot": e.spot, "wager_cents": e.cents,
                                             "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                             "balance_cents": balance})

    async def _pool(self, e: PoolOp) -> None:
        t = self.core.table_id
        try:
            if e.op == "contribute":
                c = await self.pool.contribute(t, e.round_id, e.spot, e.cents)
                self.submit("pool.contributed", {"round_id": e.round_id, "spot": e.spot, "wager_cents": e.cents,
                                                 "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                                 "balance_cents": await self.pool.balance()})
            elif e.op == "reverse":
                back = await self.pool.reverse(t, e.round_id, e.spot, e.reason)
                self.submit("pool.reversed", {"round_id": e.round_id, "spot": e.spot, "reversed_cents": back,
                                              "reason": e.reason, "balance_cents": await self.pool.balance()})
            else:
                hits = [ProgressiveHit(s, Category[c]) for s, c in e.hits]
                result = await self.pool.apply_awards(t, e.round_id, hits, self.core.profile.progressive_schedule)
                self.submit("pool.awards", {"round_id": e.round_id, "result": result_as_dict(result)})
        except PoolUnavailable as exc:
            self.submit("equipment.fault", {"equipment": "pool", "reason": str(exc)})
        except PoolError as exc:
            log.error("pool refused an operation", op=e.op, spot=e.spot, error=str(exc), round_id=e.round_id)
            self.submit("equipment.fault", {"equipment": "pool", "reason": f"refused {e.op}: {exc}"})

    # -- recovery ------------------------------------------------------------------------------------

    @staticmethod
    def replay(journal: Journal, make_core: Callable[[dict[str, Any] | None], TableCore]) -> tuple[TableCore, list[Note], int]:
        """Fold the journal from the last checkpoint. Returns the core, the notes the replay made
        that the journal does not hold yet (a crash came between an input and its notes), and the
        number of records replayed."""
        cp = journal.last_checkpoint()
        core = make_core(cp.payload["snapshot"] if cp else None)
        generated: list[Note] = []
        written = 0
        count = 0
        for rec in journal.records_after(cp.seq if cp else 0):
            count += 1
            if rec.kind == "checkpoint":
                continue
            if is_input(rec.kind):
                generated += [e for e in core.apply(rec.kind, rec.payload, rec.time_us // 1000)
                              if isinstance(e, Note)]
            else:
                written += 1
        return core, generated[written:], count

    async def resume(self, missing_notes: list[Note]) -> None:
        """After a replay: write the lost notes, then re-send what is safe to repeat."""
        if missing_notes:
            self._journal([(n.kind, n.payload, n.round_id) for n in missing_notes])
        await self.carry_out(self.core.standing_effects())


class Crash(Exception):
    """Raised in tests to stop the table at a given journal step, as a kill -9 would."""

    def __init__(self, message: str, records: list | None = None):
        super().__init__(message)
        self.records = records or []

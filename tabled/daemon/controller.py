"""The table controller: one asyncio queue, one consumer owning all table state.

Write-ahead, one commit per batch: the inputs waiting in the queue together are folded by the core
(tabled/table/core.py) with the time the journal stamps them, then journaled with the notes the fold
drew from them in ONE commit (the inputs, then their notes); only after that commit is each device's
frame acknowledged and are the effects carried out: dealer display and log, device commands, pool
operations (whose results come back as journaled inputs). No effect of a fold the journal does not
hold is carried out: a write that fails stops the table (:meth:`Table.process`).

Recovery (:meth:`Table.replay`, then :meth:`Table.resume`): load the last checkpoint, replay the
records after it through the same fold with the devices told nothing, write the notes a crash
lost, and only then re-send the standing effects (state-setting commands and keyed pool operations, all safe to repeat).

The pools are fed beside the consumer (tabled/daemon/poolfeed.py): their answers come back here as
inputs, journaled and folded like any other.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import structlog

from tabled.journal.store import Journal, JournalError
from tabled.daemon.poolfeed import PoolFeed
from tabled.pool.base import ProgressivePool
from tabled.table.core import TableCore
from tabled.table.effects import Command, Effect, Note, PoolOp, Say
from tabled.table.kinds import is_input, is_note

log = structlog.get_logger("tabled.daemon.controller")

#: the notes this version's fold writes (tabled/table/notes.py): 2 since every action under any key,
#: the progressive awards determined and paid, each shuffle read and each device's fault are noted
NOTES_VERSION = 2


def same_note(kind: str, round_id: str | None, payload: dict[str, Any]) -> tuple[Any, ...]:
    """What makes a journaled note the one the replay made: its kind, round, and the action and key
    of a panel action (a journal written before every key's action was noted holds only some)."""
    return kind, round_id, payload.get("action"), payload.get("key")

CommandSink = Callable[[Command], Awaitable[None]]


def log_dealer_line(e: Say, round_id: str | None) -> None:
    """The log record of a line told to the dealer: a flag or a refusal is a warning
    (tabled.host.log.dealer_line knows such a record by its ``kind``, ``rule`` and ``spot``)."""
    level = {"info": "info", "flag": "warning", "refused": "warning"}[e.level]
    getattr(log, level)(e.text, round_id=round_id, spot=e.spot, rule=e.rule, kind=e.level)


class Table:
    """The consumer: the queue, the fold, one commit per batch, the acknowledgements after it and the
    effects. ``pool`` is the primary pool (awards, meter) and ``pools`` the others the table also
    feeds (11.5), through its :class:`PoolFeed`; ``retry_interval``: seconds between attempts to
    reach a pool that is down (14.13); ``follow_meter``: follow the pools' meter readings."""

    def __init__(self, core: TableCore, journal: Journal, pool: ProgressivePool, *,
                 commands: CommandSink | None = None, display: Callable[[Say, str | None], None] | None = None,
                 checkpoint_every: int = 100, pools: Sequence[ProgressivePool] = (),
                 retry_interval: float = 1.0, follow_meter: bool = True,
                 on_commit: Callable[[], None] | None = None):
        self.core = core
        self.journal = journal
        self.commands = commands
        self.display = display
        self.checkpoint_every = checkpoint_every
        self.queue: asyncio.Queue[tuple[str, dict[str, Any], Callable[[], None] | None]] = asyncio.Queue()
        self.idle = asyncio.Event()
        self.listeners: list[Callable[[list[Effect]], None]] = []
        # the pools' answers go through submit as it stands: one wrapped later sees them too
        self.feed = PoolFeed(core, journal, pool, pools, submit=lambda kind, payload: self.submit(kind, payload),
                             folded=self.folded, settled=self._pool_settled, retry_interval=retry_interval,
                             follow_meter=follow_meter)
        self._stopped = False
        self._checkpoint_due = False  # a round finished: checkpoint when its batch is folded
        self.on_commit = on_commit    # told after each batch is durable (the journal's shipper)
        self.shipping_waits: str | None = None  # why the journal is not shipped (the pit shows it), or None
        self._processing = False
        self._running = False
        self.failed: str | None = None  # why the table stopped with its core ahead of its journal, or None

    # -- intake ------------------------------------------------------------------------------------

    def submit(self, kind: str, payload: dict[str, Any], ack: Callable[[], None] | None = None) -> None:
        """Put an input on the queue (drivers, panel, timers, the pool's answers)."""
        self.idle.clear()
        self.queue.put_nowait((kind, payload, ack))

    # -- the consumer -----------------------------------------------------------------------------

    async def run(self) -> None:
        self.feed.start()
        self._running = True
        try:
            await self._consume()
        finally:
            self._running = False
            self.feed.stop()

    async def _consume(self) -> None:
        while not self._stopped:
            if self.queue.empty() and not self.feed.pending:
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

    async def folded(self) -> None:
        """Wait until the consumer has folded every input submitted so far."""
        while self._running and (self._processing or not self.queue.empty()):
            await asyncio.sleep(0.001)

    def stop(self) -> None:
        self._stopped = True
        self.feed.stop()  # before the pools close: a closing pool is not a lost link
        self.queue.put_nowait(("tick", {}, None))

    async def process(self, batch: list[tuple[str, dict[str, Any], Callable[[], None] | None]]) -> None:
        """Fold a batch of inputs and journal them with the notes the fold drew from them in ONE commit;
        only then acknowledge the devices' frames and carry out the effects.

        Each input is folded as the journal holds it (its payload as read back, the time the commit
        carries: :meth:`Journal.stamp`), so a replay folds the same; the journal holds the batch's
        inputs, then their notes, as a replay reads them.

        A fold or a write that fails (the journal's disk full, a sealed journal changed by something
        else) leaves the core holding what the journal does not: the error stops the table, and it
        processes nothing more (:attr:`failed`). Nothing of the batch was journaled or acknowledged,
        so the devices send those frames again and the next start replays the journal."""
        if self.failed is not None:
            raise JournalError(self.failed)
        rid = self.core.round_id
        inputs = self.journal.as_written([(kind, payload, rid) for kind, payload, _ in batch])
        time_us = self.journal.stamp()
        folded = []
        try:
            for kind, payload, _ in inputs:
                before = self.core.round_id  # the lines an input causes belong to the round it came in
                folded.append((self.core.apply(kind, payload, time_us // 1000), before))
            notes = [(e.kind, e.payload, e.round_id) for effects, _ in folded for e in effects if isinstance(e, Note)]
            records = self.journal.append_many([*inputs, *notes], time_us=time_us)
        except BaseException:
            self.failed = (f"{self.journal.path}: the table stopped when a batch of inputs could not be folded "
                           "and journaled: its state is ahead of the journal; start tabled again (it replays the "
                           "journal)")
            raise
        for _, _, ack in batch:
            if ack is not None:
                ack()  # durable: the device may forget this frame
        self.feed.journaled(records[len(inputs):])
        for effects, before in folded:
            await self.carry_out(effects, before, journal_notes=False)
        if self._checkpoint_due:
            # only once the whole batch is journaled: replay starts after the checkpoint, so the
            # snapshot must hold every input journaled before it
            self._checkpoint_due = False
            self.checkpoint()
        if self.on_commit is not None:
            self.on_commit()

    def checkpoint(self) -> None:
        """The table's state, marked with the notes this version writes (:data:`NOTES_VERSION`)."""
        self.journal.checkpoint({**self.core.snapshot(), "notes": NOTES_VERSION})

    async def carry_out(self, effects: list[Effect], round_id: str | None = None, journal_notes: bool = True) -> None:
        notes = [e for e in effects if isinstance(e, Note)]
        if notes and journal_notes:
            self.feed.journaled(self.journal.append_many([(n.kind, n.payload, n.round_id) for n in notes]))
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
        if ops and self.feed.send(ops):
            self.idle.clear()
        finished = any(n.kind == "round.finished" for n in notes)
        if finished and self.checkpoint_every and self.core.rounds_finished % self.checkpoint_every == 0:
            self._checkpoint_due = True

    def _pool_settled(self) -> None:
        if self.queue.empty() and not self.feed.pending and not self._processing:
            self.idle.set()  # nothing came back (or it is already folded): the table is idle

    def _say(self, e: Say, round_id: str | None = None) -> None:
        round_id = round_id or self.core.round_id
        log_dealer_line(e, round_id)
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

    # -- recovery ------------------------------------------------------------------------------------

    @staticmethod
    def replay(journal: Journal,
               make_core: Callable[[dict[str, Any] | None], TableCore]) -> tuple[TableCore, list[Note], int]:
        """Fold the journal from the last checkpoint. Returns the core, the notes the replay made
        that the journal does not hold yet (a crash came between an input and its notes), and the
        number of records replayed.

        Inputs are folded (tabled.table.kinds); a note in the journal answers the oldest note the replay
        made and has not yet found that is the same note (:func:`same_note`). What is left
        unanswered at the end was lost. A journaled note the replay did not make (a journal that
        holds a note twice) answers nothing and is not written again.

        A journal whose last checkpoint was made before this version's notes (:data:`NOTES_VERSION`)
        is replayed from its first record, once: the notes its fold now writes and the journal lacks
        are returned marked ``late`` with the input they conclude from (its record and time), so a
        reader files them where they belong (a round's own notes, filed by its id, stay exactly as
        the fold makes them); the checkpoint :meth:`resume` takes then says so."""
        cp = journal.last_checkpoint()
        upgrade = cp is None or cp.payload["snapshot"].get("notes", 1) < NOTES_VERSION
        if upgrade:
            cp = None
        core = make_core(cp.payload["snapshot"] if cp else None)
        owed: dict[tuple[Any, ...], deque[tuple[int, Note]]] = {}
        made = count = 0
        for rec in journal.records_after(cp.seq if cp else 0):
            count += 1
            if is_input(rec.kind):
                for e in core.apply(rec.kind, rec.payload, rec.time_us // 1000):
                    if isinstance(e, Note):
                        if upgrade and not e.kind.startswith("round."):  # a round's own notes stay as made
                            e = Note(e.kind, {**e.payload, "late": {"record": rec.seq, "time_us": rec.time_us}},
                                     e.round_id)
                        owed.setdefault(same_note(e.kind, e.round_id, e.payload), deque()).append((made, e))
                        made += 1
            elif is_note(rec.kind) and (found := owed.get(same_note(rec.kind, rec.round_id, rec.payload))):
                found.popleft()
        lost = sorted((n for waiting in owed.values() for n in waiting), key=lambda n: n[0])
        return core, [note for _, note in lost], count

    async def resume(self, missing_notes: list[Note]) -> None:
        """After a replay: write the lost notes, then re-send what is safe to repeat."""
        if missing_notes:
            self.feed.journaled(self.journal.append_many([(n.kind, n.payload, n.round_id) for n in missing_notes]))
            if any("late" in n.payload for n in missing_notes):
                self.checkpoint()  # the journal holds this version's notes now: a next start replays from here
        await self.carry_out(self.core.standing_effects())
        self.feed.follow_meters()

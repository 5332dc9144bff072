"""The table controller: one asyncio queue, one consumer owning all table state.

Write-ahead: inputs waiting in the queue together are journaled in ONE commit (group commit), each
device's frame is acknowledged only after that commit, and only then does the core
(tabled/table/core.py) fold them and the controller carry out the effects: dealer display and log,
device commands, pool operations (whose results come back as journaled inputs) and notes.

Recovery (:meth:`Table.recover`): load the last checkpoint, replay the records after it through
the same fold with the devices told nothing, write the notes a crash lost, and only then re-send
the standing effects (state-setting commands and keyed pool operations, all safe to repeat).

Pools (11.5, 14.13; docs/settlement.md): one worker per pool sends the journaled operations in order. When a
pool cannot be reached, the operation waits at the head of its queue and is sent again every
``retry_interval`` until the pool takes it (keyed: once), the table meanwhile under the 14.13
fault; the fault clears when the pool answers again and everything the journal holds for it is
delivered. The meter shows the primary pool's own readings (``subscribe_meter``), in ledger order.
A pool that could not be reached when the daemon started is the same case: its meter feed fails
at once, the fault is raised, and the feed keeps trying until the pool answers.

Every operation carries its round's key (tabled/pool/rounds.py: the hash of the record that opened
the round), so the pool never takes another round with the same id for a repeat; before its first
operation each pool checks that this table id plays from this journal and that the pool holds no
round of the table the journal does not have. A pool that refuses either is 14.13 with the reason.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import structlog

from tabled.table.core import TableCore, op_key, result_as_dict
from tabled.table.effects import Command, Effect, Note, PoolOp, Say
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.daemon.journal import Journal
from tabled.table.kinds import is_input, is_note
from tabled.host.log import scrub_secrets
from tabled.pool.base import PoolError, PoolUnavailable
from tabled.pool.ledger import LedgerPool
from tabled.pool.rounds import ROUND_OPENED, check_table, round_key

log = structlog.get_logger("tabled.daemon.controller")

CommandSink = Callable[[Command], Awaitable[None]]


class PoolLink:
    """One pool this table feeds (11.5): its operations in order, re-sent until the pool has them
    (keyed, so a re-send never counts twice), and whether it can be reached (14.13)."""

    def __init__(self, pool: Any, equipment: str, primary: bool, fault_standing: bool):
        self.pool = pool
        self.name = getattr(pool, "name", "")
        self.equipment = equipment    # the fault's name in the core: "pool" for the primary
        self.primary = primary        # the jackpot awards and the meter come from this one
        self.ops: asyncio.Queue[list[PoolOp]] = asyncio.Queue()
        self.busy = False
        self.ops_down = False         # an operation could not reach the pool: being re-sent
        self.feed_down = False        # the meter feed was lost
        self.refused = False          # the pool refused an operation: needs people, not a retry
        self.checked = False          # the pool knows this table's journal (rounds.check_table)
        self.fault_raised = fault_standing  # a fault active at power-down is still active (14.13)
        self.tasks: list[asyncio.Task] = []
        self.answered = asyncio.Event()  # the meter feed gave its first reading
        self.heard = asyncio.Event()     # the meter feed gave its first reading or first failed


class Table:
    def __init__(self, core: TableCore, journal: Journal, pool: Any, *,
                 commands: CommandSink | None = None, display: Callable[[Say, str | None], None] | None = None,
                 checkpoint_every: int = 100, clock: Callable[[], float] = time.time,
                 pools: Sequence[Any] = (), retry_interval: float = 1.0, follow_meter: bool = True):
        """``pool`` is the primary pool (awards, meter); ``pools`` the others the table also feeds
        (11.5). ``retry_interval``: seconds between attempts to reach a pool that is down."""
        self.core = core
        self.journal = journal
        self.pool = pool
        self.commands = commands
        self.display = display
        self.checkpoint_every = checkpoint_every
        self.clock = clock
        self.retry_interval = retry_interval
        self.follow_meter = follow_meter
        self.queue: asyncio.Queue[tuple[str, dict[str, Any], Callable[[], None] | None]] = asyncio.Queue()
        self.idle = asyncio.Event()
        self.stop_after_records: int | None = None  # tests: crash after this many journal records
        self.listeners: list[Callable[[list[Effect]], None]] = []
        self._stopped = False
        self._checkpoint_due = False  # a round finished: checkpoint when its batch is folded
        # pool operations run beside the consumer, in order, one worker per pool; their results
        # come back as inputs. An operation parked while its pool is down does not count as pending.
        self.links = [PoolLink(pool, "pool", True, "pool" in core.faults)] + [
            PoolLink(p, f"pool:{p.name}", False, f"pool:{p.name}" in core.faults) for p in pools]
        core.pool_count = len(self.links)
        self._round_keys: dict[str, str] = {}  # round id -> round key, the last few rounds
        self._pool_pending = 0
        self._processing = False
        self._running = False

    # -- intake ------------------------------------------------------------------------------------

    def submit(self, kind: str, payload: dict[str, Any], ack: Callable[[], None] | None = None) -> None:
        """Put an input on the queue (drivers, panel, timers, the pool's answers)."""
        self.idle.clear()
        self.queue.put_nowait((kind, payload, ack))

    # -- the consumer -----------------------------------------------------------------------------

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        for link in self.links:
            link.tasks.append(loop.create_task(self._pool_work(link), name=f"table-pool-{link.name}"))
        self._running = True
        try:
            await self._consume()
        finally:
            self._running = False
            self._stop_links()

    def _stop_links(self) -> None:
        for link in self.links:
            for task in link.tasks:
                task.cancel()
            link.tasks.clear()

    def start_meter(self) -> None:
        """Follow each pool's meter readings (the primary's drive the meter display, 2.4.3); a lost
        feed is a lost link (14.13). Started once the journal is replayed and resumed."""
        if not self.follow_meter:
            return
        loop = asyncio.get_running_loop()
        for link in self.links:
            if hasattr(link.pool, "subscribe_meter"):
                link.tasks.append(loop.create_task(self._follow_meter(link), name=f"table-meter-{link.name}"))

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

    async def meter_shown(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until the primary pool's meter feed has answered or failed,
        and that is folded: the meter shows the pool before play starts, or the 14.13 fault stands
        in the journal (a pool that cannot be reached at start). True when the pool answered."""
        link = self.links[0]
        try:
            async with asyncio.timeout(timeout):  # unlike wait_for on 3.11, never swallows a cancellation
                await link.heard.wait()
        except TimeoutError:
            return False
        await self._folded()
        return link.answered.is_set()

    def stop(self) -> None:
        self._stopped = True
        self._stop_links()  # before the pools close: a closing pool is not a lost link
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
        if self._checkpoint_due:
            # only once the whole batch is folded: replay starts after the checkpoint, so the
            # snapshot must hold every input journaled before it
            self._checkpoint_due = False
            self._checkpoint()

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
            self._keep_round_keys(self._journal([(n.kind, n.payload, n.round_id) for n in notes]))
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
            self._send_pool_ops(ops)
        if any(n.kind == "round.finished" for n in notes) and self.checkpoint_every \
                and self.core.rounds_finished % self.checkpoint_every == 0:
            self._checkpoint_due = True

    def _keep_round_keys(self, records: list) -> None:
        for rec in records:
            if rec.kind == ROUND_OPENED and rec.round_id:
                self._remember_key(rec.round_id, rec.hash)

    def _remember_key(self, round_id: str, key: str) -> None:
        self._round_keys.pop(round_id, None)
        self._round_keys[round_id] = key
        while len(self._round_keys) > 8:  # the rounds whose operations may still be in flight
            del self._round_keys[next(iter(self._round_keys))]

    def _round_key(self, round_id: str) -> str | None:
        """The key the pool keeps with this round's rows (None for a round the journal never opened)."""
        if round_id not in self._round_keys:
            key = round_key(self.journal, round_id)
            if key is None:
                return None
            self._remember_key(round_id, key)
        return self._round_keys[round_id]

    def _keyed(self, link: PoolLink, round_id: str) -> dict[str, Any]:
        return {"round_key": self._round_key(round_id)} if isinstance(link.pool, LedgerPool) else {}

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

    def _send_pool_ops(self, ops: list[PoolOp]) -> None:
        done = {op_key(op.op, op.round_id, op.spot): pools for op, pools in self.core.pending_pool_ops()}
        for link in self.links:
            mine = [e for e in ops if (link.primary or e.op != "awards")  # awards: the primary's (12)
                    and link.name not in done.get(op_key(e.op, e.round_id, e.spot), ())]
            if mine:
                self._pool_pending += 1
                self.idle.clear()
                link.ops.put_nowait(mine)

    async def _pool_work(self, link: PoolLink) -> None:
        while True:
            ops = await link.ops.get()
            link.busy = True
            parked = False
            try:
                while ops:
                    try:
                        ops = await self._deliver(link, ops)
                        link.ops_down = False
                    except PoolUnavailable as exc:
                        # 14.13: the round in play goes on; this operation waits, in order, for the link
                        link.ops_down = True
                        self._link_state(link, str(exc))
                        if not parked:
                            parked = True
                            self._pool_done()
                        log.warning("pool unreachable: will send again", pool=link.name, error=str(exc),
                                    round_id=ops[0].round_id, op=ops[0].op)
                        await asyncio.sleep(self.retry_interval)
                        await self._folded()  # the fault (and a hold) is in the journal before the re-send
            finally:
                link.busy = False
                if not parked:
                    self._pool_done()
            self._link_state(link)

    def _pool_done(self) -> None:
        self._pool_pending -= 1
        if self.queue.empty() and not self._pool_pending and not self._processing:
            self.idle.set()  # nothing came back (or it is already folded): the table is idle

    async def _folded(self) -> None:
        """Wait until the consumer has folded every input submitted so far."""
        while self._running and (self._processing or not self.queue.empty()):
            await asyncio.sleep(0.001)

    def _link_state(self, link: PoolLink, reason: str = "") -> None:
        """Raise the 14.13 fault when a pool cannot be reached; clear it when it can again and
        every operation the journal holds for it has been delivered."""
        down = link.ops_down or link.feed_down or link.refused
        if down and not link.fault_raised:
            link.fault_raised = True
            # the reason is journaled for ever: never with a password in it
            self.submit("equipment.fault", {"equipment": link.equipment,
                                            "reason": scrub_secrets(reason) or "unreachable"})
        elif not down and link.fault_raised and not link.busy and link.ops.empty():
            link.fault_raised = False
            self.submit("equipment.ok", {"equipment": link.equipment})

    async def _deliver(self, link: PoolLink, ops: list[PoolOp]) -> list[PoolOp]:
        """Send ``ops`` in order; returns what is left (nothing) or raises PoolUnavailable with the
        operations not yet answered still at the front."""
        if not link.checked and isinstance(link.pool, LedgerPool):
            try:
                await check_table(link.pool, self.core.table_id, self.journal)
            except PoolUnavailable:
                raise
            except PoolError as exc:  # not this table's pool as the journal knows it: people must look
                self._refuse(link, "check", str(exc), ops[0].round_id)
                return []  # the operations stay owed in the journal's state
            link.checked = True
        contributions = [e for e in ops if e.op == "contribute"]
        if len(contributions) > 1 and hasattr(link.pool, "contribute_round") \
                and len({e.round_id for e in contributions}) == 1 and ops[0].op == "contribute":
            await self._contribute_round(link, contributions)  # 7.2.1: one transaction for the lock
            ops = [e for e in ops if e.op != "contribute"]
        while ops:
            await self._pool(link, ops[0])
            ops = ops[1:]
        return ops

    async def _follow_meter(self, link: PoolLink) -> None:
        while True:
            reason = "the meter feed ended"
            first = True
            try:
                async for reading in link.pool.subscribe_meter():
                    if first:  # the pool answers: the link may be back (and a standing fault clear)
                        first, link.feed_down = False, False
                        self._link_state(link)
                    if link.primary:  # 2.4.3: every linked table shows the pool's own readings
                        self.submit("pool.meter", {"balance_cents": reading.balance_cents, "seq": reading.seq,
                                                   "change": reading.kind})
                    link.answered.set()
                    link.heard.set()
            except PoolError as exc:
                reason = str(exc)
            link.feed_down = True
            self._link_state(link, reason)
            link.heard.set()
            await asyncio.sleep(self.retry_interval)

    async def _contribute_round(self, link: PoolLink, ops: list[PoolOp]) -> None:
        t, rid = self.core.table_id, ops[0].round_id
        try:
            done = await link.pool.contribute_round(t, rid, {e.spot: e.cents for e in ops}, **self._keyed(link, rid))
        except PoolUnavailable:
            raise
        except PoolError:
            for e in ops:  # one by one: the error is reported as for a single contribution
                await self._pool(link, e)
            return
        extra = {"balance_cents": await link.pool.balance()} if link.primary else {}
        for e, c in zip(ops, done):
            self.submit("pool.contributed", {"round_id": rid, "spot": e.spot, "wager_cents": e.cents,
                                             "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                             "pool": link.name, **extra})

    async def _pool(self, link: PoolLink, e: PoolOp) -> None:
        t, pool = self.core.table_id, link.pool
        extra = {}
        try:
            if e.op == "contribute":
                c = await pool.contribute(t, e.round_id, e.spot, e.cents, **self._keyed(link, e.round_id))
                if link.primary:
                    extra["balance_cents"] = await pool.balance()
                self.submit("pool.contributed", {"round_id": e.round_id, "spot": e.spot, "wager_cents": e.cents,
                                                 "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                                 "pool": link.name, **extra})
            elif e.op == "reverse":
                back = await pool.reverse(t, e.round_id, e.spot, e.reason or "void", **self._keyed(link, e.round_id))
                if link.primary:
                    extra["balance_cents"] = await pool.balance()
                self.submit("pool.reversed", {"round_id": e.round_id, "spot": e.spot, "reversed_cents": back,
                                              "reason": e.reason, "pool": link.name, **extra})
            else:
                await self._awards(link, e)
        except PoolUnavailable:
            raise
        except PoolError as exc:
            self._refuse(link, e.op, str(exc), e.round_id, e.spot)

    def _refuse(self, link: PoolLink, op: str, error: str, round_id: str | None, spot: int | None = None) -> None:
        log.error("pool refused an operation", op=op, spot=spot, error=error, round_id=round_id)
        link.refused = True
        self.submit("equipment.fault", {"equipment": link.equipment,
                                        "reason": scrub_secrets(f"refused {op}: {error}")})
        link.fault_raised = True

    async def _awards(self, link: PoolLink, e: PoolOp) -> None:
        """All of the round's awards in one step, from the pool as it stands now (never an earlier
        reading); a hit held while the pool was down (14.13) is sent with the time it was held."""
        hits = [ProgressiveHit(s, Category[c]) for s, c in e.hits]
        r = self.core.round
        hands = {s.number: s.cards for s in r.spots.values() if s.cards} \
            if r is not None and r.round_id == e.round_id else {}
        since_ms = self.core.awards_held.get(e.round_id)
        held = datetime.fromtimestamp(since_ms / 1000, UTC) if since_ms is not None else None
        kw = {"hands": {h.spot: hands[h.spot] for h in hits if h.spot in hands}, "held_since": held,
              **self._keyed(link, e.round_id)} if isinstance(link.pool, LedgerPool) else {}
        result = await link.pool.apply_awards(self.core.table_id, e.round_id, hits,
                                              self.core.profile.progressive_schedule, **kw)
        self.submit("pool.awards", {"round_id": e.round_id, "result": result_as_dict(result), "pool": link.name,
                                    "held_since_ms": since_ms})

    # -- recovery ------------------------------------------------------------------------------------

    @staticmethod
    def replay(journal: Journal,
               make_core: Callable[[dict[str, Any] | None], TableCore]) -> tuple[TableCore, list[Note], int]:
        """Fold the journal from the last checkpoint. Returns the core, the notes the replay made
        that the journal does not hold yet (a crash came between an input and its notes), and the
        number of records replayed.

        Inputs are folded (tabled.table.kinds); a note in the journal answers the oldest note the replay
        made and has not yet found, when it is the same note (kind and round). What is left
        unanswered at the end was lost. A journaled note the replay did not make (a journal that
        holds a note twice) answers nothing and is not written again."""
        cp = journal.last_checkpoint()
        core = make_core(cp.payload["snapshot"] if cp else None)
        owed: deque[Note] = deque()
        count = 0
        for rec in journal.records_after(cp.seq if cp else 0):
            count += 1
            if is_input(rec.kind):
                owed += [e for e in core.apply(rec.kind, rec.payload, rec.time_us // 1000) if isinstance(e, Note)]
            elif is_note(rec.kind) and owed and (owed[0].kind, owed[0].round_id) == (rec.kind, rec.round_id):
                owed.popleft()
        return core, list(owed), count

    async def resume(self, missing_notes: list[Note]) -> None:
        """After a replay: write the lost notes, then re-send what is safe to repeat."""
        if missing_notes:
            self._keep_round_keys(self._journal([(n.kind, n.payload, n.round_id) for n in missing_notes]))
        await self.carry_out(self.core.standing_effects())
        self.start_meter()


class Crash(Exception):
    """Raised in tests to stop the table at a given journal step, as a kill -9 would."""

    def __init__(self, message: str, records: list | None = None):
        super().__init__(message)
        self.records = records or []

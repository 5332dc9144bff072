"""The pool feed: what the table owes each pool it feeds (11.5, 14.13; docs/settlement.md).

One worker per pool sends the journaled operations in order. When a pool cannot be reached, the
operation waits at the head of its queue and is sent again every ``retry_interval`` until the pool
takes it (keyed: once), the table meanwhile under the 14.13 fault; the fault clears when the pool
answers again and everything the journal holds for it is delivered. The meter shows the primary
pool's own readings (``subscribe_meter``), in ledger order. A pool that could not be reached when
the daemon started is the same case: its meter feed fails at once, the fault is raised, and the
feed keeps trying until the pool answers.

Every operation carries its round's key (tabled/pool/rounds.py: the hash of the record that opened
the round), so the pool never takes another round with the same id for a repeat; before its first
operation each pool checks that this table id plays from this journal and that the pool holds no
round of the table the journal does not have. A pool that refuses either is 14.13 with the reason.

What the pools answer goes back to the table as inputs (``submit``), to be journaled and folded
like any other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import structlog

from tabled.journal.store import Journal, Record
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.host.log import Trouble, scrub_secrets
from tabled.pool.base import PoolError, PoolUnavailable, ProgressivePool
from tabled.pool.rounds import ROUND_OPENED, check_table, round_key
from tabled.table.core import TableCore
from tabled.table.poolbook import op_key, result_as_dict
from tabled.table.effects import PoolOp

log = structlog.get_logger("tabled.daemon.poolfeed")

#: the rounds whose operations may still be in flight: their keys are kept at hand
KEPT_ROUND_KEYS = 8



def spot_of(e: PoolOp) -> int:
    """The spot of a contribution or a reversal (the fold always names one)."""
    if e.spot is None:
        raise ValueError(f"pool {e.op} of round {e.round_id} names no spot")
    return e.spot

class PoolLink:
    """One pool this table feeds (11.5): its operations in order, re-sent until the pool has them
    (keyed, so a re-send never counts twice), and whether it can be reached (14.13)."""

    def __init__(self, pool: ProgressivePool, equipment: str, primary: bool, fault_standing: bool):
        self.pool = pool
        self.name = pool.name
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
        self.trouble = Trouble(log, "pool.unreachable")  # operations re-sent: logged without a flood


class PoolFeed:
    """The pools of one table: ``primary`` (awards, meter) and ``others`` (11.5).

    ``submit`` puts an answer on the table's queue; ``folded`` waits until the table has folded
    every input submitted so far; ``settled`` is called when operations stop being pending (done,
    or parked while their pool is down), so the table may be idle."""

    def __init__(self, core: TableCore, journal: Journal, primary: ProgressivePool,
                 others: Sequence[ProgressivePool] = (), *, submit: Callable[[str, dict[str, Any]], None],
                 folded: Callable[[], Awaitable[None]], settled: Callable[[], None],
                 retry_interval: float = 1.0, follow_meter: bool = True):
        self.core = core
        self.journal = journal
        self.submit = submit
        self.folded = folded
        self.settled = settled
        self.retry_interval = retry_interval
        self.follow_meter = follow_meter
        self.links = [PoolLink(primary, "pool", True, "pool" in core.equipment.faults)] + [
            PoolLink(p, f"pool:{p.name}", False, f"pool:{p.name}" in core.equipment.faults) for p in others]
        core.pool.count = len(self.links)
        self.pending = 0  # batches sent and not yet answered; one parked while its pool is down is not
        self._round_keys: dict[str, str] = {}  # round id -> round key, the last few rounds

    @property
    def primary(self) -> ProgressivePool:
        return self.links[0].pool

    # -- life --------------------------------------------------------------------------------------

    def start(self) -> None:
        """One worker per pool, sending its operations in order."""
        loop = asyncio.get_running_loop()
        for link in self.links:
            link.tasks.append(loop.create_task(self._work(link), name=f"table-pool-{link.name}"))

    def follow_meters(self) -> None:
        """Follow each pool's meter readings (the primary's drive the meter display, 2.4.3); a lost
        feed is a lost link (14.13). Started once the journal is replayed and resumed."""
        if not self.follow_meter:
            return
        loop = asyncio.get_running_loop()
        for link in self.links:
            link.tasks.append(loop.create_task(self._follow_meter(link), name=f"table-meter-{link.name}"))

    def stop(self) -> None:
        """Stop sending and following (before the pools close: a closing pool is not a lost link)."""
        for link in self.links:
            for task in link.tasks:
                task.cancel()
            link.tasks.clear()

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
        await self.folded()
        return link.answered.is_set()

    # -- what the table owes ---------------------------------------------------------------------------

    def journaled(self, records: Sequence[Record]) -> None:
        """Notes just journaled: a round opened among them is keyed by its record's hash."""
        for rec in records:
            if rec.kind == ROUND_OPENED and rec.round_id:
                self._remember_key(rec.round_id, rec.hash)

    def send(self, ops: list[PoolOp]) -> bool:
        """Queue ``ops`` for every pool that is owed them and has not answered them (awards: the
        primary's only, 12). True when anything was queued."""
        done = {op_key(op.op, op.round_id, op.spot): pools for op, pools in self.core.pool.pending()}
        sent = False
        for link in self.links:
            mine = [e for e in ops if (link.primary or e.op != "awards")
                    and link.name not in done.get(op_key(e.op, e.round_id, e.spot), ())]
            if mine:
                self.pending += 1
                sent = True
                link.ops.put_nowait(mine)
        return sent

    def _remember_key(self, round_id: str, key: str) -> None:
        self._round_keys.pop(round_id, None)
        self._round_keys[round_id] = key
        while len(self._round_keys) > KEPT_ROUND_KEYS:
            del self._round_keys[next(iter(self._round_keys))]

    def _round_key(self, round_id: str) -> str | None:
        """The key the pool keeps with this round's rows (None for a round the journal never opened)."""
        if round_id not in self._round_keys:
            key = round_key(self.journal, round_id)
            if key is None:
                return None
            self._remember_key(round_id, key)
        return self._round_keys[round_id]

    def _as_owed(self, ops: list[PoolOp]) -> list[PoolOp]:
        """``ops`` as the table owes them now: awards held while the pool was down carry the time
        they were held (14.13)."""
        owed = {op_key(op.op, op.round_id, op.spot): op for op, _ in self.core.pool.pending()}
        return [owed.get(op_key(e.op, e.round_id, e.spot), e) for e in ops]

    # -- the workers -----------------------------------------------------------------------------------

    async def _work(self, link: PoolLink) -> None:
        while True:
            ops = self._as_owed(await link.ops.get())
            link.busy = True
            parked = False
            try:
                while ops:
                    try:
                        ops = await self._deliver(link, ops)
                        link.ops_down = False
                        link.trouble.ended(pool=link.name)
                    except PoolUnavailable as exc:
                        # 14.13: the round in play goes on; this operation waits, in order, for the link
                        link.ops_down = True
                        self._link_state(link, str(exc))
                        if not parked:
                            parked = True
                            self._done()
                        link.trouble.failed(exc, pool=link.name, round_id=ops[0].round_id, op=ops[0].op,
                                            will="send again")
                        await asyncio.sleep(self.retry_interval)
                        await self.folded()  # the fault (and a hold) is in the journal before the re-send
                        ops = self._as_owed(ops)
            finally:
                link.busy = False
                if not parked:
                    self._done()
            self._link_state(link)

    def _done(self) -> None:
        self.pending -= 1
        self.settled()

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
        if not link.checked:
            try:
                await check_table(link.pool, self.core.table_id, self.journal, primary=link.primary)
            except PoolUnavailable:
                raise
            except PoolError as exc:  # not this table's pool as the journal knows it: people must look
                self._refuse(link, "check", str(exc), ops[0].round_id)
                return []  # the operations stay owed in the journal's state
            link.checked = True
        contributions = [e for e in ops if e.op == "contribute"]
        if len(contributions) > 1 and len({e.round_id for e in contributions}) == 1 and ops[0].op == "contribute":
            await self._contribute_round(link, contributions)  # 7.2.1: one transaction for the lock
            ops = [e for e in ops if e.op != "contribute"]
        while ops:
            await self._operate(link, ops[0])
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
                        # whose operation moved it and what it awarded, when the pool says: the
                        # fold shows another table's hit until that table contributes again
                        moved = {k: v for k, v in (("table_id", reading.table_id), ("round_id", reading.round_id),
                                                   ("award_cents", reading.award_cents)) if v}
                        self.submit("pool.meter", {"balance_cents": reading.balance_cents, "seq": reading.seq,
                                                   "change": reading.kind, **moved})
                    link.answered.set()
                    link.heard.set()
            except PoolError as exc:
                reason = str(exc)
            link.feed_down = True
            self._link_state(link, reason)
            link.heard.set()
            await asyncio.sleep(self.retry_interval)

    async def _contribute_round(self, link: PoolLink, ops: list[PoolOp]) -> None:
        t, rid = ops[0].table_id, ops[0].round_id
        try:
            done = await link.pool.contribute_round(t, rid, {spot_of(e): e.cents for e in ops},
                                                    round_key=self._round_key(rid))
        except PoolUnavailable:
            raise
        except PoolError:
            for e in ops:  # one by one: the error is reported as for a single contribution
                await self._operate(link, e)
            return
        extra = {"balance_cents": await link.pool.balance()} if link.primary else {}
        for e, c in zip(ops, done):
            self.submit("pool.contributed", {"round_id": rid, "spot": e.spot, "wager_cents": e.cents,
                                             "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                             "pool": link.name, **extra})

    async def _operate(self, link: PoolLink, e: PoolOp) -> None:
        t, pool = e.table_id, link.pool
        extra = {}
        try:
            if e.op == "contribute":
                c = await pool.contribute(t, e.round_id, spot_of(e), e.cents, round_key=self._round_key(e.round_id))
                if link.primary:
                    extra["balance_cents"] = await pool.balance()
                self.submit("pool.contributed", {"round_id": e.round_id, "spot": e.spot, "wager_cents": e.cents,
                                                 "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                                 "pool": link.name, **extra})
            elif e.op == "reverse":
                back = await pool.reverse(t, e.round_id, spot_of(e), e.reason or "void",
                                          round_key=self._round_key(e.round_id))
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
        if e.schedule is None:
            raise ValueError(f"pool awards of round {e.round_id} name no pay table")
        hits = [ProgressiveHit(s, Category[c]) for s, c in e.hits]
        since_ms = e.held_since_ms
        held = datetime.fromtimestamp(since_ms / 1000, UTC) if since_ms is not None else None
        result = await link.pool.apply_awards(
            e.table_id, e.round_id, hits, e.schedule, hands=dict(e.hands), held_since=held,
            round_key=self._round_key(e.round_id))
        self.submit("pool.awards", {"round_id": e.round_id, "result": result_as_dict(result), "pool": link.name,
                                    "held_since_ms": since_ms})

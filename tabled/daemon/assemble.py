"""The daemon's parts, opened in order: the journal (one controller per journal), the pools it
feeds (11.5), each pool's start check (tabled/pool/rounds.py), the replay, and the controller on
top; and the drivers of the devices the config names. What a simulated table puts in the
devices' place is wired by ``tabled run`` (tabled/commands/run.py): the daemon does not know it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog
from tabled_drivers.link.endpoint import LinkTiming

import tabled.pool
from tabled.daemon.config import Config
from tabled.daemon.controller import Table
from tabled.daemon.devices import build_drivers
from tabled.daemon.heads import HeadMark, lost_records
from tabled.journal.store import Journal, JournalUnsealed
from tabled.daemon.installs import journal_waiting, journaled_ids, spool_of
from tabled.daemon.restart import RESTARTED, after_unclean_stop
from tabled.daemon.provenance import StartRefused, record_start
from tabled.daemon.shipping import central_head_async, lost_against_central
from tabled.host.dsn import server_said
from tabled.journal.seals import SealError, SigningKey, find_signing_key
from tabled.game.limits import Limits
from tabled.pool.base import PoolError, PoolUnavailable, ProgressivePool
from tabled.pool.rounds import check_table
from tabled.table.core import TableCore
from tabled.table.effects import Note
from tabled.table.names import DEVICES, SERIAL_DEVICES

log = structlog.get_logger("tabled.run")

#: how long a start waits for the central copy's head before it goes on without comparing
CENTRAL_CHECK_S = 15.0


class CannotStart(Exception):
    """The table cannot start as configured: one line for the person starting it."""


def make_core(cfg: Config, snapshot: dict[str, Any] | None) -> TableCore:
    t = cfg.table
    if snapshot is not None:
        core = TableCore.from_snapshot(snapshot, t.spots, t.profile)
    else:
        limits = Limits(t.minimum_cents, t.maximum_cents, t.unit_cents, t.progressive_wager_cents)
        core = TableCore(t.id, t.spots, limits, t.profile, t.card_source)
    core.pool.count = len(cfg.pools)  # the replay must know every pool an operation is owed to (11.5)
    core.payments.enabled = t.check_payments  # 9.3, 9.4: the board checks what the dealer left
    return core


async def open_pools(cfg: Config,
                     signing_key: SigningKey | None = None) -> tuple[ProgressivePool, list[ProgressivePool]]:
    """The primary pool (awards, meter) and every other pool the table feeds (11.5), local or
    linked. A linked pool that cannot be reached at start does not stop the daemon (unplayable
    rather than wrong): the table starts under the 14.13 fault and the pool connects when it can.
    A pool that answers but cannot be used (a schema newer than this tabled, a bad entry) is
    configuration: a one-line error, and the daemon does not start. A local pool seals its rows with
    the journal's ``signing_key`` (tabled/pool/chain.py)."""
    opened: list[ProgressivePool] = []
    try:
        for entry in [cfg.primary_pool] + [p for p in cfg.pools if not p.primary]:
            pool = await tabled.pool.open_pool(entry, cfg.table.id, wait_for_link=True, signing_key=signing_key)
            opened.append(pool)
            if not pool.ready:
                log.warning("pool.unreachable_at_start", pool=entry.name, rule="14.13",
                            detail="the table starts under the 14.13 fault; the pool connects when it can")
            elif pool.config_differs:
                log.warning("pool.config_differs", pool=entry.name, differs=pool.config_differs,
                            detail="the pool plays under its recorded settings; a change is proposed and "
                                   "approved by two people: tabled pool propose --who --approved-by")
    except PoolError as exc:
        for each in opened:
            await each.close()
        raise CannotStart(f"cannot open the progressive pool: {exc}") from None
    return opened[0], opened[1:]


async def check_pools(table_id: str, journal: Journal, pools: list[ProgressivePool]) -> None:
    """Each pool that answers binds this table id to this journal and holds no round of the table
    the journal does not have (tabled/pool/rounds.py); a refusal stops the start with one line for
    an inspector. A pool out of reach is asked when it answers (tabled/daemon/poolfeed.py)."""
    for i, pool in enumerate(pools):
        if not pool.ready:
            continue
        try:
            await check_table(pool, table_id, journal, primary=i == 0)
        except PoolUnavailable:
            continue
        except PoolError as exc:
            raise CannotStart(f"cannot start the table: {exc}") from None


@dataclass
class Opened:
    """The journal, the pools and the controller of one start, and what the replay left to do."""

    journal: Journal
    pools: list[ProgressivePool]
    table: Table
    missing: list[Note]  # notes a crash lost: written by the resume
    replayed: int        # journal records replayed
    found: int = 0       # records the journal held when this start opened it

    async def close(self) -> None:
        for pool in self.pools:
            await pool.close()
        self.journal.close()


async def open_table(cfg: Config, journal_path: Path, *, clock: Callable[[], float],
                     pool_retry: float, central: Callable[[], Any] | None = None) -> Opened:
    """Open the journal (a second controller is refused, naming the first; verified from the last
    checkpoint; a journal that no longer holds the head kept beside it is refused for an inspector,
    tabled/daemon/heads.py), with the table's key when it has one every commit sealed
    (tabled/journal/seals.py: a record found unsealed stops the start, named), and replay it; journal
    what this start runs with (the software checked against its release, the configuration:
    tabled/daemon/provenance.py; a refusal stops the start); open the pools and check them against
    the journal. Where the journal is shipped (``central``: its connector), it must hold the
    central copy's head as well: a journal that lost records it shipped is refused for an inspector.
    ``pool_retry``: seconds between attempts to reach a pool that is down (14.13)."""
    try:
        key = find_signing_key(cfg.journal.signing_key)
        journal = Journal.open(journal_path, clock=clock, exclusive=True, seal_with=key)
    except (SealError, JournalUnsealed) as exc:
        raise CannotStart(str(exc)) from None
    try:
        lost, note = lost_records(journal, journal_path)  # its head, kept in a second place (heads.py)
        if lost is not None:
            raise CannotStart(lost)
        if note is not None:
            log.warning("journal.head_unreadable", detail=note)
        if central is not None:
            lost = await lost_against_central_copy(cfg.table.id, journal, journal_path, central)
            if lost is not None:
                raise CannotStart(lost)
        core, missing, replayed = Table.replay(journal, lambda snap: make_core(cfg, snap))
        found = journal.count()
        # what this start runs with, journaled before play and folded: its notes go with the lost ones
        head = journal.head[0]
        restarted = after_unclean_stop(journal, int(clock() * 1_000_000))
        if restarted is not None:  # a power loss or a crash: said before anything else of this start
            journal.append(RESTARTED, restarted)
        record_start(journal, cfg)
        journal_waiting(spool_of(journal_path), lambda kind, p: journal.append(kind, p), journaled_ids(journal))
        for rec in journal.records_after(head):
            missing += [e for e in core.apply(rec.kind, rec.payload, rec.time_us // 1000) if isinstance(e, Note)]
        HeadMark(journal, journal_path).mark()
    except OSError as exc:  # the head's second place cannot be written: said, as the journal's own errors are
        journal.close()
        raise CannotStart(f"{exc.filename}: the journal's head cannot be written ({exc.strerror})") from None
    except StartRefused as exc:
        journal.close()
        raise CannotStart(str(exc)) from None
    except BaseException:
        journal.close()
        raise
    try:
        pool, others = await open_pools(cfg, key)
    except BaseException:
        journal.close()
        raise
    try:
        await check_pools(cfg.table.id, journal, [pool, *others])
    except BaseException:
        for p in (pool, *others):
            await p.close()
        journal.close()
        raise
    table = Table(core, journal, pool, checkpoint_every=cfg.journal.checkpoint_every_rounds, pools=others,
                  retry_interval=pool_retry)
    table.listeners.append(HeadMark(journal, journal_path))  # each round's end: the head in its second place
    return Opened(journal, [pool, *others], table, missing, replayed, found)


async def lost_against_central_copy(table_id: str, journal: Journal, journal_path: Path,
                                    central: Callable[[], Any]) -> str | None:
    """What the journal lost against its central copy's head (tabled/daemon/shipping.py), or None.
    A central server out of reach for :data:`CENTRAL_CHECK_S` does not stop the start: the head
    kept beside the journal has been checked, and the shipper finds a difference when it connects."""
    try:
        async with asyncio.timeout(CENTRAL_CHECK_S):
            conn = await central()
            try:
                head = await central_head_async(conn, table_id)
            finally:
                await conn.close()
    except Exception as exc:  # any database or network failure: the start goes on, said
        why = f"no answer within {CENTRAL_CHECK_S:g} s" if isinstance(exc, TimeoutError) else server_said(exc)[:200]
        log.warning("journal.central_unchecked", reason=why)
        return None
    return lost_against_central(journal, journal_path, table_id, head)


def configured_drivers(cfg: Config, *, timing: LinkTiming, poll_interval: float) -> Callable[[Any], dict[str, Any]]:
    """The drivers of the ports and USB devices named in ``[devices]``, for TableDevices."""
    from tabled_drivers.link.usb import UsbAddress  # pyusb: only for a table with real USB devices
    d = cfg.devices

    def make(consumer_for):
        return build_drivers(
            consumer_for, spots=cfg.table.spots, timing=timing, poll_interval=poll_interval,
            ports={n: getattr(d, n).port for n in DEVICES if getattr(d, n).port},
            baudrates={n: getattr(d, n).baudrate for n in SERIAL_DEVICES},
            usb_addresses={n: UsbAddress(getattr(d, n).vendor_id, getattr(d, n).product_id, getattr(d, n).serial)
                           for n in ("shoe", "panel")}, cards=cfg.ratings.enabled)
    return make

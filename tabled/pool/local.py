"""The local pool: SQLite on the table PC, the embedded default (rules 2.3, 11.5, 11.6).

WAL with synchronous=FULL: a committed contribution or award survives a power cut. One connection,
one transaction at a time (an asyncio lock); statements on this small database take microseconds,
and the commit, which waits for the disk, runs in a worker thread so the table's event loop keeps
going. Meter readings go, after each commit, to every subscriber in this process that follows the
same pool in the same file (the daemon's meter driver, its display).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tabled.host.files import create_private

from . import chain
from .base import MeterReading, PoolError, PoolUnavailable, VerifyReport
from .ledger import Clock, LedgerPool, utc_now
from .schema import bring_up_to_date
from .settings import PoolSettings


def _sql(sql: str) -> str:
    return sql.replace("%s", "?")


#: (database file, pool name) -> the queues of the meter subscribers in this process
_SUBSCRIBERS: dict[tuple[str, str], set[asyncio.Queue[MeterReading | None]]] = {}


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.readings: list[MeterReading] = []
        self.added: list[tuple[str, tuple[str, ...], int]] = []  # the rows to chain at the end (chain.py)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        return self.conn.execute(_sql(sql), tuple(params)).fetchone()

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self.conn.execute(_sql(sql), tuple(params)).fetchall()

    async def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        row = chain.inserted(sql, self.conn.execute(_sql(sql), tuple(params)))
        if row is not None:
            self.added.append(row)

    async def lock_pool(self, name: str) -> tuple | None:
        # BEGIN IMMEDIATE already holds the database's write lock: no other writer until COMMIT
        return await self.one("SELECT name, balance_cents, epoch, settings_version, ledger_seq, hit_seq"
                              " FROM pools WHERE name = %s", (name,))

    async def lock_pool_then(self, name: str, sql: str, params: Sequence[Any]) -> tuple[tuple | None, list[tuple]]:
        return await self.lock_pool(name), await self.all(sql, params)

    def notify(self, reading: MeterReading) -> None:
        self.readings.append(reading)


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        bring_up_to_date(conn.execute, "sqlite")
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'pool_chain'").fetchone() is None:
            for statement in chain.SQLITE_V4:  # the chain of the local pool's rows (chain.py)
                conn.execute(statement)
            chain.chain_existing(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


async def finish_even_if_cancelled(work: Awaitable[object]) -> None:
    """Await ``work`` to its end even if the awaiting task is cancelled meanwhile: a COMMIT handed
    to a thread goes on regardless, and the next BEGIN on this connection must not start before
    it is done (else "cannot start a transaction within a transaction"). The cancellation is
    passed on once the commit is over."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)  # the commit's own error, if any, goes to the caller
            break
        except asyncio.CancelledError:
            cancelled = True
            if task.done():
                break
    if cancelled:
        if not task.cancelled():
            task.exception()  # retrieved: the cancellation is what the caller hears about
        raise asyncio.CancelledError


class LocalPool(LedgerPool):
    dialect = "sqlite"

    def __init__(self, path: str | Path, name: str, table_id: str, settings: PoolSettings | None = None, *,
                 clock: Clock = utc_now, who: str = "config", signing_key: chain.Signer | None = None) -> None:
        super().__init__(name, table_id, settings, clock=clock, who=who)
        self.path = Path(path)
        self.signing_key = signing_key  # seals each transaction's rows (chain.py); None: chained, unsealed
        self._conn: sqlite3.Connection | None = None
        self._tx_lock = asyncio.Lock()
        self._own_queues: set[asyncio.Queue[MeterReading | None]] = set()

    @classmethod
    async def open(cls, path: str | Path, name: str, table_id: str, settings: PoolSettings | None = None, *,
                   clock: Clock = utc_now, who: str = "config", signing_key: chain.Signer | None = None) -> LocalPool:
        """Open (creating and migrating as needed) the pool database, and the pool in it. With
        ``signing_key`` (the journal's) every transaction's rows are sealed (tabled/pool/chain.py)."""
        pool = cls(path, name, table_id, settings, clock=clock, who=who, signing_key=signing_key)
        try:
            create_private(pool.path)  # owner-only, whatever the umask (and so its -wal and -shm)
            conn = sqlite3.connect(pool.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")  # a commit is on disk before we say so
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=5000")
            _migrate(conn)
        except sqlite3.DatabaseError as exc:
            raise PoolUnavailable(f"pool database {pool.path}: {exc}") from exc
        except OSError as exc:
            raise PoolUnavailable(f"pool database {pool.path}: {exc.strerror or exc}") from exc
        pool._conn = conn
        try:
            await pool._open_pool()
        except BaseException:
            await pool.close()
            raise
        return pool

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_SqliteTx]:
        if self._conn is None:
            raise PoolUnavailable(f"pool {self.name}: the database is closed")
        async with self._tx_lock:
            conn = self._conn
            tx = _SqliteTx(conn)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield tx
                    if tx.added:  # the rows it added, chained and sealed in the same transaction
                        chain.link(conn, tx.added)
                        if self.signing_key is not None:
                            chain.seal(conn, self.signing_key, self._now())
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                # the COMMIT waits for the disk (synchronous=FULL)
                await finish_even_if_cancelled(asyncio.to_thread(conn.execute, "COMMIT"))
            except sqlite3.IntegrityError as exc:
                raise PoolError(f"pool {self.name}: {exc}") from exc
            except sqlite3.DatabaseError as exc:
                with contextlib.suppress(sqlite3.Error):
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                raise PoolUnavailable(f"pool database {self.path}: {exc}") from exc
        for reading in tx.readings:
            for queue in _SUBSCRIBERS.get(self._key(reading.pool), ()):
                queue.put_nowait(reading)

    async def verify(self, public_keys: Mapping[str, Any] | None = None) -> VerifyReport:
        """The ledger proves the meter (:meth:`LedgerPool.verify`), and every row is the row chained
        and sealed (tabled/pool/chain.py); ``public_keys``: key id -> Ed25519 public key, to check
        the seals' signatures."""
        report = await super().verify(public_keys)
        async with self._transaction() as tx:
            found = chain.check(tx.conn, public_keys)
        return dataclasses.replace(report, ok=report.ok and not found.problems,
                                   problems=report.problems + tuple(found.problems),
                                   notes=report.notes + (f"{found.links} rows chained",) + tuple(found.notes))

    def _key(self, pool: str) -> tuple[str, str]:
        return (str(self.path.resolve()), pool)

    async def close(self) -> None:
        async with self._tx_lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        for queue in self._own_queues:
            queue.put_nowait(None)

    async def subscribe_meter(self) -> AsyncIterator[MeterReading]:
        queue: asyncio.Queue[MeterReading | None] = asyncio.Queue()
        subscribers = _SUBSCRIBERS.setdefault(self._key(self.name), set())
        subscribers.add(queue)
        self._own_queues.add(queue)
        try:
            last = await self.meter()
            yield last
            while True:
                reading = await queue.get()
                if reading is None:
                    raise PoolUnavailable(f"pool {self.name}: closed")
                if reading.pool == self.name and reading.seq > last.seq:
                    last = reading
                    yield reading
        finally:
            subscribers.discard(queue)
            self._own_queues.discard(queue)

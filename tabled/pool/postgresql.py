"""The linked pool: one jackpot shared by many tables, kept in PostgreSQL (rules 2.3, 2.4.3, 11.5).

Each table's daemon is a client with its own connection. Every change runs in one transaction that
starts with ``SELECT ... FOR UPDATE`` on the pool's row, so changes from all tables are applied one
at a time, in the order the ledger and hit numbers record (the order of near-simultaneous hits).
Inside the same transaction ``pg_notify`` publishes the new meter reading on the pool's channel;
PostgreSQL delivers it to every listening table when, and only when, the change commits.

Losing the database is rule 14.13: every operation then raises :class:`PoolUnavailable` and the
daemon stops new rounds. The next call reconnects. A connection that was idle while the link was
lost (the meter feed noticed, or a connect failed) may be dead without knowing it; it is probed
(``SELECT 1``) before the next transaction and replaced if the probe fails, so the link coming
back is not followed by a failure of its own. Every operation is idempotent under its key, so
the daemon re-sends what its journal holds once the link returns, and nothing counts twice.

The same holds at start: opened with ``wait_for_link``, a pool whose database cannot be reached is
returned all the same, not yet ready; its first call that reaches the database checks the schema
and opens the pool before anything else, and until then every call raises
:class:`PoolUnavailable` (unplayable rather than wrong). A table never changes the schema: the
administrator creates and migrates it (:func:`migrate`, ``tabled pool migrate``). A schema that is
missing or older than this tabled is :class:`PoolUnavailable` naming that command (rule 14.13: the
table plays on without the progressive and tries again); a newer one is a :class:`PoolError`.

Each table logs in with a role of its own (:func:`register_table`), which may read the pool and
insert its own rows, and nothing else (tabled/pool/schema.py, version 3): the pool's row is locked
and written through two SECURITY DEFINER functions that take the meter from the ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import socket
from collections.abc import AsyncIterator, Sequence
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from tabled.host.dsn import credential_password
from tabled.host.log import scrub_secrets
from tabled.host.primary import StandbyOnly, for_the_primary, hosts_of, standby_only

from .base import MeterReading, PoolError, PoolUnavailable
from .ledger import Clock, LedgerPool, Retry, _check_id, utc_now
from .schema import AUDITOR_ROLE, LATEST, TABLE_ROLE, bring_up_to_date
from .settings import PoolSettings

_SCHEMA_LOCK = 0x7461626C6564  # "tabled": one migrator at a time
#: the systemd credential holding the table's pool password (tabled.service: LoadCredential=)
PASSWORD_CREDENTIAL = "pool-password"
MIGRATE_COMMAND = "tabled pool migrate"
_ROLE = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")


def parse_dsn(dsn: str) -> dict[str, Any]:
    """The settings of a PostgreSQL connection string, as libpq reads it; a string libpq cannot
    read is a :class:`PoolError` whose message quotes nothing of it but option names (a fragment
    could be part of the password)."""
    if not isinstance(dsn, str) or not dsn.strip():
        raise PoolError("a linked pool needs a PostgreSQL connection string (dsn)")
    try:
        return conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        options = {o.keyword.decode() for o in psycopg.pq.Conninfo.get_defaults()} | {"="}
        detail = re.sub(r'"([^"]*)"', lambda m: m.group(0) if m.group(1) in options else '"..."',
                        _first_line(exc))
        raise PoolError(f"not a connection string libpq can read: {scrub_secrets(detail)}") from None


def meter_channel(pool: str) -> str:
    return f"tabled_meter_{pool}"


# a table's role may not UPDATE pools, so it locks the pool's row through the owner's function
_LOCK_SQL = "SELECT * FROM tabled_pool_lock(%s)"


class _PgTx:
    """Reads go at once; writes wait and go together in one pipeline (one round trip) before the
    next read or the commit, which keeps the pool row locked for as short a time as possible."""

    def __init__(self, conn: psycopg.AsyncConnection) -> None:
        self.conn = conn
        self.readings: list[MeterReading] = []
        self.pending: list[tuple[str, tuple | None]] = []

    async def flush(self) -> None:
        if not self.pending:
            return
        writes, self.pending = self.pending, []
        async with self.conn.pipeline():
            for sql, params in writes:
                await self.conn.execute(sql, params)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        await self.flush()
        cur = await self.conn.execute(sql, tuple(params) or None)
        return await cur.fetchone()

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        await self.flush()
        cur = await self.conn.execute(sql, tuple(params) or None)
        return await cur.fetchall()

    async def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.pending.append((sql, tuple(params) or None))

    async def lock_pool(self, name: str) -> tuple | None:
        return await self.one(_LOCK_SQL, (name,))

    async def lock_pool_then(self, name: str, sql: str, params: Sequence[Any]) -> tuple[tuple | None, list[tuple]]:
        # one round trip: the read runs after the lock is granted, so it sees every change before it
        await self.flush()
        async with self.conn.pipeline():
            locked = await self.conn.execute(_LOCK_SQL, (name,))
            then = await self.conn.execute(sql, tuple(params))
            return await locked.fetchone(), await then.fetchall()

    def notify(self, reading: MeterReading) -> None:
        self.readings.append(reading)

    async def commit(self) -> None:
        """The last writes, the meter notifications and COMMIT, in one round trip."""
        for r in self.readings:  # delivered by PostgreSQL at commit, in commit order
            self.pending.append(("SELECT pg_notify(%s, %s)", (meter_channel(r.pool), json.dumps(
                {"balance_cents": r.balance_cents, "seq": r.seq, "kind": r.kind, "at": r.at,
                 "table_id": r.table_id, "round_id": r.round_id, "award_cents": r.award_cents}))))
        self.pending.append(("COMMIT", None))
        await self.flush()


class PostgresPool(LedgerPool):
    dialect = "postgresql"
    _save_sql = "SELECT tabled_pool_save(%s, %s, %s, %s, %s, %s)"  # checked against the ledger

    def __init__(self, dsn: str, name: str, table_id: str, settings: PoolSettings | None = None, *,
                 clock: Clock = utc_now, who: str = "config", connect_timeout: float = 5.0,
                 op_timeout: float = 5.0) -> None:
        super().__init__(name, table_id, settings, clock=clock, who=who)
        self._given_password = None if parse_dsn(dsn).get("password") else credential_password(PASSWORD_CREDENTIAL)
        self._password = str(parse_dsn(dsn).get("password") or self._given_password or "")
        self.dsn = dsn
        try:
            self._primary_dsn = for_the_primary(dsn)  # whichever of its servers takes writes
        except StandbyOnly as exc:
            raise PoolError(f"pool {name}: {exc}") from None
        self.connect_timeout = connect_timeout
        self.op_timeout = op_timeout
        self._conn: psycopg.AsyncConnection | None = None
        self._tx_lock = asyncio.Lock()
        self._closed = False
        self._ready = False                   # the schema is current and the pool exists
        self._ready_lock = asyncio.Lock()
        self._preparer: asyncio.Task | None = None
        self._suspect = False                 # the link was lost while the connection sat idle

    @classmethod
    async def open(cls, dsn: str, name: str, table_id: str, settings: PoolSettings | None = None, *,
                   wait_for_link: bool = False, **kwargs: Any) -> PostgresPool:
        """Connect, check the schema, and open (or create) the pool. With
        ``wait_for_link`` a database that cannot be reached is not an error: the pool is returned
        unready and gets ready on its first call that reaches the database (14.13 meanwhile)."""
        pool = cls(dsn, name, table_id, settings, **kwargs)
        try:
            await pool._get_ready()
        except PoolUnavailable:
            if not wait_for_link:
                await pool.close()
                raise
        except BaseException:
            await pool.close()
            raise
        return pool

    @property
    def ready(self) -> bool:
        """The pool has reached its database once: schema current, pool opened."""
        return self._ready

    async def _get_ready(self) -> None:
        """Check the schema and open the pool, once, before any other work."""
        if self._ready or self._preparer is asyncio.current_task():
            return  # ready, or this is the preparation's own work
        async with self._ready_lock:
            if self._ready:
                return
            self._preparer = asyncio.current_task()
            try:
                await self._check_schema()
                await self._open_pool()
                self._ready = True
            finally:
                self._preparer = None

    async def _run(self, work: Any) -> Any:
        await self._get_ready()
        return await super()._run(work)

    async def _connect(self, *, autocommit: bool = False) -> psycopg.AsyncConnection:
        extra: dict[str, Any] = {"password": self._given_password} if self._given_password else {}
        # libpq gives each server named connect_timeout: the bound covers them all, so a connection
        # slowed by a storm of tables reconnecting is not given up (and begun again) just before it is made
        bound = self.connect_timeout * len(hosts_of(self.dsn)) + 1
        try:
            async with asyncio.timeout(bound):  # never swallows a cancellation (3.11)
                return await psycopg.AsyncConnection.connect(
                    self._primary_dsn, autocommit=autocommit, **extra,
                    connect_timeout=max(1, int(self.connect_timeout)),
                    application_name=f"tabled {self.table_id} {self.name}",
                    # a lost network is noticed within about keepalives_idle + interval x count seconds
                    keepalives=1, keepalives_idle=5, keepalives_interval=2, keepalives_count=3)
        except (psycopg.Error, OSError, TimeoutError) as exc:
            self._link_lost()
            said = standby_only(exc, self.dsn) or self._said(exc)
            raise PoolUnavailable(f"pool {self.name}: cannot reach the pool database: {said}") from exc

    def _said(self, exc: BaseException) -> str:
        """What the database or libpq said, on one line, without the password: these words go
        into the log and, as the reason of a 14.13 fault, into the journal for ever."""
        return scrub_secrets(_first_line(exc), self._password)

    async def _connection(self) -> psycopg.AsyncConnection:
        if self._closed:
            raise PoolUnavailable(f"pool {self.name}: closed")
        if self._suspect and self._conn is not None and not self._conn.closed:
            if not await self._alive(self._conn):
                await self._drop()
        self._suspect = False
        if self._conn is None or self._conn.closed:
            self._conn = await self._connect()
        return self._conn

    def _link_lost(self) -> None:
        """The database could not be reached: the idle connection is not trusted until probed."""
        self._suspect = True

    async def _alive(self, conn: psycopg.AsyncConnection) -> bool:
        """One round trip on a connection that lived through a lost link, bounded by op_timeout."""
        try:
            async with asyncio.timeout(self.op_timeout):
                await self._probe(conn)
            return True
        except (psycopg.Error, OSError, TimeoutError):
            _shut(conn)
            return False

    @staticmethod
    async def _probe(conn: psycopg.AsyncConnection) -> None:
        await conn.execute("SELECT 1")
        await conn.rollback()

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1):
                    await conn.close()

    async def _create(self, tx: Any, name: str, settings: PoolSettings, who: str) -> None:
        row = await tx.one("SELECT has_table_privilege('pools', 'INSERT')")
        if not (row and row[0]):
            raise PoolError(f"there is no pool named {name!r} in the pool database, and a table's role may not make"
                            f" one: the administrator runs `tabled pool create --name {name} ...`")
        await super()._create(tx, name, settings, who)

    async def _check_schema(self) -> None:
        """The schema is this tabled's: missing or older is the administrator's to migrate (14.13
        meanwhile), newer is refused."""
        async with self._transaction() as tx:
            row = await tx.one("SELECT to_regclass('schema_version') IS NOT NULL")
            found = await tx.one("SELECT MAX(version) FROM schema_version") if row and row[0] else None
        version = int(found[0] or 0) if found else 0
        if version > LATEST:
            raise PoolError(f"the pool database is at schema version {version}; this tabled knows up to {LATEST}")
        if version < LATEST:
            state = "has no tabled schema" if version == 0 else f"is at schema version {version}"
            raise PoolUnavailable(f"pool {self.name}: the pool database {state}; this tabled needs version {LATEST}:"
                                  f" the administrator runs `{MIGRATE_COMMAND} --dsn ...` (a table never changes it)")

    @contextlib.asynccontextmanager
    async def _transaction(self, timeout: float | None = None) -> AsyncIterator[_PgTx]:
        timeout = self.op_timeout if timeout is None else timeout
        async with self._tx_lock:
            conn = await self._connection()
            # a silent network must not hold the table: past op_timeout the socket is shut, which
            # ends any wait in libpq at once (cancelling the coroutine would wait on the dead link)
            severed: list[bool] = []

            def sever() -> None:
                severed.append(True)
                _shut(conn)
            watchdog = asyncio.get_running_loop().call_later(timeout, sever)
            tx = _PgTx(conn)
            try:
                try:
                    yield tx  # psycopg begins the transaction with the first statement
                    await tx.commit()
                except BaseException:
                    await _rollback(conn)
                    raise
            except (pg_errors.SerializationFailure, pg_errors.DeadlockDetected) as exc:
                raise Retry() from exc
            except pg_errors.InsufficientPrivilege as exc:
                raise PoolError(f"pool {self.name}: the pool database refused this role: {self._said(exc)} (a table"
                                f" adds its own rows only; pools, settings and the schema are the administrator's)"
                                ) from exc
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                await self._drop()
                if not severed:
                    raise PoolUnavailable(f"pool {self.name}: lost the pool database: {self._said(exc)}") from exc
                raise PoolUnavailable(f"pool {self.name}: the pool database did not answer within"
                                      f" {timeout:g} s") from exc
            except asyncio.CancelledError:
                await self._drop()  # the transaction's fate is unknown: never reuse the connection
                raise
            except psycopg.Error as exc:
                raise PoolError(f"pool {self.name}: {self._said(exc)}") from exc
            finally:
                watchdog.cancel()

    async def close(self) -> None:
        self._closed = True
        async with self._tx_lock:
            await self._drop()

    async def subscribe_meter(self) -> AsyncIterator[MeterReading]:
        """Every change of the pool as it commits, from any table (LISTEN on the pool's channel)."""
        await self._get_ready()
        conn = await self._connect(autocommit=True)
        try:
            await conn.execute(f"LISTEN {meter_channel(self.name)}")
            cur = await conn.execute(
                "SELECT l.balance_after_cents, l.seq, l.kind, l.at FROM pools p JOIN ledger l"
                " ON l.pool = p.name AND l.seq = p.ledger_seq WHERE p.name = %s", (self.name,))
            row = await cur.fetchone()
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            last = MeterReading(self.name, int(row[0]), int(row[1]), row[2], row[3])
            yield last
            async for note in conn.notifies():
                d = json.loads(note.payload)
                if d["seq"] > last.seq:  # a reading is never older than the one shown
                    last = MeterReading(self.name, int(d["balance_cents"]), int(d["seq"]), d["kind"], d["at"],
                                        d.get("table_id"), d.get("round_id"), int(d.get("award_cents") or 0))
                    yield last
            self._link_lost()
            raise PoolUnavailable(f"pool {self.name}: the meter connection ended")
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            self._link_lost()
            raise PoolUnavailable(f"pool {self.name}: lost the meter feed: {self._said(exc)}") from exc
        finally:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1):
                    await conn.close()


def migrate(admin: psycopg.Connection) -> int:
    """Create the pool schema or bring it to this tabled's version, with the roles of version 3;
    the administrator's connection. Returns the version it was at (0: none)."""
    with admin.transaction():
        admin.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        return bring_up_to_date(admin.execute, "postgresql")


def register_table(admin: psycopg.Connection, table_id: str, role: str, password: str | None = None) -> None:
    """Give ``table_id`` its own login role in the pool (made if missing): read the pool, add its
    own contributions, reversals, awards and journal binding; nothing else."""
    from psycopg import sql
    _check_id("table id", table_id)
    if not _ROLE.match(role) or role in (TABLE_ROLE, AUDITOR_ROLE):
        raise PoolError(f"role {role!r}: lower-case letters, digits and '_' only, at most 63, not a group role")
    with admin.transaction():
        if admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        if password is not None:
            admin.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        admin.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(TABLE_ROLE), sql.Identifier(role)))
        taken = admin.execute("SELECT role FROM table_roles WHERE table_id = %s AND role <> %s",
                              (table_id, role)).fetchone()
        if taken is not None:
            raise PoolError(f"table {table_id} already has the role {taken[0]}; one role a table")
        admin.execute("INSERT INTO table_roles (role, table_id) VALUES (%s, %s) ON CONFLICT (role) DO UPDATE"
                      " SET table_id = EXCLUDED.table_id", (role, table_id))


def register_auditor(admin: psycopg.Connection, role: str, password: str | None = None) -> None:
    """Give a person a login role that reads every pool and changes nothing (made if missing)."""
    from psycopg import sql
    if not _ROLE.match(role) or role in (TABLE_ROLE, AUDITOR_ROLE):
        raise PoolError(f"role {role!r}: lower-case letters, digits and '_' only, at most 63, not a group role")
    with admin.transaction():
        if admin.execute("SELECT 1 FROM table_roles WHERE role = %s", (role,)).fetchone() is not None:
            raise PoolError(f"role {role} is a table's role; an auditor needs a role of their own")
        if admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
            admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        if password is not None:
            admin.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        admin.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(AUDITOR_ROLE), sql.Identifier(role)))


async def _rollback(conn: psycopg.AsyncConnection) -> None:
    if conn.closed or conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return
    with contextlib.suppress(psycopg.Error):
        await conn.rollback()


def _shut(conn: psycopg.AsyncConnection) -> None:
    """Shut the connection's socket (not close it: the event loop still watches the descriptor)."""
    with contextlib.suppress(OSError, ValueError, psycopg.Error):
        sock = socket.socket(fileno=os.dup(conn.pgconn.socket))
        try:
            sock.shutdown(socket.SHUT_RDWR)
        finally:
            sock.close()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

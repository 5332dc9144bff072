"""The table's journal shipped to the casino's central PostgreSQL: every record, in order, exactly
once, resumable after any outage, never in the way of play.

The table PC's journal stays the write-ahead truth. A :class:`Shipper` runs beside the controller:
it asks the central server where this table's copy ends, checks that the record there is the one
in the local journal (else it stops and says where they part: a journal rewritten, cut or swapped
for an older copy), and sends what follows in batches, one transaction each. A lost connection
is tried again; a batch that did not commit is sent again from the server's head, so nothing is
ever sent twice or skipped.

The server takes a record only if it follows the table's last one there: the next number, the
previous record's hash as its link, and a hash the server computes again itself (the trigger of
:data:`CENTRAL_SCHEMA`, the same bytes as ``tabled.journal.store.canonical_record``). Records are
never changed or deleted there. Each table logs in with a role of its own that may insert and read
only its own table's records (row-level security); the auditor's role reads all; only the
administrator changes the schema (``tabled pool migrate``).

The seals' signatures are checked on the central copy by ``tabled audit compare --public-key``
(Ed25519 is not in PostgreSQL without extensions).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from tabled.journal.central import AUDITOR
from tabled.journal.store import GENESIS_HASH, Journal, Record, record_hash
from tabled.host.dsn import NoPassword, required_password, server_said
from tabled.host.dsn import dsn_problem as host_dsn_problem
from tabled.host.log import Trouble
from tabled.host.primary import StandbyOnly, for_the_primary, standby_only

log = structlog.get_logger("tabled.daemon.shipping")

BATCH = 500            # records a transaction
RETRY_S = 1.0          # after a failed connection or batch
IDLE_WAKE_S = 30.0     # a caught-up shipper looks at its journal again at least this often (the
                       # controller wakes it after each commit; the server is not asked when idle)
CONNECT_TIMEOUT_S = 10  # each server named; libpq tries the next one after it
_ROLE = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")

CENTRAL_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS journal_tables (
    table_id text PRIMARY KEY,
    role     name UNIQUE NOT NULL
);
CREATE TABLE IF NOT EXISTS journal_records (
    table_id    text   NOT NULL REFERENCES journal_tables(table_id),
    seq         bigint NOT NULL,
    time_us     bigint NOT NULL,
    round_id    text,
    kind        text   NOT NULL,
    payload     text   NOT NULL,
    prev_hash   text   NOT NULL,
    hash        text   NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);

-- SECURITY DEFINER: the chain is checked against the table's true last record, whatever the
-- inserting role may see; the role is the session's (a table's own login)
CREATE OR REPLACE FUNCTION journal_accept() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $$
DECLARE
    owner     text;
    last_seq  bigint;
    last_hash text;
    computed  text;
BEGIN
    SELECT t.table_id INTO owner FROM journal_tables t WHERE t.role = session_user;
    IF owner IS NOT NULL AND owner <> NEW.table_id THEN
        RAISE EXCEPTION 'role % ships the journal of table %, not of table %', session_user, owner, NEW.table_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('tabled-journal:' || NEW.table_id));
    SELECT seq, hash INTO last_seq, last_hash FROM journal_records
        WHERE table_id = NEW.table_id ORDER BY seq DESC LIMIT 1;
    IF NEW.seq <> COALESCE(last_seq, 0) + 1 THEN
        RAISE EXCEPTION 'table %: record % does not follow record % (the last one here)',
            NEW.table_id, NEW.seq, COALESCE(last_seq, 0) USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.prev_hash <> COALESCE(last_hash, '{GENESIS_HASH}') THEN
        RAISE EXCEPTION 'table %: record % does not link to record % (prev_hash)', NEW.table_id, NEW.seq,
            COALESCE(last_seq, 0) USING ERRCODE = 'check_violation';
    END IF;
    computed := encode(sha256(convert_to(
        '{{"record":[' || NEW.seq || ',' || NEW.time_us || ',' || COALESCE(to_json(NEW.round_id)::text, 'null')
        || ',' || to_json(NEW.kind)::text || ',' || to_json(NEW.prev_hash)::text || '],"payload":' || NEW.payload
        || '}}', 'UTF8')), 'hex');
    IF NEW.hash <> computed THEN
        RAISE EXCEPTION 'table %: record % does not hash to the hash it carries', NEW.table_id, NEW.seq
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.received_at := now();
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION journal_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the central journal is append-only: records are never changed or deleted'
        USING ERRCODE = 'insufficient_privilege';
END $$;

DROP TRIGGER IF EXISTS journal_accept ON journal_records;
CREATE TRIGGER journal_accept BEFORE INSERT ON journal_records FOR EACH ROW EXECUTE FUNCTION journal_accept();
DROP TRIGGER IF EXISTS journal_no_change ON journal_records;
CREATE TRIGGER journal_no_change BEFORE UPDATE OR DELETE ON journal_records
    FOR EACH ROW EXECUTE FUNCTION journal_refuse_change();
DROP TRIGGER IF EXISTS journal_no_truncate ON journal_records;
CREATE TRIGGER journal_no_truncate BEFORE TRUNCATE ON journal_records
    FOR EACH STATEMENT EXECUTE FUNCTION journal_refuse_change();

ALTER TABLE journal_records ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS own_table ON journal_records;
CREATE POLICY own_table ON journal_records
    USING (table_id = (SELECT t.table_id FROM journal_tables t WHERE t.role = current_user))
    WITH CHECK (table_id = (SELECT t.table_id FROM journal_tables t WHERE t.role = current_user));
DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{AUDITOR}') THEN
        CREATE ROLE {AUDITOR} NOLOGIN;
    END IF;
END $$;
DROP POLICY IF EXISTS auditors_read ON journal_records;
CREATE POLICY auditors_read ON journal_records FOR SELECT TO {AUDITOR} USING (true);
REVOKE ALL ON journal_records, journal_tables FROM PUBLIC;
GRANT SELECT ON journal_records, journal_tables TO {AUDITOR};

-- how far each table's own journal goes, as its shipper last said: the floor shows how many records
-- the central copy is behind. A table's role reports only its own (the function looks it up).
CREATE TABLE IF NOT EXISTS journal_heads (
    table_id    text PRIMARY KEY REFERENCES journal_tables(table_id),
    local_head  bigint NOT NULL,
    reported_at timestamptz NOT NULL
);
CREATE OR REPLACE FUNCTION journal_report_head(head bigint) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $$
DECLARE
    owner text;
BEGIN
    SELECT t.table_id INTO owner FROM journal_tables t WHERE t.role = session_user;
    IF owner IS NULL THEN
        RAISE EXCEPTION 'role % ships no table''s journal', session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO journal_heads (table_id, local_head, reported_at) VALUES (owner, head, now())
        ON CONFLICT (table_id) DO UPDATE SET local_head = EXCLUDED.local_head, reported_at = EXCLUDED.reported_at;
END $$;
REVOKE ALL ON journal_heads FROM PUBLIC;
GRANT SELECT ON journal_heads TO {AUDITOR};
"""


#: the credential systemd passes with the central role's password (tabled.service: LoadCredential=)
PASSWORD_CREDENTIAL = "journal-central-password"


def dsn_problem(dsn: object) -> str | None:
    """What is wrong with a central database's connection string for a table, or None
    (tabled.host.dsn: no password in the config, a remote server's certificate verified)."""
    return host_dsn_problem(dsn, PASSWORD_CREDENTIAL)


def connector(dsn: str, environ: Mapping[str, str] | None = None) -> Callable[[], Any]:
    """A callable opening an async connection to the central server, with the password of
    systemd's credential. A credential missing, unreadable or empty (or, at a shell, no password
    libpq would find either) is a :class:`ShippingError`: a table that would ship nothing does not start."""
    import psycopg
    try:
        password = required_password(PASSWORD_CREDENTIAL, environ)
    except NoPassword as exc:
        raise ShippingError(f"journal.ship_to: {exc}") from None
    extra: dict[str, Any] = {"password": password} if password is not None else {}
    try:
        primary = for_the_primary(dsn)
    except StandbyOnly as exc:
        raise ShippingError(f"journal.ship_to: {exc}") from None

    async def connect() -> Any:
        try:
            return await psycopg.AsyncConnection.connect(primary, connect_timeout=CONNECT_TIMEOUT_S, **extra)
        except psycopg.OperationalError as exc:
            if (said := standby_only(exc, dsn)) is not None:
                raise ShippingError(f"journal.ship_to: {said}") from None
            raise
    return connect


class ShippingError(ValueError):
    """A central copy that does not agree with the table's journal, or a role that cannot be made."""


def migrate(admin: Any) -> None:
    """Create or bring up to date the central journal (the administrator's connection, autocommit)."""
    admin.execute(CENTRAL_SCHEMA)


def register_table(admin: Any, table_id: str, role: str, password: str | None = None) -> None:
    """Give ``table_id`` its own login role: insert and read its own records, nothing else."""
    if not _ROLE.match(role):
        raise ShippingError(f"role {role!r}: lower-case letters, digits and '_' only, at most 63")
    from psycopg import sql
    exists = admin.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
    if not exists:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    if password is not None:
        admin.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
    admin.execute("INSERT INTO journal_tables (table_id, role) VALUES (%s, %s) "
                  "ON CONFLICT (table_id) DO UPDATE SET role = EXCLUDED.role", (table_id, role))
    admin.execute(sql.SQL("GRANT SELECT, INSERT ON journal_records TO {}").format(sql.Identifier(role)))
    admin.execute(sql.SQL("GRANT SELECT ON journal_tables TO {}").format(sql.Identifier(role)))


@dataclass
class Divergence:
    """Where a table's journal and its central copy part."""

    seq: int
    reason: str


def central_head(conn: Any, table_id: str) -> tuple[int, str]:
    row = conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq DESC LIMIT 1",
                       (table_id,)).fetchone()
    return (row[0], row[1]) if row else (0, GENESIS_HASH)


async def central_head_async(conn: Any, table_id: str) -> tuple[int, str]:
    cur = await conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq DESC LIMIT 1",
                             (table_id,))
    row = await cur.fetchone()
    return (row[0], row[1]) if row else (0, GENESIS_HASH)


def lost_against_central(journal: Journal, journal_path: Path, table_id: str, central: tuple[int, str]) -> str | None:
    """What the journal lost, when it no longer holds the central copy's head ``central`` (record
    number and hash): records it committed and shipped, then lost (a write-ahead log damaged after a
    crash, a journal put back from an older backup). None when it holds that record."""
    seq, digest = central
    if seq == 0:
        return None
    head = journal.head[0]
    record = journal.record(seq) if seq <= head else None
    restore = (f"tabled audit restore --journal {journal_path} --central DSN --table {table_id}")
    if record is None:
        return (f"the journal {journal_path} lost records it had committed: it ends at record {head}, but its"
                f" central copy (table {table_id}) holds records to {seq}; records {head + 1} to {seq} are gone"
                f" here (a damaged write-ahead log after a crash? an older backup put back?). The table does not"
                f" start until an inspector restores them from the central copy: {restore}")
    if record.hash != digest:
        return (f"the journal {journal_path} and its central copy (table {table_id}) PART at record {seq}: its"
                f" hash here is {record.hash[:12]}, there {digest[:12]}: records were lost here and others written"
                f" in their place, or one side was replaced. The table does not start until an inspector finds"
                f" which is the table's (tabled audit compare --journal {journal_path} --central DSN)")
    return None


def central_records_after(conn: Any, table_id: str, seq: int) -> list[tuple[int, int, str | None, str, str, str, str]]:
    """The central copy's records of ``table_id`` after record ``seq``, in order, as stored."""
    return [tuple(row) for row in conn.execute(
        "SELECT seq, time_us, round_id, kind, payload, prev_hash, hash FROM journal_records "
        "WHERE table_id = %s AND seq > %s ORDER BY seq", (table_id, seq))]


_INSERT = ("INSERT INTO journal_records (table_id, seq, time_us, round_id, kind, payload, prev_hash, hash) "
           "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")


def _row(table_id: str, r: Record, text: str) -> tuple[Any, ...]:
    return (table_id, r.seq, r.time_us, r.round_id, r.kind, text, r.prev_hash, r.hash)


class Shipper:
    """Ships one journal to the central server (its own read-only view of the journal file and its
    own connection, so play never waits for it). ``connect``: a callable giving a psycopg async
    connection (autocommit off)."""

    def __init__(self, journal_path: Path, table_id: str, connect: Callable[[], Any], *,
                 batch: int = BATCH, retry_s: float = RETRY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.journal_path, self.table_id, self.connect = journal_path, table_id, connect
        self.batch, self.retry_s = batch, retry_s
        self.shipped = 0                 # the central copy's last record, as far as this shipper knows
        self.local_head = 0
        self.diverged: Divergence | None = None
        self.failures = 0
        self.trouble = Trouble(log, "shipping.retry", clock)  # the server out of reach: logged without a flood
        self.reported = 0                # the local head last told to the server (journal_heads)
        self._reporting = True           # False on a server whose schema has no journal_report_head
        self.error: str | None = None    # what the last failed connection or batch said (None once one works)
        self._wake = asyncio.Event()
        # a read runs in a thread that a cancelled session cannot stop: the journal closes after it
        self._reading = threading.Lock()
        self._caught_up = asyncio.Event()
        self._moved = asyncio.Event()    # set when the central head is read again, or a try fails

    @property
    def lag(self) -> int:
        """Records in the table's journal not yet on the central server."""
        return max(self.local_head - self.shipped, 0)

    def wake(self) -> None:
        """New records are in the journal (the controller calls this after each commit)."""
        self._wake.set()

    async def caught_up(self) -> None:
        await self._caught_up.wait()

    async def finish(self, within_s: float) -> int:
        """Ship every record the journal holds now, waiting at most ``within_s`` seconds (a clean
        stop, while :meth:`run` still runs); the records left behind, 0 when all are on the server."""
        target = await asyncio.to_thread(self._journal_head)
        self.wake()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                while self.shipped < target and self.diverged is None:
                    self._moved.clear()
                    await self._moved.wait()
        return max(target - self.shipped, 0)

    def _journal_head(self) -> int:
        with Journal.open(self.journal_path, readonly=True, verify=False) as journal:
            self.local_head = journal.head[0]
        return self.local_head

    async def run(self) -> None:
        """Ship until cancelled; stops for good only when the central copy diverges."""
        while self.diverged is None:
            try:
                await self._session()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # any database or network failure: try again
                self.failures += 1
                self._caught_up.clear()
                self.error = server_said(exc)[:200]
                self._moved.set()
                self.trouble.failed(self.error, table_id=self.table_id, lag=self.lag)
                # spread: tables that lost the server together do not all come back in the same instant
                await asyncio.sleep(self.retry_s * random.uniform(0.5, 1.5))
        self._moved.set()
        log.error("shipping.diverged", table_id=self.table_id, seq=self.diverged.seq, reason=self.diverged.reason)

    async def _session(self) -> None:
        """One connection: the central head read and checked once, then each batch sent after the
        last, with the journal's head, in one transaction and one round trip. The server is not
        asked anything while there is nothing to send. A commit whose outcome is unknown (the
        server gone, a promotion) ends the session: the next one reads the head again and sends
        what the server does not hold."""
        conn = await self.connect()
        journal: Journal | None = None
        try:
            # the session's own read-only view of the journal, kept open: each read sees the latest commit
            journal = await asyncio.to_thread(Journal.open, self.journal_path, readonly=True, verify=False)
            seq, digest = await self._head(conn)
            self.trouble.ended(table_id=self.table_id, lag=self.lag)
            check: str | None = digest
            while self.diverged is None:
                sent = await asyncio.to_thread(self._read_locked, journal, seq, check)
                if sent is None:
                    return
                check = None
                if not sent:
                    if self._reporting and self.local_head != self.reported:
                        await self._send(conn, [])
                        continue
                    self._caught_up.set()
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(IDLE_WAKE_S):
                            await self._wake.wait()
                    continue
                self._caught_up.clear()
                if await self._send(conn, sent):
                    seq = self.shipped = sent[-1][0].seq
                    self._moved.set()
        finally:
            if journal is not None:  # never under a read still running in its thread (SQLite would crash)
                await asyncio.shield(asyncio.to_thread(self._close_locked, journal))
            with contextlib.suppress(Exception):
                await conn.close()

    async def _send(self, conn: Any, sent: list[tuple[Record, str]]) -> bool:
        """The records and the journal's head in one transaction, pipelined (one round trip);
        False when the server has no head report (an older schema): then sent again without it."""
        import psycopg
        report = self._reporting and self.local_head != self.reported
        try:
            async with conn.pipeline():
                if sent:
                    async with conn.cursor() as cur:
                        await cur.executemany(_INSERT, [_row(self.table_id, r, t) for r, t in sent])
                if report:
                    await conn.execute("SELECT journal_report_head(%s)", (self.local_head,))
                await conn.commit()
        except (psycopg.errors.UndefinedFunction, psycopg.errors.InsufficientPrivilege) as exc:
            if not report or "journal_report_head" not in str(exc):
                raise
            await conn.rollback()
            self._reporting = False  # an older central schema: ship without reporting
            log.warning("shipping.head_not_reported", table_id=self.table_id, error=server_said(exc))
            return False
        if report:
            self.reported = self.local_head
        return True

    async def _head(self, conn: Any) -> tuple[int, str]:
        cur = await conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq DESC "
                                 "LIMIT 1", (self.table_id,))
        row = await cur.fetchone()
        await conn.commit()
        seq, digest = (row[0], row[1]) if row else (0, GENESIS_HASH)
        self.shipped, self.error = seq, None
        self._moved.set()
        return seq, digest

    def _read_locked(self, journal: Journal, seq: int, digest: str | None) -> list[tuple[Record, str]] | None:
        with self._reading:
            return self.read_after(journal, seq, digest)

    def _close_locked(self, journal: Journal) -> None:
        with self._reading:
            journal.close()

    def read_after(self, journal: Journal, seq: int, digest: str | None) -> list[tuple[Record, str]] | None:
        """The local records after the central head (None when the two disagree there); ``digest``
        is checked when given (a session's first read: after that the head is what it sent)."""
        self.local_head = journal.head[0]
        if seq > 0 and digest is not None:
            here = journal.record(seq)
            if here is None or here.hash != digest:
                why = ("is not in this journal (the journal was cut or swapped for an older copy)"
                       if here is None else "differs from this journal's (rewritten on one side)")
                self.diverged = Divergence(seq, f"the central copy's record {seq} {why}")
                return None
        return journal.raw_records_after(seq, self.batch)


def central_tables(conn: Any) -> list[str]:
    """The tables the central copy holds (each registered with its role), in order."""
    return [row[0] for row in conn.execute("SELECT table_id FROM journal_tables ORDER BY table_id").fetchall()]


def _altered(seq: int, time_us: int, round_id: str | None, kind: str, text: str, prev_hash: str,
             digest: str) -> bool:
    """True when the record's contents do not hash to the hash it carries."""
    return record_hash(seq, time_us, round_id, kind, text, prev_hash) != digest


def compare(journal: Journal, central: Any, table_id: str) -> tuple[Divergence | None, int, int]:
    """(first difference or None, local head, central head) of a journal and its central copy.
    Each record's hash is computed again from its contents on both sides: a record changed without
    its hash is named on the side that holds it, and the two sides agree only on the same contents."""
    local_head = journal.head[0]
    remote_head = central_head(central, table_id)[0]
    upto = min(local_head, remote_head)
    step = 5000
    for start in range(1, upto + 1, step):
        last = min(start + step - 1, upto)
        local = {}
        for r, text in journal.raw_records_between(start, last):
            if _altered(r.seq, r.time_us, r.round_id, r.kind, text, r.prev_hash, r.hash):
                return (Divergence(r.seq, f"record {r.seq} in this journal does not hash to the hash it carries: "
                                          "its contents were changed (`tabled audit verify` names it)"),
                        local_head, remote_head)
            local[r.seq] = r.hash
        remote = {}
        for seq, time_us, round_id, kind, text, prev_hash, digest in central.execute(
                "SELECT seq, time_us, round_id, kind, payload, prev_hash, hash FROM journal_records "
                "WHERE table_id = %s AND seq BETWEEN %s AND %s ORDER BY seq", (table_id, start, last)):
            if _altered(seq, time_us, round_id, kind, text, prev_hash, digest):
                return (Divergence(seq, f"record {seq} on the central copy does not hash to the hash it carries: "
                                        "its contents were changed there"), local_head, remote_head)
            remote[seq] = digest
        for seq in range(start, last + 1):
            if local.get(seq) != remote.get(seq):
                side = ("missing here" if seq not in local else "missing on the central copy" if seq not in remote
                        else "not the same record on both sides")
                return Divergence(seq, f"record {seq} is {side}"), local_head, remote_head
    if remote_head > local_head:
        return (Divergence(local_head + 1, f"records {local_head + 1} to {remote_head} are on the central copy "
                                           "but not in this journal: its end was cut off, or it is an older copy"),
                local_head, remote_head)
    return None, local_head, remote_head


__all__ = ["CENTRAL_SCHEMA", "Shipper", "dsn_problem", "connector", "PASSWORD_CREDENTIAL", "ShippingError",
           "Divergence", "migrate", "register_table", "compare", "central_head", "central_head_async",
           "central_records_after", "central_tables", "lost_against_central", "AUDITOR"]

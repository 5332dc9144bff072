"""The table's journal: append-only, durable, hash-chained (write-ahead).

Every event, decision, settlement and pool operation is a record in one SQLite file (WAL,
``synchronous=FULL``): once :meth:`Journal.append` returns, the record survives a kill -9 or a power
loss, so the daemon acts on an event -- and acknowledges a device's frame -- only after it returns.

A record is ``(seq, time_us, round_id, kind, payload, prev_hash, hash)``; ``hash`` is the SHA-256 of
the record's canonical JSON (:func:`canonical_record`, which includes ``prev_hash``), so each record
seals every record before it. Changing, inserting or deleting a record breaks the chain at that
record, and :meth:`Journal.verify` names it by number. (Cutting records off the *end* leaves an
intact, shorter chain: compare with the head hash the operator reads from ``tabled audit verify``.)

Public API (the table's controller, the tools and the floor's tests build on this)::

    j = Journal.open(path, clock=time.time)       # creates the file; verifies from the last checkpoint
    j = Journal.open(path, exclusive=True)        # the daemon: also the controller lock (JournalInUse)
    j = Journal.open(path, exclusive=True, seal_with=key)  # and every commit sealed (JournalUnsealed)
    rec = j.append("panel.button", {"button": "no_more_bets", "key": "dealer"}, round_id="T01-000042")
    recs = j.append_many([(kind, payload, round_id), ...])   # ONE transaction, one fsync (group commit)
                                                             # (with its seal, when opened with a key)
    t = j.stamp()                                            # the time a write now carries (microseconds)
    items = j.as_written([(kind, payload, round_id), ...])   # checked, payloads as read back; not written
    recs = j.append_many(items, time_us=t)                   # the records carry t
    cp = j.checkpoint({"table": ..., "faults": [...]})       # sealed snapshot of the caller's state
    j.last_checkpoint() -> Record | None                     # cp.payload["snapshot"] is the state
    j.records_after(seq) -> Iterator[Record]                 # replay from a checkpoint
    j.records_for_round(round_id) -> list[Record]            # through the round index
    j.recent_round_ids(n) -> list[str]                       # newest first
    j.round_of_every_record() -> Iterator[(seq, round_id)]    # newest first, from the table (recall)
    j.records_between(first, last) -> list[Record]           # by number, from the table (recall)
    j.verify(from_seq=0) -> VerifyResult(ok, first_broken_seq, reason, count, head_seq, head_hash)
    j.file_problems() -> list[str]                           # SQLite's own check of the file
    j.repeated("round.settled") -> {round_id: [seq, ...]}    # rounds with that record more than once
    j.head -> (seq, hash) of the last record
    j.format -> 2 for a journal made now, 1 for one written before format 2 (see "On disk" below)
    j.close()

Restart (recovery) in the daemon::

    j = Journal.open(path)                 # raises JournalCorrupt if the tail fails its check
    cp = j.last_checkpoint()
    state = State.from_snapshot(cp.payload["snapshot"]) if cp else State.initial()
    for rec in j.records_after(cp.seq if cp else 0):
        state.apply(rec)                   # replay; the devices are told nothing until this is done

Opening reads and checks only the last checkpoint and the records after it, so restart time is
flat as the journal grows; ``tabled audit verify`` checks the whole chain.

Sealed (``seal_with``, a :class:`tabled.journal.seals.SigningKey`): every write is one transaction
holding its records and, last, a ``journal.seal`` record signing them (their fingerprints and the
chain's hash at the last of them), so the journal never holds a record without its seal, a crash
included. Such a journal refuses (:class:`JournalUnsealed`, naming the record) what only someone
else can have put there: a record no seal covers, found by the open (which also checks the seals
from the last checkpoint with the key), and a record written while it is open that this journal
did not write (each write first checks that the head is the one it left).

One controller per journal: ``exclusive=True`` takes an ``flock`` on ``<journal>.lock`` beside it
(the kernel drops it when the process ends, kill -9 included; the file holds the holder's pid, as
information only). Readers take no lock.

Faults survive power loss with nothing special here: the controller journals ``fault.raised`` and
``fault.cleared`` records and puts the set of active faults in each checkpoint's snapshot, so the
snapshot plus the replay of the records after it gives exactly the faults active at power-down.

Payloads are JSON objects (dict with str keys; values str, int, bool, None, lists, dicts; floats are
refused: money is integer cents and a hash must not depend on float formatting). Kinds are short
dotted names (``[a-z][a-z0-9_.-]*``). ``checkpoint`` is reserved for :meth:`Journal.checkpoint`.
The clock is any zero-argument callable returning POSIX seconds (``time.time`` by default); it is
stored as integer microseconds.

A torn last transaction after a power loss is rolled back by SQLite itself (WAL); a record whose
stored bytes do not match its hash, or do not read back at all, is reported by number.

On disk (:data:`FORMAT`, kept in ``PRAGMA user_version``): a new journal is format 2 -- each payload
deflated with a preset dictionary the file holds (``journal_meta``; made from a simulated round's
payloads, ``journal-2.zdict``), the hash as its 32 bytes, and no ``prev_hash`` column: a record's
``prev_hash`` is the hash of the row numbered before it (the genesis hash for record 1, "" when that
row is missing). Format 1 (every field as text, ``prev_hash`` in each row) is what tabled wrote
before; such a journal keeps format 1 and is read, verified and appended to as before. What a
record *is* does not depend on the format: the same fields, the same canonical JSON, the same hash,
so readers, seals and the central copy (tabled/daemon/shipping.py) see no difference.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import sqlite3
import tempfile
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tabled.host.files import create_private
from tabled.table.kinds import CHECKPOINT, JOURNAL_RECORDS, KEY, SEAL

GENESIS_HASH = "0" * 64
_KIND = re.compile(r"[a-z][a-z0-9_.-]{0,63}\Z")

#: the on-disk format new journals are written in; a journal keeps the format it was created with
#: (``PRAGMA user_version``: 0 for format 1, which had no number), and every format is read and appended to
FORMAT = 2
FORMATS = (1, 2)
#: format 2 deflates each payload with this preset dictionary (one payload of each kind from a simulated
#: round); a journal holds its own copy (table ``journal_meta``), so it reads without this file
ZDICT_FILE = Path(__file__).with_name("journal-2.zdict")

# format 1: every field as text, the previous record's hash repeated in each row
_SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS records (
    seq       INTEGER PRIMARY KEY,
    time_us   INTEGER NOT NULL,
    round_id  TEXT,
    kind      TEXT NOT NULL,
    payload   TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
"""
# format 2: the payload deflated, the hash as its 32 bytes, no prev_hash (the row before holds it)
_SCHEMA_2 = """
CREATE TABLE records (
    seq       INTEGER PRIMARY KEY,
    time_us   INTEGER NOT NULL,
    round_id  TEXT,
    kind      TEXT NOT NULL,
    payload   BLOB NOT NULL,
    hash      BLOB NOT NULL
);
CREATE TABLE journal_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS records_round ON records(round_id, seq) WHERE round_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS records_checkpoint ON records(seq) WHERE kind = 'checkpoint';
CREATE INDEX IF NOT EXISTS records_config ON records(seq) WHERE kind = 'config.started';
CREATE INDEX IF NOT EXISTS records_seal ON records(seq) WHERE kind = 'journal.seal';
"""
#: a record as a caller gives it: (kind, payload, round_id)
Item = tuple[str, Mapping[str, Any], str | None]
_WRITTEN_BY = {CHECKPOINT: "Journal.checkpoint()", SEAL: "the journal's commits",
               KEY: "the journal's start with a new key"}
#: hex digits of a record's fingerprint kept in a seal: enough to name a changed record (2^64 work to fake)
FINGERPRINT_HEX = 16


class JournalError(ValueError):
    """Bad input to the journal, or a file that is not a journal."""


class JournalInUse(JournalError):
    """Another process holds the journal: one controller per table."""


class JournalUnsealed(JournalError):
    """A journal sealed with the table's key holds a record it did not seal: not the table's."""


class JournalCorrupt(JournalError):
    """The chain is broken: :attr:`result` names the first broken record."""

    def __init__(self, path: Path | str, result: VerifyResult):
        super().__init__(f"{path}: journal chain broken at record {result.first_broken_seq}: {result.reason}")
        self.result = result


@dataclass(frozen=True)
class Record:
    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str

    @property
    def time(self) -> datetime:
        return datetime.fromtimestamp(self.time_us / 1_000_000, tz=UTC)

    def as_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": self.time.isoformat(), "time_us": self.time_us,
                "round_id": self.round_id, "kind": self.kind, "payload": self.payload,
                "prev_hash": self.prev_hash, "hash": self.hash}


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    first_broken_seq: int | None  # the first record that fails, None when ok
    reason: str                   # why it fails ("" when ok)
    count: int                    # records checked
    head_seq: int = 0             # last record checked that was intact
    head_hash: str = GENESIS_HASH


def canonical_payload(payload: Mapping[str, Any]) -> str:
    """The one JSON text of a payload: sorted keys, no spaces, UTF-8, no floats."""
    if not isinstance(payload, Mapping):
        raise JournalError(f"payload must be a JSON object (dict), got {type(payload).__name__}")
    _check_json(payload, "payload")
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_record(seq: int, time_us: int, round_id: str | None, kind: str,
                     payload_text: str, prev_hash: str) -> bytes:
    """The bytes whose SHA-256 is the record's hash (the payload is embedded as its canonical JSON)."""
    head = json.dumps([seq, time_us, round_id, kind, prev_hash], separators=(",", ":"), ensure_ascii=False)
    return f'{{"record":{head},"payload":{payload_text}}}'.encode()


def record_hash(seq: int, time_us: int, round_id: str | None, kind: str,
                payload_text: str, prev_hash: str) -> str:
    return hashlib.sha256(canonical_record(seq, time_us, round_id, kind, payload_text, prev_hash)).hexdigest()


def fingerprint(seq: int, time_us: int, round_id: str | None, kind: str, payload_text: str) -> str:
    """A record's own contents (not its link to the chain), hashed and cut to FINGERPRINT_HEX digits:
    a rewrite changes the fingerprint of the record rewritten and of no other (tabled/journal/seals.py)."""
    return hashlib.sha256(canonical_record(seq, time_us, round_id, kind, payload_text, "")).hexdigest()[
        :FINGERPRINT_HEX]


def _check_json(value: Any, where: str) -> None:
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        raise JournalError(f"{where}: floats are not journalled (money is integer cents), got {value!r}")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise JournalError(f"{where}: keys must be strings, got {key!r}")
            _check_json(item, f"{where}.{key}")
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_json(item, f"{where}[{i}]")
        return
    raise JournalError(f"{where}: {type(value).__name__} is not JSON (use str, int, bool, None, list, dict)")


def _check_kind(kind: str) -> None:
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise JournalError(f"record kind must be a short dotted name like 'panel.button', got {kind!r}")


def _check_round_id(round_id: str | None) -> None:
    if round_id is not None and (not isinstance(round_id, str) or not round_id):
        raise JournalError(f"round_id must be a non-empty string or None, got {round_id!r}")


def _callers_items(items: Iterable[Item]) -> list[Item]:
    """A caller's ``(kind, payload[, round_id])`` items as ``(kind, payload, round_id)``; the kinds
    only the journal writes itself (a checkpoint, a seal, a key) are refused."""
    prepared = []
    for item in items:
        if not isinstance(item, tuple) or len(item) not in (2, 3):
            raise JournalError(f"append_many takes (kind, payload, round_id) tuples, got {item!r}")
        kind, payload, round_id = item if len(item) == 3 else (*item, None)
        if kind in JOURNAL_RECORDS:
            raise JournalError(f"{kind!r} records are written by {_WRITTEN_BY[kind]} only")
        prepared.append((kind, payload, round_id))
    return prepared


def _row_to_record(row: tuple) -> Record:
    seq, time_us, round_id, kind, payload_text, prev_hash, digest = row
    try:
        payload = json.loads(payload_text)
    except (TypeError, ValueError):
        raise JournalError(f"record {seq}: payload is not JSON (run `tabled audit verify`)") from None
    return Record(seq, time_us, round_id, kind, payload, prev_hash, digest)


def deflate_payload(text: str, zdict: bytes) -> bytes:
    """A payload's canonical text as format 2 stores it: raw deflate with the preset dictionary
    (no zlib header or checksum: the record's hash covers the text)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, zdict)
    return packer.compress(text.encode()) + packer.flush()


def inflate_payload(stored: Any, zdict: bytes) -> str:
    """The canonical text back from what format 2 stores; :class:`JournalError` when the stored
    bytes are not one whole deflate stream of UTF-8 text."""
    if not isinstance(stored, bytes):
        raise JournalError(f"a stored payload must be bytes, not {type(stored).__name__}")
    unpacker = zlib.decompressobj(-15, zdict=zdict)
    try:
        data = unpacker.decompress(stored)
        text = data.decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise JournalError(f"the stored payload does not inflate ({exc})") from None
    if not unpacker.eof or unpacker.unused_data:
        raise JournalError("the stored payload is cut short or has bytes after its end")
    return text


def _hex(stored: Any) -> Any:
    """A hash as the API gives it (64 hex digits) from format 2's 32 bytes; anything else as stored."""
    return stored.hex() if isinstance(stored, bytes) else stored


class _Format1:
    """Every field as text, each row repeating the previous record's hash (journals written before
    format 2; still read, verified and appended to)."""

    number = 1
    columns = "seq, time_us, round_id, kind, payload, prev_hash, hash"
    chain_columns = columns
    insert = "INSERT INTO records (seq, time_us, round_id, kind, payload, prev_hash, hash) VALUES (?,?,?,?,?,?,?)"

    def decode(self, row: tuple, prev: str | None = None) -> tuple:
        return row

    def encode(self, seq: int, time_us: int, round_id: str | None, kind: str, text: str, prev: str,
               digest: str) -> tuple:
        return (seq, time_us, round_id, kind, text, prev, digest)


class _Format2:
    """The payload deflated with the journal's preset dictionary, the hash as 32 bytes, and no
    ``prev_hash``: it is the hash of the row before (the genesis hash for record 1)."""

    number = 2
    # readers of any record: its predecessor's hash by number (a rowid lookup)
    # (read as bytes whatever is stored: a payload or hash overwritten with text is a broken record,
    # named by verify, never a decoding error)
    columns = ("seq, time_us, round_id, kind, CAST(payload AS BLOB), "
               "(SELECT CAST(before.hash AS BLOB) FROM records AS before WHERE before.seq = records.seq - 1), "
               "CAST(hash AS BLOB)")
    # the chain's check reads in order and carries the previous hash itself
    chain_columns = "seq, time_us, round_id, kind, CAST(payload AS BLOB), NULL, CAST(hash AS BLOB)"
    insert = "INSERT INTO records (seq, time_us, round_id, kind, payload, hash) VALUES (?,?,?,?,?,?)"

    def __init__(self, zdict: bytes):
        self.zdict = zdict

    def decode(self, row: tuple, prev: str | None = None) -> tuple:
        """The logical record; ``prev`` is the hash of the record before when the caller has it.
        A record whose predecessor is missing gets "" as ``prev_hash`` (it links to nothing)."""
        seq, time_us, round_id, kind, stored, before, digest = row
        try:
            text = inflate_payload(stored, self.zdict)
        except JournalError as exc:
            raise JournalError(f"record {seq}: {exc} (run `tabled audit verify`)") from None
        if prev is None:
            prev = _hex(before) if before is not None else (GENESIS_HASH if seq == 1 else "")
        return seq, time_us, round_id, kind, text, prev, _hex(digest)

    def encode(self, seq: int, time_us: int, round_id: str | None, kind: str, text: str, prev: str,
               digest: str) -> tuple:
        return (seq, time_us, round_id, kind, deflate_payload(text, self.zdict), bytes.fromhex(digest))


def _layout(conn: sqlite3.Connection, path: Path, create: bool, new_format: int) -> _Format1 | _Format2:
    """The format of the journal on ``conn``; with ``create``, a file without records becomes a
    journal of format ``new_format``."""
    def tables() -> set[str]:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    if "records" not in tables():
        if not create:
            raise JournalError(f"{path}: not a journal (no records table)")
        if others := sorted(tables()):
            raise JournalError(f"{path}: not a journal (an SQLite database with other tables: {', '.join(others)})")
        if new_format == 1:
            conn.executescript(_SCHEMA_1 + _INDEXES)
            return _Format1()
        zdict = ZDICT_FILE.read_bytes()
        conn.execute("BEGIN IMMEDIATE")
        try:
            if "records" not in tables():  # not made meanwhile by another opener
                for statement in (_SCHEMA_2 + _INDEXES).split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO journal_meta (name, value) VALUES ('zdict', ?)", (zdict,))
                conn.execute("PRAGMA user_version = 2")
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
    number = conn.execute("PRAGMA user_version").fetchone()[0]
    if number == 0:
        if create:  # indexes added since the file was made
            conn.executescript(_SCHEMA_1 + _INDEXES)
        return _Format1()
    if number == 2:
        row = conn.execute("SELECT value FROM journal_meta WHERE name = 'zdict'").fetchone()
        if row is None or not isinstance(row[0], bytes):
            raise JournalError(f"{path}: a format 2 journal without its payload dictionary: the file is damaged; "
                               "restore it from its copy")
        return _Format2(row[0])
    raise JournalError(f"{path}: journal format {number} is not one this tabled reads (formats "
                       f"{', '.join(map(str, FORMATS))}): use the tabled that wrote it or a newer one")


#: what SQLite says when a reader cannot make WAL's shared-memory index beside the journal
_NO_INDEX_HERE = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_IOERR")


def _reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the journal at ``path``. A reader of a journal in WAL mode makes the
    log's shared-memory index (``-shm``) beside the file; where that cannot be done (an evidence copy
    on read-only media, a full disk) the file is read as immutable when no write-ahead log beside it
    holds records, else a private copy of the file with its log folded in."""
    def connect(uri: str) -> sqlite3.Connection:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn

    real = path.resolve()
    try:
        return connect(f"{real.as_uri()}?mode=ro")
    except sqlite3.OperationalError as exc:
        if "_".join(str(exc.sqlite_errorname).split("_")[:2]) not in _NO_INDEX_HERE:
            raise
    log = real.with_name(real.name + "-wal")
    if not log.exists() or log.stat().st_size == 0:
        return connect(f"{real.as_uri()}?immutable=1")
    with tempfile.TemporaryDirectory(prefix="tabled-journal-") as folder:
        copy = Path(folder) / real.name
        shutil.copyfile(real, copy)
        shutil.copyfile(log, copy.with_name(copy.name + "-wal"))
        folding = sqlite3.connect(copy, isolation_level=None)
        try:
            folding.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            folding.execute("PRAGMA journal_mode=DELETE")
        finally:
            folding.close()
        # immutable: SQLite holds the one file open and never looks for it again by name
        return connect(f"{copy.as_uri()}?immutable=1")


@contextmanager
def _writing(path: Path, conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, taken with the write lock at once: committed whole or rolled back, an
    SQLite error told as the journal's storage error."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("COMMIT")
    except BaseException as exc:
        _roll_back(conn)
        if isinstance(exc, sqlite3.Error):
            raise storage_error(path, exc) from None
        raise


def _roll_back(conn: sqlite3.Connection) -> None:
    """Undo the transaction a failed write left open; SQLite has already rolled back one that failed
    for want of room or on an I/O error, and that error, not this, is the one to tell."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


def lock_path(path: Path) -> Path:
    """The lock file beside the journal (the same for every name of the same journal)."""
    real = path.resolve()
    return real.with_name(real.name + ".lock")


def hold(path: Path) -> int:
    """Take the journal's controller lock (an flock on its lock file, released by the kernel when
    this process ends, also by kill -9) and write this process's id in the file for whoever finds
    it held. Returns the lock's file descriptor; closing it releases the lock.
    Raises :class:`JournalInUse` naming the holder."""
    where = lock_path(path)
    create_private(where)
    fd = os.open(where, os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
        os.close(fd)
        raise JournalInUse(f"{path}: in use by another tabled (pid {holder}): one controller per table; "
                           f"stop it first") from None
    except BaseException:
        os.close(fd)
        raise
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


SQLITE_HEADER = b"SQLite format 3\x00"
#: SQLite's result codes (the primary code, before any ``_EXTENDED`` part) that say nothing about the
#: file's contents: the disk, the folder or another process failed the read or write
_NOT_THE_CONTENTS = ("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM",
                     "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_NOMEM", "SQLITE_NOLFS")


class JournalDiskFull(JournalError):
    """The journal's disk has no room for the next write: nothing was written, the file is intact."""


def room_needed(path: Path) -> int:
    """The bytes a journal needs on its disk beside the file itself: its shared-memory index (``-shm``,
    32 KiB) and a write-ahead log grown to SQLite's automatic checkpoint (1000 pages, each with a
    24-byte frame header, and the log's 32-byte header). The page size is the file's own (its header)."""
    try:
        with open(path, "rb") as f:
            header = f.read(18)
    except OSError:
        header = b""
    page = int.from_bytes(header[16:18], "big") if header[:16] == SQLITE_HEADER else 4096
    page = 65536 if page == 1 else page or 4096
    return 32 * 1024 + 1000 * (page + 24) + 32


def free_bytes(path: Path) -> int:
    """The bytes a process like this one may still write on the disk that holds ``path``'s folder."""
    try:
        stats = os.statvfs(path.resolve().parent)
    except OSError:
        return 0
    return stats.f_bavail * stats.f_frsize


def storage_error(path: Path, exc: sqlite3.Error | UnicodeDecodeError) -> JournalError:
    """The one-line error for an error SQLite met on the journal at ``path``: its disk full (with the
    bytes to free), a read or write the disk or the folder refused (the file's contents not in
    question), or a file SQLite cannot read (:func:`damaged`)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    primary = "_".join(name.split("_")[:2])
    free, room = free_bytes(path), room_needed(path)
    if primary == "SQLITE_FULL" or (primary == "SQLITE_IOERR" and free < room):
        need = f"free {room - free} bytes needed; {free} free" if free < room else f"SQLite: {exc}; {free} bytes free"
        return JournalDiskFull(f"{path}: the journal's disk is full ({need}): nothing was written and the journal "
                               "is intact; make room on the disk and start tabled again")
    if primary in _NOT_THE_CONTENTS:
        return JournalError(f"{path}: the journal cannot be read or written here (SQLite: {exc}, {name}): the "
                            "disk or the folder refused it, the file's contents are not in question; check "
                            "the disk and the folder's permissions")
    return damaged(path, exc)


def damaged(path: Path, exc: Exception) -> JournalError:
    """The one-line error for a file SQLite cannot read: damaged, or not a database at all."""
    try:
        with open(path, "rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except OSError:
        header = b""
    if header == SQLITE_HEADER:
        return JournalError(f"{path}: the journal file is damaged (SQLite: {exc}); run `tabled audit verify` "
                            "and restore the file from its copy")
    return JournalError(f"{path}: not a journal ({exc})")


class Journal:
    """One open journal file. Not thread-safe: the table's one consumer owns it."""

    def __init__(self, path: Path, conn: sqlite3.Connection, clock: Callable[[], float], readonly: bool,
                 layout: _Format1 | _Format2):
        self.path = path
        self._conn = conn
        self._fmt = layout
        self.format = layout.number  # the on-disk format (FORMATS), kept for the file's life
        self._clock = clock
        self.readonly = readonly
        self.recovery: VerifyResult | None = None  # the check made by open()
        self._lock: int | None = None  # the controller lock's descriptor (open(..., exclusive=True))
        self._signer: Any = None  # the table's SigningKey: every commit is sealed with it
        self._known_head: tuple[int, str] | None = None  # the head as this journal last left it (sealed)
        self.last_seal: Record | None = None  # the seal of the last commit this journal wrote

    # -- opening ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, clock: Callable[[], float] = time.time, *,
             readonly: bool = False, verify: bool = True, exclusive: bool = False, format: int = FORMAT,
             seal_with: Any = None) -> Journal:
        """Open (or create) the journal at ``path``.

        With ``verify`` (the default) the last checkpoint and every record after it are checked and
        :class:`JournalCorrupt` is raised when the chain is broken there: the daemon must not act.
        ``readonly`` opens an existing journal for ``audit``/``recall`` while the daemon runs.
        ``exclusive`` (the daemon): take the controller lock first, held until :meth:`close` or the
        process's end; :class:`JournalInUse` names the process that holds it.
        A journal this creates (and its lock) is readable by its owner only (tabled/host/files.py).
        ``format`` is the on-disk format of a journal this creates (1: as tabled wrote before format 2,
        for comparisons); an existing journal keeps its own.
        ``seal_with`` (the daemon with the table's key, :class:`tabled.journal.seals.SigningKey`): seal
        every commit; the open checks the seals from the last checkpoint with it and raises
        :class:`JournalUnsealed` naming a record no seal covers, and writes a ``journal.key``
        record when the last seal was another key's (see the module's docstring).
        """
        path = Path(path)
        if format not in FORMATS:
            raise JournalError(f"journal format must be one of {', '.join(map(str, FORMATS))}, got {format!r}")
        if readonly and not path.is_file():
            raise JournalError(f"{path}: no journal there")
        if seal_with is not None and (readonly or not verify):
            raise JournalError("a journal sealed with a key is opened to be written, and checked")
        lock = hold(path) if exclusive and not readonly else None
        try:
            journal = cls._open(path, clock, readonly, format)
        except BaseException:
            if lock is not None:
                os.close(lock)
            raise
        journal._lock = lock
        if verify:
            cp = journal.last_checkpoint_seq()
            start, checker = cp or 0, None
            if seal_with is not None:  # from the first record the seal before the checkpoint does not cover
                checker = seal_with.checker()
                before = journal.last_of_kind(SEAL, before=cp) if cp else None
                start = before.seq + 1 if before is not None else start
            result = journal.verify(from_seq=start, on_record=checker.feed if checker is not None else None)
            journal.recovery = result
            if not result.ok:
                journal.close()
                raise JournalCorrupt(path, result)
            if checker is not None:
                try:
                    journal._take_key(seal_with, checker.finish())
                except BaseException:
                    journal.close()
                    raise
        return journal

    def _take_key(self, key: Any, report: Any) -> None:
        """Seal every commit with ``key`` from now on, once the seals checked from the last
        checkpoint (``report``, a :class:`tabled.journal.seals.SealReport`) leave no record unsealed."""
        head = self.head
        unsealed = report.first_unsealed
        if head[0] and report.seals == 0 and self.last_of_kind(SEAL) is None:
            unsealed = 1  # written without a key, or stripped of its seals: this key will not vouch for it
        if report.rewritten:
            raise JournalUnsealed(f"{self.path}: record {report.rewritten[0]} is not the record its seal signed: the "
                                  "journal was changed; the table does not start on it: run `tabled audit verify "
                                  "--public-key`")
        if report.forged:
            raise JournalUnsealed(f"{self.path}: the seal at record {report.forged[0]} is not signed by the table's "
                                  f"key {key.id}: the journal was changed; the table does not start on it: run "
                                  "`tabled audit verify --public-key`")
        if unsealed is not None:
            record = self.record(unsealed)
            what = f"record {unsealed} ({record.kind})" if record is not None else f"record {unsealed}"
            raise JournalUnsealed(f"{self.path}: {what} is not sealed: the table seals every commit with its records, "
                                  "so this record was not written by it (or the journal's seals were removed); "
                                  "the table does not start on it: run `tabled audit verify --public-key` and "
                                  "restore the journal from its copy")
        self._known_head = head
        last = self.last_of_kind(SEAL)
        previous = last.payload.get("key") if last is not None else None
        self._signer = key
        if last is not None and previous != key.id:
            self._write([(KEY, {"key": key.id, "previous": previous}, None)])

    @classmethod
    def _open(cls, path: Path, clock: Callable[[], float], readonly: bool, new_format: int) -> Journal:
        try:
            if readonly:
                conn = _reader(path)
            else:
                create_private(path)
                conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=5000")
            try:
                layout = _layout(conn, path, not readonly, new_format)
            except BaseException:
                conn.close()
                raise
        except (sqlite3.Error, UnicodeDecodeError) as exc:  # also a damaged schema's text
            raise storage_error(path, exc) from None
        return cls(path, conn, clock, readonly, layout)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None  # type: ignore[assignment]
        if self._lock is not None:  # after the last write: the next controller may start
            os.close(self._lock)
            self._lock = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------------

    @property
    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last record; (0, GENESIS_HASH) when empty."""
        row = self._conn.execute("SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        return (row[0], _hex(row[1])) if row else (0, GENESIS_HASH)

    def append(self, kind: str, payload: Mapping[str, Any], round_id: str | None = None) -> Record:
        """Write one record durably; returns it once it is on disk."""
        return self.append_many([(kind, payload, round_id)])[0]

    def append_many(self, items: Iterable[Item], time_us: int | None = None) -> list[Record]:
        """Write several records in ONE transaction (group commit): all durable, or none. They carry
        ``time_us`` (read before with :meth:`stamp`), or by default the clock's reading now."""
        return self._write(_callers_items(items), time_us=time_us)

    def stamp(self) -> int:
        """The time a write made now carries: the journal's clock, in integer microseconds. A caller
        that acts on its records' time before they are written (the table folds its inputs, then
        journals them with the fold's notes) reads it here and gives it to :meth:`append_many`."""
        return int(round(self._clock() * 1_000_000))

    @staticmethod
    def as_written(items: Iterable[Item]) -> list[tuple[str, dict[str, Any], str | None]]:
        """``items`` as :meth:`append_many` writes them and a reader reads them back, each payload its
        canonical JSON read again (a tuple becomes a list); nothing is written. :class:`JournalError`
        names the first item the journal refuses."""
        written = []
        for kind, payload, round_id in _callers_items(items):
            _check_kind(kind)
            _check_round_id(round_id)
            written.append((kind, json.loads(canonical_payload(payload)), round_id))
        return written

    def checkpoint(self, snapshot: Mapping[str, Any]) -> Record:
        """Seal the chain so far with the caller's table state; restart starts from here."""
        return self._write([(CHECKPOINT, {"snapshot": snapshot}, None)], seal=True)[0]

    def _write(self, items: list[Item], seal: bool = False, time_us: int | None = None) -> list[Record]:
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        if time_us is not None and (not isinstance(time_us, int) or isinstance(time_us, bool)
                                    or not 0 <= time_us < 2**63):  # SQLite's INTEGER
            raise JournalError(f"a record's time must be a whole number of microseconds since 1970, got {time_us!r}")
        checked = []
        for kind, payload, round_id in items:
            _check_kind(kind)
            _check_round_id(round_id)
            checked.append((kind, payload, round_id))
        if not checked:
            return []
        if time_us is None:
            time_us = self.stamp()
        conn = self._conn
        with _writing(self.path, conn):
            seq, prev = self.head  # read inside the write lock: the head cannot move under us
            if self._signer is not None and (seq, prev) != self._known_head:
                raise JournalUnsealed(self._moved(seq))
            records, rows, marks = [], [], []
            for kind, payload, round_id in checked:
                seq += 1
                if seal:
                    payload = {**payload, "chain_hash": prev, "sealed_through": seq - 1}
                text = canonical_payload(payload)
                digest = record_hash(seq, time_us, round_id, kind, text, prev)
                rows.append(self._fmt.encode(seq, time_us, round_id, kind, text, prev, digest))
                records.append(Record(seq, time_us, round_id, kind, json.loads(text), prev, digest))
                if self._signer is not None:
                    marks.append(fingerprint(seq, time_us, round_id, kind, text))
                prev = digest
            sealed = None
            if self._signer is not None:  # the commit's seal, in the commit: last, over its records alone
                text = canonical_payload(self._signer.seal_payload(records[0].seq, seq, prev, marks))
                seq += 1
                digest = record_hash(seq, time_us, None, SEAL, text, prev)
                rows.append(self._fmt.encode(seq, time_us, None, SEAL, text, prev, digest))
                sealed = Record(seq, time_us, None, SEAL, json.loads(text), prev, digest)
                prev = digest
            conn.executemany(self._fmt.insert, rows)
        if sealed is not None:
            self.last_seal, self._known_head = sealed, (seq, prev)
        return records

    def restore(self, rows: Iterable[tuple[int, int, str | None, str, str, str, str]]) -> int:
        """Records this journal lost, taken back verbatim from a copy of it (its central copy): each
        ``(seq, time_us, round_id, kind, payload text, prev_hash, hash)`` must follow the head and hash
        to the hash it carries, or nothing is written. The number of records restored."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        conn = self._conn
        with _writing(self.path, conn):
            seq, prev = self.head
            encoded, last_seal = [], None
            for r_seq, time_us, round_id, kind, text, r_prev, digest in rows:
                if r_seq != seq + 1 or r_prev != prev:
                    raise JournalError(f"{self.path}: record {r_seq} of the copy does not follow record {seq} "
                                       "of this journal: not restored")
                if record_hash(r_seq, time_us, round_id, kind, text, r_prev) != digest:
                    raise JournalError(f"{self.path}: record {r_seq} of the copy does not hash to the hash it "
                                       "carries (changed there): not restored")
                encoded.append(self._fmt.encode(r_seq, time_us, round_id, kind, text, r_prev, digest))
                if kind == SEAL:
                    last_seal = Record(r_seq, time_us, round_id, kind, json.loads(text), r_prev, digest)
                seq, prev = r_seq, digest
            conn.executemany(self._fmt.insert, encoded)
        if last_seal is not None:
            self.last_seal = last_seal
        if self._known_head is not None:
            self._known_head = (seq, prev)
        return len(encoded)

    def _moved(self, head_seq: int) -> str:
        """What a sealed journal says when its head is not the one it left."""
        known = self._known_head[0] if self._known_head is not None else 0
        if head_seq == known:
            return (f"{self.path}: record {known} was changed in the journal by something else than this tabled "
                    "after its last commit: refused")
        if head_seq > known:
            record = self.record(known + 1)
            kind = f" ({record.kind})" if record is not None else ""
            return (f"{self.path}: record {known + 1}{kind} was written to the journal by something else than "
                    f"this tabled (its last commit ended at record {known}): not sealed, and refused")
        return (f"{self.path}: records after {head_seq} were taken out of the journal by something else than "
                f"this tabled (its last commit ended at record {known}): refused")

    # -- reading ---------------------------------------------------------------------------------

    def last_checkpoint_seq(self) -> int | None:
        row = self._conn.execute(
            "SELECT seq FROM records WHERE kind = 'checkpoint' ORDER BY seq DESC LIMIT 1").fetchone()
        return row[0] if row else None

    def last_checkpoint(self) -> Record | None:
        """The last sealed checkpoint; its ``payload["snapshot"]`` is the state the caller gave."""
        seq = self.last_checkpoint_seq()
        return self.record(seq) if seq is not None else None

    def last_of_kind(self, kind: str, before: int | None = None, after: int = 0) -> Record | None:
        """The last record of ``kind`` numbered between ``after`` and ``before`` (both excluded).
        The kind is written into the query so that a partial index on it (the config's) is used."""
        if not _KIND.match(kind):
            raise JournalError(f"bad record kind {kind!r}")
        row = self._conn.execute(
            f"SELECT {self._fmt.columns} FROM records WHERE kind = '{kind}' AND seq < ? AND seq > ? "
            "ORDER BY seq DESC LIMIT 1",
            (before if before is not None else 2**63 - 1, after)).fetchone()
        return self._record(row) if row else None

    def _record(self, row: tuple) -> Record:
        return _row_to_record(self._fmt.decode(row))

    def record(self, seq: int) -> Record | None:
        row = self._conn.execute(f"SELECT {self._fmt.columns} FROM records WHERE seq = ?", (seq,)).fetchone()
        return self._record(row) if row else None

    def _in_order(self, where: str, params: tuple) -> Iterator[tuple]:
        """The logical rows of ``SELECT ... FROM records {where}`` (in number order). Format 2 takes
        each record's prev_hash from the row before it in the result, and looks it up only when
        that row is not there (a sequential read does no lookup per row)."""
        layout = self._fmt
        last_seq, last_hash = None, ""
        for row in self._conn.execute(f"SELECT {layout.chain_columns} FROM records {where}", params):
            if layout.number == 1:
                logical = row
            else:
                seq = row[0]
                logical = layout.decode(row, prev=last_hash if seq - 1 == last_seq else self._hash_of(seq - 1))
            last_seq, last_hash = logical[0], logical[6]
            yield logical

    def _hash_of(self, seq: int) -> str:
        """Record ``seq``'s hash as a following record links to it ("" when it is not there)."""
        if seq == 0:
            return GENESIS_HASH
        row = self._conn.execute("SELECT hash FROM records WHERE seq = ?", (seq,)).fetchone()
        return _hex(row[0]) if row else ""

    def records_after(self, seq: int) -> Iterator[Record]:
        """Every record with a number greater than ``seq``, in order."""
        for logical in self._in_order("WHERE seq > ? ORDER BY seq", (seq,)):
            yield _row_to_record(logical)

    def raw_records_after(self, seq: int, limit: int) -> list[tuple[Record, str]]:
        """Up to ``limit`` records after ``seq``, each with its payload exactly as stored (what a
        copy of the journal must hold to hash the same)."""
        return [(_row_to_record(r), r[4]) for r in self._in_order("WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))]

    def raw_records_between(self, first_seq: int, last_seq: int) -> list[tuple[Record, str]]:
        return [(_row_to_record(r), r[4]) for r in self._in_order("WHERE seq BETWEEN ? AND ? ORDER BY seq",
                                                                  (first_seq, last_seq))]

    def records_for_round(self, round_id: str) -> list[Record]:
        rows = self._conn.execute(
            f"SELECT {self._fmt.columns} FROM records WHERE round_id = ? ORDER BY seq", (round_id,)).fetchall()
        return [self._record(r) for r in rows]

    def recent_round_ids(self, n: int = 10) -> list[str]:
        """The last ``n`` rounds that have records, newest first (by their latest record)."""
        seen: dict[str, None] = {}
        cursor = self._conn.execute(
            "SELECT round_id FROM records WHERE round_id IS NOT NULL ORDER BY seq DESC")
        for (round_id,) in cursor:
            if len(seen) >= n:
                break
            seen.setdefault(round_id, None)
        cursor.close()
        return list(seen)

    def round_of_every_record(self, only: Iterable[str] | None = None) -> Iterator[tuple[int, str | None]]:
        """``(seq, round_id)`` of every record (or of the rounds ``only``), newest first, read from
        the table itself: the round index is not used, so a damaged index cannot move a record
        into another round."""
        only = None if only is None else list(only)
        where = "" if only is None else f" WHERE round_id IN ({','.join('?' * len(only))})"
        cursor = self._conn.execute(f"SELECT seq, round_id FROM records NOT INDEXED{where} ORDER BY seq DESC",
                                    only or ())
        try:
            yield from cursor
        finally:
            cursor.close()

    def records_between(self, first_seq: int, last_seq: int, kinds: Iterable[str] | None = None) -> list[Record]:
        """Records ``first_seq`` to ``last_seq`` by number, read from the table itself; with
        ``kinds``, only records of those kinds (the others are not decoded at all)."""
        if kinds is None:
            return [_row_to_record(r) for r in self._in_order("NOT INDEXED WHERE seq BETWEEN ? AND ? ORDER BY seq",
                                                              (first_seq, last_seq))]
        wanted = sorted(set(kinds))
        marks = ",".join("?" * len(wanted))
        rows = self._conn.execute(f"SELECT {self._fmt.columns} FROM records NOT INDEXED WHERE seq BETWEEN ? AND ?"
                                  f" AND kind IN ({marks}) ORDER BY seq", (first_seq, last_seq, *wanted)).fetchall()
        return [self._record(r) for r in rows]

    def count(self) -> int:
        return self._conn.execute("SELECT count(*) FROM records").fetchone()[0]

    def repeated(self, kind: str) -> dict[str, list[int]]:
        """The rounds with more than one record of ``kind``: round id -> their numbers. Read from
        the records themselves, not from an index (which may be damaged)."""
        seen: dict[str, list[int]] = {}
        for round_id, seq in self._conn.execute(
                "SELECT round_id, seq FROM records NOT INDEXED WHERE kind = ? AND round_id IS NOT NULL "
                "ORDER BY seq", (kind,)):
            seen.setdefault(round_id, []).append(seq)
        return {rid: seqs for rid, seqs in seen.items() if len(seqs) > 1}

    def file_problems(self, limit: int = 100) -> list[str]:
        """SQLite's own check of the file (its pages and indexes, not the chain): what it finds,
        at most ``limit`` lines; empty when the file is sound."""
        found = [line for (text,) in self._conn.execute(f"PRAGMA integrity_check({int(limit)})")
                 for line in str(text).splitlines() if line and line != "*** in database main ***"]
        return [] if found == ["ok"] else found

    # -- checking --------------------------------------------------------------------------------

    def verify(self, from_seq: int = 0, progress: Callable[[int], None] | None = None,
               on_record: Callable[[int, int, str | None, str, str, str], None] | None = None) -> VerifyResult:
        """Check the chain from record ``from_seq`` (0: the whole journal) to the end.

        Each record must follow its predecessor by number, carry its hash as ``prev_hash``, and hash
        to its stored ``hash``; a checkpoint must seal the chain it follows, up to the record before
        it. ``on_record(seq, time_us, round_id, kind, payload text, hash)`` sees each record that
        checked out (the seals' check, tabled/journal/seals.py). The anchor for a partial check is the
        stored hash of record ``from_seq - 1``, which must be there (the start check from a checkpoint
        cannot be fooled by a row that starts a chain of its own).
        """
        start = max(from_seq, 1)
        anchor = self._conn.execute("SELECT hash FROM records WHERE seq = ?", (start - 1,)).fetchone()
        first = self._conn.execute("SELECT min(seq) FROM records WHERE seq >= ?", (start,)).fetchone()[0]
        if start > 1 and anchor is None and first is not None:
            # a record (a checkpoint above all) must follow one that is there: a row put in with the
            # genesis hash as its predecessor would otherwise start a chain of its own
            return VerifyResult(False, start - 1, f"record {start - 1} is missing (next is {first})", 0)
        expected_prev = _hex(anchor[0]) if anchor else GENESIS_HASH
        expected_seq = start
        count, head_seq, head_hash = 0, start - 1 if anchor else 0, expected_prev
        layout = self._fmt
        cursor = self._conn.execute(f"SELECT {layout.chain_columns} FROM records WHERE seq >= ? ORDER BY seq",
                                    (start,))

        def broken(seq: int, reason: str) -> VerifyResult:
            cursor.close()
            return VerifyResult(False, seq, reason, count, head_seq, head_hash)

        for row in cursor:
            seq = row[0]
            if seq != expected_seq:
                return broken(expected_seq, f"record {expected_seq} is missing (next is {seq})")
            try:  # format 2 links each record to the hash carried from the row before
                _, time_us, round_id, kind, text, prev_hash, digest = layout.decode(row, prev=expected_prev)
            except JournalError:
                return broken(seq, "its stored payload does not read back (record altered)")
            if prev_hash != expected_prev:
                return broken(seq, "prev_hash does not match the hash of the record before it")
            if (not isinstance(text, str) or not isinstance(time_us, int) or not isinstance(kind, str)
                    or not isinstance(digest, str)):
                return broken(seq, "a field has the wrong type")
            try:
                recomputed = record_hash(seq, time_us, round_id, kind, text, prev_hash)
            except (TypeError, ValueError) as exc:
                return broken(seq, f"cannot be hashed ({exc})")
            if recomputed != digest:
                return broken(seq, "contents do not match its hash (record altered)")
            if kind == CHECKPOINT:
                try:
                    sealed = json.loads(text)
                except ValueError:
                    return broken(seq, "checkpoint payload is not JSON")
                if not isinstance(sealed, dict) or sealed.get("chain_hash") != prev_hash:
                    return broken(seq, "checkpoint does not seal the chain before it")
                if sealed.get("sealed_through") != seq - 1:
                    return broken(seq, f"checkpoint seals records to {sealed.get('sealed_through')!r}, "
                                       f"not to the record before it ({seq - 1})")
            if on_record is not None:
                on_record(seq, time_us, round_id, kind, text, digest)
            count += 1
            head_seq, head_hash = seq, digest
            expected_prev, expected_seq = digest, seq + 1
            if progress is not None and count % 100_000 == 0:
                progress(count)
        return VerifyResult(True, None, "", count, head_seq, head_hash)


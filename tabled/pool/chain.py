"""The local pool's rows chained and sealed, as the table's journal is (tabled/journal/seals.py).

The append-only triggers stop a mistake, not someone who holds the file: they drop the triggers,
lower every balance and keep the ledger consistent, and the ledger still "proves the meter". So
every row the local pool adds (its ledger, contributions, reversals, award rounds, hits, settings
versions and table bindings) is a link of one hash chain per database file:

    link n = SHA-256(link n-1 || the row's table, columns and values as inserted, canonical JSON)

and, when the table has a signing key (the journal's, ``[journal] signing_key`` or systemd's
``journal-signing-key`` credential), each transaction ends with a seal: the key's Ed25519
signature over the chain's head. ``tabled pool verify`` recomputes every link from the rows as they
now are and names a row that is not the row chained; a chain recomputed after a rewrite no longer
has the head that was sealed, and with the public key (``--public-key``) a seal whose signature is
not its key's is named too. Rows are linked in the transaction that adds them, so a link never
lacks its row nor a row its link.

The key object is the journal's (:class:`tabled.journal.seals.SigningKey`): anything with an ``id``
and ``sign(message) -> base64 text``. The seals' message has its own domain, so a pool seal can
never pass for a journal seal or the other way round.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

#: the tables whose rows are chained (the pools table is the meter: verify checks it against the ledger)
CHAINED = ("pool_settings", "ledger", "contributions", "reversals", "award_rounds", "hits", "table_journals")
_DOMAIN = b"tabled pool seal\0"
_GENESIS = "0" * 64
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
_INSERT = re.compile(r"\s*INSERT INTO (\w+) \(([^)]*)\)", re.IGNORECASE)

#: schema version 4 of the local pool (tabled/pool/schema.py)
SQLITE_V4 = [
    """CREATE TABLE pool_chain (
    n          INTEGER PRIMARY KEY,   -- the link's number, 1, 2, ... in the order the rows were added
    source     TEXT NOT NULL,         -- the table of the row
    row_id     INTEGER NOT NULL,      -- its rowid
    columns    TEXT NOT NULL,         -- the columns inserted, comma-separated
    hash       TEXT NOT NULL          -- SHA-256 of the link before and the row (hex)
)""",
    """CREATE TABLE pool_seals (
    through    INTEGER PRIMARY KEY,   -- the link sealed: the chain's head when the transaction ended
    hash       TEXT NOT NULL,         -- that link's hash
    key_id     TEXT NOT NULL,         -- the signing key's id (tabled/journal/seals.py: key_id)
    signature  TEXT NOT NULL,         -- base64 Ed25519 over the domain, through and hash
    at         TEXT NOT NULL
)""",
    *(f"CREATE TRIGGER {t}_no_{op.lower()} BEFORE {op} ON {t} "
      f"BEGIN SELECT RAISE(ABORT, 'tabled: the {t} table is append-only'); END"
      for t in ("pool_chain", "pool_seals") for op in ("UPDATE", "DELETE")),
]


class Signer(Protocol):
    """The table's signing key (tabled/journal/seals.py: SigningKey)."""

    @property
    def id(self) -> str: ...
    def sign(self, message: bytes) -> str: ...


def _value(v: Any) -> Any:
    return int(v) if isinstance(v, bool) else v


def link_hash(prev: str, source: str, columns: Sequence[str], values: Sequence[Any]) -> str:
    row = json.dumps([source, list(columns), [_value(v) for v in values]], separators=(",", ":"),
                     ensure_ascii=False)
    return hashlib.sha256(bytes.fromhex(prev) + row.encode("utf-8")).hexdigest()


def seal_message(through: int, head: str) -> bytes:
    """What a pool seal signs: its domain, the link it seals and that link's hash."""
    return _DOMAIN + through.to_bytes(8, "big") + bytes.fromhex(head)


def inserted(sql: str, cursor: sqlite3.Cursor) -> tuple[str, tuple[str, ...], int] | None:
    """The chained row an INSERT just added, as (table, columns, rowid); None for any other statement."""
    m = _INSERT.match(sql)
    if m is None or m.group(1) not in CHAINED or cursor.rowcount != 1 or cursor.lastrowid is None:
        return None
    return m.group(1), tuple(c.strip() for c in m.group(2).split(",")), int(cursor.lastrowid)


def _head(conn: sqlite3.Connection) -> tuple[int, str]:
    row = conn.execute("SELECT n, hash FROM pool_chain ORDER BY n DESC LIMIT 1").fetchone()
    return (int(row[0]), row[1]) if row else (0, _GENESIS)


def link(conn: sqlite3.Connection, rows: Iterable[tuple[str, tuple[str, ...], int]]) -> tuple[int, str]:
    """Add a link for each row (in the caller's transaction); returns the new head."""
    n, head = _head(conn)
    for source, columns, row_id in rows:
        values = conn.execute(f"SELECT {', '.join(columns)} FROM {source} WHERE rowid = ?", (row_id,)).fetchone()
        n, head = n + 1, link_hash(head, source, columns, values)
        conn.execute("INSERT INTO pool_chain (n, source, row_id, columns, hash) VALUES (?, ?, ?, ?, ?)",
                     (n, source, row_id, ",".join(columns), head))
    return n, head


def seal(conn: sqlite3.Connection, key: Signer, at: str) -> None:
    """Seal the chain's head with the table's key (in the caller's transaction), once per head."""
    n, head = _head(conn)
    if n and conn.execute("SELECT 1 FROM pool_seals WHERE through = ?", (n,)).fetchone() is None:
        conn.execute("INSERT INTO pool_seals (through, hash, key_id, signature, at) VALUES (?, ?, ?, ?, ?)",
                     (n, head, key.id, key.sign(seal_message(n, head)), at))


def _present(conn: sqlite3.Connection) -> list[str]:
    """The chained tables this database has (an older schema lacks the later ones)."""
    found = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [t for t in CHAINED if t in found]


def chain_existing(conn: sqlite3.Connection) -> None:
    """At the upgrade to schema version 4: link the rows already there, table by table in the
    order they were added, so that from then on every row has its link."""
    rows = []
    for source in _present(conn):
        columns = tuple(r[1] for r in conn.execute(f"PRAGMA table_info({source})"))
        rows += [(source, columns, int(r[0])) for r in conn.execute(f"SELECT rowid FROM {source} ORDER BY rowid")]
    link(conn, rows)


@dataclass
class ChainReport:
    links: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _describe(source: str, columns: Sequence[str], values: Sequence[Any] | None) -> str:
    if values is None:
        return f"a {source} row"
    named = dict(zip(columns, values))
    parts = [f"{k} {named[k]}" for k in ("pool", "seq", "table_id", "round_id", "spot", "hit_seq", "version")
             if named.get(k) is not None]
    return f"the {source} row ({', '.join(parts)})" if parts else f"a {source} row"


def check(conn: sqlite3.Connection, keys: Mapping[str, Any] | None) -> ChainReport:
    """Recompute every link from the rows as they are now; check every seal's head and, for the keys
    given (key id -> Ed25519 public key), its signature."""
    report = ChainReport()
    head = _GENESIS
    counted: dict[str, int] = {}
    for n, source, row_id, columns_text, stored in conn.execute(
            "SELECT n, source, row_id, columns, hash FROM pool_chain ORDER BY n").fetchall():
        report.links += 1
        if n != report.links:
            report.problems.append(f"chain link {report.links} is numbered {n}: a link is missing")
        columns = tuple(columns_text.split(","))
        counted[source] = counted.get(source, 0) + 1
        values = _row(conn, source, columns, row_id)
        if values is None:
            report.problems.append(f"chain link {n}: {_describe(source, columns, None)} it links is gone")
            head = stored
        else:
            head = link_hash(head, source, columns, values)
            if head != stored:
                report.problems.append(f"chain link {n}: {_describe(source, columns, values)} is not the row"
                                       " chained: rewritten")
                head = stored
    for source in _present(conn):
        (rows,) = conn.execute(f"SELECT COUNT(*) FROM {source}").fetchone()
        if int(rows) != counted.get(source, 0):
            report.problems.append(f"the {source} table has {rows} rows, the chain links {counted.get(source, 0)}:"
                                   " rows added or removed outside tabled")
    report.problems += _check_seals(conn, keys, report)
    return report


def _check_seals(conn: sqlite3.Connection, keys: Mapping[str, Any] | None, report: ChainReport) -> list[str]:
    from cryptography.exceptions import InvalidSignature
    problems: list[str] = []
    seals = conn.execute("SELECT through, hash, key_id, signature FROM pool_seals ORDER BY through").fetchall()
    recomputed = _recomputed_heads(conn)
    last = 0
    unchecked: set[str] = set()
    for through, sealed, key_id, signature in seals:
        through = int(through)
        last = max(last, through)
        if recomputed.get(through) != sealed:
            problems.append(f"pool seal at chain link {through}: the chain as the rows now are is not the chain"
                            " sealed: a row at or before it was rewritten")
        public = (keys or {}).get(key_id)
        if public is None:
            unchecked.add(key_id)
            continue
        try:
            public.verify(base64.b64decode(signature, validate=True), seal_message(through, sealed))
        except (InvalidSignature, ValueError, TypeError):
            problems.append(f"pool seal at chain link {through}: not signed by key {key_id}: forged")
    if not seals:
        report.notes.append("not sealed: the pool was written without the table's signing key")
    elif last < report.links:
        report.notes.append(f"chain links {last + 1} to {report.links} are not sealed (written without the key)")
    if unchecked:
        report.notes.append("seal signatures not checked: no public key given for key(s)"
                            f" {', '.join(sorted(unchecked))} (--public-key)")
    return problems


def _row(conn: sqlite3.Connection, source: str, columns: Sequence[str], row_id: int) -> tuple | None:
    """The row a link names, as it is now (None: gone, or a link naming no chained table or column)."""
    if source not in CHAINED or not all(_IDENTIFIER.fullmatch(c) for c in columns):
        return None
    try:
        row = conn.execute(f"SELECT {', '.join(columns)} FROM {source} WHERE rowid = ?", (row_id,)).fetchone()
    except sqlite3.OperationalError:  # a column the table does not have
        return None
    return tuple(row) if row is not None else None


def _recomputed_heads(conn: sqlite3.Connection) -> dict[int, str]:
    """The chain's head at each link, recomputed from the rows alone (not from the stored hashes)."""
    heads, head = {}, _GENESIS
    for n, source, row_id, columns_text in conn.execute(
            "SELECT n, source, row_id, columns FROM pool_chain ORDER BY n").fetchall():
        columns = tuple(columns_text.split(","))
        values = _row(conn, source, columns, row_id)
        head = link_hash(head, source, columns, values) if values is not None else _GENESIS
        heads[int(n)] = head
    return heads


__all__ = ["CHAINED", "SQLITE_V4", "ChainReport", "Signer", "chain_existing", "check", "inserted", "link",
           "link_hash", "seal", "seal_message"]

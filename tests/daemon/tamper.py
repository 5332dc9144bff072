"""What someone who can write the journal file does to it, for the tests that must find it.

Two primitives work on both on-disk formats: :func:`rows` reads every record as its logical fields
(the payload as its canonical text, hashes as hex), and :func:`write_rows` writes such records back
in the file's own format (format 2 deflates the payload with the file's dictionary and keeps no
``prev_hash``). What a test does to the records in between is the tampering.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabled.daemon.journal import (
    GENESIS_HASH,
    canonical_payload,
    deflate_payload,
    inflate_payload,
    record_hash,
)

FIELDS = ("seq", "time_us", "round_id", "kind", "payload_text", "prev_hash", "hash")


def file_format(conn: sqlite3.Connection) -> int:
    return 2 if conn.execute("PRAGMA user_version").fetchone()[0] == 2 else 1


def _zdict(conn: sqlite3.Connection) -> bytes:
    return conn.execute("SELECT value FROM journal_meta WHERE name = 'zdict'").fetchone()[0]


def rows(path: Path) -> list[dict[str, Any]]:
    """Every record in the file, in order, as a dict of :data:`FIELDS`."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        if file_format(conn) == 1:
            return [dict(zip(FIELDS, row)) for row in conn.execute(
                "SELECT seq, time_us, round_id, kind, payload, prev_hash, hash FROM records ORDER BY seq")]
        zdict = _zdict(conn)
        out: list[dict[str, Any]] = []
        for seq, time_us, round_id, kind, stored, digest in conn.execute(
                "SELECT seq, time_us, round_id, kind, payload, hash FROM records ORDER BY seq"):
            before = out[-1]["hash"] if out and out[-1]["seq"] == seq - 1 else (GENESIS_HASH if seq == 1 else "")
            text = inflate_payload(stored, zdict)
            out.append(dict(zip(FIELDS, (seq, time_us, round_id, kind, text, before, digest.hex()))))
        return out


def write_rows(path: Path, records: list[dict[str, Any]]) -> None:
    """Make the file hold exactly ``records`` (each a dict of :data:`FIELDS`), in its own format;
    format 2 stores no ``prev_hash``, so a changed one is lost there."""
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DELETE FROM records")
        if file_format(conn) == 1:
            conn.executemany("INSERT INTO records (seq, time_us, round_id, kind, payload, prev_hash, hash) "
                             "VALUES (?,?,?,?,?,?,?)", [tuple(r[f] for f in FIELDS) for r in records])
            return
        zdict = _zdict(conn)
        conn.executemany("INSERT INTO records (seq, time_us, round_id, kind, payload, hash) VALUES (?,?,?,?,?,?)",
                         [(r["seq"], r["time_us"], r["round_id"], r["kind"], deflate_payload(r["payload_text"], zdict),
                           bytes.fromhex(r["hash"])) for r in records])


def change_payload(path: Path, seq: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Change record ``seq``'s payload and hash nothing again: the chain is broken there."""
    records = rows(path)
    for r in records:
        if r["seq"] == seq:
            r["payload_text"] = canonical_payload(change(json.loads(r["payload_text"])))
    write_rows(path, records)


def rewrite(path: Path, seq: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Change record ``seq``'s payload, then hash every record after it again with the journal's
    own functions, so the hash chain is intact."""
    records = rows(path)
    prev = None
    for r in records:
        if r["seq"] < seq:
            continue
        if r["seq"] == seq:
            r["payload_text"] = canonical_payload(change(json.loads(r["payload_text"])))
        if prev is not None:
            r["prev_hash"] = prev
        r["hash"] = record_hash(r["seq"], r["time_us"], r["round_id"], r["kind"], r["payload_text"], r["prev_hash"])
        prev = r["hash"]
    write_rows(path, records)

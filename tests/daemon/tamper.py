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

from tabled.journal.store import (
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


def rehash(records: list[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    """Number the records 1, 2, ... and link and hash each again from index ``start`` on, with the
    journal's own functions: the chain is intact whatever was done to them."""
    out = [dict(r) for r in records]
    for i, r in enumerate(out):
        r["seq"] = i + 1
        if i < start:
            continue
        r["prev_hash"] = out[i - 1]["hash"] if i else GENESIS_HASH
        r["hash"] = record_hash(r["seq"], r["time_us"], r["round_id"], r["kind"], r["payload_text"], r["prev_hash"])
    return out


def _change(record: dict[str, Any], change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    record["payload_text"] = canonical_payload(change(json.loads(record["payload_text"])))


def rewrite(path: Path, seq: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Change record ``seq``'s payload, then hash every record after it again with the journal's
    own functions, so the hash chain is intact."""
    records = rows(path)
    _change(records[seq - 1], change)
    write_rows(path, rehash(records, seq - 1))


def change_only(path: Path, seq: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Change record ``seq``'s payload and hash nothing again."""
    records = rows(path)
    _change(records[seq - 1], change)
    write_rows(path, records)


def delete(path: Path, seq: int) -> None:
    """Take record ``seq`` out, number the rest again and hash them again."""
    records = rows(path)
    del records[seq - 1]
    write_rows(path, rehash(records, seq - 1))


def swap(path: Path, seq: int) -> None:
    """Put records ``seq`` and ``seq + 1`` the other way round, numbered and hashed again."""
    records = rows(path)
    records[seq - 1], records[seq] = records[seq], records[seq - 1]
    write_rows(path, rehash(records, seq - 1))


def truncate(path: Path, keep: int) -> None:
    """Keep records 1 to ``keep``; the chain that is left is intact."""
    write_rows(path, rows(path)[:keep])


def swap_in(path: Path, older: Path) -> None:
    """Put an older copy of the journal's records in their place."""
    write_rows(path, rows(older))


def append_from(path: Path, other: Path, count: int | None = None) -> None:
    """Append another table's records (the first ``count``, or all) after this journal's last,
    numbered, linked and hashed to follow it."""
    records = rows(path)
    start = len(records)
    records += rows(other)[:count]
    write_rows(path, rehash(records, start))


__all__ = ["FIELDS", "file_format", "rows", "write_rows", "rehash", "rewrite", "change_only", "delete", "swap",
           "truncate", "swap_in", "append_from"]

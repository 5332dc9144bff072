"""What someone who can write the journal file does to it, for the tests that must find it.

Every tampering is built on two primitives: :func:`rows` reads the journal's logical records and
:func:`write_rows` replaces them. Both know the journal's storage; nothing else here does.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabled.daemon.journal import GENESIS_HASH, canonical_payload, record_hash

FIELDS = ("seq", "time_us", "round_id", "kind", "payload_text", "prev_hash", "hash")


def rows(path: Path) -> list[dict[str, Any]]:
    """Every record of the journal, in order: seq, time_us, round_id, kind, payload_text,
    prev_hash, hash."""
    with sqlite3.connect(path) as conn:
        found = conn.execute("SELECT seq, time_us, round_id, kind, payload, prev_hash, hash FROM records "
                             "ORDER BY seq").fetchall()
    conn.close()
    return [dict(zip(FIELDS, row, strict=True)) for row in found]


def write_rows(path: Path, records: list[dict[str, Any]]) -> None:
    """Replace every record of the journal with ``records``, as given (nothing recomputed)."""
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DELETE FROM records")
        conn.executemany("INSERT INTO records (seq, time_us, round_id, kind, payload, prev_hash, hash) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", [tuple(r[f] for f in FIELDS) for r in records])
    conn.close()


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


__all__ = ["rows", "write_rows", "rehash", "rewrite", "change_only", "delete", "swap", "truncate", "swap_in",
           "append_from"]

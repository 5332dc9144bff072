"""What someone who can write the journal file does to it, for the tests that must find it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabled.daemon.journal import canonical_payload, record_hash


def rewrite(path: Path, seq: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Change record ``seq``'s payload, then hash every record after it again with the journal's
    own functions, so the hash chain is intact."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT seq, time_us, round_id, kind, payload, prev_hash FROM records WHERE seq >= ? "
                        "ORDER BY seq", (seq,)).fetchall()
    prev = None
    for number, time_us, round_id, kind, text, prev_hash in rows:
        if number == seq:
            text = canonical_payload(change(json.loads(text)))
        prev_hash = prev if prev is not None else prev_hash
        digest = record_hash(number, time_us, round_id, kind, text, prev_hash)
        conn.execute("UPDATE records SET payload = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                     (text, prev_hash, digest, number))
        prev = digest
    conn.commit()
    conn.close()

"""What someone with a local pool's file does to it, for the tests that must find it."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def rewrite(db: Path, *statements: str) -> None:
    """The append-only triggers dropped, then ``statements`` run on the rows."""
    with sqlite3.connect(db) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            conn.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            conn.execute(statement)

"""Installs and upgrades, journaled (25 CFR 547.12: start and end, components, versions or
signatures, the verification's outcome, who did it).

The installer (packaging/install.sh) cannot append to the journal: the daemon holds its only
writer (tabled/journal/store.py takes an flock for it) and may be running during an upgrade. So
``tabled install-record`` writes one record per install into the **install spool**, the folder
``installs`` beside the journal (written whole, then renamed into place), and each start of the
daemon journals every record waiting there as the input ``software.installed`` and then removes
it. A record the daemon could not remove is recognised by its id and journaled once.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog

log = structlog.get_logger("tabled.daemon.installs")

KIND = "software.installed"
SPOOL = "installs"
#: how far back the journal is searched for an install record journaled already (one a start could not remove)
LOOK_BACK = 200


def spool_of(journal_path: Path) -> Path:
    return journal_path.parent / SPOOL


def write(spool: Path, record: dict[str, Any]) -> Path:
    """One install's record into the spool (a new file, written whole and renamed into place)."""
    spool.mkdir(parents=True, exist_ok=True)
    record = {"id": uuid.uuid4().hex, **record}
    name = f"{record['ended'].replace(':', '')}-{record['id'][:8]}.json"
    partial = spool / (name + ".new")
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(partial, 0o664)  # the daemon's group removes it once journaled
    os.replace(partial, spool / name)
    return spool / name


def digest_of(path: Path | None) -> str | None:
    """The SHA-256 of the release manifest installed, or None without one."""
    if path is None or not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def waiting(spool: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The records in the spool, oldest first; an unreadable one is journaled as such."""
    if not spool.is_dir():
        return []
    found = []
    for path in sorted(spool.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as exc:
            record = {"id": path.name, "result": "unreadable", "detail": f"{path.name}: {exc}"}
        found.append((path, record))
    return found


def journal_waiting(spool: Path, submit: Callable[[str, dict[str, Any]], object],
                    journaled: Callable[[str], bool]) -> int:
    """Submit each record waiting (not journaled already) as ``software.installed``; remove it.
    Returns how many were submitted."""
    count = 0
    for path, record in waiting(spool):
        if not journaled(str(record.get("id"))):
            submit(KIND, record)
            count += 1
        try:
            path.unlink()
        except OSError as exc:  # journaled; its id keeps it from being journaled again
            log.warning("installs.not_removed", path=str(path), error=str(exc))
    return count


def journaled_ids(journal: Any) -> Callable[[str], bool]:
    """Whether an install record's id is among the last :data:`LOOK_BACK` journaled."""
    ids: set[str] = set()
    before = None
    for _ in range(LOOK_BACK):
        record = journal.last_of_kind(KIND, before=before)
        if record is None:
            break
        ids.add(str(record.payload.get("id")))
        before = record.seq
    return ids.__contains__


__all__ = ["KIND", "SPOOL", "spool_of", "write", "digest_of", "waiting", "journal_waiting", "journaled_ids"]

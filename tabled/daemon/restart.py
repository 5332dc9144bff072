"""Power loss and restart, journaled as such: a clean stop journals ``table.stopped`` last (the
daemon's stop, tabled/commands/run.py); a start whose journal does not end so, after a start that
played (its last record is not the start's own check or configuration), journals
``table.restarted`` with what it knows: the last record, when it was written and how long the
table was down. The fold notes it as ``power.restored`` (tabled/table/selfcheck.py).
"""

from __future__ import annotations

from typing import Any

from tabled.journal.store import Journal
from tabled.table.kinds import JOURNAL_RECORDS

STOPPED = "table.stopped"
RESTARTED = "table.restarted"
#: a start that was refused, or stopped before anything was played, ends with these: not a loss of power
START_KINDS = ("config.started", "software.checked")
#: what the search passes over, at most :data:`LOOK_BACK` of them: journal records (seals,
#: checkpoints) and the stop's own tick, which wakes the table to end after the mark
PASSED_OVER = frozenset({*JOURNAL_RECORDS, "tick"})
LOOK_BACK = 100


def after_unclean_stop(journal: Journal, now_us: int) -> dict[str, Any] | None:
    """The ``table.restarted`` payload when the journal does not end with a clean stop, else None
    (and None for a journal with no record yet)."""
    seq = journal.head[0]
    for _ in range(LOOK_BACK):
        if seq <= 0:
            return None
        record = journal.record(seq)
        if record is None:
            return None
        if record.kind not in PASSED_OVER:
            break
        seq -= 1
    else:
        return None
    if record.kind == STOPPED or record.kind in START_KINDS:
        return None
    return {"clean_stop": False, "last_seq": record.seq, "last_kind": record.kind, "last_time_us": record.time_us,
            "down_s": max(0, (now_us - record.time_us) // 1_000_000)}


__all__ = ["after_unclean_stop", "STOPPED", "RESTARTED"]

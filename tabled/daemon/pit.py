"""The journal as the pit's view reads it (tabled/views/pit.py), on a connection of its own.

:class:`PitReader` is used from one thread, never the table's loop: it takes the records of the
pit's kinds committed since it last read, and checks the hash chain from the last record it
verified to the head, so each push costs the records that are new, never the whole chain. The
whole chain is checked once, when the reader first opens the journal. A record verified once and
changed since is caught: the last verified record must still carry the hash it was verified with.

:func:`standing_since` is read once at start: when each fault that stands was raised, from its
journal record, so how long a fault has stood does not restart with the daemon.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tabled.journal.store import GENESIS_HASH, Journal, JournalError, Record
from tabled.views.pit import ALERTS_KEPT, CLEARED_KEPT, DECISIONS_KEPT, HITS_KEPT, KINDS, ROUNDS_KEPT, PitLog
from tabled.table.notes import DEVICE_FAULTS

CHUNK = 5000  # records looked at per step of the first read, back from the head


class PitReader:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.log = PitLog()
        self._journal: Journal | None = None
        self.verified_seq = 0
        self.verified_hash = GENESIS_HASH
        self.problem: str | None = None   # the first break found in the chain; it stays shown
        self.checked = 0                  # records whose hash this reader has checked

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def read(self) -> dict[str, Any]:
        """Take what was committed since the last read; the head and what its check found."""
        first = self._journal is None
        if self._journal is None:
            self._journal = Journal.open(self.path, readonly=True, verify=False)
        journal = self._journal
        head_seq, head_hash = journal.head
        if first:
            for r in _recent(journal, head_seq):
                self.log.take(r.seq, r.time_us // 1000, r.round_id, r.kind, r.payload)
        elif head_seq > self.log.last_seq:
            for r in journal.records_between(self.log.last_seq + 1, head_seq, KINDS):
                self.log.take(r.seq, r.time_us // 1000, r.round_id, r.kind, r.payload)
        self.log.last_seq = max(self.log.last_seq, head_seq)
        self._verify(journal, head_seq)
        return {"head_seq": head_seq, "head_hash": head_hash, "verified_seq": self.verified_seq,
                "ok": self.problem is None, "problem": self.problem}

    def _verify(self, journal: Journal, head_seq: int) -> None:
        if self.problem is not None or head_seq <= self.verified_seq:
            return
        if self.verified_seq:
            anchor = journal.record(self.verified_seq)
            if anchor is None or anchor.hash != self.verified_hash:
                self.problem = f"record {self.verified_seq} changed after it was verified"
                return
        result = journal.verify(from_seq=self.verified_seq + 1)
        self.checked += result.count
        if not result.ok:
            self.problem = f"record {result.first_broken_seq}: {result.reason}"
        if result.count:
            self.verified_seq, self.verified_hash = result.head_seq, result.head_hash


def _recent(journal: Journal, head_seq: int) -> list[Record]:
    """The records the pit shows at first, oldest first: back from the head until it has the last
    rounds, hits, key decisions and cleared faults it keeps (or the journal's start)."""
    wanted = {"round.settled": ROUNDS_KEPT, "progressive.awarded": HITS_KEPT,
              "panel": DECISIONS_KEPT, "fault": 2 * CLEARED_KEPT,
              "protection.alert": ALERTS_KEPT}
    found: list[Record] = []
    last = head_seq
    while last >= 1 and any(n > 0 for n in wanted.values()):
        first = max(1, last - CHUNK + 1)
        for r in reversed(journal.records_between(first, last, KINDS)):
            group = r.kind if r.kind in wanted else r.kind.split(".", 1)[0]
            if wanted.get(group, 0) > 0 and not (r.kind == "panel.approved" and r.payload.get("key") == "dealer"):
                found.append(r)
                awards = (r.payload.get("result") or {}).get("awards") if r.kind == "progressive.awarded" else None
                wanted[group] -= len(awards or ()) if r.kind == "progressive.awarded" else 1
        last = first - 1
    return sorted(found, key=lambda r: r.seq)


LOOKED_BACK = 100  # notes of a kind looked at for the one that raised a fault
#: the notes :func:`standing_since` reads: the equipment's faults (14.13) and the devices' (15.2, 7.3)
STANDING_KINDS = ("fault.raised", "device.fault")


def standing_since(journal: Journal, faults: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Fault id -> when the journal record that raised it was written (ms), for the faults that
    stand (as the dealer's screen lists them). A fault whose record is not found is left out."""
    since: dict[str, int] = {}
    for fault in faults:
        fid = str(fault["id"])
        if fid.startswith("equipment:"):
            record = _last(journal, STANDING_KINDS[0], "equipment", fid.split(":", 1)[1])
        elif fid in DEVICE_FAULTS:
            record = _last(journal, STANDING_KINDS[1], "fault", fid)
        else:
            continue
        if record is not None:
            since[fid] = record.time_us // 1000
    return since


def _last(journal: Journal, kind: str, field: str, value: str) -> Record | None:
    """The last note of ``kind`` whose ``field`` is ``value``."""
    before = None
    for _ in range(LOOKED_BACK):
        try:
            record = journal.last_of_kind(kind, before=before)
        except JournalError:
            return None
        if record is None or record.payload.get(field) == value:
            return record
        before = record.seq
    return None


__all__ = ["PitReader", "standing_since", "STANDING_KINDS"]

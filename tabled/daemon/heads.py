"""The journal's head kept in a second place, so that a start finds a journal that lost records it
had committed.

SQLite's write-ahead log holds the journal's last commits until a checkpoint copies them into the
database file. A frame of the log damaged after a kill -9 (a bit flipped on the disk) makes SQLite
discard that frame and every frame after it when it next opens the file: by design, and without a
word. Commits in those frames are gone, and the hash chain of what is left is intact, so
``tabled audit verify`` cannot tell. Only a copy of the head kept somewhere else can.

Where a table has one, the journal's central copy (``[journal] ship_to``, tabled/daemon/shipping.py:
a start compares the journal with its head, tabled/daemon/assemble.py, and ``tabled audit restore``
takes lost records back from it) and the pool (a round the pool holds that the journal does not
have, tabled/pool/rounds.py) are such places. Every table also has this one: a small file beside the
journal, ``<journal>.head``, holding the journal's head (record number and hash), written to a
temporary file and renamed over the old one (a crash leaves the old head or the new, never a torn
one). After every commit it is written over the last head in place, one write of a fixed size into
the system's cache, which a kill -9 of the daemon neither tears nor loses (about 0.1 ms with the
head's read, against 3.5 ms for the commit itself on the test machine); at each round's end, and
once the start has checked the journal, it is written anew and flushed to the disk with the folder
(two fsyncs: 6 to 20 ms there, once a round), so a power cut loses at most the round in play's
marks. A head file missing or damaged says nothing about the journal: the start names it in the log
and goes on, writing a new one.

At start, before the journal is replayed: the journal must hold the record the head names, with
that hash. If it holds fewer records, or another record at that number, it lost committed records:
the start stops, naming them, until an inspector acts: restores the journal (from the central copy
or a backup: it then holds the head again), or records the loss with ``tabled audit accept-loss``,
which journals who accepted it, why and which records were lost (``journal.loss_accepted``) and
writes the head anew.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from tabled.table.effects import Note

log = structlog.get_logger("tabled.journal")

SUFFIX = ".head"
ACCEPTED = "journal.loss_accepted"
_MAX_BYTES = 4096
_SIZE = 160  # bytes of a head: {"seq": ..., "hash": 64 hex digits}, padded with spaces


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str


def head_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + SUFFIX)


def _head_bytes(seq: int, digest: str) -> bytes:
    # one fixed size, so that a head written over the last one in place leaves nothing of it
    return json.dumps({"seq": seq, "hash": digest}).encode("ascii").ljust(_SIZE)


def write_head(journal_path: Path, seq: int, digest: str) -> None:
    """The journal's head in its second place, on the disk before this returns, never a torn
    file: written beside it, flushed, renamed over the old one, the folder flushed."""
    target = head_path(journal_path)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, _head_bytes(seq, digest))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, target)
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def read_head(journal_path: Path) -> tuple[Head | None, str | None]:
    """(the head recorded, None) or (None, why there is none to compare: no file, unreadable)."""
    path = head_path(journal_path)
    try:
        with path.open("rb") as f:
            raw = f.read(_MAX_BYTES + 1)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path}: cannot be read ({exc.strerror})"
    try:
        if len(raw) > _MAX_BYTES:
            raise ValueError
        doc = json.loads(raw)
        seq, digest = doc["seq"], doc["hash"]
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0 or not isinstance(digest, str):
            raise ValueError
    except (ValueError, TypeError, KeyError):
        return None, f"{path}: not a journal head (damaged?)"
    return Head(seq, digest), None


def lost_records(journal: Any, journal_path: Path) -> tuple[str | None, str | None]:
    """(what the journal lost, None) when it no longer holds the head recorded in its second place;
    (None, a note) when there is no head to compare with; (None, None) when the head is there."""
    head, note = read_head(journal_path)
    if head is None or head.seq == 0:
        return None, note
    seq, _ = journal.head
    record = journal.record(head.seq) if head.seq <= seq else None
    if record is None:
        return (f"the journal {journal_path} lost records it had committed: it ends at record {seq}, but held"
                f" record {head.seq} (its head as kept in {head_path(journal_path)}); records {seq + 1} to"
                f" {head.seq} are gone (a damaged write-ahead log after a crash?). The table does not start"
                f" until an inspector restores the journal (central copy, backup) or records the loss:"
                f" tabled audit accept-loss --journal {journal_path} --who NAME --why TEXT"), None
    if record.hash != head.hash:
        return (f"the journal {journal_path} is not the one whose head was kept beside it: record"
                f" {head.seq} has hash {record.hash[:12]}, the head recorded {head.hash[:12]}"
                f" ({head_path(journal_path)}): records were lost and others written in their place, or the"
                f" journal was replaced. The table does not start until an inspector restores the journal or"
                f" records the loss: tabled audit accept-loss --journal {journal_path} --who NAME --why TEXT"), None
    return None, None


def accept_loss(journal: Any, journal_path: Path, who: str, why: str) -> dict[str, Any] | None:
    """The inspector records the loss: a ``journal.loss_accepted`` record naming who, why and the
    records lost, then the head written anew. None when nothing was lost."""
    problem, _ = lost_records(journal, journal_path)
    if problem is None:
        return None
    head, _ = read_head(journal_path)
    if head is None:
        return None
    seq, _ = journal.head
    payload = {"who": who, "why": why, "journal_ended_at": seq, "head_recorded": head.seq,
               "head_hash": head.hash, "problem": problem}
    journal.append(ACCEPTED, payload)
    write_head(journal_path, *journal.head)
    return payload


class HeadMark:
    """A table listener (tabled/daemon/controller.py), told after each input's records and notes
    are committed: the journal's head goes to its second place, into the system's cache (a kill -9
    does not lose it), and to the disk at each round's end (a power cut does not either)."""

    def __init__(self, journal: Any, journal_path: Path) -> None:
        self.journal, self.journal_path = journal, journal_path
        self.marked = -1
        self._fd: int | None = None  # the head file, written over in place between durable marks

    def __call__(self, effects: list[Any]) -> None:
        finished = any(isinstance(e, Note) and e.kind == "round.finished" for e in effects)
        try:
            self.mark(durable=finished)
        except OSError as exc:  # the journal itself is whole: play goes on, the log says so
            log.warning("journal.head_not_written", path=str(head_path(self.journal_path)),
                        error=exc.strerror or str(exc))

    def mark(self, *, durable: bool = True) -> None:
        """Write the journal's head: on the disk (``durable``), else over the last head in place, one
        write of a fixed size into the system's cache, which a kill -9 does not tear or lose."""
        seq, digest = self.journal.head
        if durable:
            self.close()
            write_head(self.journal_path, seq, digest)
        elif seq != self.marked:
            if self._fd is None:
                self._fd = os.open(head_path(self.journal_path), os.O_WRONLY | os.O_CREAT, 0o600)
            os.pwrite(self._fd, _head_bytes(seq, digest), 0)
        self.marked = seq

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


__all__ = ["ACCEPTED", "Head", "HeadMark", "SUFFIX", "accept_loss", "head_path", "lost_records", "read_head",
           "write_head"]

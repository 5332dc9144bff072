"""A daemon killed at a given journal step, as kill -9 would: the table's journal, wrapped so that it
stops taking records once it holds ``stop_after`` of them. What was written stays; the rest of the
batch, its acknowledgements and its effects never happen."""

from __future__ import annotations

from typing import Any


class Crash(Exception):
    """The daemon died here; ``records`` are those of the batch that did reach the journal."""

    def __init__(self, message: str, records: list | None = None):
        super().__init__(message)
        self.records = records or []


class CrashingJournal:
    """The journal a table writes to, dying once it holds ``stop_after`` records."""

    def __init__(self, journal: Any, stop_after: int):
        self.journal, self.stop_after = journal, stop_after

    def append_many(self, items, time_us=None) -> list:
        items = list(items)
        room = self.stop_after - self.journal.count()
        if room <= 0:
            raise Crash("stopped at the scripted journal step")
        if room < len(items):
            raise Crash("stopped at the scripted journal step", self.journal.append_many(items[:room], time_us))
        return self.journal.append_many(items, time_us)

    def checkpoint(self, snapshot):
        if self.journal.count() >= self.stop_after:
            raise Crash("stopped at the scripted journal step")
        return self.journal.checkpoint(snapshot)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.journal, name)

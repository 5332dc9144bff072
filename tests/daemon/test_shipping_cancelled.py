"""A shipping session cancelled while its read of the journal runs in a thread: the thread cannot be
stopped, so the session's journal is closed only after the read ends (closing an SQLite connection
under a query running on it crashes the process)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tabled.daemon.shipping import Shipper
from tabled.journal.store import Journal

pytestmark = pytest.mark.timeout(60)


class _Cursor:
    async def fetchone(self):
        return None  # the central copy is empty


class _Central:
    """The central server as far as a session's first question goes: its head for this table."""

    async def execute(self, *args):
        return _Cursor()

    async def commit(self):
        pass

    async def close(self):
        pass


async def test_a_session_cancelled_mid_read_closes_its_journal_only_after_the_read(tmp_path):
    path = tmp_path / "T01.journal"
    with Journal.open(path) as j:
        j.append("tick", {})

    async def connect():
        return _Central()

    shipper = Shipper(path, "T01", connect)
    reading, release = threading.Event(), threading.Event()
    order: list[str] = []
    read_after, close = shipper.read_after, Journal.close

    def slow_read(journal, seq, digest):
        reading.set()
        release.wait(10)
        order.append("read")
        return read_after(journal, seq, digest)

    def closing(journal):
        order.append("close")
        close(journal)

    shipper.read_after = slow_read
    Journal.close = closing
    try:
        task = asyncio.create_task(shipper.run())
        await asyncio.to_thread(reading.wait, 10)
        task.cancel()
        await asyncio.sleep(0.2)               # the cancellation reaches the session meanwhile
        assert order == []                     # nothing is closed under the read
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        Journal.close = close
        release.set()
    assert order == ["read", "close"]

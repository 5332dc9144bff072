"""A commit handed to a thread is finished before the cancelled caller lets the next one in."""

import asyncio
import threading

import pytest

from tabled.pool.local import finish_even_if_cancelled


def test_a_cancelled_caller_still_waits_for_the_commit_to_end():
    done = threading.Event()
    release = threading.Event()

    def commit():
        release.wait(5)
        done.set()

    async def main():
        caller = asyncio.ensure_future(finish_even_if_cancelled(asyncio.to_thread(commit)))
        await asyncio.sleep(0.01)
        caller.cancel()                   # the table is stopped mid-commit
        await asyncio.sleep(0.01)
        assert not caller.done()          # still waiting: the commit is on its way to the disk
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await caller
        assert done.is_set()              # only now may the next transaction begin

    asyncio.run(main())


def test_the_commits_own_error_reaches_the_caller():
    def commit():
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        asyncio.run(finish_even_if_cancelled(asyncio.to_thread(commit)))

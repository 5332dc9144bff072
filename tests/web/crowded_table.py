"""A table's process with few open files to spare: its dealer's screen (the default cap on
connections), a linked pool and a journal. ``python -m tests.web.crowded_table DSN FOLDER``:
prints ``port N`` once serving; on a line from its stdin (the test has filled the screen with
idle connections and cut the pool's connection), reconnects the pool and opens a journal, and
prints how many calls the pool took and whether the journal took a record."""

from __future__ import annotations

import asyncio
import resource
import sys
from pathlib import Path
from types import SimpleNamespace

from tabled.daemon.config import ScreenConfig
from tabled.journal.store import Journal
from tabled.daemon.web import ScreenServer
from tabled.pool.base import PoolUnavailable
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings
from tests.table.harness import Harness

FILES = 256          # this process's limit on open files: the screen's cap (64) is well below it
CALLS = 50           # the pool's calls tried before the test is told it never reconnected


async def main(dsn: str, folder: Path) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    pool = await PostgresPool.open(dsn, "main", "T01", PoolSettings(2000, 1_000_000))
    server = ScreenServer(SimpleNamespace(core=Harness().core), ScreenConfig(port=0))
    await server.start()
    print("port", server.url.rsplit(":", 1)[1].strip("/"), flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    calls, problem = 0, ""
    while calls < CALLS:
        calls += 1
        try:
            await pool.balance()
            break
        except PoolUnavailable as exc:
            problem = str(exc)
            await asyncio.sleep(0.1)  # the daemon's pool worker tries again after a pause too
    try:
        with Journal.open(folder / "journal.db") as journal:
            journal.append("note", {"text": "written while the screen was full"})
        journaled = "journaled"
    except Exception as exc:  # the test is told what failed
        journaled = f"not journaled: {exc}"
    print(f"pool calls {calls} {journaled} ({problem})", flush=True)
    await server.stop()
    await pool.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))

"""Shipping trials: tables whose shipping daemons are killed (-9) and whose database connections
are cut at random moments, for tests/integration/test_shipping_trials.py and
benchmarks/bench_shipping.py.

A table here is a process of its own (``python -m tests.integration.trials``): it plays by
journaling rounds copied from the recorded simulated session (about one every ``PLAY_MS``), and
ships with the daemon's own :class:`tabled.daemon.shipping.Shipper`, woken after each commit as
``tabled run`` wakes it. The devices are left out so that a kill and a restart cost a fraction of a
second and a trial run can kill hundreds of times; the journal and the shipper are the daemon's."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tabled.daemon import shipping
from tabled.journal.store import Journal

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "fixtures" / "journals" / "simulated" / "journal.db.gz"
PLAY_MS = 20


def round_templates(folder: Path) -> Path:
    """The recorded session's rounds, as JSON lines of [kind, payload] per round (a file the
    table processes read)."""
    db = folder / "recorded.db"
    with gzip.open(RECORDED, "rb") as src, open(db, "wb") as dst:
        shutil.copyfileobj(src, dst)
    rounds: dict[str, list] = {}
    with Journal.open(db, readonly=True) as j:
        for r in j.records_after(0):
            if r.round_id and r.kind != "checkpoint":
                rounds.setdefault(r.round_id, []).append([r.kind, r.payload])
    out = folder / "rounds.jsonl"
    out.write_text("".join(json.dumps(recs) + "\n" for recs in rounds.values()))
    return out


async def table_process(journal: Path, table_id: str, dsn: str, templates: Path, seed: int) -> None:
    """Play and ship until killed."""
    rounds = [json.loads(line) for line in templates.read_text().splitlines()]
    rng = random.Random(seed)
    shipper = shipping.Shipper(journal, table_id, shipping.connector(dsn), retry_s=0.05)
    task = asyncio.create_task(shipper.run())
    with Journal.open(journal) as j:
        n = j.count()
        while not task.done():
            n += 1
            recs = rounds[rng.randrange(len(rounds))]
            # one input at a time, as the table journals them: a kill may land between any two
            for kind, payload in recs:
                j.append(kind, payload, f"{table_id}-{n:06d}")
                shipper.wake()
                await asyncio.sleep(0)
            await asyncio.sleep(PLAY_MS / 1000 * rng.random() * 2)
    await task


@dataclass
class TrialTable:
    table_id: str
    folder: Path
    dsn: str
    proc: subprocess.Popen | None = None
    starts: int = 0

    @property
    def journal(self) -> Path:
        return self.folder / "journal.db"

    @property
    def credentials(self) -> Path:
        return self.folder / "credentials"

    def start(self, templates: Path) -> None:
        env = {**os.environ, "CREDENTIALS_DIRECTORY": str(self.credentials),
               "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        self.starts += 1
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.integration.trials", str(self.journal),
                                      self.table_id, self.dsn, str(templates), str(self.starts)],
                                     cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)  # kill -9: no goodbye
            self.proc.wait()
        self.proc = None


@dataclass
class Outcome:
    trials: int = 0
    kills: int = 0
    cuts: int = 0
    records: int = 0        # in the tables' journals
    shipped: int = 0        # on the central server
    duplicates: int = 0
    missing: int = 0
    compare_disagree: list[str] = field(default_factory=list)


class Trials:
    """``count`` tables shipping to the central database ``admin`` (migrated and registered here)."""

    def __init__(self, admin: str, folder: Path, count: int, seed: int = 1) -> None:
        self.admin, self.folder, self.rng = admin, folder, random.Random(seed)
        self.templates = round_templates(folder)
        suffix = admin.rsplit("_", 1)[-1][:8]
        self.tables: list[TrialTable] = []
        with psycopg.connect(admin, autocommit=True) as conn:
            shipping.migrate(conn)
            for n in range(1, count + 1):
                table_id, role = f"T{n:02d}", f"tabled_t{n:02d}_{suffix}"
                password = f"pw-{table_id}-{suffix}"
                shipping.register_table(conn, table_id, role, password)
                t = TrialTable(table_id, folder / table_id, f"postgresql://{role}@{admin.split('@', 1)[1]}")
                t.credentials.mkdir(parents=True)
                (t.credentials / shipping.PASSWORD_CREDENTIAL).write_text(password + "\n")
                self.tables.append(t)
        self.outcome = Outcome()

    async def start(self, timeout_s: float = 60) -> None:
        """Every table playing, and each with records on the central server."""
        for t in self.tables:
            t.start(self.templates)
        with psycopg.connect(self.admin, autocommit=True) as conn:
            async with asyncio.timeout(timeout_s):
                while conn.execute("SELECT count(DISTINCT table_id) FROM journal_records").fetchone()[0] \
                        < len(self.tables):
                    await asyncio.sleep(0.05)

    async def run(self, trials: int, max_gap_s: float = 0.15) -> None:
        """``trials`` random blows, each a random moment after the last: a table's daemon killed
        (-9) and started again, or its connection to the server cut (the server ends its backend),
        or every table's connection cut at once."""
        with psycopg.connect(self.admin, autocommit=True) as admin:
            for _ in range(trials):
                await asyncio.sleep(self.rng.random() * max_gap_s)
                t = self.rng.choice(self.tables)
                blow = self.rng.random()
                if blow < 0.5:
                    t.kill()
                    self.outcome.kills += 1
                    t.start(self.templates)
                else:
                    who = "" if blow > 0.9 else "AND usename = %(role)s"
                    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename LIKE "
                                  f"'tabled_t%%' {who}", {"role": t.dsn.split("//", 1)[1].split("@", 1)[0]})
                    self.outcome.cuts += 1
                self.outcome.trials += 1

    def stop(self) -> None:
        for t in self.tables:
            t.kill()

    async def catch_up(self) -> None:
        """A shipper started again for each table ships the rest (after the last kill)."""
        async def one(t: TrialTable) -> None:
            shipper = shipping.Shipper(t.journal, t.table_id,
                                       shipping.connector(t.dsn, {"CREDENTIALS_DIRECTORY": str(t.credentials)}),
                                       retry_s=0.05)
            task = asyncio.create_task(shipper.run())
            try:
                await shipper.caught_up()
            finally:
                task.cancel()
        async with asyncio.timeout(120):
            await asyncio.gather(*(one(t) for t in self.tables))

    def check(self) -> Outcome:
        """Every record on the central server exactly once, in order, and `tabled audit compare`
        agreeing for every table."""
        from tabled.cli import main
        o = self.outcome
        with psycopg.connect(self.admin) as conn:
            for t in self.tables:
                with Journal.open(t.journal, readonly=True) as j:
                    local = [(r.seq, r.hash) for r, _ in j.raw_records_after(0, 10**9)]
                central = conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq",
                                       (t.table_id,)).fetchall()
                o.records += len(local)
                o.shipped += len(central)
                o.duplicates += len(central) - len({h for _, h in central})
                o.missing += len(set(local) - set(central))
                argv = ["audit", "compare", "--journal", str(t.journal), "--central", self.admin, "--table", t.table_id]
                with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                    agreed = main(argv) == 0
                if not agreed:
                    o.compare_disagree.append(t.table_id)
        return o

    def lag_ms(self, since_s: float, until_s: float) -> list[float]:
        """Each record's time from the table's journal to the central server (one clock: one
        machine), for the records journaled from ``since_s`` to ``until_s``."""
        with psycopg.connect(self.admin) as conn:
            rows = conn.execute("SELECT (extract(epoch FROM received_at) * 1e6 - time_us) / 1000.0 "
                                "FROM journal_records WHERE time_us BETWEEN %s AND %s",
                                (int(since_s * 1e6), int(until_s * 1e6))).fetchall()
        return [float(r[0]) for r in rows]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


if __name__ == "__main__":
    path, table, dsn, templates, seed = sys.argv[1:6]
    asyncio.run(table_process(Path(path), table, dsn, Path(templates), int(seed)))

"""A floor of light tables (tabled/sim/light.py) on a replicated central server the caller started
(tests/pool/replica.py), for tests/floor/test_failover.py and benchmarks/bench_floor.py: the
administrator migrates the pool, journal and floor schemas and registers each table with one role
of its own (its password as systemd's credential); afterwards :func:`check` counts, on whichever
server is primary, every record and pool operation the tables had confirmed: duplicates and
missing, and ``tabled audit compare`` for every table."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import io
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from tabled.daemon import shipping
from tabled.journal.store import Journal
from tabled.floor import central as floor_central
from tabled.pool import postgresql as linked
from tabled.pool.postgresql import PostgresPool
from tabled.sim.light import LightTable, Pace, Round
from tests.pool.test_contract import MAIN, NSW

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "fixtures" / "journals" / "simulated" / "journal.db.gz"
POOL = "main"


def recorded_rounds(folder: Path) -> list[Round]:
    """The recorded simulated session's rounds, each its records in order (checkpoints left out)."""
    db = folder / "recorded.db"
    with gzip.open(RECORDED, "rb") as src, open(db, "wb") as dst:
        shutil.copyfileobj(src, dst)
    rounds: dict[str, list[tuple[str, Any]]] = {}
    with Journal.open(db, readonly=True) as j:
        for r in j.records_after(0):
            if r.round_id and r.kind != "checkpoint":
                rounds.setdefault(r.round_id, []).append((r.kind, r.payload))
    return list(rounds.values())


def with_role(dsn: str, role: str, password: str | None = None) -> str:
    """``dsn`` (key=value form) logging in as ``role``."""
    parts = [p for p in dsn.split() if not p.startswith(("user=", "password="))]
    return " ".join([*parts, f"user={role}", *([f"password={password}"] if password else [])])


@dataclass
class Outcome:
    records: int = 0
    shipped: int = 0
    duplicates: int = 0
    missing: int = 0
    contributions: int = 0
    awards: int = 0
    pool_duplicates: int = 0
    pool_missing: int = 0
    compare_disagree: list[str] = field(default_factory=list)


class LightFloor:
    """``count`` light tables on the central database ``admin`` (two-host DSN, the administrator's)."""

    def __init__(self, admin: str, folder: Path, count: int, pace: Pace, *, retry_s: float = 0.5) -> None:
        self.admin, self.folder = admin, folder
        rounds = recorded_rounds(folder)
        self.tables: list[LightTable] = []
        with psycopg.connect(admin, autocommit=True) as conn:
            linked.migrate(conn)
            shipping.migrate(conn)
            floor_central.migrate(conn)
            for n in range(1, count + 1):
                table_id, role, password = f"T{n:03d}", f"tabled_t{n:03d}", f"pw-t{n:03d}"
                linked.register_table(conn, table_id, role, password)
                shipping.register_table(conn, table_id, role, password)
                credentials = folder / table_id / "credentials"
                credentials.mkdir(parents=True)
                (credentials / shipping.PASSWORD_CREDENTIAL).write_text(password + "\n")
                self.tables.append(LightTable(
                    table_id, folder / table_id, with_role(admin, role), credentials,
                    with_role(admin, role, password), POOL, NSW, rounds, pace, retry_s=retry_s, seed=n))

    async def create_pool(self) -> None:
        """The administrator opens the pool (tables may not make one)."""
        pool = await PostgresPool.open(self.admin, POOL, "ADMIN", MAIN)
        await pool.close()

    async def play(self, stop: asyncio.Event) -> None:
        await asyncio.gather(*(t.run(stop) for t in self.tables))

    def check(self) -> Outcome:
        """Every record and confirmed pool operation on the primary exactly once; audit compare."""
        from tabled.cli import main
        o = Outcome()
        with psycopg.connect(self.admin + " target_session_attrs=read-write") as conn:
            for t in self.tables:
                with Journal.open(t.journal_path, readonly=True) as j:
                    local = {(r.seq, r.hash) for r, _ in j.raw_records_after(0, 10**9)}
                central = conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s",
                                       (t.table_id,)).fetchall()
                o.records += len(local)
                o.shipped += len(central)
                o.duplicates += len(central) - len(set(central))
                o.missing += len(local - set(central))
                rounds = [r[0] for r in conn.execute(
                    "SELECT round_id FROM contributions WHERE table_id = %s GROUP BY round_id", (t.table_id,))]
                o.contributions += len(t.confirmed["contribution"])
                o.pool_missing += len(t.confirmed["contribution"] - set(rounds))
                once = conn.execute("SELECT count(*) FROM (SELECT 1 FROM ledger WHERE table_id = %s AND kind = "
                                    "'contribution' GROUP BY round_id, spot HAVING count(*) > 1) twice",
                                    (t.table_id,)).fetchone()[0]
                awarded = [r[0] for r in conn.execute(
                    "SELECT round_id FROM award_rounds WHERE table_id = %s", (t.table_id,))]
                o.awards += len(t.confirmed["award"])
                o.pool_missing += len(t.confirmed["award"] - set(awarded))
                o.pool_duplicates += once + len(awarded) - len(set(awarded))
                argv = ["audit", "compare", "--journal", str(t.journal_path), "--central", self.admin,
                        "--table", t.table_id]
                with contextlib.redirect_stdout(io.StringIO()):
                    if main(argv) != 0:
                        o.compare_disagree.append(t.table_id)
        return o


def play_for(tables: list[LightTable], seconds: float) -> dict[str, dict[str, set[str]]]:
    """Play ``tables`` for ``seconds`` in this process (a worker of the benchmark), then ship the
    rest; what each table had confirmed."""
    import logging

    import structlog
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    logging.getLogger("psycopg").setLevel(logging.CRITICAL)

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        await asyncio.gather(*(t.run(stop) for t in tables))
    asyncio.run(main())
    return {t.table_id: t.confirmed for t in tables}


__all__ = ["LightFloor", "Outcome", "recorded_rounds", "with_role", "play_for", "POOL"]

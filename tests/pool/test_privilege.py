"""Least privilege on the pool's PostgreSQL: the administrator (not a superuser: a role that owns the
database and may make roles) makes the schema and the roles; a table's role plays (contributions,
reversals, awards) and may change nothing else: the server refuses UPDATE, DELETE, TRUNCATE,
another table's rows, a meter not taken from the ledger, and DDL; the auditor reads and writes
nothing; a table whose pool database has no schema, or an older one, plays without the progressive
(rule 14.13) until the administrator migrates it."""

from __future__ import annotations

import asyncio
import uuid
from urllib.parse import urlsplit

import psycopg
import pytest

from tabled.cli import main
from tabled.daemon import shipping
from tabled.journal.store import Journal
from tabled.daemon.controller import Table
from tabled.game.limits import Limits
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.pool.base import PoolError, PoolUnavailable
from tabled.pool.postgresql import PostgresPool, migrate, register_auditor, register_table
from tabled.pool.settings import PoolSettings
from tabled.profiles import load_profile
from tabled.table.core import TableCore
from tests.pool.test_contract import MAIN, NSW

pytestmark = pytest.mark.postgres
RESERVE = PoolSettings(contribution_bp=0, reset_cents=0)


def login(dsn: str, role: str, password: str) -> str:
    """``dsn`` with another role and password."""
    parts = urlsplit(dsn)
    return f"postgresql://{role}:{password}@{parts.hostname}:{parts.port}{parts.path}"


class Casino:
    """One pool database: its administrator, tables T01 and T02, and an auditor, each its own role."""

    def __init__(self, superuser_dsn: str) -> None:
        suffix = uuid.uuid4().hex[:8]
        self.roles = {who: f"tabled_{who}_{suffix}" for who in ("admin", "t01", "t02", "auditor")}
        database = urlsplit(superuser_dsn).path.lstrip("/")
        with psycopg.connect(superuser_dsn, autocommit=True) as su:  # what the DBA does once
            su.execute(f"CREATE ROLE {self.roles['admin']} LOGIN CREATEROLE PASSWORD 'pw-admin'")
            su.execute(f"ALTER DATABASE {database} OWNER TO {self.roles['admin']}")
        self.admin = login(superuser_dsn, self.roles["admin"], "pw-admin")
        with psycopg.connect(self.admin, autocommit=True) as admin:  # tabled pool migrate, register-...
            migrate(admin)
            shipping.migrate(admin)
            for table in ("T01", "T02"):
                role = self.roles[table.lower()]
                register_table(admin, table, role, "pw-" + table)
                shipping.register_table(admin, table, role, "pw-" + table)
            register_auditor(admin, self.roles["auditor"], "pw-auditor")
        self.t01 = login(superuser_dsn, self.roles["t01"], "pw-T01")
        self.t02 = login(superuser_dsn, self.roles["t02"], "pw-T02")
        self.auditor = login(superuser_dsn, self.roles["auditor"], "pw-auditor")

        async def open_pools() -> None:  # tabled pool create, by the administrator
            for name, settings in (("main", MAIN), ("reserve", RESERVE)):
                await (await PostgresPool.open(self.admin, name, "admin", settings, who="manager Kim")).close()
        asyncio.run(open_pools())


@pytest.fixture
def casino(pg_empty_dsn):
    return Casino(pg_empty_dsn)


def play(dsn: str, table: str, scenario) -> object:
    async def go():
        pool = await PostgresPool.open(dsn, "main", table, MAIN, op_timeout=10)
        try:
            return await scenario(pool)
        finally:
            await pool.close()
    return asyncio.run(go())


def test_a_tables_role_plays_contributions_reversals_and_awards(casino):
    async def scenario(pool):
        await pool.register_table("T01", "1" * 64)
        await pool.contribute_round("T01", "R1", {1: 1000, 2: 1000}, round_key="a" * 64)
        await pool.reverse("T01", "R1", 2, "14.4 misdeal", round_key="a" * 64)
        result = await pool.apply_awards("T01", "R1", [ProgressiveHit(1, Category.ROYAL_FLUSH)], NSW,
                                         round_key="a" * 64)
        meter = pool.subscribe_meter()
        try:
            reading = await anext(meter)  # LISTEN and the meter's query, as the table's role
        finally:
            await meter.aclose()
        return result, await pool.verify(), await pool.balance(), reading
    result, report, balance, reading = play(casino.t01, "T01", scenario)
    assert result.awards and result.reset and report.ok, report.problems
    assert balance == reading.balance_cents == MAIN.reset_cents  # the jackpot won, the pool reset


WRITES = {
    "UPDATE the meter": "UPDATE pools SET balance_cents = balance_cents + 100000",
    "UPDATE a ledger row": "UPDATE ledger SET delta_cents = 0",
    "DELETE contributions": "DELETE FROM contributions",
    "TRUNCATE the ledger": "TRUNCATE ledger",
    "another table's contribution": "INSERT INTO contributions (pool, table_id, round_id, spot, wager_cents,"
                                    " pool_cents, retained_cents, overflow_cents, ledger_seq, at)"
                                    " VALUES ('main', 'T02', 'R9', 1, 1000, 700, 300, 0, 99, 'now')",
    "another table's ledger row": "INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents, epoch,"
                                  " table_id, round_id, spot, reason, at) SELECT 'main', seq + 1, 'contribution',"
                                  " 700, balance_after_cents + 700, epoch, 'T02', 'R9', 1, 'x', 'now' FROM ledger"
                                  " WHERE pool = 'main' ORDER BY seq DESC LIMIT 1",
    "another table's hit": "INSERT INTO hits (pool, hit_seq, table_id, round_id, spot, category, amount_cents,"
                           " from_pool_cents, topup_cents, pool_before_cents, pool_after_cents, rule, at)"
                           " VALUES ('main', 1, 'T02', 'R9', 1, 'ROYAL_FLUSH', 1, 1, 0, 1, 0, '12.1', 'now')",
    "a correction (the administrator's)": "INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents,"
                                          " epoch, table_id, reason, at) SELECT 'main', seq + 1, 'correction',"
                                          " 500, balance_after_cents + 500, epoch, 'T01', 'x', 'now' FROM ledger"
                                          " WHERE pool = 'main' ORDER BY seq DESC LIMIT 1",
    "a ledger row that does not follow": "INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents,"
                                         " epoch, table_id, round_id, spot, reason, at) SELECT 'main', seq + 1,"
                                         " 'contribution', 700, balance_after_cents + 90000, epoch, 'T01', 'R9',"
                                         " 1, 'x', 'now' FROM ledger WHERE pool = 'main' ORDER BY seq DESC LIMIT 1",
    "a meter not from the ledger": "SELECT tabled_pool_save(99999999, 0, 1, 1, 0, 'main')",
    "new settings": "INSERT INTO pool_settings (pool, version, contribution_bp, reset_cents, who, why,"
                    " proposed_at) VALUES ('main', 2, 10000, 0, 'T01', 'x', 'now')",
    "a pool": "INSERT INTO pools (name, balance_cents, epoch, settings_version, ledger_seq, hit_seq, created_at)"
              " VALUES ('mine', 100, 0, 1, 0, 0, 'now')",
    "a role of its own table": "INSERT INTO table_roles (role, table_id) VALUES (session_user, 'T02')",
    "another table's journal record": "INSERT INTO journal_records (table_id, seq, time_us, kind, payload,"
                                      " prev_hash, hash) VALUES ('T02', 1, 1, 'x', '{}', '0', '0')",
    "UPDATE journal records": "UPDATE journal_records SET payload = '{}'",
    "DELETE journal records": "DELETE FROM journal_records",
    "DDL: a table": "CREATE TABLE mine (x INTEGER)",
    "DDL: drop the ledger": "DROP TABLE ledger",
    "DDL: a trigger off": "ALTER TABLE ledger DISABLE TRIGGER ledger_append_only",
    "DDL: the save function": "CREATE OR REPLACE FUNCTION tabled_pool_save(BIGINT, INTEGER, INTEGER, BIGINT,"
                              " BIGINT, TEXT) RETURNS void LANGUAGE sql AS 'SELECT'",
}


@pytest.mark.parametrize("attempt", list(WRITES), ids=list(WRITES))
def test_the_server_refuses_a_tables_role_anything_but_its_own_rows(casino, attempt):
    play(casino.t01, "T01", lambda pool: pool.contribute("T01", "R1", 1, 1000))
    with psycopg.connect(casino.t01) as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(WRITES[attempt])
    assert refused.value.sqlstate in ("42501", "23514"), refused.value  # refused by the server, not broken
    report = play(casino.admin, "admin", lambda pool: pool.verify())
    assert report.ok and report.balance_cents == MAIN.reset_cents + 700  # nothing changed


def test_a_table_cannot_open_or_resettle_a_pool(casino):
    async def scenario(pool):
        return await PostgresPool.open(casino.t01, "other", "T01", MAIN)
    with pytest.raises(PoolError, match=r"no pool named 'other'.*`tabled pool create --name other"):
        play(casino.t01, "T01", scenario)
    with pytest.raises(PoolError, match="refused this role"):
        play(casino.t01, "T01", lambda pool: pool.correct(500, "a bonus", "T01"))
    with pytest.raises(PoolError, match="refused this role"):
        play(casino.t01, "T01", lambda pool: pool.propose_settings(PoolSettings(9000, 1), "T01", "more"))


def test_the_auditor_reads_everything_and_writes_nothing(casino, tmp_path, capsys):
    play(casino.t01, "T01", lambda pool: pool.contribute("T01", "R1", 1, 1000))
    with Journal.open(tmp_path / "j.db") as journal:
        journal.append("round.started", {"round_no": 1}, "R1")
        ((record, text),) = journal.raw_records_after(0, 1)
    with psycopg.connect(casino.t01) as conn:  # T01 ships a record of its journal
        conn.execute("INSERT INTO journal_records (table_id, seq, time_us, round_id, kind, payload, prev_hash, hash)"
                     " VALUES ('T01', %s, %s, %s, %s, %s, %s, %s)", (record.seq, record.time_us, record.round_id,
                                                                     record.kind, text, record.prev_hash, record.hash))
    with psycopg.connect(casino.auditor) as conn:
        assert conn.execute("SELECT COUNT(*) FROM contributions").fetchone() == (1,)
        assert conn.execute("SELECT balance_cents FROM pools WHERE name = 'main'").fetchone() == (1_000_700,)
        assert conn.execute("SELECT table_id, seq FROM journal_records").fetchall() == [("T01", 1)]
    for action in ("status", "verify", "ledger"):  # the pool's reports, as the auditor
        assert main(["pool", action, "--dsn", casino.auditor, "--name", "main"]) == 0, capsys.readouterr().err
    assert "the ledger proves the meter: $10,007.00" in capsys.readouterr().out
    for attempt in [*WRITES.values(), "SELECT * FROM tabled_pool_lock('main')",
                    "INSERT INTO contributions (pool, table_id, round_id, spot, wager_cents, pool_cents,"
                    " retained_cents, overflow_cents, ledger_seq, at) VALUES ('main', 'T01', 'R9', 1, 1, 1, 0, 0, 9,"
                    " 'now')"]:
        with psycopg.connect(casino.auditor) as conn:
            with pytest.raises(psycopg.Error) as refused:
                conn.execute(attempt)
            assert refused.value.sqlstate == "42501", (attempt, refused.value)


def test_the_administrator_changes_settings_corrects_and_changes_the_schema(casino):
    async def scenario(pool):
        version = await pool.propose_settings(PoolSettings(6000, 1_000_000), "manager Kim", "new rate")
        return version, await pool.correct(-100, "count short", "manager Kim"), await pool.verify()
    version, balance, report = play(casino.admin, "admin", scenario)
    assert version == 2 and balance == MAIN.reset_cents - 100 and report.ok
    with psycopg.connect(casino.admin) as conn:
        conn.execute("CREATE TABLE admin_notes (x INTEGER)")


def test_a_pool_database_without_the_schema_is_14_13_until_the_administrator_migrates(pg_empty_dsn):
    async def scenario() -> None:
        pool = await PostgresPool.open(pg_empty_dsn, "main", "T01", MAIN, wait_for_link=True)
        try:
            assert not pool.ready
            with pytest.raises(PoolUnavailable, match=r"has no tabled schema.*`tabled pool migrate --dsn"):
                await pool.balance()
            with psycopg.connect(pg_empty_dsn) as conn:  # the table made nothing
                assert conn.execute("SELECT to_regclass('schema_version')").fetchone() == (None,)
            await asyncio.to_thread(migrate_as_admin, pg_empty_dsn)
            assert await pool.balance() == MAIN.reset_cents and pool.ready
        finally:
            await pool.close()
    asyncio.run(scenario())


def test_an_older_schema_is_named_and_refused_without_changing_it(pg_empty_dsn, monkeypatch):
    from tabled.pool import postgresql, schema
    monkeypatch.setattr(schema, "MIGRATIONS", {d: m[:2] for d, m in schema.MIGRATIONS.items()})
    for module in (schema, postgresql):  # the migration, and the version a linked table expects
        monkeypatch.setattr(module, "LATEST", 2)
    migrate_as_admin(pg_empty_dsn)
    monkeypatch.undo()

    async def scenario() -> None:
        with pytest.raises(PoolUnavailable, match="is at schema version 2; this tabled needs version 3"):
            await PostgresPool.open(pg_empty_dsn, "main", "T01", MAIN)
    asyncio.run(scenario())
    with psycopg.connect(pg_empty_dsn) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchone() == (2,)


def migrate_as_admin(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as admin:
        migrate(admin)


async def test_a_table_whose_pool_database_has_no_schema_plays_under_14_13_until_it_is_migrated(tmp_path,
                                                                                                 pg_empty_dsn):
    """The daemon's pool feed meets the missing schema as a 14.13 fault naming the command, journaled;
    once the administrator migrates, the pool answers and the fault clears without a restart."""
    profile = load_profile("nsw")
    journal = Journal.open(tmp_path / "journal.db")
    pool = await PostgresPool.open(pg_empty_dsn, "main", "T01", MAIN, wait_for_link=True)
    core = TableCore("T01", 7, Limits(500, 50_000, 100, profile.progressive_wager_cents), profile)
    table = Table(core, journal, pool, retry_interval=0.05)
    task = asyncio.create_task(table.run())
    try:
        await table.resume([])
        async with asyncio.timeout(20):
            while "pool" not in table.core.equipment.faults:
                await asyncio.sleep(0.01)
        await asyncio.to_thread(migrate_as_admin, pg_empty_dsn)
        async with asyncio.timeout(20):
            while "pool" in table.core.equipment.faults:
                await asyncio.sleep(0.01)
        assert pool.ready and await pool.balance() == MAIN.reset_cents
    finally:
        table.stop()
        async with asyncio.timeout(5):
            await task
        await pool.close()
        journal.close()
    with Journal.open(tmp_path / "journal.db", readonly=True) as done:
        faults = [(r.kind, r.payload.get("reason", "")) for r in done.records_after(0) if r.kind.startswith("fault.")]
    assert [kind for kind, _ in faults] == ["fault.raised", "fault.cleared"]
    assert "has no tabled schema" in faults[0][1] and "`tabled pool migrate --dsn ...`" in faults[0][1]


def test_a_tables_role_cannot_migrate_or_register(casino, capsys, monkeypatch):
    parts = urlsplit(casino.t01)
    monkeypatch.setenv("PGPASSWORD", parts.password)
    dsn = f"postgresql://{parts.username}@{parts.hostname}:{parts.port}{parts.path}"
    for argv in (["pool", "migrate", "--dsn", dsn],
                 ["pool", "register-table", "--dsn", dsn, "--table", "T09", "--role", "tabled_t09_x"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "the pool database refused it:" in err and err.count("\n") == 1, err

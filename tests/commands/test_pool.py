"""``tabled pool status|history|ledger|verify|reconcile`` on a local and a linked pool."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tabled.cli import main
from tabled.daemon.staff import hash_pin
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.journal.store import Journal
from tabled.pool.local import LocalPool
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings

from tests.pool.test_contract import MAIN, NSW


async def _fill(pool) -> None:
    await pool.contribute("T01", "R1", 1, 1000)
    await pool.contribute("T01", "R1", 2, 1000)
    await pool.contribute("T01", "R2", 3, 1000)
    await pool.apply_awards("T01", "R2", [ProgressiveHit(3, Category.STRAIGHT_FLUSH)], NSW,
                            hands={3: "9h 8h 7h 6h 5h"})
    await pool.correct(-5, "coin found short at count", "supervisor Lee")


@pytest.fixture
def local_db(tmp_path):
    path = tmp_path / "pool.db"

    async def make():
        pool = await LocalPool.open(path, "main", "T01", MAIN)
        await _fill(pool)
        await pool.close()
    asyncio.run(make())
    return path


def test_status_for_people_and_programs(local_db, capsys):
    assert main(["pool", "status", "--path", str(local_db)]) == 0
    text = capsys.readouterr().out
    assert "pool main: $9,018.85 on the meter" in text and "reset value $10,000.00" in text
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["balance_cents"] == 901_885 and doc["hits"] == 1 and doc["settings_version"] == 1


def test_history_and_ledger(local_db, capsys):
    assert main(["pool", "history", "--path", str(local_db)]) == 0
    text = capsys.readouterr().out
    assert "#1" in text and "table T01 round R2 spot 3: straight flush 9h 8h 7h 6h 5h paid $1,002.10" in text
    assert "pool $10,021.00 -> $9,018.90" in text  # 12.1.2: 10% of the pool, rounded down
    assert main(["pool", "history", "--path", str(local_db), "--json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)["hits"]
    assert (hit["pool_before_cents"], hit["pool_after_cents"], hit["amount_cents"]) == (1_002_100, 901_890, 100_210)
    assert main(["pool", "ledger", "--path", str(local_db), "--limit", "2"]) == 0
    text = capsys.readouterr().out
    assert "award" in text and "correction" in text and "by supervisor Lee" in text and "open" not in text


def test_verify_passes_then_names_the_problem(local_db, capsys):
    assert main(["pool", "verify", "--path", str(local_db)]) == 0
    assert "the ledger proves the meter: $9,018.85" in capsys.readouterr().out
    with sqlite3.connect(local_db) as conn:
        conn.execute("UPDATE pools SET balance_cents = 1")
    assert main(["pool", "verify", "--path", str(local_db)]) == 1
    out = capsys.readouterr().out
    assert "LEDGER DOES NOT PROVE THE METER" in out and "the meter shows 1 cents" in out


def test_reconcile_reads_the_tables_journal(local_db, tmp_path, capsys):
    journal = Journal.open(tmp_path / "journal.db")
    journal.append("pool.contributed", {"round_id": "R1", "spot": 1, "wager_cents": 1000}, round_id="R1")
    journal.append("pool.contributed", {"round_id": "R1", "spot": 2, "wager_cents": 1000}, round_id="R1")
    journal.close()
    args = ["pool", "reconcile", "--path", str(local_db), "--table", "T01", "--journal", str(tmp_path / "journal.db")]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "in the pool, not in the journal: round R2 spot 3" in out
    journal = Journal.open(tmp_path / "journal.db")
    journal.append("pool.contributed", {"round_id": "R2", "spot": 3, "wager_cents": 1000}, round_id="R2")
    journal.close()
    assert main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    # 11.5: a table feeding several pools journals each contribution with its pool's name;
    # a contribution to another pool is not this pool's business
    journal = Journal.open(tmp_path / "journal.db")
    journal.append("pool.contributed", {"round_id": "R3", "spot": 1, "wager_cents": 1000, "pool": "reserve"},
                   round_id="R3")
    journal.close()
    assert main(args) == 0
    assert "the journal and the pool agree" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["pool", "status", "--path", "/nonexistent/pool.db"], "no pool database there"),
    (["pool", "status", "--dsn", "postgresql://postgres@127.0.0.1:1/x"], "cannot reach the pool database"),
    (["pool", "history", "--path", "{db}", "--last", "0"], "argument --last: must be an integer of at least 1, got 0"),
    (["pool", "status", "--path", "{db}", "--name", "other"], "no pool named 'other'"),
    (["pool", "reconcile", "--path", "{db}", "--journal", "/nonexistent/j.db"], "no journal there"),
])
def test_errors_are_one_line(local_db, capsys, argv, message):
    argv = [a.replace("{db}", str(local_db)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_a_config_file_names_the_pools(tmp_path, capsys):
    (tmp_path / "tabled.toml").write_text(
        '[table]\nid = "T07"\nspots = 7\nprofile = "nsw"\nminimum_cents = 500\nmaximum_cents = 50000\n'
        'unit_cents = 100\ncard_source = "shuffler"\n'
        '[journal]\npath = "journal.db"\ncheckpoint_every_rounds = 100\n'
        '[[pools]]\nname = "main"\nbackend = "local"\npath = "pool-main.db"\ncontribution_bp = 7000\n'
        'reset_cents = 1000000\nprimary = true\n')

    async def make():
        pool = await LocalPool.open(tmp_path / "pool-main.db", "main", "T07", MAIN)
        await pool.contribute("T07", "R1", 1, 500)
        await pool.close()
    asyncio.run(make())
    assert main(["pool", "status", "--config", str(tmp_path / "tabled.toml"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance_cents"] == 1_000_350


@pytest.mark.postgres
def test_status_of_a_linked_pool(pg_dsn, capsys):
    async def make():
        pool = await PostgresPool.open(pg_dsn, "linked", "T01", PoolSettings(5000, 200_000))
        await pool.contribute("T01", "R1", 1, 1000)
        await pool.close()
    asyncio.run(make())
    assert main(["pool", "status", "--dsn", pg_dsn, "--name", "linked"]) == 0
    assert "pool linked: $2,005.00 on the meter" in capsys.readouterr().out
    assert main(["pool", "verify", "--dsn", pg_dsn, "--name", "linked", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_propose_records_a_version_that_waits_for_the_jackpot(local_db, capsys):
    base = ["pool", "propose", "--path", str(local_db)]
    two = ["--who", "manager Ng", "--approved-by", "controller Ito"]
    assert main(base + ["--contribution-bp", "6000", *two, "--why", "new promotion"]) == 0
    out = capsys.readouterr().out
    assert "settings version 2 recorded by manager Ng; approved by controller Ito; it takes effect after the " \
           "current jackpot" in out
    # the accounting notice is a report of the change
    assert ("ACCOUNTING NOTICE: pool main settings version 1 -> 2: contribution_bp 7000 -> 6000; by manager Ng; "
            "approved by controller Ito; why: new promotion") in out
    assert main(base + ["--contribution-bp", "6000", *two, "--why", "again"]) == 0
    assert "nothing recorded" in capsys.readouterr().out
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["settings_version"], doc["pending_settings_version"]) == (1, 2)
    assert main(base + ["--contribution-bp", "6000"]) == 2
    assert "needs --who" in capsys.readouterr().err
    assert main(base + ["--contribution-bp", "20000", "--who", "a", "--why", "b"]) == 2
    assert "argument --contribution-bp: must be an integer from 0 to 10000, got 20000" in capsys.readouterr().err
    assert main(base + ["--who", "a", "--approved-by", "c", "--why", "b"]) == 2
    assert "at least one of" in capsys.readouterr().err
    # one person alone, or the same person twice, changes nothing (N.J.A.C. 13:69D-1.52)
    assert main(base + ["--contribution-bp", "7000", "--who", "a", "--why", "b"]) == 2
    assert "needs --approved-by: a second person" in capsys.readouterr().err
    assert main(base + ["--contribution-bp", "7000", "--who", "Ng", "--approved-by", "ng", "--why", "b"]) == 2
    assert "the same person as --who" in capsys.readouterr().err


# -- with a staff list: an authority's act (docs/staff.md) ----------------------------------------------

SIM_STAFF = Path(__file__).resolve().parents[2] / "config" / "sim-staff.toml"


def _typed(monkeypatch, text: str) -> None:
    """What a person types when asked for the PIN (stdin, never the command line)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(text))


def test_propose_with_a_staff_list_needs_a_pool_admin_with_the_right_pin(local_db, capsys, monkeypatch):
    base = ["pool", "propose", "--path", str(local_db), "--staff", str(SIM_STAFF), "--contribution-bp", "6000",
            "--why", "new promotion", "--approved-by", "6001"]
    # the dealer, the supervisor and the inspector are no authority over the pool's settings
    for badge, name in ((1001, "Sim Dealer"), (2001, "Sim Supervisor"), (3001, "Sim Inspector")):
        _typed(monkeypatch, "2468\n")
        assert main(base + ["--who", str(badge)]) == 2
        err = capsys.readouterr().err
        assert f"{name} (badge {badge}) is not a pool_admin on the staff list" in err and "nothing recorded" in err
    _typed(monkeypatch, "8642\n")
    assert main(base + ["--who", "9999"]) == 2
    assert "no badge 9999 on the staff list" in capsys.readouterr().err
    _typed(monkeypatch, "8642\n")
    assert main(base + ["--who", "manager Ng"]) == 2
    assert "--who is the badge number of a pool_admin" in capsys.readouterr().err
    _typed(monkeypatch, "1111\n")
    assert main(base + ["--who", "4001"]) == 2
    assert "wrong PIN for Sim Pool Admin (badge 4001): nothing recorded" in capsys.readouterr().err
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pending_settings_version"] is None  # nothing was recorded
    _typed(monkeypatch, "8642\n3579\n")
    assert main(base + ["--who", "4001"]) == 0
    assert ("settings version 2 recorded by Sim Pool Admin (badge 4001, pool_admin); approved by Sim Accountant "
            "(badge 6001, accounting)") in capsys.readouterr().out
    assert main(["pool", "ledger", "--path", str(local_db)]) == 0
    assert "by Sim Pool Admin (badge 4001, pool_admin); approved by Sim Accountant" in capsys.readouterr().out


def test_the_second_person_is_of_another_department_with_their_own_pin(tmp_path, local_db, capsys, monkeypatch):
    staff = tmp_path / "staff.toml"
    staff.write_text(SIM_STAFF.read_text() + '\n[[person]]\nbadge = 4002\nname = "Pat Admin"\nroles = ["pool_admin"]'
                     f'\npin = "{hash_pin("2222")}"\n'
                     '\n[[person]]\nbadge = 4003\nname = "Both Hats"\nroles = ["pool_admin", "accounting"]'
                     f'\npin = "{hash_pin("3333")}"\n')
    base = ["pool", "propose", "--path", str(local_db), "--staff", str(staff), "--contribution-bp", "6000",
            "--why", "new promotion"]
    for who, approver, typed, said in (
            ("4001", "4002", "8642\n2222\n", "Pat Admin (badge 4002) is not a accounting on the staff list "
                                                "(roles: pool_admin): a second pool_admin is the same department"),
            ("4003", "4003", "3333\n3333\n", "Both Hats proposed the change: a second person approves it"),
            ("4001", "6001", "8642\n1111\n", "wrong PIN for Sim Accountant (badge 6001): nothing recorded"),
            ("6001", "4001", "3579\n8642\n", "Sim Accountant (badge 6001) is not a pool_admin")):
        _typed(monkeypatch, typed)
        assert main(base + ["--who", who, "--approved-by", approver]) == 2
        assert said in capsys.readouterr().err
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pending_settings_version"] is None  # nothing was recorded
    # approved, the change waits for the jackpot and then applies
    _typed(monkeypatch, "8642\n3579\n")
    assert main(base + ["--who", "4001", "--approved-by", "6001"]) == 0
    capsys.readouterr()

    async def jackpot() -> None:  # the table opens the pool with the settings it has (those proposed, here)
        pool = await LocalPool.open(local_db, "main", "T01", PoolSettings(6000, MAIN.reset_cents))
        try:
            await pool.contribute("T01", "R9", 1, 100)
            await pool.apply_awards("T01", "R9", [ProgressiveHit(1, Category.ROYAL_FLUSH)], NSW,
                                    hands={1: "Ah Kh Qh Jh Th"})
        finally:
            await pool.close()
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings_version"] == 1
    asyncio.run(jackpot())
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["settings_version"], status["pending_settings_version"]) == (2, None)


def test_a_manual_reset_of_the_meter_needs_the_same_two(local_db, capsys, monkeypatch):
    base = ["pool", "reset", "--path", str(local_db), "--staff", str(SIM_STAFF), "--why", "meter fault"]
    _typed(monkeypatch, "8642\n")
    assert main(base + ["--who", "4001"]) == 2
    assert "needs --approved-by" in capsys.readouterr().err
    _typed(monkeypatch, "8642\n3579\n")
    assert main(base + ["--who", "4001", "--approved-by", "6001"]) == 0
    out = capsys.readouterr().out
    assert "ACCOUNTING NOTICE: pool main meter" in out and "approved by Sim Accountant (badge 6001, accounting)" in out
    assert main(["pool", "status", "--path", str(local_db), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["balance_cents"] == status["reset_cents"]
    _typed(monkeypatch, "8642\n3579\n")
    assert main(base + ["--who", "4001", "--approved-by", "6001"]) == 0
    assert capsys.readouterr().out.endswith("at its reset value $10,000.00 already; nothing recorded\n")


def test_propose_checks_the_configs_staff_list(tmp_path, local_db, capsys, monkeypatch):
    config = tmp_path / "tabled.toml"
    config.write_text(f'[table]\nid = "T01"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n'
                      f'[[pools]]\nname = "main"\nbackend = "local"\npath = "{local_db}"\nprimary = true\n'
                      f'[staff]\nfile = "{SIM_STAFF}"\n')
    _typed(monkeypatch, "1357\n")
    assert main(["pool", "propose", "--config", str(config), "--contribution-bp", "6000", "--who", "2001",
                 "--approved-by", "6001", "--why", "x"]) == 2
    assert "Sim Supervisor (badge 2001) is not a pool_admin" in capsys.readouterr().err


def _no_password(dsn: str) -> tuple[str, str]:
    """(the dsn without its password, the password): the password goes in PGPASSWORD."""
    parts = urlsplit(dsn)
    return f"postgresql://{parts.username}@{parts.hostname}:{parts.port}{parts.path}", parts.password or ""


@pytest.mark.postgres
def test_the_administrator_migrates_registers_a_table_and_creates_a_pool(pg_empty_dsn, tmp_path, capsys,
                                                                         monkeypatch):
    admin, password = _no_password(pg_empty_dsn)
    monkeypatch.setenv("PGPASSWORD", password)
    assert main(["pool", "migrate", "--dsn", admin]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "pool schema: version 3 (was 0)", "central journal schema: up to date", "floor schema: up to date",
        "player ratings schema: up to date",
        "roles: tabled_table (each table's role is one; it may add its own rows only), tabled_auditor (reads"
        " everything)"]
    assert main(["pool", "migrate", "--dsn", admin]) == 0  # again: nothing to do, nothing broken
    assert capsys.readouterr().out.startswith("pool schema: version 3 (already)\n")

    role = "tabled_t01_" + uuid.uuid4().hex[:8]
    secret = tmp_path / "t01-password"
    secret.write_text("pw-of-T01\n")
    assert main(["pool", "register-table", "--dsn", admin, "--table", "T01", "--role", role,
                 "--password-file", str(secret)]) == 0
    assert f"table T01: role {role} may read the pool and add its own" in capsys.readouterr().out
    assert main(["pool", "create", "--dsn", admin, "--name", "main", "--contribution-bp", "7000",
                 "--reset-cents", "1000000", "--who", "manager Kim", "--why", "new table games"]) == 0
    assert "pool main: $10,000.00 on the meter (settings version 1, recorded by manager Kim)" \
        in capsys.readouterr().out
    assert main(["pool", "create", "--dsn", admin, "--name", "main", "--contribution-bp", "7000",
                 "--reset-cents", "1000000", "--who", "manager Kim", "--why", "again"]) == 2
    assert "pool main exists already" in capsys.readouterr().err

    table = admin.replace("postgres@", f"{role}@")     # the table's own role, its password from the credential
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "pool-password").write_text("pw-of-T01\n")
    monkeypatch.delenv("PGPASSWORD")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))

    async def play():
        pool = await PostgresPool.open(table, "main", "T01", MAIN)
        await pool.contribute("T01", "R1", 1, 1000)
        await pool.close()
    asyncio.run(play())
    monkeypatch.delenv("CREDENTIALS_DIRECTORY")
    monkeypatch.setenv("PGPASSWORD", password)
    assert main(["pool", "status", "--dsn", admin, "--name", "main", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["balance_cents"] == 1_000_700


@pytest.mark.parametrize("argv, message", [
    (["pool", "migrate", "--dsn", "postgresql://admin:s3cret@127.0.0.1/pool"],
     "--dsn: holds a password: give it in PGPASSWORD or ~/.pgpass"),
    (["pool", "migrate", "--dsn", "postgresql://admin@db.casino.lan/pool"],
     "--dsn: reaches db.casino.lan without verifying its TLS certificate"),
    (["pool", "migrate"], "migrate needs --dsn"),
    (["pool", "register-table", "--dsn", "postgresql://admin@127.0.0.1/pool", "--table", "T01"],
     "register-table needs --role"),
    (["pool", "register-table", "--dsn", "postgresql://admin@127.0.0.1/pool", "--role", "t01"],
     "register-table needs --table"),
    (["pool", "create", "--dsn", "postgresql://admin@127.0.0.1/pool", "--name", "main"],
     "create needs --name, --contribution-bp and --reset-cents"),
])
def test_the_administrators_actions_refuse_bad_input_in_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "s3cret" not in err and err.count("\n") == 1

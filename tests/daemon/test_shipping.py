"""The journal shipped to the central PostgreSQL: every record once and in order, resumed after a
cut connection, refused when it does not follow; each table's role may only add its own records;
`tabled audit compare` names where a journal and its central copy part."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import psycopg
import pytest

from tabled.cli import main
from tabled.daemon import shipping
from tests.daemon.tamper import change_only, rewrite
from tabled.journal.store import Journal
from tests.pool.proxy import LinkProxy

pytestmark = pytest.mark.postgres
INSERT = ("INSERT INTO journal_records (table_id, seq, time_us, round_id, kind, payload, prev_hash, hash) "
          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")


def role_dsn(admin_dsn: str, role: str, password: str) -> str:
    head, tail = admin_dsn.split("@", 1)
    return f"postgresql://{role}:{password}@{tail}"


@pytest.fixture
def central(pg_dsn):
    """The central database, migrated, with tables T01 and T02 registered with roles of their own."""
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        shipping.migrate(admin)
        shipping.migrate(admin)  # again: a migration brings an existing schema up to date
        for table in ("T01", "T02"):
            role = f"tabled_{table.lower()}_{pg_dsn.rsplit('_', 1)[-1]}"
            shipping.register_table(admin, table, role, "pw-" + table)
    return pg_dsn


def table_dsn(central: str, table: str) -> str:
    return role_dsn(central, f"tabled_{table.lower()}_{central.rsplit('_', 1)[-1]}", "pw-" + table)


def write_rounds(path: Path, rounds: int, first: int = 0) -> None:
    with Journal.open(path) as journal:
        for n in range(first, first + rounds):
            rid = f"R{n}"
            journal.append_many([("round.started", {"round_no": n}, rid),
                                 ("wager", {"spot": 1, "area": "ante", "cents": 500, "note": "caf\u00e9 \"x\"\n"}, rid),
                                 ("round.finished", {"round_no": n}, rid)])


def ship(journal: Path, table: str, dsn: str, **kw) -> shipping.Shipper:
    async def go() -> shipping.Shipper:
        shipper = shipping.Shipper(journal, table, lambda: psycopg.AsyncConnection.connect(dsn), **kw)
        task = asyncio.create_task(shipper.run())
        async with asyncio.timeout(30):
            await shipper.caught_up()
        task.cancel()
        return shipper
    return asyncio.run(go())


def central_rows(dsn: str, table: str) -> list[tuple]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq",
                            (table,)).fetchall()


def local_rows(path: Path) -> list[tuple]:
    with Journal.open(path, readonly=True) as journal:
        return [(r.seq, r.hash) for r, _ in journal.raw_records_after(0, 10**9)]


def test_every_record_arrives_once_in_order_and_the_server_recomputes_each_hash(tmp_path, central):
    path = tmp_path / "j.db"
    write_rounds(path, 40)
    shipper = ship(path, "T01", table_dsn(central, "T01"), batch=17)
    assert central_rows(central, "T01") == local_rows(path) and shipper.lag == 0
    write_rounds(path, 5, first=40)  # more play: shipping picks up where the server's copy ends
    ship(path, "T01", table_dsn(central, "T01"))
    assert central_rows(central, "T01") == local_rows(path)
    assert main(["audit", "compare", "--journal", str(path), "--central", central, "--table", "T01"]) == 0


def test_cut_connections_at_random_points_lose_nothing_and_repeat_nothing(tmp_path, central):
    rng = random.Random(7)
    path = tmp_path / "j.db"

    async def trial() -> None:
        proxy = await LinkProxy(table_dsn(central, "T01")).start()
        shipper = shipping.Shipper(path, "T01", lambda: psycopg.AsyncConnection.connect(proxy.dsn),
                                   batch=7, retry_s=0.01)
        task = asyncio.create_task(shipper.run())
        for _ in range(30):  # cut the link at random moments while play goes on
            await asyncio.sleep(rng.random() * 0.02)
            await asyncio.to_thread(write_rounds, path, 1, rng.randrange(10**6))
            shipper.wake()
            proxy.cut()
            await asyncio.sleep(rng.random() * 0.01)
            proxy.restore()
        shipper.wake()
        async with asyncio.timeout(30):
            await shipper.caught_up()
        task.cancel()
        await proxy.close()
        assert shipper.failures > 0  # the cuts were felt

    asyncio.run(trial())
    ship(path, "T01", table_dsn(central, "T01"))
    assert central_rows(central, "T01") == local_rows(path)


def test_a_record_that_does_not_follow_is_refused_by_the_server(tmp_path, central):
    path = tmp_path / "j.db"
    write_rounds(path, 2)
    dsn = table_dsn(central, "T01")
    (first, text), (second, second_text) = Journal.open(path, readonly=True).raw_records_after(0, 2)
    with psycopg.connect(dsn) as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="does not follow"):
            conn.execute(INSERT, ("T01", second.seq, second.time_us, second.round_id, second.kind, second_text,
                          second.prev_hash, second.hash))
    with psycopg.connect(dsn) as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="does not hash"):
            conn.execute(INSERT, ("T01", first.seq, first.time_us, first.round_id, first.kind, text.replace("0", "1"),
                          first.prev_hash, first.hash))


@pytest.mark.parametrize("attempt", [
    "UPDATE journal_records SET payload = '{}' WHERE table_id = 'T01'",
    "DELETE FROM journal_records WHERE table_id = 'T01'",
    "TRUNCATE journal_records",
    "CREATE TABLE mine (x int)",
    "DROP TABLE journal_records",
    "ALTER TABLE journal_records DISABLE TRIGGER journal_accept",
])
def test_a_tables_role_may_not_change_delete_or_alter(tmp_path, central, attempt):
    path = tmp_path / "j.db"
    write_rounds(path, 1)
    ship(path, "T01", table_dsn(central, "T01"))
    with psycopg.connect(table_dsn(central, "T01")) as conn:
        with pytest.raises(psycopg.Error):
            conn.execute(attempt)
    assert central_rows(central, "T01") == local_rows(path)


def test_a_table_may_not_write_or_read_another_tables_records(tmp_path, central):
    path = tmp_path / "j.db"
    write_rounds(path, 2)
    ship(path, "T01", table_dsn(central, "T01"))
    with psycopg.connect(table_dsn(central, "T02")) as conn:
        assert conn.execute("SELECT count(*) FROM journal_records").fetchone()[0] == 0  # T01's are not visible
        (record, text), = Journal.open(path, readonly=True).raw_records_after(0, 1)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="not of table T01"):
            conn.execute(INSERT, ("T01", 99, record.time_us, record.round_id, record.kind, text, record.prev_hash,
                                  record.hash))


def test_compare_names_a_rewrite_a_cut_tail_and_an_older_copy(tmp_path, central, capsys):
    path = tmp_path / "j.db"
    write_rounds(path, 10)
    older = tmp_path / "older.db"
    shutil.copy(path, older)
    write_rounds(path, 5, first=10)
    ship(path, "T01", table_dsn(central, "T01"))
    compare = ["audit", "compare", "--central", central, "--table", "T01", "--journal"]

    assert main([*compare, str(older)]) == 1  # swapped for the copy of an hour ago
    assert "records 31 to 45 are on the central copy but not in this journal" in capsys.readouterr().out

    rewritten = tmp_path / "rewritten.db"
    shutil.copy(path, rewritten)
    rewrite(rewritten, 14, lambda p: {**p, "cents": 9000})
    assert main([*compare, str(rewritten)]) == 1
    assert "record 14 is not the same record on both sides" in capsys.readouterr().out

    # the shipper itself stops at the first record that differs, and says where
    shipper = shipping.Shipper(rewritten, "T01", lambda: psycopg.AsyncConnection.connect(table_dsn(central, "T01")))
    asyncio.run(shipper.run())
    assert shipper.diverged is not None and shipper.diverged.seq == 45


def test_compare_computes_each_records_hash_again_on_both_sides(tmp_path, central, capsys):
    """A payload changed without its hash agrees with nothing: compare names the record and the side."""
    path = tmp_path / "j.db"
    write_rounds(path, 10)
    ship(path, "T01", table_dsn(central, "T01"))
    compare = ["audit", "compare", "--central", central, "--table", "T01", "--journal"]

    changed = tmp_path / "changed.db"
    shutil.copy(path, changed)
    change_only(changed, 14, lambda p: {**p, "cents": 9000})
    assert main([*compare, str(changed)]) == 1
    assert "PART at record 14: record 14 in this journal does not hash to the hash it carries" in \
        capsys.readouterr().out

    with psycopg.connect(central, autocommit=True) as admin:
        admin.execute("ALTER TABLE journal_records DISABLE TRIGGER journal_no_change")
        admin.execute("UPDATE journal_records SET payload = replace(payload, '500', '9000') "
                      "WHERE table_id = 'T01' AND seq = 5")
        admin.execute("ALTER TABLE journal_records ENABLE TRIGGER journal_no_change")
    assert main([*compare, str(path)]) == 1
    assert "PART at record 5: record 5 on the central copy does not hash to the hash it carries" in \
        capsys.readouterr().out


def test_compare_with_a_table_the_central_copy_does_not_hold_names_the_tables_it_holds(tmp_path, central, capsys):
    path = tmp_path / "j.db"
    write_rounds(path, 2)
    compare = ["audit", "compare", "--central", central, "--journal", str(path), "--table"]
    assert main([*compare, "T09"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("tabled audit: error: table T09 is not on the central copy (it holds T01, T02): check --table "
                   "or the config's table.id"), err
    assert main([*compare, "T02"]) == 0  # a table registered, nothing shipped yet
    assert "the central copy holds no record of table T02 yet (this journal has 6)" in capsys.readouterr().out


def _ticks(path: Path, n: int) -> None:
    with Journal.open(path) as journal:
        for i in range(n):
            journal.append("tick", {"i": i})


def _start(tmp_path: Path, connect) -> None:
    """A start of table T01 on ``tmp_path/journal.db``, its journal shipped through ``connect``."""
    import dataclasses

    from tabled.daemon.assemble import open_table
    from tabled.daemon.config import load_config
    from tests.integration.test_restart_sim import sim_config
    cfg = load_config(sim_config(tmp_path))
    cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, id="T01"))

    async def run():
        opened = await open_table(cfg, tmp_path / "journal.db", clock=lambda: 1_700_000_000.0, pool_retry=1.0,
                                  central=connect)
        await opened.close()
    asyncio.run(run())


def _cut(path: Path, after: int) -> None:
    """The journal's records after ``after`` gone, as a damaged write-ahead log leaves it, and its head
    kept beside it no wiser (a power cut took the head's last marks too)."""
    import sqlite3

    from tabled.daemon.heads import write_head
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM records WHERE seq > ?", (after,))
    with Journal.open(path, readonly=True) as journal:
        write_head(path, *journal.head)


def test_a_start_finds_records_the_journal_shipped_and_then_lost_and_the_inspector_restores_them(
        tmp_path, central, capsys):
    from tabled.daemon.assemble import CannotStart
    path = tmp_path / "journal.db"
    _ticks(path, 30)
    ship(path, "T01", table_dsn(central, "T01"))
    _cut(path, 22)
    connect = lambda: psycopg.AsyncConnection.connect(table_dsn(central, "T01"))  # noqa: E731
    with pytest.raises(CannotStart) as refused:
        _start(tmp_path, connect)
    said = str(refused.value)
    assert f"the journal {path} lost records it had committed: it ends at record 22, but its central copy " \
           "(table T01) holds records to 30; records 23 to 30 are gone here" in said
    assert f"tabled audit restore --journal {path} --central DSN --table T01" in said
    with Journal.open(path, readonly=True) as journal:
        assert journal.count() == 22  # the refused start wrote nothing

    assert main(["audit", "restore", "--journal", str(path), "--central", central, "--table", "T01"]) == 0
    assert f"journal {path}: records 23 to 30 restored from the central copy of table T01, each hash checked" \
        in capsys.readouterr().out
    assert local_rows(path)[:30] == central_rows(central, "T01")  # the very records, hash for hash
    assert main(["audit", "verify", "--journal", str(path)]) == 0
    _start(tmp_path, connect)  # the journal holds the central head again: the table starts
    with Journal.open(path, readonly=True) as journal:
        assert journal.count() > 30  # and this start journaled what it runs with after them


def test_a_journal_that_parts_from_its_central_copy_is_refused_and_not_restored(tmp_path, central, capsys):
    from tabled.daemon.assemble import CannotStart
    path = tmp_path / "journal.db"
    _ticks(path, 12)
    ship(path, "T01", table_dsn(central, "T01"))
    _cut(path, 5)
    with Journal.open(path) as journal:  # others written where the lost ones were
        for i in range(10):
            journal.append("tick", {"i": 100 + i})
    from tabled.daemon.heads import write_head
    with Journal.open(path, readonly=True) as journal:
        write_head(path, *journal.head)
    with pytest.raises(CannotStart) as refused:
        _start(tmp_path, lambda: psycopg.AsyncConnection.connect(table_dsn(central, "T01")))
    assert f"the journal {path} and its central copy (table T01) PART at record 12" in str(refused.value)
    capsys.readouterr()
    assert main(["audit", "restore", "--journal", str(path), "--central", central, "--table", "T01"]) == 2
    assert f"journal {path} and the central copy of table T01 PART at record 15: nothing restored" \
        in capsys.readouterr().err
    assert len(local_rows(path)) == 15


def test_a_central_server_out_of_reach_does_not_stop_the_start(tmp_path, central, capfd):
    path = tmp_path / "journal.db"
    _ticks(path, 4)

    async def unreachable():
        raise psycopg.OperationalError("connection refused")
    _start(tmp_path, unreachable)
    assert "journal.central_unchecked" in capfd.readouterr().out

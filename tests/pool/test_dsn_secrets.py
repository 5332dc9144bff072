"""A linked pool's connection string: one that libpq cannot read is a configuration error, and its
password never reaches a log line, an error line or the journal (which cannot be cleaned later)."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from hypothesis import given, settings, strategies as st
from psycopg.conninfo import make_conninfo

from tabled.cli import main
from tabled.daemon.config import ConfigError, load_config
from tabled.table.core import TableCore
from tabled.profiles import load_profile
from tabled.journal.store import Journal
from tabled.host.log import configure_logging, get_logger, scrub_secrets
from tabled.pool.base import PoolError
from tabled.pool.postgresql import PostgresPool, parse_dsn
from tabled.pool.settings import PoolSettings
from tabled.game.limits import Limits
from tabled.daemon.controller import Table
from tests.daemon.tamper import rows as journal_rows

PASSWORD = "Hunter2 Sesame"     # a space: libpq cannot read it unquoted
CONFIG = """
[table]
id = "T01"
spots = 7
minimum_cents = 500
maximum_cents = 50_000
[[pools]]
name = "main"
backend = "postgresql"
dsn = {dsn}
"""


def write(tmp_path: Path, dsn: str) -> Path:
    path = tmp_path / "tabled.toml"
    path.write_text(CONFIG.format(dsn=json.dumps(dsn)))
    return path


@pytest.mark.parametrize("dsn", [
    f"postgresql://tabled:{PASSWORD}@db.lan/tabled",                  # a space in the URL's password
    f"host=db.lan user=tabled password={PASSWORD} dbname=tabled",      # a space, unquoted
    f"host=db.lan password='{PASSWORD}",                               # an unterminated quote
    f"postgresql://tabled:{PASSWORD.replace(' ', '')}@db.lan/tabled?pasword=x",  # an unknown option
    "pool-db.lan",                                                     # not a connection string
])
def test_a_dsn_libpq_cannot_read_is_a_one_line_config_error_without_the_password(capsys, tmp_path, dsn):
    """Before: the table started under 14.13 and wrote the password into the log and the journal."""
    path = write(tmp_path, dsn)
    with pytest.raises(ConfigError, match=r"pools\[0\]\.dsn: not a connection string libpq can read"):
        load_config(path)
    for argv in (["config", "check", str(path)], ["run", "--config", str(path)]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err
        assert f"{path}: pools[0].dsn: not a connection string libpq can read" in lines[0]
        for piece in ("Hunter2", "Sesame", "HunterSesame"):
            assert piece not in err


def test_only_libpq_option_names_are_quoted_back():
    with pytest.raises(PoolError) as info:
        parse_dsn("host=db.lan connect_timeout")
    assert 'missing "=" after "connect_timeout"' in str(info.value)       # an option's name: shown
    with pytest.raises(PoolError) as info:
        parse_dsn("host=db.lan Hunter2=x")
    assert str(info.value) == 'not a connection string libpq can read: invalid connection option "..."'
    with pytest.raises(PoolError) as info:
        parse_dsn("host=db.lan password=Hunter2 Sesame")
    assert "Sesame" not in str(info.value) and "Hunter2" not in str(info.value)


def test_the_pool_command_refuses_a_dsn_it_cannot_read_in_one_line(capsys):
    code = main(["pool", "status", "--dsn", f"postgresql://tabled:{PASSWORD}@db.lan/tabled"])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "not a connection string libpq can read" in err and "Hunter2" not in err


@settings(max_examples=500)
@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1, max_size=30))
def test_scrub_hides_any_password_in_either_form(password):
    keyword = make_conninfo(host="db.lan", user="tabled", password=password, dbname="jackpot")
    assert scrub_secrets(keyword) == make_conninfo(host="db.lan", user="tabled", password="***", dbname="jackpot")
    url = f"postgresql://tabled:{quote(password, safe='')}@db.lan/jackpot?sslmode=require"
    assert scrub_secrets(f"cannot connect to {url}: refused") == \
        "cannot connect to postgresql://tabled:***@db.lan/jackpot?sslmode=require: refused"
    if "*" not in password:                                             # *** is what replaces it
        assert password not in scrub_secrets(f"driver said: {password!r} is wrong", password)


def test_scrub_keeps_what_holds_no_password():
    for text in ("postgresql://tabled@db.lan:5432/jackpot", "host=db.lan user=tabled",
                 'password authentication failed for user "tabled"', "pool main: closed"):
        assert scrub_secrets(text) == text


def test_a_log_line_never_carries_a_password(monkeypatch):
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    log = get_logger()
    log.warning("pool.unreachable", dsn=f"postgresql://tabled:{quote(PASSWORD)}@db/x",
                error=f"could not connect: host=db password='{PASSWORD}'", exc=psycopg.OperationalError(
                    f"FATAL: bad password={PASSWORD.replace(' ', '')}"))
    line = out.getvalue()
    assert json.loads(line)["event"] == "pool.unreachable"
    assert "Hunter2" not in line and "Sesame" not in line and "***" in line


async def test_a_connection_error_that_repeats_the_password_reaches_no_log_line_and_no_journal_record(
        tmp_path, monkeypatch):
    """The pool cannot be reached and the driver's message holds the password (as libpq's do when
    they quote the connection string): the fault is journaled (14.13) and logged, the password is not."""
    dsn = make_conninfo(host="127.0.0.1", port=1, user="tabled", password=PASSWORD, dbname="jackpot",
                        connect_timeout=1)

    async def refuse(conninfo, **kwargs):
        raise psycopg.OperationalError(f"connection to server failed: conninfo {conninfo!r} (password {PASSWORD})")

    monkeypatch.setattr(psycopg.AsyncConnection, "connect", refuse)
    log = io.StringIO()
    configure_logging("json", "debug", stream=log)
    profile = load_profile("nsw")
    journal_path = tmp_path / "journal.db"
    journal = Journal.open(journal_path)
    pool = await PostgresPool.open(dsn, "main", "T01", PoolSettings(2500, 1_000_000), wait_for_link=True)
    assert not pool.ready
    core = TableCore("T01", 7, Limits(500, 50_000, 100, profile.progressive_wager_cents), profile)
    table = Table(core, journal, pool, retry_interval=0.05)
    task = asyncio.create_task(table.run())
    try:
        await table.resume([])
        assert await table.feed.meter_shown(2) is False

        async def faulted() -> None:
            while "pool" not in table.core.equipment.faults:
                await asyncio.sleep(0.01)
        await asyncio.wait_for(faulted(), 10)
    finally:
        table.stop()
        await asyncio.wait_for(task, 5)
        await pool.close()
        journal.close()
    raised = [r for r in Journal.open(journal_path, readonly=True).records_after(0) if r.kind == "fault.raised"]
    assert raised and "cannot reach the pool database" in raised[0].payload["reason"]
    assert "***" in raised[0].payload["reason"]
    with sqlite3.connect(journal_path) as db:                         # every byte the journal holds
        dump = "\n".join(db.iterdump())
    dump += "\n".join(map(str, journal_rows(journal_path)))           # and every payload as text (format 2 deflates)
    for piece in ("Hunter2", "Sesame"):
        assert piece not in dump and piece not in log.getvalue()


@pytest.mark.parametrize("dsn, message", [
    ("postgresql://tabled:S3cr3t@127.0.0.1/jackpot",
     "pools[0].dsn: holds a password: the password comes from systemd's credential pool-password"),
    ("host=pool.casino.lan user=tabled dbname=jackpot",
     "pools[0].dsn: reaches pool.casino.lan without verifying its TLS certificate: add sslmode=verify-full"),
    ("postgresql://tabled@pool.casino.lan/jackpot?sslmode=require",
     "pools[0].dsn: reaches pool.casino.lan without verifying its TLS certificate"),
])
def test_a_pool_dsn_with_a_password_or_an_unverified_server_is_refused_at_config_load(tmp_path, capsys, dsn,
                                                                                        message):
    path = write(tmp_path, dsn)
    with pytest.raises(ConfigError, match=message.replace("[0]", r"\[0\]")):
        load_config(path)
    assert main(["config", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "S3cr3t" not in err and err.count("\n") == 1


@pytest.mark.parametrize("dsn", ["postgresql://tabled@pool.casino.lan/jackpot?sslmode=verify-full&sslrootcert=ca.pem",
                                 "host=pool.casino.lan sslmode=verify-ca user=tabled dbname=jackpot",
                                 "postgresql://tabled@127.0.0.1:5432/jackpot", "host=/run/postgresql dbname=jackpot"])
def test_a_pool_dsn_without_a_password_reaching_a_verified_or_local_server_loads(tmp_path, dsn):
    assert load_config(write(tmp_path, dsn)).pools[0].dsn == dsn


@pytest.mark.postgres
def test_the_pool_password_comes_from_systemds_credential(pg_dsn, tmp_path, monkeypatch):
    parts = psycopg.conninfo.conninfo_to_dict(pg_dsn)
    without = make_conninfo(**{k: v for k, v in parts.items() if k != "password"})
    (tmp_path / "pool-password").write_text(parts["password"] + "\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))

    async def use() -> int:
        pool = await PostgresPool.open(without, "main", "T01", PoolSettings(2500, 1_000_000))
        try:
            return await pool.balance()
        finally:
            await pool.close()
    assert asyncio.run(use()) == 1_000_000

"""What a start puts in the journal, end to end over the simulated devices: the software checked
against the signed release (a changed file refuses the start, naming it), every setting of the
configuration, every commit sealed with the table's key (the simulated table's own, made on its
first start, when none is named), and shipped to the central PostgreSQL as play goes on."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from pathlib import Path

import psycopg
import pytest

from tabled.cli import main
from tabled.commands import run as run_command
from tabled.commands.run import Seams, run_table
from tabled.daemon import shipping
from tabled.daemon.assemble import CannotStart
from tabled.daemon.config import SoftwareConfig
from tabled.journal.store import Journal
from tabled.host import software
from tests.floor.casino import key_files
from tests.pool.pgserver import free_port
from tests.integration.harness import FAST, POLL, Run, Discard, config, journal_records

async def rounds(cfg, tmp: Path, n: int) -> Run:
    async def scenario(run: Run) -> None:
        await run.rounds(n)
    run = Run(scenario)
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp / "dev", hooks=run))
    return run


async def test_a_changed_file_refuses_the_start_and_the_refusal_is_journaled(tmp_path):
    private, public = key_files(tmp_path, "release")
    document = json.loads(software.manifest_document("5.0.0", software.installed_files()))
    name = next(n for n in document["files"] if n.endswith("/tabled/game/settlement.py"))
    document["files"][name] = "0" * 64  # the approved release had other bytes in this file
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())
    (tmp_path / "manifest.json.sig").write_bytes(software.sign_manifest(manifest.read_bytes(), private.read_bytes()))
    cfg = dataclasses.replace(config(tmp_path), software=SoftwareConfig(manifest, tmp_path / "manifest.json.sig",
                                                                        public, development=False))
    with pytest.raises(CannotStart, match=f"not release 5.0.0: changed: {name}"):
        await rounds(cfg, tmp_path, 1)
    checked = journal_records(tmp_path, "software.checked")
    assert [c.payload["result"] for c in checked] == ["mismatch"] and checked[0].payload["problems"] == [
        f"changed: {name}"]
    assert not journal_records(tmp_path, "round.started")  # no round was played


def commits_sealed(path: Path) -> list[tuple[int, int]]:
    """(first, last) record of each commit, checked to end with the seal of exactly its records."""
    with Journal.open(path, readonly=True) as journal:
        records = list(journal.records_after(0))
    commits, first = [], 1
    for r in records:
        if r.kind == "journal.seal":
            assert (r.payload["first"], r.payload["through"]) == (first, r.seq - 1), r
            assert {x.time_us for x in records[first - 1:r.seq]} == {r.time_us}  # one transaction
            commits.append((first, r.seq))
            first = r.seq + 1
    assert first == len(records) + 1, f"records {first} on are not sealed"
    return commits


async def test_a_sealed_journal_checks_out_and_names_its_key(tmp_path, capsys):
    private, public = key_files(tmp_path, "table")
    cfg = config(tmp_path)
    cfg = dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, signing_key=private))
    await rounds(cfg, tmp_path, 3)
    seals = journal_records(tmp_path, "journal.seal")
    assert len(commits_sealed(tmp_path / "journal.db")) == len(seals) > 3 * 10  # every commit, a round many
    started = journal_records(tmp_path, "config.started")
    assert started and started[0].payload["settings"]["table.id"] == "SIM01"
    assert not (tmp_path / "journal-signing.key").exists()  # the key named is the one used
    capsys.readouterr()
    assert main(["audit", "verify", "--journal", str(tmp_path / "journal.db"), "--public-key", str(public)]) == 0
    out = capsys.readouterr().out
    assert f"sealed by key {seals[0].payload['key']} (seals checked)" in out and "NOT SEALED" not in out


async def test_the_simulated_table_makes_its_own_key_and_seals_like_a_real_one(tmp_path, capsys):
    cfg = config(tmp_path)
    assert cfg.simulation.enabled and cfg.journal.signing_key is None
    await rounds(cfg, tmp_path, 2)
    private, public = tmp_path / "journal-signing.key", tmp_path / "journal-signing.pub"
    assert private.stat().st_mode & 0o777 == 0o600
    commits_sealed(tmp_path / "journal.db")
    key = private.read_bytes()
    await rounds(cfg, tmp_path, 1)  # the next start keeps its key
    assert private.read_bytes() == key and not journal_records(tmp_path, "journal.key")
    commits_sealed(tmp_path / "journal.db")
    capsys.readouterr()
    journal = str(tmp_path / "journal.db")
    assert main(["audit", "verify", "--journal", journal]) == 0
    assert (f"seals NOT CHECKED: no --public-key given (the chain alone does not show a record forged by whoever "
            f"can write the file); the public key made beside this journal is {public} (--public-key {public})"
            in capsys.readouterr().out)
    assert main(["audit", "verify", "--journal", journal, "--public-key", str(public)]) == 0
    assert "(seals checked)" in capsys.readouterr().out


@pytest.mark.postgres
async def test_the_journal_is_shipped_while_play_goes_on(tmp_path, pg_dsn, monkeypatch):
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        shipping.migrate(admin)
        shipping.register_table(admin, "SIM01", "tabled_sim01_" + pg_dsn.rsplit("_", 1)[-1], "table-pw")
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / shipping.PASSWORD_CREDENTIAL).write_text("table-pw\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    user_dsn = "postgresql://tabled_sim01_" + pg_dsn.rsplit("_", 1)[-1] + "@" + pg_dsn.split("@", 1)[1]
    cfg = config(tmp_path)
    cfg = dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, ship_to=user_dsn))
    await rounds(cfg, tmp_path, 3)
    # the last records of the stop may still be on their way: a shipper started again catches up
    shipper = shipping.Shipper(tmp_path / "journal.db", "SIM01", shipping.connector(user_dsn))
    task = asyncio.create_task(shipper.run())
    async with asyncio.timeout(30):
        await shipper.caught_up()
    task.cancel()
    assert main(["audit", "compare", "--journal", str(tmp_path / "journal.db"), "--central", pg_dsn,
                 "--table", "SIM01"]) == 0
    with psycopg.connect(pg_dsn) as conn:
        shipped = conn.execute("SELECT count(*) FROM journal_records WHERE table_id = 'SIM01'").fetchone()[0]
    assert shipped == len(journal_records(tmp_path))


async def rounds_printed(cfg, tmp: Path, n: int) -> str:
    """What ``tabled run`` prints in a terminal while ``n`` rounds are played and the table stops."""
    async def scenario(run: Run) -> None:
        await run.rounds(n)
    out = io.StringIO()
    await run_table(cfg, 0, out=out, human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp / "dev", hooks=Run(scenario)))
    return out.getvalue()


def shipping_config(tmp_path: Path, pg_dsn: str, monkeypatch, password: str | None = "table-pw"):
    """The simulated table shipping as table SIM01's own role; ``password``: its credential's text
    (None: no credential file)."""
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        shipping.migrate(admin)
        shipping.register_table(admin, "SIM01", "tabled_sim01_" + pg_dsn.rsplit("_", 1)[-1], "table-pw")
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    if password is not None:
        (credentials / shipping.PASSWORD_CREDENTIAL).write_text(password + "\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    user_dsn = "postgresql://tabled_sim01_" + pg_dsn.rsplit("_", 1)[-1] + "@" + pg_dsn.split("@", 1)[1]
    cfg = config(tmp_path)
    return dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, ship_to=user_dsn))


@pytest.mark.postgres
async def test_a_clean_stop_leaves_every_record_on_the_central_copy(tmp_path, pg_dsn, monkeypatch):
    """The stop's own records (the round's end, the seal, the stop) are shipped before the daemon exits."""
    cfg = shipping_config(tmp_path, pg_dsn, monkeypatch)
    printed = await rounds_printed(cfg, tmp_path, 2)
    assert "not on the central copy" not in printed
    local = [(r.seq, r.hash) for r in journal_records(tmp_path)]
    with psycopg.connect(pg_dsn) as conn:
        central = conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = 'SIM01' ORDER BY seq").fetchall()
    assert central == local and len(local) > 20


@pytest.mark.postgres
async def test_a_stop_with_the_central_server_away_says_what_it_left(tmp_path, pg_dsn, monkeypatch):
    monkeypatch.setattr(run_command, "SHIP_ON_STOP_S", 1.0)
    cfg = shipping_config(tmp_path, pg_dsn, monkeypatch)
    away = f"postgresql://tabled_sim01@127.0.0.1:{free_port()}/journal"
    cfg = dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, ship_to=away))
    printed = await rounds_printed(cfg, tmp_path, 1)
    left = len(journal_records(tmp_path))
    line = next(ln for ln in printed.splitlines() if "not on the central copy" in ln)
    assert line.startswith(f"  journal {left} records not on the central copy (it has records to 0): "), line
    assert "connection" in line and line.endswith("the next start sends them"), line


@pytest.mark.parametrize("password", [None, "", "unreadable"])
async def test_shipping_without_its_credential_does_not_start(tmp_path, monkeypatch, password):
    """A missing, empty or unreadable credential is a start error naming it; nothing is opened."""
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path / "credentials"))
    (tmp_path / "credentials").mkdir()
    credential = tmp_path / "credentials" / shipping.PASSWORD_CREDENTIAL
    if password == "unreadable":
        credential.mkdir()  # not a file: read by no one
    elif password is not None:
        credential.write_text(password)
    cfg = config(tmp_path)
    cfg = dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, ship_to="postgresql://t@127.0.0.1/j"))
    said = {None: "is missing", "": "is empty", "unreadable": "cannot be read"}[password]
    with pytest.raises(shipping.ShippingError,
                       match=f"journal.ship_to: systemd's credential journal-central-password {said} "):
        await rounds(cfg, tmp_path, 1)
    assert not (tmp_path / "journal.db").exists()


def test_shipping_at_a_shell_needs_a_password_libpq_finds(tmp_path, capsys):
    """Without systemd's credentials, PGPASSWORD or a password file must give it; else `tabled run`
    stops at once with exit 2."""
    environ = {"HOME": str(tmp_path)}
    with pytest.raises(shipping.ShippingError, match="no password: systemd's credential journal-central-password "
                                                     "is not given"):
        shipping.connector("postgresql://t@127.0.0.1/j", environ)
    shipping.connector("postgresql://t@127.0.0.1/j", {**environ, "PGPASSWORD": "pw"})
    (tmp_path / ".pgpass").write_text("127.0.0.1:5432:j:t:pw\n")
    shipping.connector("postgresql://t@127.0.0.1/j", environ)


def test_a_central_dsn_with_a_password_or_without_tls_verification_is_refused():
    assert "password comes from systemd" in shipping.dsn_problem("postgresql://t:secret@db.casino.lan/j")
    assert "without verifying its TLS certificate" in shipping.dsn_problem("postgresql://t@db.casino.lan/j")
    assert shipping.dsn_problem("postgresql://t@db.casino.lan/j?sslmode=verify-full") is None
    assert shipping.dsn_problem("postgresql://t@127.0.0.1:5432/j") is None

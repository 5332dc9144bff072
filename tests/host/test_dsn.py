"""A connection string's errors never repeat its password: libpq quotes the text it could not read
("unexpected spaces found in \"S3CRET PW\""), and every place that reports such an error -- the
table's ``journal.ship_to``, the floor's ``central``, ``tabled audit compare --central`` --
quotes nothing of the string but option names, on one line."""

from __future__ import annotations

import psycopg
import pytest

from tabled.cli import main
from tabled.journal.store import Journal
from tabled.host.dsn import dsn_problem, server_said, unreadable_dsn
from tests.daemon.configs import MINIMAL_TABLE

#: connection strings libpq cannot read, each with the password "S3CRET PW" in it
UNREADABLE = [
    "postgresql://t:S3CRET PW@127.0.0.1/j",
    "postgresql://t@127.0.0.1/j?password=S3CRET PW",
    "host=127.0.0.1 user=t password=S3CRET PW",
    "host=127.0.0.1 password='S3CRET PW",
    "postgresql://t:S3CRET PW@[127.0.0.1/j",
]


def hides_the_password(text: str) -> bool:
    return "S3CRET" not in text and "PW" not in text and "\n" not in text.strip()


@pytest.mark.parametrize("dsn", UNREADABLE)
def test_a_connection_string_libpq_cannot_read_is_named_without_its_text(dsn):
    problem = dsn_problem(dsn, "journal-central-password")
    assert problem is not None and problem.startswith("not a connection string libpq can read: "), problem
    assert hides_the_password(problem), problem
    assert unreadable_dsn("postgresql://t@127.0.0.1/j") is None


def test_what_the_server_said_is_one_line_without_the_password():
    said = server_said(psycopg.OperationalError('connection to "db" failed: password=S3CRET\nDETAIL: S3CRET PW'),
                       "S3CRET PW")
    assert said == 'connection to "db" failed: password=***'


@pytest.mark.parametrize("dsn", UNREADABLE[:2])
def test_config_check_of_a_ship_to_it_cannot_read_does_not_echo_the_password(tmp_path, capsys, dsn):
    config = tmp_path / "tabled.toml"
    config.write_text(MINIMAL_TABLE + f'\n[journal]\npath = "{tmp_path / "journal.db"}"\nship_to = "{dsn}"\n')
    assert main(["config", "check", str(config)]) == 2
    err = capsys.readouterr().err
    assert "journal.ship_to: not a connection string libpq can read" in err and hides_the_password(err), err


@pytest.mark.parametrize("dsn", UNREADABLE[:2])
def test_the_floors_central_it_cannot_read_does_not_echo_the_password(tmp_path, capsys, dsn):
    (tmp_path / "T01.pub").write_text("")
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\ncentral = "{dsn}"\n[floor.keys]\nT01 = "T01.pub"\n')
    assert main(["floor", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "not a connection string libpq can read" in err and hides_the_password(err), err


@pytest.mark.parametrize("dsn", UNREADABLE)
def test_audit_compare_with_a_central_it_cannot_read_does_not_echo_the_password(tmp_path, capsys, dsn):
    path = tmp_path / "journal.db"
    Journal.open(path).close()
    assert main(["audit", "compare", "--journal", str(path), "--table", "T01", "--central", dsn]) == 2
    err = capsys.readouterr().err
    assert "--central: not a connection string libpq can read" in err and hides_the_password(err), err

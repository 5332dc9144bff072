"""Inputs that used to end in a traceback or a hang: each is now one line naming the key or the
problem, exit status 2. Sizes (1 MiB a file), depths (32 levels) and money (MAX_CENTS) are bounded.
Everything goes through the command line, as a person would meet it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tabled.game.checks import MAX_CENTS
from tabled.cli import main
from tabled.daemon.config import ConfigError, load_config
from tabled.host.documents import MAX_BYTES, MAX_DEPTH
from tabled.pool.base import PoolError
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings

from tests.daemon.configs import MINIMAL_TABLE

REPO = Path(__file__).resolve().parents[2]
TABLED = [sys.executable, "-c", "import sys; from tabled.cli import main; sys.exit(main())"]
BASE = MINIMAL_TABLE
ROUND = {"profile": "nsw", "spot_count": 7, "dealer": "As Kd 7h 4c 2s", "pool_cents": 1_000_000,
         "spots": [{"spot": 1, "cards": "Ac Ad 9s 8s 3h", "ante_cents": 500, "bet_cents": 1000}]}


def refused(capsys, *argv: str) -> str:
    """The one line of a command that must refuse its input."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert len(lines[0]) < 400, lines[0]                 # one readable line, not a dump of the input
    return lines[0]


def config(tmp_path: Path, text: str, name: str = "tabled.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- nesting ------------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 5_000])
def test_a_config_nested_thousands_deep_is_one_line(capsys, tmp_path, levels):
    """Before: RecursionError from the TOML parser (from about 400 levels)."""
    path = config(tmp_path, BASE + "[log]\nformat = " + "[" * levels + "]" * levels + "\n")
    line = refused(capsys, "config", "check", str(path))
    assert line == f"tabled config: error: {path}: is nested more than {MAX_DEPTH} levels deep"


def test_a_profile_nested_thousands_deep_is_one_line(capsys, tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("name = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    path = config(tmp_path, BASE.replace('profile = "nsw"', 'profile = "deep.toml"'))
    line = refused(capsys, "config", "check", str(path))
    assert f"{path}: table.profile: profile '{deep}' is nested more than {MAX_DEPTH} levels deep" in line
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps(ROUND))
    assert "is nested more than" in refused(capsys, "settle", str(round_file), "--profile", str(deep))


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 100_000])
def test_a_round_json_nested_thousands_deep_is_one_line(capsys, tmp_path, levels):
    path = tmp_path / "round.json"
    path.write_text('{"profile": "nsw", "spots": ' + "[" * levels + "]" * levels + "}")
    assert refused(capsys, "settle", str(path)) == \
        f"tabled settle: error: {path}: is nested more than {MAX_DEPTH} levels deep"


def test_a_config_or_a_profile_holding_a_number_of_thousands_of_digits_is_one_line(capsys, tmp_path):
    """Before: "internal error ... Exceeds the limit (4300 digits)", exit status 70."""
    path = config(tmp_path, BASE.replace("minimum_cents = 500", "minimum_cents = " + "9" * 5000))
    assert refused(capsys, "config", "check", str(path)) == \
        f"tabled config: error: {path}: holds a whole number of more than 4300 digits: too long to be any setting"
    big = tmp_path / "big.toml"
    big.write_text("ante_odds = " + "1" * 5000 + "\n")
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps(ROUND))
    assert "holds a whole number of more than 4300 digits" in refused(capsys, "settle", str(round_file),
                                                                      "--profile", str(big))


# -- sizes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_settle_and_config_read_an_endless_file_only_so_far(tmp_path, device):
    """Before: `tabled settle /dev/zero` read for ever (and filled the memory)."""
    for argv in (["settle", device], ["config", "check", device], ["run", "--config", device]):
        r = subprocess.run([*TABLED, *argv], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                           env={k: v for k, v in os.environ.items() if k not in ("INVOCATION_ID", "NOTIFY_SOCKET")})
        assert r.returncode == 2 and r.stdout == "", r
        (line,) = r.stderr.strip().splitlines()
        assert line.endswith(f"{device}: is larger than {MAX_BYTES} bytes: too large to be one (read no further)")


def test_settle_reads_standard_input_only_so_far(capsys, monkeypatch):
    class Endless:
        def read(self, n: int) -> bytes:
            return b" " * n
    monkeypatch.setattr("sys.stdin", type("Stdin", (), {"buffer": Endless()})())
    assert "standard input: is larger than" in refused(capsys, "settle", "-")


# -- duplicate keys -----------------------------------------------------------------------------


@pytest.mark.parametrize("text, key", [
    ('{"profile": "nsw", "pool_cents": 5, "pool_cents": 1000000}', "pool_cents"),
    ('{"profile": "nsw", "spots": [{"spot": 1, "bet_cents": 1000, "bet_cents": 0}]}', "bet_cents"),
])
def test_a_round_json_naming_a_key_twice_is_refused(capsys, tmp_path, text, key):
    """Before: the last one silently won (a bet of $10.00 settled as no bet)."""
    path = tmp_path / "round.json"
    path.write_text(text)
    assert refused(capsys, "settle", str(path)) == (
        f"tabled settle: error: {path}: names the key '{key}' twice in one object "
        "(which one was meant is not known)")


# -- money --------------------------------------------------------------------------------------


@pytest.mark.parametrize("key, old, new", [
    ("table.maximum_cents", "maximum_cents = 50_000", "maximum_cents = 1_000_000_000_000_000_000_000_000_000_000"),
    ("table.minimum_cents", "minimum_cents = 500", f"minimum_cents = {2**63}"),
    ("table.progressive_wager_cents", "unit_cents = 100",
     f"unit_cents = 100\nprogressive_wager_cents = {MAX_CENTS + 100}"),
])
def test_limits_of_ten_to_the_thirty_are_refused(capsys, tmp_path, key, old, new):
    """Before: accepted (10^30 cents as a table maximum)."""
    path = config(tmp_path, BASE.replace(old, new))
    line = refused(capsys, "config", "check", str(path))
    assert f"{path}: {key}: must be at most {MAX_CENTS} cents (the most any amount may be)" in line


@pytest.mark.parametrize("value", [2**63, 10**30])
def test_a_reset_value_too_large_for_sqlite_is_refused_by_name(capsys, tmp_path, value):
    """Before: OverflowError from SQLite when the pool was opened."""
    path = config(tmp_path, BASE + f'[[pools]]\nname = "main"\nprimary = true\nreset_cents = {value}\n')
    assert f"{path}: pools[0].reset_cents: must be at most {MAX_CENTS} cents" in \
        refused(capsys, "run", "--config", str(path))
    assert not (tmp_path / "var").exists()                          # nothing was opened


def test_a_profile_amount_of_ten_to_the_thirty_is_refused(capsys, tmp_path):
    text = (REPO / "tabled" / "profiles" / "nsw.toml").read_text()
    assert "reset_cents = 1_000_000" in text
    (tmp_path / "big.toml").write_text(text.replace("reset_cents = 1_000_000", f"reset_cents = {10**30}"))
    path = config(tmp_path, BASE.replace('profile = "nsw"', 'profile = "big.toml"'))
    assert "key 'progressive.reset_cents' must be at most" in refused(capsys, "config", "check", str(path))


def test_the_pool_command_refuses_a_reset_too_large_for_sqlite(capsys, tmp_path):
    path = tmp_path / "pool.db"

    async def create() -> None:
        pool = await LocalPool.open(path, "main", "T01", PoolSettings(2500, 1_000_000))
        await pool.close()
    asyncio.run(create())
    line = refused(capsys, "pool", "propose", "--path", str(path), "--reset-cents", str(10**30),
                   "--who", "tester", "--approved-by", "auditor", "--why", "too much")
    assert "reset_cents" in line


# -- paths --------------------------------------------------------------------------------------


def test_a_journal_under_a_file_names_the_key(capsys, tmp_path):
    """Before: SQLite's "unable to open database file", naming no key."""
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    path = config(tmp_path, BASE + '[journal]\npath = "notes.txt/journal.db"\n')
    assert refused(capsys, "run", "--config", str(path)) == (
        f"tabled run: error: {path}: journal.path: {tmp_path}/notes.txt/journal.db: "
        f"{tmp_path}/notes.txt is a file, not a directory")


def test_a_pool_path_under_a_file_or_a_directory_names_the_key(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "state").mkdir()
    path = config(tmp_path, BASE + '[[pools]]\nname = "main"\npath = "notes.txt/deeper/pool.db"\n')
    assert f"pools[0].path: {tmp_path}/notes.txt/deeper/pool.db: {tmp_path}/notes.txt is a file" in \
        refused(capsys, "config", "check", str(path))
    path = config(tmp_path, BASE + '[journal]\npath = "state"\n')
    assert f"journal.path: {tmp_path}/state is a directory" in refused(capsys, "config", "check", str(path))


# -- pool names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Main", "main-2", "main.reserve", "2nd", "_main", "m" * 41])
def test_a_pool_name_the_pool_would_refuse_is_refused_by_the_config(capsys, tmp_path, name):
    """Before: accepted by the config, then refused by the pool at open (or, in PostgreSQL, a
    meter channel that LISTEN cannot name)."""
    path = config(tmp_path, BASE + f'[[pools]]\nname = "{name}"\n')
    assert f"{path}: pools[0].name: must be 1-40 lower-case letters, digits or _ starting with a letter, " \
           f"got '{name}'" in refused(capsys, "config", "check", str(path))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.one_of(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,41}", fullmatch=True),
                      st.from_regex(r"[a-z][a-z0-9_]{0,39}", fullmatch=True)))
def test_the_config_accepts_exactly_the_pool_names_the_pool_opens(tmp_path_factory, name):
    tmp = tmp_path_factory.mktemp("pool")
    path = config(tmp, BASE + f'[[pools]]\nname = "{name}"\n')
    try:
        load_config(path)
        accepted = True
    except ConfigError as exc:
        assert "pools[0].name" in str(exc)
        accepted = False

    async def opens() -> bool:
        try:
            pool = await LocalPool.open(tmp / "pool.db", name, "T01", PoolSettings(2500, 1_000_000))
        except PoolError:
            return False
        await pool.close()
        return True
    assert accepted == asyncio.run(opens())


# -- long values stay short in a message ----------------------------------------------------------


def test_a_huge_value_is_shown_short(capsys, tmp_path):
    path = config(tmp_path, BASE.replace("spots = 7", f'spots = "{"7" * 100_000}"'))
    line = refused(capsys, "config", "check", str(path))
    assert f"{path}: table.spots: must be an integer from 1 to 7, got '777" in line

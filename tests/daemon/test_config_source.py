"""Which config a command reads, when a simulated table may start, and `tabled config check`.

One documented way for every command: ``--config``, else ``$TABLED_CONFIG``, else
/etc/tabled/tabled.toml; with none there is no config (never a simulated table by default). A
simulated table starts only when its config says so, and under systemd only when it also says
``allow_service = true``."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from tabled.cli import main
from tabled.commands.config import effective_toml
from tabled.daemon.config import SYSTEM_CONFIG, ConfigError, check_may_start, find_config, load_config, parse_config
from tabled.table.players import masked

REPO = Path(__file__).resolve().parents[2]
SIM = REPO / "config" / "sim.toml"
HARDWARE = REPO / "config" / "hardware.toml"
TABLED = [sys.executable, "-c", "import sys; from tabled.cli import main; sys.exit(main())"]
SERVICE = ("NOTIFY_SOCKET", "INVOCATION_ID", "JOURNAL_STREAM", "TABLED_CONFIG", "WATCHDOG_USEC")


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# -- where the config comes from ----------------------------------------------------------------


def test_the_named_file_then_the_variable_then_etc(tmp_path):
    etc = tmp_path / "etc-tabled.toml"
    env = {"TABLED_CONFIG": str(tmp_path / "from-env.toml")}
    assert find_config("named.toml", environ=env, system=etc) == Path("named.toml")
    assert find_config(None, environ=env, system=etc) == tmp_path / "from-env.toml"
    etc.write_text("")
    assert find_config(None, environ={}, system=etc) == etc
    assert find_config(None, environ={"TABLED_CONFIG": ""}, system=etc) == etc


def test_with_no_config_anywhere_there_is_none(tmp_path):
    with pytest.raises(ConfigError) as info:
        find_config(None, environ={}, system=tmp_path / "absent.toml")
    message = str(info.value)
    assert "no config" in message and "--config" in message and "$TABLED_CONFIG" in message
    assert str(tmp_path / "absent.toml") in message


def test_a_bare_tabled_run_on_a_pc_without_config_starts_nothing(tmp_path):
    """Before: the embedded simulated table started and wrote var/journal.db into the directory."""
    assert not SYSTEM_CONFIG.exists(), "this test needs a machine without /etc/tabled/tabled.toml"
    env = {k: v for k, v in os.environ.items() if k not in SERVICE}
    r = subprocess.run([*TABLED, "run", "--rounds", "1"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r
    line = one_line(r.stderr)
    assert line.startswith("tabled run: error: no config") and "/etc/tabled/tabled.toml" in line
    assert r.stdout == "" and list(tmp_path.iterdir()) == []   # no journal, no pool, nothing


@pytest.mark.parametrize("argv", [["run", "--rounds", "1"], ["recall"], ["audit", "verify"], ["pool", "status"],
                                  ["config", "check"]], ids=lambda a: " ".join(a))
def test_every_command_reads_TABLED_CONFIG(capsys, monkeypatch, tmp_path, argv):
    """Before: `tabled run` ignored $TABLED_CONFIG and played the simulated table."""
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "from-env.toml"
    bad.write_text('[journal]\npath = "j.db"\n')
    monkeypatch.setenv("TABLED_CONFIG", str(bad))
    code, out, err = cli(capsys, *argv)
    assert code == 2 and out == ""
    assert one_line(err).endswith(f"{bad}: table: is missing (the [table] section with id and spots)")


@pytest.mark.parametrize("argv", [["run", "--rounds", "1"], ["recall"], ["audit", "verify"], ["pool", "status"],
                                  ["config", "check"]], ids=lambda a: " ".join(a))
def test_every_command_reads_the_named_config_before_the_variable(capsys, monkeypatch, tmp_path, argv):
    named = tmp_path / "named.toml"
    named.write_text("[table]\n")
    monkeypatch.setenv("TABLED_CONFIG", str(tmp_path / "other.toml"))
    where = [str(named)] if argv == ["config", "check"] else ["--config", str(named)]
    code, _, err = cli(capsys, *argv, *where)
    assert code == 2 and f"{named}: table.id: is missing" in one_line(err)


# -- a simulated table only when the config says so, and as a service only when allowed ---------


def test_a_config_is_a_real_table_unless_it_says_simulation(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text('[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n')
    cfg = load_config(path)
    assert not cfg.simulation.enabled and not cfg.simulation.allow_service


@pytest.mark.parametrize("variable", ["NOTIFY_SOCKET", "INVOCATION_ID"])
def test_a_simulated_config_is_refused_under_systemd(capsys, monkeypatch, variable):
    monkeypatch.setenv(variable, "/run/systemd/notify" if variable == "NOTIFY_SOCKET" else "0123abcd")
    code, out, err = cli(capsys, "run", "--config", str(SIM), "--rounds", "1")
    assert code == 2 and out == ""
    line = one_line(err)
    assert f"{SIM}: simulation.enabled: a simulated table does not run as a systemd service" in line
    assert "allow_service = true" in line
    code, out, err = cli(capsys, "config", "check", str(SIM))     # the unit's check says the same
    assert code == 2 and out == "" and "allow_service = true" in one_line(err)


def test_a_simulated_config_that_allows_it_may_run_as_a_service():
    sim = load_config(SIM)
    allowed = replace(sim, simulation=replace(sim.simulation, allow_service=True))
    check_may_start(allowed, {"INVOCATION_ID": "0123abcd", "NOTIFY_SOCKET": "/run/x"})
    check_may_start(sim, {})                                        # in a terminal: as it says
    check_may_start(load_config(HARDWARE), {"INVOCATION_ID": "0123abcd"})  # a real table: always


def test_make_run_names_the_simulated_config():
    makefile = (REPO / "Makefile").read_text()
    assert "tabled run --config config/sim.toml" in makefile
    assert load_config(SIM).simulation.enabled


# -- tabled config check -----------------------------------------------------------------------


def comparable(cfg):
    """A config without what only says where it was read from."""
    return replace(cfg, source=None, table=replace(cfg.table, profile_name="", profile_path=None))


def read_back(out: str, cfg):
    """The printed configuration read as a config, each simulated player's card (printed masked, as
    ``masked`` shows it) put back whole from ``cfg``."""
    doc = tomllib.loads(out)
    for shown_player, player in zip(doc.get("simulation", {}).get("players", []), cfg.simulation.players):
        assert shown_player.get("card") == (None if player.card is None else masked(player.card))
        if player.card is not None:
            shown_player["card"] = player.card
    return parse_config(doc, "<check output>", Path("/nowhere"))


def installed(tmp_path: Path) -> Path:
    """config/hardware.toml as on a table PC whose release manifest is not there: here, a
    development install instead."""
    path = tmp_path / "hardware.toml"
    path.write_text(HARDWARE.read_text().replace('manifest = "/opt/tabled/manifest.json"', "development = true")
                    .replace('release_key = "/etc/tabled/release-key.pub"', ""))
    return path


@pytest.mark.slow
def test_check_refuses_what_a_start_refuses_the_release_manifest_missing(tmp_path):
    """`tabled run` on the installed config exits 2 when the release manifest is not there (the
    software cannot be verified): `config check` on the same file says so, the same way."""
    env = {k: v for k, v in os.environ.items() if k not in SERVICE}
    messages = []
    for argv in (["config", "check", str(HARDWARE)], ["run", "--config", str(HARDWARE)]):
        r = subprocess.run([*TABLED, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert (r.returncode, r.stdout) == (2, "")
        messages.append(one_line(r.stderr).split(": error: ", 1)[1])
    assert messages[0] == messages[1] == (
        "the installed software cannot be verified: /opt/tabled/manifest.json: No such file or "
        "directory (set [software] manifest and release_key, or development = true for a development install)")


@pytest.mark.parametrize("which", ["sim", "hardware"])
def test_check_prints_the_effective_config_which_reads_back_the_same(capsys, monkeypatch, tmp_path, which):
    for name in SERVICE:
        monkeypatch.delenv(name, raising=False)
    path = SIM if which == "sim" else installed(tmp_path)
    code, out, err = cli(capsys, "config", "check", str(path))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == f"# {path.resolve()}: valid. The effective configuration " \
                                  "(defaults filled in, paths resolved):"
    again = read_back(out, load_config(path))
    assert comparable(again) == comparable(load_config(path))
    assert again.journal.path.is_absolute() and all(p.path.is_absolute() for p in again.pools)


def test_check_prints_every_key_a_config_may_set(capsys, monkeypatch, tmp_path):
    """Keys left at their defaults by the shipped configs read back too: a USB device reached
    through a port, the simulated people's pace."""
    for name in SERVICE:
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "tabled.toml"
    path.write_text(SIM.read_text().replace("pace_ms = 400", "pace_ms = 25", 1)
                    .replace('"sim-staff.toml"', f'"{SIM.parent}/sim-staff.toml"')
                    + '\n[devices.shoe]\nport = "/dev/tabled-shoe"\n')
    code, out, _ = cli(capsys, "config", "check", str(path))
    assert code == 0
    again = read_back(out, load_config(path))
    assert again.simulation.pace_ms == 25 and again.devices.shoe.port == "/dev/tabled-shoe"
    assert comparable(again) == comparable(load_config(path))


def test_check_resolves_paths_and_shows_the_pool_dsn(capsys, tmp_path):
    (tmp_path / "house.toml").write_text((REPO / "tabled" / "profiles" / "nsw.toml").read_text())
    path = tmp_path / "tabled.toml"
    path.write_text('[table]\nid = "T1"\nspots = 7\nprofile = "house.toml"\nminimum_cents = 500\n'
                    'maximum_cents = 5000\n[journal]\npath = "state/j.db"\n[[pools]]\nname = "main"\n'
                    'backend = "postgresql"\ndsn = "postgresql://tabled@db.lan/tabled?sslmode=verify-full"\n'
                    '[software]\ndevelopment = true\n')
    code, out, _ = cli(capsys, "config", "check", str(path))
    assert code == 0
    doc = tomllib.loads(out)
    assert doc["table"]["profile"] == str(tmp_path / "house.toml")
    assert doc["journal"]["path"] == str(tmp_path / "state" / "j.db")
    assert doc["pools"][0]["dsn"] == "postgresql://tabled@db.lan/tabled?sslmode=verify-full"
    assert doc["pools"][0]["contribution_bp"] == 2500 and doc["table"]["progressive_wager_cents"] == 100


def test_check_of_a_bad_config_is_one_line_and_status_2(capsys, tmp_path):
    path = tmp_path / "tabled.toml"
    path.write_text('[table]\nid = "T1"\nspots = 9\nminimum_cents = 500\nmaximum_cents = 5000\n')
    code, out, err = cli(capsys, "config", "check", str(path))
    assert (code, out) == (2, "")
    assert one_line(err) == f"tabled config: error: {path}: table.spots: must be an integer from 1 to 7, got 9"


@pytest.mark.slow
def test_check_is_the_same_as_the_daemon_in_a_real_process(tmp_path):
    """The unit relies on exit status 2 from both (RestartPreventExitStatus=2)."""
    path = tmp_path / "tabled.toml"
    path.write_text('[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n[simulaton]\n')
    env = {k: v for k, v in os.environ.items() if k not in SERVICE}
    for argv in (["config", "check", str(path)], ["run", "--config", str(path)]):
        r = subprocess.run([*TABLED, *argv], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and r.stdout == ""
        assert one_line(r.stderr).endswith(f"{path}: simulaton: unknown key (a typo?)")


def test_effective_toml_keeps_players_and_device_serials():
    sim = load_config(SIM)
    text = effective_toml(sim)
    assert tomllib.loads(text)["simulation"]["players"][3] == {
        "spot": 4, "ante_cents": 2500, "progressive": True, "strategy": "optimal",
        "card": "\u2022\u2022\u2022\u20224004"}


def test_check_shows_the_simulated_players_cards_masked_to_their_last_four(capsys, monkeypatch):
    """The file is the operator's; the check's output goes to terminals and logs, where a card
    number is masked as everywhere outside the journal (docs/ratings.md, "Privacy")."""
    for name in SERVICE:
        monkeypatch.delenv(name, raising=False)
    cards = [p.card for p in load_config(SIM).simulation.players if p.card is not None]
    assert len(cards) == 4
    code, out, err = cli(capsys, "config", "check", str(SIM))
    assert code == 0 and err == ""
    assert not any(card in out for card in cards)
    shown = [p.get("card") for p in tomllib.loads(out)["simulation"]["players"]]
    assert shown[:4] == ["\u2022\u2022\u2022\u2022" + card[-4:] for card in cards] and shown[4:] == [None] * 3


def test_a_bad_card_in_a_config_is_refused_without_its_number(capsys, tmp_path):
    """A card number misread by a character is still a player's: the refusal says what is wrong only."""
    path = tmp_path / "tabled.toml"
    path.write_text(SIM.read_text().replace('card = "4000100010002002"', 'card = "4000-1000-1000-2002"')
                    .replace('"sim-staff.toml"', f'"{SIM.parent}/sim-staff.toml"'))
    code, out, err = cli(capsys, "config", "check", str(path))
    assert (code, out) == (2, "")
    assert one_line(err).endswith("simulation.players[1].card: a player card number is letters and digits only")
    assert "4000-1000" not in err and "1000-2002" not in err


def test_a_staff_list_given_as_a_config_is_named_for_what_it_is(capsys):
    code, out, err = cli(capsys, "config", "check", str(REPO / "config" / "sim-staff.toml"))
    assert code == 2 and out == ""
    assert "table: is missing" in err and "this file is a staff list, not a table's config" in err
    code, out, err = cli(capsys, "config", "check", str(HARDWARE.with_name("no-such.toml")))
    assert code == 2 and "staff list" not in err

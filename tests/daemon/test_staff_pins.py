"""A PIN keyed at the panel never reaches the journal or the log: the shell checks it against the
staff list's salted hash and journals only whether it was right (tabled/daemon/devices.py). The
test grepps the bytes of every file the run wrote, and everything it printed, for the PINs typed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import ConfigError, load_config
from tabled.daemon.staff import hash_pin, pin_matches, read_staff
from tests.integration.harness import FAST, POLL, Discard, Run, config, journal_records, sign_in_paced

import pytest

ROOT = Path(__file__).resolve().parents[2]
RIGHT, WRONG = "86420975", "19283746"  # digits that appear nowhere else in a run


def staff_file(tmp: Path) -> Path:
    """The simulated table's list (its dealer signs in by itself) and one more dealer, badge 5001."""
    path = tmp / "staff.toml"
    path.write_text((ROOT / "config" / "sim-staff.toml").read_text()
                    + f'\n[[person]]\nbadge = 5001\nname = "Dana Wu"\nroles = ["dealer"]\npin = "{hash_pin(RIGHT)}"\n')
    return path


@pytest.mark.slow
async def test_the_pins_keyed_are_in_no_file_the_run_wrote_and_nothing_it_printed(tmp_path, capfd):
    async def scenario(run: Run) -> None:
        await run.rounds(1)
        for pin in (WRONG, WRONG, RIGHT):  # at a pace the panel has checked
            await sign_in_paced(run, tmp_path, 5001, pin)
        await run.until(lambda: run.core.staff.on.get("dealer") == 5001, act=False)

    run = Run(scenario)
    cfg = dataclasses.replace(config(tmp_path), staff=read_staff(staff_file(tmp_path), 5, 15))
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp_path / "dev", hooks=run))
    ins = [{k: v for k, v in r.payload.items() if k not in ("src", "seq")}  # the frame's number
           for r in journal_records(tmp_path, "staff.sign_in") if r.payload["badge"] == 5001]
    assert ins == [{"badge": 5001, "role": "dealer", "pin_ok": False}] * 2 + [
        {"badge": 5001, "role": "dealer", "pin_ok": True}]
    printed = capfd.readouterr()
    for pin in (RIGHT, WRONG):
        spaced = ", ".join(pin)  # the digits as a list, as the frame carries them
        for path in tmp_path.rglob("*"):
            if path.is_file() and path.name != "staff.toml":
                data = path.read_bytes()
                assert pin.encode() not in data and spaced.encode() not in data, path
        assert pin not in printed.out + printed.err and spaced not in printed.out + printed.err
    # nor is the hash: the configuration journaled at start leaves every PIN's hash out
    (started,) = journal_records(tmp_path, "config.started")
    assert not [k for k in started.payload["settings"] if "pin" in k]
    assert "scrypt$" not in str(started.payload)


def test_a_pin_hash_is_salted_and_checks_only_its_pin():
    a, b = hash_pin("2468"), hash_pin("2468")
    assert a != b and a.startswith("scrypt$n=16384,r=8,p=1$")  # a salt of its own each time
    assert pin_matches("2468", a) and pin_matches("2468", b) and not pin_matches("2469", a)


@pytest.mark.parametrize("person, problem", [
    ('badge = 0\nname = "A"\nroles = ["dealer"]\npin = "{h}"', "person[0].badge: must be an integer from 1"),
    ('badge = 7\nname = "  "\nroles = ["dealer"]\npin = "{h}"', "person[0].name: must be non-empty text"),
    ('badge = 7\nname = "A\\u0007"\nroles = ["dealer"]\npin = "{h}"', "person[0].name: must be 1-64 printable"),
    ('badge = 7\nname = "A"\nroles = ["owner"]\npin = "{h}"', "person[0].roles: must be a list of distinct roles"),
    ('badge = 7\nname = "A"\nroles = []\npin = "{h}"', "person[0].roles: must be a list"),
    ('badge = 7\nname = "A"\nroles = ["dealer"]\npin = "2468"', "person[0].pin: not a PIN hash of `tabled staff"),
    ('badge = 7\nname = "A"\nroles = ["dealer"]\npin = "{h}"\ncolour = "red"', "person[0].colour: unknown key"),
    ('badge = 7\nname = "A"\nroles = ["dealer"]', "person[0].pin: is missing"),
])
def test_a_bad_staff_file_is_refused_naming_the_file_and_the_key(tmp_path, person, problem):
    (tmp_path / "staff.toml").write_text("[[person]]\n" + person.replace("{h}", hash_pin("2468")) + "\n")
    config = tmp_path / "tabled.toml"
    config.write_text('[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n'
                      '[staff]\nfile = "staff.toml"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert f"{config}: staff.file: {tmp_path / 'staff.toml'}: {problem}" in str(caught.value)


def test_staff_settings_are_checked_and_a_missing_file_named(tmp_path):
    config = tmp_path / "tabled.toml"
    base = '[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n[staff]\n'
    config.write_text(base + 'file = "nobody.toml"\n')
    with pytest.raises(ConfigError, match="staff.file: .*nobody.toml: no such staff file"):
        load_config(config)
    (tmp_path / "staff.toml").write_text((ROOT / "config" / "sim-staff.toml").read_text())
    config.write_text(base + 'file = "staff.toml"\nattempts = 0\n')
    with pytest.raises(ConfigError, match="staff.attempts: must be an integer from 1 to 20, got 0"):
        load_config(config)
    config.write_text(base + 'file = "staff.toml"\nlockout_minutes = 3\n')
    cfg = load_config(config)
    assert cfg.staff is not None and (cfg.staff.attempts, cfg.staff.lockout_minutes) == (5, 3)
    assert [p.badge for p in cfg.staff.people] == [1001, 2001, 3001, 4001]
    assert "pin" not in repr(cfg.staff.people[0]) and "scrypt" not in repr(cfg.staff)
    assert load_config(None).staff is None  # no [staff]: the key alone acts


def test_the_simulated_staffs_published_pins_are_those_of_the_simulated_list():
    from tabled.sim.players import SIMULATED_STAFF
    staff = read_staff(ROOT / "config" / "sim-staff.toml", 5, 15)
    for role, (badge, pin) in SIMULATED_STAFF.items():
        person = staff.person(badge)
        assert person is not None and role in person.roles and staff.check(badge, pin)
    assert load_config(ROOT / "config" / "sim.toml").staff is not None

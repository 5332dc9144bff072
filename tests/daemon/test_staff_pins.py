"""A PIN keyed at the panel never reaches the journal or the log: the shell checks it against the
staff list's salted hash and journals only whether it was right (tabled/daemon/devices.py). The
test grepps the bytes of every file the run wrote, and everything it printed, for the PINs typed."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import date
from pathlib import Path

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import ConfigError, load_config
from tabled.daemon.staff import StaffError, hash_pin, pin_matches, read_staff
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
    # (the day each PIN was set, its age's start, is a setting like any other)
    assert not [k for k, v in started.payload["settings"].items() if "pin_hash" in k or "scrypt$" in str(v)]
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
    assert [p.badge for p in cfg.staff.people] == [1001, 2001, 3001, 4001, 6001]
    assert "pin_hash" not in repr(cfg.staff.people[0]) and "scrypt" not in repr(cfg.staff)
    assert load_config(None).staff is None  # no [staff]: the key alone acts


def test_the_simulated_staffs_published_pins_are_those_of_the_simulated_list():
    from tabled.sim.players import SIMULATED_STAFF
    staff = read_staff(ROOT / "config" / "sim-staff.toml", 5, 15)
    for role, (badge, pin) in SIMULATED_STAFF.items():
        person = staff.person(badge)
        assert person is not None and role in person.roles and staff.check(badge, pin)
    assert load_config(ROOT / "config" / "sim.toml").staff is not None


def test_one_active_badge_per_person_a_second_is_refused_naming_both(tmp_path):
    path = tmp_path / "staff.toml"
    h = hash_pin("2468")
    path.write_text(f'[[person]]\nbadge = 7\nname = "Ana Ruiz"\nroles = ["dealer"]\npin = "{h}"\n'
                    f'[[person]]\nbadge = 8\nname = "ana ruiz"\nroles = ["supervisor"]\npin = "{h}"\n')
    with pytest.raises(StaffError, match=r"person\[1\]\.badge: 'ana ruiz' already has badge 7: one active badge "
                                         r"per person"):
        read_staff(path, 5, 15)


def test_a_pins_age_counts_from_the_day_it_was_set_and_a_change_at_the_panel_is_kept_hashed(tmp_path):
    path = tmp_path / "staff.toml"
    path.write_text(f'[[person]]\nbadge = 7\nname = "Ana Ruiz"\nroles = ["dealer"]\npin = "{hash_pin("2468")}"\n'
                    'pin_set = 2026-01-01\n')
    changed = tmp_path / "staff-pins.json"
    staff = read_staff(path, 5, 15, 90, changed)
    assert staff.pin_age_days(7, date(2026, 4, 1)) == 90 and not staff.expired(7, date(2026, 4, 1))
    assert staff.expired(7, date(2026, 4, 2))
    renewed = staff.with_pin(7, hash_pin("97531"), date(2026, 4, 2))
    assert renewed.check(7, "97531") and not renewed.expired(7, date(2026, 4, 2))
    kept = changed.read_text()
    assert "97531" not in kept and "2026-04-02" in kept and oct(changed.stat().st_mode & 0o777) == "0o600"
    again = read_staff(path, 5, 15, 90, changed)  # the next start reads the changed PIN
    assert again.check(7, "97531") and not again.check(7, "2468")
    # a newer PIN issued in the staff file wins over the one changed at the panel
    path.write_text(path.read_text().replace("2026-01-01", "2026-05-01").replace(
        staff.people[0].pin_hash, hash_pin("1122")))
    newest = read_staff(path, 5, 15, 90, changed)
    assert newest.check(7, "1122") and newest.people[0].pin_set == date(2026, 5, 1)
    path.write_text(path.read_text().replace("2026-05-01", "'May'"))
    with pytest.raises(StaffError, match="pin_set: must be the day the PIN was set, a TOML date"):
        read_staff(path, 5, 15)


@pytest.mark.slow
async def test_an_expired_pin_is_changed_at_the_panel_keyed_twice_and_the_new_one_signs_in(tmp_path, capfd):
    new = "75319864"

    async def changed(run: Run, pin: str) -> None:
        def steps() -> int:
            return len(journal_records(tmp_path, "staff.pin_change"))
        await asyncio.sleep(1.1)  # a person's pace: within the sign-ins the panel has checked a second
        before = steps()
        run.sims.panel.sign_in(5001, pin)
        await run.until(lambda: steps() > before, act=False)

    async def scenario(run: Run) -> None:
        await run.rounds(1)
        await sign_in_paced(run, tmp_path, 5001, RIGHT)  # past its age: signs in this once
        assert 5001 in run.core.staff.must_change
        await changed(run, new)
        await changed(run, new)
        await run.until(lambda: 5001 not in run.core.staff.must_change, act=False)
        run.sims.panel.sign_out(5001)
        await run.until(lambda: run.core.staff.on.get("dealer") != 5001, act=False)
        await sign_in_paced(run, tmp_path, 5001, new)
        await run.until(lambda: run.core.staff.on.get("dealer") == 5001, act=False)

    path = staff_file(tmp_path)
    path.write_text(path.read_text() + "pin_set = 2000-01-01\n")
    cfg = config(tmp_path)
    cfg = dataclasses.replace(cfg, staff=read_staff(path, 5, 15, 90, tmp_path / "staff-pins.json"))
    run = Run(scenario)
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp_path / "dev", hooks=run))
    steps = [r.payload["step"] for r in journal_records(tmp_path, "staff.pin_change")]
    assert steps == ["first", "changed"]
    assert [r.payload["badge"] for r in journal_records(tmp_path, "staff.pin_changed")] == [5001]
    assert journal_records(tmp_path, "staff.pin_expired")[0].payload["max_days"] == 90
    ins = [r.payload for r in journal_records(tmp_path, "staff.sign_in") if r.payload["badge"] == 5001]
    assert [(p["pin_ok"], p.get("pin_expired", False)) for p in ins] == [(True, True), (True, False)]
    printed = capfd.readouterr()
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert new.encode() not in path.read_bytes() and ", ".join(new).encode() not in path.read_bytes(), path
    assert new not in printed.out + printed.err

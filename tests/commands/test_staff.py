"""``tabled staff hash-pin``: the PIN is read from stdin (never argv) and its salted hash printed for
the staff file (docs/staff.md)."""

from __future__ import annotations

import io
import re

from tabled.cli import main
from tabled.daemon.staff import pin_matches


def test_hash_pin_prints_a_salted_hash_that_checks_the_pin_typed(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("024680\n"))
    assert main(["staff", "hash-pin"]) == 0
    line, day = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("scrypt$n=16384,r=8,p=1$") and "024680" not in line
    assert pin_matches("024680", line) and not pin_matches("24680", line)
    assert re.fullmatch(r"pin_set = \d{4}-\d{2}-\d{2}", day)  # the day it was set: its age's start


def test_hash_pin_refuses_what_the_keypad_cannot_type(monkeypatch, capsys):
    for typed in ("12\n", "12ab\n", "123456789\n", "\n"):
        monkeypatch.setattr("sys.stdin", io.StringIO(typed))
        assert main(["staff", "hash-pin"]) == 2
        err = capsys.readouterr().err
        assert "tabled staff: error: a PIN is 4 to 8 digits (the panel's keypad)" in err
        assert typed.strip() not in err or not typed.strip()


def test_the_pin_is_no_argument(capsys):
    assert main(["staff", "hash-pin", "2468"]) == 2  # where `ps` and the shell's history would keep it
    assert "unrecognized arguments" in capsys.readouterr().err


def test_ages_lists_each_pins_age_and_fails_while_one_is_undated_or_expired(tmp_path, capsys):
    from tabled.daemon.staff import hash_pin
    (tmp_path / "staff.toml").write_text(
        f'[[person]]\nbadge = 7\nname = "Ana Ruiz"\nroles = ["dealer"]\npin = "{hash_pin("2468")}"\n'
        'pin_set = 2000-01-01\n'
        f'[[person]]\nbadge = 8\nname = "Bo Chen"\nroles = ["dealer"]\npin = "{hash_pin("1357")}"\n')
    config = tmp_path / "tabled.toml"
    config.write_text('[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n'
                      '[staff]\nfile = "staff.toml"\nmax_pin_age_days = 60\n')
    assert main(["staff", "ages", "--config", str(config)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "Ana Ruiz: " in out[0] and out[0].endswith("days: EXPIRED, changed at the panel at the next sign-in")
    assert out[1].endswith("Bo Chen: no pin_set in the staff file: its age cannot be shown")
    assert out[2] == "2 PINs, at most 60 days old; 2 to see to"

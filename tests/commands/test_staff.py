"""``tabled staff hash-pin``: the PIN is read from stdin (never argv) and its salted hash printed for
the staff file (docs/staff.md)."""

from __future__ import annotations

import io

from tabled.cli import main
from tabled.daemon.staff import pin_matches


def test_hash_pin_prints_a_salted_hash_that_checks_the_pin_typed(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("024680\n"))
    assert main(["staff", "hash-pin"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("scrypt$n=16384,r=8,p=1$") and "024680" not in line
    assert pin_matches("024680", line) and not pin_matches("24680", line)


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

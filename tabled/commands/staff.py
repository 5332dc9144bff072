"""``tabled staff hash-pin``: the line a staff file keeps for a PIN (docs/staff.md); ``tabled staff
ages``: each person's PIN, how old it is and whether it must be changed at the next sign-in.

The PIN is read from the terminal without echo, or as one line on stdin when stdin is not a
terminal; never from the command line, where other users' ``ps`` and the shell's history would
see it. Prints ``scrypt$n=16384,r=8,p=1$<salt>$<hash>`` for the ``pin`` key of a ``[[person]]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import sys

from tabled.commands._arguments import UserError

NAME = "staff"
HELP = ("staff list: hash-pin prints a PIN's salted hash for the staff file (the PIN is read from stdin); "
        "ages lists each PIN's age")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["hash-pin", "ages"],
                        help="hash-pin: read a PIN, print its salted hash and the pin_set line for today; "
                             "ages: each person's PIN age against [staff] max_pin_age_days")
    parser.add_argument("--config", metavar="FILE", help="ages: the daemon's config (default: $TABLED_CONFIG, else "
                        "/etc/tabled/tabled.toml)")


def read_pin(confirm: bool = False, prompt: str = "PIN: ") -> str:
    """A PIN typed at the terminal without echo (twice when ``confirm``), else one line of stdin."""
    if sys.stdin.isatty():
        pin = getpass.getpass(prompt)
        if confirm and getpass.getpass("PIN again: ") != pin:
            raise UserError("the two PINs differ")
        return pin
    return sys.stdin.readline().rstrip("\r\n")


def ages(config: str | None, today: dt.date) -> int:
    """Each person's PIN age; exit 1 when one has no date or is past the maximum age."""
    from tabled.daemon.config import ConfigError, find_config, load_config
    try:
        cfg = load_config(find_config(config))
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    if cfg.staff is None:
        raise UserError("the config has no [staff] section: the key alone acts, there are no PINs")
    staff, bad = cfg.staff, 0
    for person in staff.people:
        age = staff.pin_age_days(person.badge, today)
        if age is None:
            state, bad = "no pin_set in the staff file: its age cannot be shown", bad + 1
        elif staff.expired(person.badge, today):
            state, bad = f"{age} days: EXPIRED, changed at the panel at the next sign-in", bad + 1
        else:
            state = f"{age} days"
        print(f"badge {person.badge:>6}  {person.name}: {state}")
    print(f"{len(staff.people)} PINs, at most {staff.max_pin_age_days} days old; {bad} to see to")
    return 1 if bad else 0


def run(args: argparse.Namespace) -> int:
    from tabled.daemon.staff import StaffError, hash_pin

    today = dt.datetime.now(dt.UTC).date()
    if args.action == "ages":
        return ages(args.config, today)
    try:
        print(hash_pin(read_pin(confirm=True)))
    except StaffError as exc:
        raise UserError(str(exc)) from None
    print(f"pin_set = {today.isoformat()}")
    return 0

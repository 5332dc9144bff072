"""``tabled staff hash-pin``: the line a staff file keeps for a PIN (docs/staff.md).

The PIN is read from the terminal without echo, or as one line on stdin when stdin is not a
terminal; never from the command line, where other users' ``ps`` and the shell's history would
see it. Prints ``scrypt$n=16384,r=8,p=1$<salt>$<hash>`` for the ``pin`` key of a ``[[person]]``.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from tabled.commands._arguments import UserError

NAME = "staff"
HELP = "staff list: hash-pin prints a PIN's salted hash for the staff file (the PIN is read from stdin)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["hash-pin"], help="hash-pin: read a PIN, print its salted hash")


def read_pin(confirm: bool = False) -> str:
    """A PIN typed at the terminal without echo (twice when ``confirm``), else one line of stdin."""
    if sys.stdin.isatty():
        pin = getpass.getpass("PIN: ")
        if confirm and getpass.getpass("PIN again: ") != pin:
            raise UserError("the two PINs differ")
        return pin
    return sys.stdin.readline().rstrip("\r\n")


def run(args: argparse.Namespace) -> int:
    from tabled.daemon.staff import StaffError, hash_pin

    try:
        print(hash_pin(read_pin(confirm=True)))
    except StaffError as exc:
        raise UserError(str(exc)) from None
    return 0

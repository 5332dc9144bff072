"""``tabled sim shuffler|betspots|meter|shoe|panel [--script FILE] [--link PATH]``: a simulated
device on its own pty; prints the port path, then serves until killed (killing it is an unplug).
The shoe and the panel take their keys from this terminal (drivers/sim/keys.py): a person deals
the cards and presses the dealer's buttons; the daemon reaches them with ``port = PATH`` in
``[devices.shoe]`` / ``[devices.panel]``."""

from __future__ import annotations

import argparse

from tabled_drivers.sim import runner

NAME = "sim"
HELP = ("run a simulated device on a pty and print its port path (kill it to unplug); "
        "the shoe and the panel take this terminal's keys")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    runner.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return runner.run(args)  # a ScriptError is the user's: tabled prints it as one line

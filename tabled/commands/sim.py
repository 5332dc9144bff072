"""``tabled sim shuffler|betspots|meter [--script FILE] [--link PATH]``: a simulated serial
device on its own pty; prints the port path, then serves until killed (killing it is an unplug)."""

from __future__ import annotations

import argparse

from tabled_drivers.sim import runner

NAME = "sim"
HELP = "run a simulated serial device on a pty and print its port path (kill it to unplug)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    runner.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return runner.run(args)  # ScriptError is a ValueError: tabled prints it as one line

"""`tabled`, `tabled --help`, `--version` and the help of every command and action."""

from __future__ import annotations

import argparse
import subprocess
import sys
from importlib.metadata import version

import pytest

from tabled.cli import build_parser, command_names, main


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})


def every_help_command() -> list[list[str]]:
    """`--help` and `-h` at the top, then on every command and on every action of a command (an
    action is a sub-subcommand such as `audit verify` or a positional choice such as `pool status`)."""
    lines = [["--help"], ["-h"]]
    for name, sub in _subparsers(build_parser()).items():
        lines += [[name, "--help"], [name, "-h"]]
        for action_name in _subparsers(sub):
            lines.append([name, action_name, "--help"])
        for action in sub._actions:
            if not action.option_strings and action.choices and not isinstance(action, argparse._SubParsersAction):
                lines += [[name, choice, "--help"] for choice in action.choices]
    return lines


def test_the_walk_reaches_the_actions():
    lines = every_help_command()
    assert ["audit", "verify", "--help"] in lines and ["pool", "status", "--help"] in lines
    assert ["sim", "betspots", "--help"] in lines and ["simulate", "--help"] in lines
    assert {line[0] for line in lines[2:]} == set(command_names())


@pytest.mark.parametrize("argv", every_help_command(), ids=" ".join)
def test_help_everywhere_without_a_traceback(argv, capsys):
    assert main(argv) == 0
    out, err = capsys.readouterr()
    command = " ".join(a for a in argv[:1] if not a.startswith("-"))
    assert out.startswith(f"usage: tabled {command}".rstrip() + " ")
    assert "Traceback" not in out + err and err == ""


def run_tabled(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabled", *argv], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_top_level_help_as_a_person_runs_it(flag):
    done = run_tabled(flag)
    assert done.returncode == 0 and "Traceback" not in done.stderr and done.stderr == ""
    assert "simulate" in done.stdout and "95% CI" in " ".join(done.stdout.split())


def test_bare_tabled_lists_every_command():
    done = run_tabled()
    assert done.returncode == 0 and done.stderr == ""
    listed = done.stdout.split("commands:")[1]
    for name in command_names():
        assert f"\n    {name} " in listed, name


def test_version_comes_from_the_package_metadata():
    done = run_tabled("--version")
    assert done.returncode == 0
    assert done.stdout == f"tabled {version('tabled')}\n"


def test_every_command_module_is_named_as_its_file():
    import importlib

    for name in command_names():
        assert importlib.import_module(f"tabled.commands.{name}").NAME == name

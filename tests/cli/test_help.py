"""`tabled`, `tabled --help`, `--version` and the help of every command and action."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from tabled.cli import build_parser, command_names, main


def help_text(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([*argv, "--help"])
    return out.getvalue()


def actions_in_help(text: str) -> list[str]:
    """The actions a command's help lists under "positional arguments": a sub-subcommand is a line
    of its own indented by four (``    verify    check ...``), a positional choice is one of the
    braces' words (``  {status,history,...}``)."""
    section = text.split("positional arguments:\n", 1)[1].split("\n\n", 1)[0] if "positional arguments:" in text else ""
    found: list[str] = []
    for line in section.splitlines():
        if braces := re.match(r"  \{([^}]*)\}", line):
            found += braces.group(1).split(",")
        elif sub := re.match(r" {4}(\S+)", line):
            found.append(sub.group(1))
    return list(dict.fromkeys(found))


def every_help_command() -> list[list[str]]:
    """`--help` and `-h` at the top, then on every command and on every action of a command (an
    action is a sub-subcommand such as `audit verify` or a positional choice such as `pool status`)."""
    lines = [["--help"], ["-h"]]
    for name in command_names():
        lines += [[name, "--help"], [name, "-h"]]
        lines += [[name, action, "--help"] for action in actions_in_help(help_text(name))]
    return lines


def test_the_help_shows_sub_subcommands_and_positional_choices():
    text = """usage: tabled x [-h] ACTION ...

positional arguments:
  ACTION
    verify    check every record's hash
              and link
    compare   compare the journal
  {status,history}
                        status: the meter
  FILE        the round

options:
  -h, --help  show this help message and exit
"""
    assert actions_in_help(text) == ["verify", "compare", "status", "history"]
    assert actions_in_help("usage: tabled rank [-h]\n\noptions:\n  -h, --help  show this\n") == []


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
        # a name longer than argparse's column stands on its own line, its help on the next
        assert f"\n    {name} " in listed or f"\n    {name}\n" in listed, name


def test_version_comes_from_the_package_metadata():
    done = run_tabled("--version")
    assert done.returncode == 0
    assert done.stdout == f"tabled {version('tabled')}\n"


def test_every_command_module_is_named_as_its_file():
    import importlib

    for name in command_names():
        assert importlib.import_module(f"tabled.commands.{name.replace('-', '_')}").NAME == name

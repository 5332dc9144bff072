"""The user's mistakes are one line and exit status 2; a bug in tabled is exit status 70 with a
hint, and its traceback with ``tabled --debug``."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tabled import cli
from tabled.cli import EX_SOFTWARE, EX_USER, USER_ERRORS, command_names, is_users_mistake, main

COMMANDS = Path(cli.__file__).parent / "commands"


@pytest.fixture(autouse=True)
def no_log_set_up():
    """As a command starts: no log until the command sets one up (an earlier test may have)."""
    import structlog

    structlog.reset_defaults()
    yield
    structlog.reset_defaults()


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == EX_USER
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("argv, says", [
    (["rank", "As", "Ks", "Qs", "Js", "Tx"], "tabled rank: error: "),                        # CardError
    (["analyze", "--profile", "atlantis"], "no profile 'atlantis'"),                         # ProfileError
    (["settle", "{tmp}/missing.json"], "{tmp}/missing.json: cannot read it"),                    # RoundError
    (["recall", "--journal", "{tmp}/none.db"], "{tmp}/none.db: no journal there"),           # JournalError
    (["audit", "verify", "--config", "{tmp}/none.toml"], "{tmp}/none.toml: no such config"),  # ConfigError
    (["sim", "meter", "--script", "{tmp}/none.toml"], "cannot read script {tmp}/none.toml"),  # ScriptError
    (["simulate", "--profile", "nsw", "--rounds", "5", "--plot", "{tmp}/no/run.png"],
     "--plot {tmp}/no/run.png: cannot write there"),                                          # UserError
])
def test_the_users_mistakes_are_one_line(tmp_path, capsys, argv, says):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert says.replace("{tmp}", str(tmp_path)) in one_line_error(capsys, argv)


def a_bug(*args, **kwargs):
    raise ValueError("index 7 is out of bounds")  # a ValueError that no input explains


def test_a_bug_is_not_disguised_as_the_users_mistake(monkeypatch, capsys):
    monkeypatch.setattr("tabled.commands.rank.hand_value", a_bug)
    assert main(["rank", "As", "Ks", "Qs", "Js", "Ts"]) == EX_SOFTWARE
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("tabled rank: internal error, a bug in tabled rather than in your input: "
                          "ValueError: index 7 is out of bounds")
    assert "`tabled --debug rank ...` prints the traceback" in err


def test_debug_prints_the_bugs_traceback(monkeypatch, capsys):
    monkeypatch.setattr("tabled.commands.rank.hand_value", a_bug)
    assert main(["--debug", "rank", "As", "Ks", "Qs", "Js", "Ts"]) == EX_SOFTWARE
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert "in a_bug" in err and err.rstrip().splitlines()[-1].startswith("tabled rank: internal error")


def test_a_bug_in_a_command_with_a_log_leaves_its_traceback_there(monkeypatch, capsys):
    """The daemon's log (journald under systemd) keeps what nobody can rerun with --debug."""
    import io
    import json

    from tabled.host.log import configure_logging

    log = io.StringIO()
    configure_logging("json", "info", stream=log)
    monkeypatch.setattr("tabled.commands.rank.hand_value", a_bug)
    assert main(["rank", "As", "Ks", "Qs", "Js", "Ts"]) == EX_SOFTWARE
    (record,) = [json.loads(line) for line in log.getvalue().splitlines()]
    assert record["event"] == "internal_error" and record["command"] == "rank"
    assert "Traceback" in record["exception"] and "in a_bug" in record["exception"]
    assert "Traceback" not in capsys.readouterr().err  # the terminal still gets one line


@pytest.mark.parametrize("exc, users", [
    (FileNotFoundError(2, "No such file or directory", "/srv/round.json"), True),  # a file the user named
    (PermissionError(13, "Permission denied", "/var/lib/tabled/journal.db"), True),
    (ConnectionResetError(104, "Connection reset by peer"), False),             # no file: ours to handle
    (KeyError("spot"), False),
    (TypeError("unsupported operand"), False),
    (ValueError("bad"), False),
    (cli.UserError("bad"), True),
])
def test_which_errors_are_the_users(exc, users):
    assert is_users_mistake(exc) is users


def test_an_oserror_about_a_file_names_the_file(monkeypatch, capsys):
    def missing(*args, **kwargs):
        raise FileNotFoundError(2, "No such file or directory", "/srv/hands.txt")
    monkeypatch.setattr("tabled.commands.rank.hand_value", missing)
    assert "tabled rank: error: /srv/hands.txt: No such file or directory" in \
        one_line_error(capsys, ["rank", "As", "Ks", "Qs", "Js", "Ts"])


@pytest.mark.parametrize("module_name, class_name", USER_ERRORS)
def test_every_domain_error_is_the_users_and_exists(module_name, class_name):
    cls = getattr(importlib.import_module(module_name), class_name)
    assert issubclass(cls, Exception)
    assert is_users_mistake(cls("what is wrong"))


def test_plot_without_matplotlib_is_the_users_to_install(monkeypatch, capsys):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib.backend_bases", None)  # import fails
    err = one_line_error(capsys, ["simulate", "--profile", "nsw", "--rounds", "5", "--plot", "run.png"])
    assert "--plot needs matplotlib: pip install 'tabled[plot]'" in err


@pytest.mark.parametrize("name", command_names())
def test_commands_raise_the_users_errors_by_name(name):
    """A bare ValueError from a command would now be reported as a bug: a command says what the
    user did wrong with UserError or a domain error."""
    tree = ast.parse((COMMANDS / f"{name.replace('-', '_')}.py").read_text(encoding="utf-8"))
    bare = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Raise) and node.exc is not None
            and isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", None) in ("ValueError", "OSError")]
    assert not bare, f"tabled/commands/{name}.py raises a bare ValueError/OSError at lines {bare}"

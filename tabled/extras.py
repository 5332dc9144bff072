"""The optional parts of tabled and what to install for them (pyproject.toml's extras).

A table with a local pool installs tabled alone. The PostgreSQL client, NumPy, the progress bars
and the plots are extras: a command that needs one that is missing stops with one line naming the
extra to install, never a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType, SimpleNamespace

#: extra -> what it is for (shown in the one-line error)
EXTRAS = {
    "linked": "a linked progressive pool on PostgreSQL",
    "math": "the game mathematics (tabled analyze, tabled simulate)",
    "sim": "the simulated table (its players decide by the playing strategies)",
    "plot": "plots (tabled simulate --plot)",
}
#: a missing top-level module -> the extra that brings it, by command (None: any other command)
PROVIDED_BY: dict[str, dict[str | None, str]] = {
    "psycopg": {None: "linked"},
    "psycopg_binary": {None: "linked"},
    "matplotlib": {None: "plot"},
    "numpy": {"run": "sim", None: "math"},
    "tqdm": {"run": "sim", None: "math"},
}


def extra_for(exc: ImportError, command: str | None) -> str | None:
    """The extra that provides the module ``exc`` says is missing, for ``command``; None when
    the missing module is not one an extra provides (then it is a real fault)."""
    name = (getattr(exc, "name", None) or "").split(".")[0]
    by_command = PROVIDED_BY.get(name)
    if by_command is None:
        return None
    return by_command.get(command, by_command[None])


def missing_message(exc: ImportError, command: str | None) -> str | None:
    """One line for a missing optional module, or None when it is not an extra's."""
    extra = extra_for(exc, command)
    if extra is None:
        return None
    module = (exc.name or "").split(".")[0]
    return (f"{module} is not installed; it is part of the '{extra}' extra, for {EXTRAS[extra]}: "
            f"pip install 'tabled[{extra}]'")


def import_command(name: str) -> ModuleType | SimpleNamespace:
    """A command module of tabled.commands; when it needs an extra that is not installed, a
    stand-in that keeps the command listed and answers with the one line saying what to install."""
    try:
        return importlib.import_module(f"tabled.commands.{name.replace('-', '_')}")
    except ImportError as exc:
        message, extra = missing_message(exc, name), extra_for(exc, name)
        if message is None:
            raise

    def add_arguments(parser) -> None:
        # every word after the command, options included, is taken as it is: the answer is the
        # same one line whatever was asked
        parser.prefix_chars = "\0"
        parser.add_argument("words", nargs="*", help="(the command is not installed)")

    def run(args) -> int:
        from tabled.commands._arguments import UserError
        raise UserError(message)

    return SimpleNamespace(NAME=name, HELP=f"(not installed: pip install 'tabled[{extra}]')",
                           add_arguments=add_arguments, run=run)

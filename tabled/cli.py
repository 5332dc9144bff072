"""The ``tabled`` command. Each subcommand lives in its own module under ``tabled/commands/``.

A command module ``tabled/commands/NAME.py`` defines ``NAME`` (its file's name), ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Only the module of the command being run is
imported (``tabled rank`` starts without NumPy, the database clients or the device drivers); the
top-level help imports them all to list them.

Exit status: 0 done; 1 a check found a problem (``audit verify``, ``pool verify``...); 2 the
user's mistake (a bad argument, file, config, profile, round, journal or pool), printed as one
line naming it; 70 a bug in tabled (an error no user input explains), one line with a hint, and
the traceback with ``tabled --debug`` (and in the log, when the command set one up); 130
interrupted.
"""

from __future__ import annotations

import argparse
import pkgutil
import sys
from collections.abc import Sequence

from tabled import commands
from tabled.commands._arguments import UserError, whole_number  # noqa: F401  (the commands' own)
from tabled.extras import import_command, missing_message

EX_USER = 2
EX_SOFTWARE = 70  # sysexits.h: an internal software error


#: The errors that mean the user's input is wrong, as (module, class). They are looked up only in
#: modules already imported: an error cannot come from a module that never ran.
USER_ERRORS: tuple[tuple[str, str], ...] = (
    ("tabled.game.cards", "CardError"),
    ("tabled.game.profiles", "ProfileError"),
    ("tabled.game.round_facts", "RoundError"),
    ("tabled.game.progressive", "ProgressiveError"),
    ("tabled.game.limits", "LimitError"),
    ("tabled.daemon.config", "ConfigError"),
    ("tabled.floor.config", "FloorConfigError"),
    ("tabled.daemon.assemble", "CannotStart"),
    ("tabled.journal.store", "JournalError"),
    ("tabled.daemon.shipping", "ShippingError"),
    ("tabled.pool.base", "PoolError"),
    ("tabled_drivers.sim.base", "ScriptError"),
    ("tabled_drivers.link.errors", "PortBusyError"),      # a device port another program holds
)


def is_users_mistake(exc: BaseException) -> bool:
    """A :class:`UserError`, a domain error of :data:`USER_ERRORS`, or an OSError about a file
    (a path given on the command line or in a file the user named). Anything else is a bug."""
    if isinstance(exc, UserError):
        return True
    for module_name, class_name in USER_ERRORS:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if cls is not None and isinstance(exc, cls):
            return True
    return isinstance(exc, OSError) and exc.filename is not None


def command_names() -> list[str]:
    """Every command, from the modules in ``tabled/commands/`` (a new module is a new command; a
    module's ``_`` is the command's ``-``: ``install_record.py`` is ``tabled install-record``)."""
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(commands.__path__)
                  if not m.name.startswith("_"))


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line, as every other mistake of the user's."""

    def error(self, message: str):
        self.exit(EX_USER, f"{self.prog}: error: {message} (`{self.prog} --help` explains)\n")


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print tabled's version and exit")

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("tabled")
        except PackageNotFoundError:
            text = "unknown (not installed)"
        print(f"tabled {text}")
        parser.exit(0)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that command's part (the others unimported)."""
    parser = _Parser(
        prog="tabled", description="Caribbean Stud Poker table controller",
        epilog="`tabled COMMAND --help` describes a command.")
    parser.add_argument("--version", action=_Version)
    parser.add_argument("--debug", action="store_true",
                        help=f"on an internal error (exit status {EX_SOFTWARE}) print the traceback")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name in command_names():
        if only is not None and name != only:
            continue
        module = import_command(name)
        # argparse formats help with %: a literal % in a HELP must not break --help
        p = sub.add_parser(module.NAME, help=module.HELP.replace("%", "%%"), description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _command_in(argv: Sequence[str]) -> str | None:
    """The command named in ``argv``: the first word that is not a top-level option."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    named = _command_in(argv)
    parser = build_parser(only=named if named in command_names() else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a usage error: argparse has said it
        return exc.code if isinstance(exc.code, int) else 0
    if args.command is None:  # bare `tabled`: what it can do
        parser.print_help()
        return 0
    args.own_process = _own_process()  # the daemon may end the process itself once all is durable
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:  # `tabled settle ... | head`: the reader left; not an error of ours
        return 0
    except ImportError as exc:  # an optional part that is not installed: say which extra brings it
        message = missing_message(exc, args.command)
        if message is None:
            return _report(args, exc)
        print(f"tabled {args.command}: error: {message}", file=sys.stderr)
        return EX_USER
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # sorted here: the user's mistake or a bug
        return _report(args, exc)


def _own_process() -> bool:
    """True when this process is the ``tabled`` command (not a test calling :func:`main`)."""
    main_module = sys.modules.get("__main__")
    spec = getattr(main_module, "__spec__", None)
    own = ("tabled.cli", "tabled.__main__")
    return getattr(main_module, "main", None) is main or getattr(spec, "name", None) in own


def _log_bug(command: str, exc: Exception) -> None:
    """A command that set up the log (the daemon: journald under systemd) keeps the bug's
    traceback there, where it is read when nobody could rerun it with --debug."""
    structlog = sys.modules.get("structlog")
    if structlog is None or not structlog.is_configured():
        return
    try:
        structlog.get_logger("tabled").error("internal_error", command=command, exc_info=exc)
    except Exception:  # a log that cannot be written must not hide the error line
        pass


def _report(args: argparse.Namespace, exc: Exception) -> int:
    where = f"tabled {args.command}"
    if is_users_mistake(exc):
        if isinstance(exc, OSError) and exc.strerror:
            text = f"{exc.filename}: {exc.strerror}"
        else:
            text = str(exc) or type(exc).__name__
        print(f"{where}: error: {text}", file=sys.stderr)
        return EX_USER
    _log_bug(args.command, exc)
    if args.debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    hint = "" if args.debug else f" (`tabled --debug {args.command} ...` prints the traceback)"
    print(f"{where}: internal error, a bug in tabled rather than in your input: "
          f"{type(exc).__name__}: {exc}{hint}", file=sys.stderr)
    return EX_SOFTWARE

"""The ``tabled`` command. Each subcommand lives in its own module under ``tabled/commands/``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.
Errors a user can cause are raised as :class:`UserError` and print as one line, never a traceback.
"""

from __future__ import annotations

import argparse
import pkgutil
import sys

from tabled import commands
from tabled.extras import import_command, missing_message


class UserError(Exception):
    """Bad input from a person or a file: printed as one clear line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabled", description="Caribbean Stud Poker table controller")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = import_command(info.name)
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except BrokenPipeError:  # `tabled settle ... | head`: the reader left; not an error of ours
        return 0
    except UserError as exc:
        print(f"tabled {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # an optional part that is not installed: say which extra brings it
        message = missing_message(exc, args.command)
        if message is None:
            raise
        print(f"tabled {args.command}: error: {message}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:  # CardError, ProfileError, RoundError, missing files
        print(f"tabled {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

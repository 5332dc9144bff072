"""What every command's arguments share: the error that means the user's input is wrong, and
whole-number options checked in the config files' words."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from tabled.game.checks import integer_problem


class UserError(Exception):
    """Bad input from a person or a file: printed as one clear line, exit status 2."""


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer from ``low`` to ``high`` (no upper bound when None). argparse
    names the option; the words are those of the config files (tabled.game.checks)."""
    def parse(text: str) -> int:
        try:
            value: object = int(text)
        except ValueError:
            value = text
        problem = integer_problem(value, low, high)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value  # type: ignore[return-value]
    return parse

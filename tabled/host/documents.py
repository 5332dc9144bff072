"""Reading a document a person hands us (a config, a profile, a round JSON): bounded, one line per problem.

Such a file can be anything: ``/dev/zero`` or ``/dev/urandom`` (no end), a document thousands of
levels deep (Python's parsers recurse), a JSON object that names a key twice (``json`` keeps the
last without a word). Each is refused with one line naming the file and the problem::

    text = read_text(path, lambda problem: ConfigError(f"{path}: {problem}"))
    data = parse_toml(text, lambda problem: ConfigError(f"{path}: {problem}"))

The caller's ``error`` turns a problem ("is not UTF-8 text") into its own exception, so every
message keeps the wording its users know.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tabled.game.checks import shown

#: Builds the caller's exception from a problem ("is nested more than 32 levels deep").
Problem = Callable[[str], Exception]

#: A config, a profile or a round is a few kilobytes; anything past this is not one.
MAX_BYTES = 1 << 20
#: A config is 3 levels deep, a round JSON 4; nothing we read needs more than this.
MAX_DEPTH = 32
#: The most digits a whole number in a JSON document may have: every amount is checked against
#: its own bound (tabled.game.checks.MAX_CENTS) once read; this only keeps a number of thousands
#: of digits from being converted at all.
MAX_DIGITS = 40


def read_text(source: str | Path, error: Problem, *, limit: int = MAX_BYTES,
              missing: str = "cannot read it: no such file") -> str:
    """The UTF-8 text of a file, or of standard input for ``"-"``: at most ``limit`` bytes.
    ``missing``: the problem when there is no such file."""
    try:
        if str(source) == "-":
            raw = _read_stdin(limit)
        else:
            with open(source, "rb") as fh:
                raw = fh.read(limit + 1)
    except FileNotFoundError:
        raise error(missing) from None
    except IsADirectoryError:
        raise error("cannot read it: it is a directory") from None
    except OSError as exc:
        raise error(f"cannot read it: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise error(f"is larger than {limit} bytes: too large to be one (read no further)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error("is not UTF-8 text") from None


def _read_stdin(limit: int) -> bytes:
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        return stream.read(limit + 1)
    return sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")  # a text stream stand-in


def depth(value: Any) -> int:
    """How deeply lists and tables nest in ``value`` (a scalar is 0), counted without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level + 1)
        if deepest > MAX_DEPTH:
            break
        todo.extend((child, level + 1) for child in children)
    return deepest


def _bounded(data: Any, error: Problem) -> Any:
    if depth(data) > MAX_DEPTH:
        raise error(f"is nested more than {MAX_DEPTH} levels deep")
    return data


def parse_toml(text: str, error: Problem) -> dict[str, Any]:
    """Parsed TOML (TOML itself refuses a key defined twice), at most :data:`MAX_DEPTH` deep."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"is not valid TOML: {exc}") from None
    except RecursionError:
        raise error(f"is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # tomllib converts every whole number, however long: Python refuses the longest
        raise error(f"holds a whole number of more than {sys.get_int_max_str_digits()} digits: "
                    "too long to be any setting") from None
    return _bounded(data, error)


class _DuplicateKey(Exception):
    pass


class _TooManyDigits(Exception):
    pass


def _whole_number(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise _TooManyDigits(digits)
    return int(digits)


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def parse_json(text: str, error: Problem) -> Any:
    """Parsed JSON with every key named once per object, at most :data:`MAX_DEPTH` deep, no whole
    number longer than :data:`MAX_DIGITS` digits."""
    try:
        data = json.loads(text, object_pairs_hook=_refuse_duplicates, parse_int=_whole_number)
    except _TooManyDigits as exc:
        raise error(f"holds a whole number of {len(exc.args[0].lstrip('-'))} digits ({exc.args[0][:12]}...): "
                    f"none may have more than {MAX_DIGITS}") from None
    except _DuplicateKey as exc:
        raise error(f"names the key {shown(exc.args[0])} twice in one object "
                    "(which one was meant is not known)") from None
    except json.JSONDecodeError as exc:
        raise error(f"is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise error(f"is nested more than {MAX_DEPTH} levels deep") from None
    return _bounded(data, error)


__all__ = ["MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "read_text", "parse_toml", "parse_json", "depth"]

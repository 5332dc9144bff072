"""Typed reads of one table of settings (a TOML table, or any mapping), naming the full key in errors.

One checker for every settings file: the daemon's configuration (tabled.daemon.config), the jurisdiction
profiles (tabled.game.profiles) and the progressive award schedule (tabled.game.progressive). Each
caller brings its own error class and the wording its users (and tests) already know::

    sec = Section(data, lambda key, problem: ConfigError(f"{where}: {key}: {problem}"))
    spots = sec.integer("spots", 1, 7)          # "table.spots: must be an integer from 1 to 7, got 9"
    sec.finish()                                # refuses keys nobody read: a typo must not pass

Pure: no I/O, so the game layer may use it. Money is integer cents, never a float or a bool, and
never more than :data:`MAX_CENTS`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeGuard, TypeVar

#: Builds the caller's exception from the full key (``"pools[0].dsn"``) and the problem.
ErrorFactory = Callable[[str, str], Exception]

E = TypeVar("E", bound=StrEnum)

#: The most money any one setting may hold: $1,000,000,000.00. Far above any table's limits or
#: jackpot, and far below what SQLite's 64-bit integers hold (about 9.2e18), even for a bet at
#: the largest odds a profile allows (100,000 to 1) or a pool's sums over decades. Every amount of
#: money read from a config, a profile or the pool's settings is checked against this one bound.
MAX_CENTS = 100_000_000_000

#: How a bad value is shown in a message: enough to recognise it, never a screenful.
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxlist, _SHOWN.maxdict, _SHOWN.maxstring, _SHOWN.maxother = 2, 4, 4, 60, 60
_SHOWN.maxlong = 40


def shown(value: object) -> str:
    """``repr(value)`` cut short: a message about a huge or deeply nested value stays one line."""
    return _SHOWN.repr(value)


def is_whole_number(value: object) -> TypeGuard[int]:
    """An int that is not a bool (TOML and JSON true/false are ints to Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_cents(value: object) -> TypeGuard[int]:
    """A whole number of cents from 0 to :data:`MAX_CENTS`."""
    return is_whole_number(value) and 0 <= value <= MAX_CENTS


def is_whole_number_in(value: object, low: int, high: int | None = None) -> TypeGuard[int]:
    """A whole number from ``low`` to ``high`` (no upper bound when None)."""
    return is_whole_number(value) and value >= low and (high is None or value <= high)


def integer_problem(value: object, low: int, high: int | None = None, what: str = "an integer") -> str | None:
    """What is wrong with ``value`` as a whole number from ``low`` to ``high`` (no upper bound
    when None), or None. The command line's numbers use the same words (tabled.cli)."""
    if is_whole_number_in(value, low, high):
        return None
    return _not_in_range(value, low, high, what)


def _not_in_range(value: object, low: int, high: int | None, what: str) -> str:
    span = f"from {low} to {high}" if high is not None else f"of at least {low}"
    return f"must be {what} {span}, got {shown(value)}"


@dataclass(frozen=True)
class Wording:
    """The words a caller's messages use where callers differ."""

    #: a key that no read asked for
    unknown_key: str = "unknown key (a typo?)"
    #: what cents must be
    cents: str = "a whole number of cents >= 0"
    #: when set, a float in a cents key gets this instead (``5.0`` is not 500 cents)
    cents_not_float: str | None = None


class Section:
    """One table of settings; every read records the key, :meth:`finish` refuses the rest."""

    def __init__(self, data: object, error: ErrorFactory, name: str = "",
                 wording: Wording = Wording()) -> None:
        self.error, self.name, self.wording = error, name, wording
        self.prefix = f"{name}." if name else ""
        self.used: set[str] = set()
        if not isinstance(data, Mapping):
            raise error(name, f"must be a table, got {shown(data)}")
        self.data: Mapping[str, Any] = data

    def fail(self, key: str, problem: str) -> Exception:
        """The caller's error for ``key`` of this table (to raise)."""
        return self.error(self.prefix + key, problem)

    def get(self, key: str, default: object = ...) -> object:
        """The raw value; ``default`` when absent, or "is missing" when there is no default."""
        self.used.add(key)
        if key not in self.data:
            if default is ...:
                raise self.fail(key, "is missing")
            return default
        return self.data[key]

    def integer(self, key: str, low: int, high: int | None = None, default: object = ...,
                *, what: str = "an integer") -> int:
        """A whole number from ``low`` to ``high`` (no upper bound when None)."""
        v = self.get(key, default)
        if not is_whole_number_in(v, low, high):
            raise self.fail(key, _not_in_range(v, low, high, what))
        return v

    def cents(self, key: str, default: object = ...) -> int:
        """An amount of money: whole cents, 0 or more."""
        v = self.get(key, default)
        if isinstance(v, float) and self.wording.cents_not_float:
            raise self.fail(key, f"must be {self.wording.cents_not_float}, got {shown(v)}")
        if is_whole_number(v) and v > MAX_CENTS:
            raise self.fail(key, f"must be at most {MAX_CENTS} cents (the most any amount may be), got {shown(v)}")
        if not is_cents(v):
            raise self.fail(key, f"must be {self.wording.cents}, got {shown(v)}")
        return v

    def text(self, key: str, default: object = ...) -> str:
        """Text with something in it besides white space."""
        v = self.get(key, default)
        if not isinstance(v, str) or not v.strip():
            raise self.fail(key, f"must be non-empty text, got {shown(v)}")
        return v

    def flag(self, key: str, default: object = ...) -> bool:
        v = self.get(key, default)
        if not isinstance(v, bool):
            raise self.fail(key, f"must be true or false, got {shown(v)}")
        return v

    def choice(self, key: str, allowed: tuple[str, ...], default: object = ...) -> str:
        """One of the ``allowed`` words."""
        v = self.get(key, default)
        if not isinstance(v, str) or v not in allowed:
            raise self.fail(key, f"must be one of {', '.join(repr(a) for a in allowed)}, got {shown(v)}")
        return v

    def member(self, key: str, enum: type[E], default: object = ...) -> E:
        """One of an enum's values, as the member."""
        return enum(self.choice(key, tuple(e.value for e in enum), default))

    def section(self, key: str, default: object = ...) -> Section:
        """The table under ``key`` (``default``, e.g. ``{}``, when an absent table is allowed)."""
        return self.entry(self.get(key, default), key)

    def entry(self, data: object, name: str) -> Section:
        """A table found inside this one by other means, e.g. ``players[2]`` of a list."""
        return Section(data, self.error, self.prefix + name, self.wording)

    def finish(self) -> None:
        """Refuse the first (in sorted order) key that no read asked for."""
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self.fail(unknown[0], self.wording.unknown_key)


__all__ = ["Section", "Wording", "ErrorFactory", "MAX_CENTS", "is_whole_number", "is_cents", "shown"]

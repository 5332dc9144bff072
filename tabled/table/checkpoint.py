"""A round's checkpoint, written and read from its dataclasses' fields and their types.

Each field is saved under its own name, except ``SKIP`` fields (given again on restore, or rebuilt).
A key that an older checkpoint lacks leaves the field at its default.
"""

from __future__ import annotations

import types
import typing
from dataclasses import Field, fields, is_dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, TypeVar

from tabled.game.round_facts import Wager

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SKIP = {"checkpoint": "skip"}
Saved = TypeVar("Saved", bound="DataclassInstance")


class CheckpointError(ValueError):
    """A checkpoint that does not hold what the round's fields say it must."""


def encode(value: Any) -> Any:
    """``value`` as JSON holds it."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Wager):
        return [value.chips_cents, value.token_cents]
    if is_dataclass(value) and not isinstance(value, type):
        return saved_fields(value)
    if isinstance(value, set):
        return sorted(encode(v) for v in value)
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


def _saved(obj: DataclassInstance) -> list[Field[Any]]:
    return [f for f in fields(obj) if f.metadata.get("checkpoint") != "skip"]


def saved_fields(obj: DataclassInstance) -> dict[str, Any]:
    return {f.name: encode(getattr(obj, f.name)) for f in _saved(obj)}


def load_fields(obj: Saved, data: dict[str, Any]) -> Saved:
    """Set each saved field of ``obj`` that ``data`` holds, decoded by its type; returns ``obj``."""
    if not isinstance(data, dict):
        raise CheckpointError(f"{type(obj).__name__}: expected an object, got {data!r}")
    hints = typing.get_type_hints(type(obj))
    for f in _saved(obj):
        if f.name in data:
            setattr(obj, f.name, decode(hints[f.name], data[f.name], f.name))
    return obj


def decode(tp: Any, v: Any, where: str) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return v
    if origin in (typing.Union, types.UnionType):
        if v is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return decode(options[0], v, where)
        if not isinstance(v, bool) and isinstance(v, tuple(options)):
            return v
    elif origin in (list, set):
        if isinstance(v, list):
            return origin(decode(args[0], x, where) for x in v)
    elif origin is tuple:
        if isinstance(v, list) and len(v) == len(args):
            return tuple(decode(a, x, where) for a, x in zip(args, v, strict=True))
    elif origin is dict:
        if isinstance(v, dict):
            return {decode(args[0], k, where): decode(args[1], x, where) for k, x in v.items()}
    elif tp is Wager:
        if isinstance(v, list) and len(v) == 2:
            return Wager(*(decode(int, x, where) for x in v))
    elif isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(v)
        except ValueError:
            pass
    elif tp in (int, str, bool):
        if isinstance(v, tp) and (tp is bool or not isinstance(v, bool)):
            return v
    raise CheckpointError(f"checkpoint field {where!r}: {v!r} is not a {tp}")


__all__ = ["SKIP", "CheckpointError", "encode", "saved_fields", "load_fields", "decode"]

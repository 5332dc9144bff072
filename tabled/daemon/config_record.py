"""What the journal keeps of the configuration a daemon started with: every setting in force (the
profile's paytables and schedule included, since they decide the money), flattened to dotted keys,
its SHA-256, and what changed since the configuration the journal last recorded. So a limit or a
paytable changed between two rounds is in the evidence, between those two rounds.

Secrets never reach the journal: a pool's connection string is kept with its password replaced.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from tabled.daemon.config import Config
from tabled.host.log import scrub_secrets

#: the journal input that records it (tabled/table/kinds.py)
KIND = "config.started"
#: not settings of the table: where the files were read from
LEFT_OUT = frozenset({"source", "table.profile_path", "table.profile.source", "table.profile.notes"})
#: never journaled: a PIN's salted hash would let a reader of the journal try PINs against it
SECRET_SUFFIXES = (".pin_hash",)


def _flatten(value: Any, prefix: str, into: dict[str, Any]) -> None:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _flatten(getattr(value, f.name), f"{prefix}{f.name}.", into)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            key = k.name.lower() if isinstance(k, Enum) else str(k)
            _flatten(v, f"{prefix}{key}.", into)
    elif isinstance(value, (list, tuple)) and value and all(dataclasses.is_dataclass(v) for v in value):
        for i, v in enumerate(value):
            _flatten(v, f"{prefix}{i}.", into)
    else:
        key = prefix[:-1]
        if key not in LEFT_OUT and not key.endswith(SECRET_SUFFIXES):
            into[key] = _scalar(value, key)


def _scalar(value: Any, key: str) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime.date):  # a PIN's day set (never the PIN)
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # the journal keeps no floats: a setting such as 3.0 sigmas is kept as its text
    if isinstance(value, (set, frozenset)):
        return sorted(map(str, value))
    if isinstance(value, (list, tuple)):
        return [_scalar(v, key) for v in value]
    if isinstance(value, str) and key.endswith(".dsn"):
        return scrub_secrets(value)
    return value


def settings(cfg: Config) -> dict[str, Any]:
    """Every setting of ``cfg`` as dotted key -> JSON value, sorted by key."""
    flat: dict[str, Any] = {}
    _flatten(cfg, "", flat)
    return dict(sorted(flat.items()))


def settings_hash(flat: Mapping[str, Any]) -> str:
    """SHA-256 of the settings as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(json.dumps(flat, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def differences(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each setting added, removed or changed: {key, before, after} (None where absent)."""
    if before is None:
        return []
    return [{"key": k, "before": before.get(k), "after": after.get(k)}
            for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]


def record(cfg: Config, previous: Mapping[str, Any] | None) -> dict[str, Any]:
    """The payload of the journal's ``config.started`` input; ``previous``: the settings of the last
    one the journal holds (None for a new journal)."""
    flat = settings(cfg)
    return {"sha256": settings_hash(flat), "source": str(cfg.source) if cfg.source else "<default config>",
            "settings": flat, "changes": differences(previous, flat), "first": previous is None}


__all__ = ["KIND", "settings", "settings_hash", "differences", "record"]

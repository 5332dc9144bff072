"""Progressive pool backends: ``local`` (SQLite, the embedded default) and ``postgresql`` (linked).

:func:`open_pool` opens the pool a ``[[pools]]`` entry of the configuration describes.
"""

from __future__ import annotations

from typing import Any

from .base import (Contribution, MeterReading, PoolError, PoolStatus, PoolUnavailable, ProgressivePool,
                   VerifyReport)
from .ledger import Clock, LedgerPool, utc_now
from .records import HitRecord, LedgerEntry, ReconcileReport
from .settings import PoolSettings, SettingsVersion

__all__ = [
    "Contribution", "HitRecord", "LedgerEntry", "LedgerPool", "MeterReading", "PoolError", "PoolSettings",
    "PoolStatus", "PoolUnavailable", "ProgressivePool", "ReconcileReport", "SettingsVersion", "VerifyReport",
    "open_pool",
]


async def open_pool(entry: Any, table_id: str, *, clock: Clock = utc_now, create: bool = True,
                    wait_for_link: bool = False, signing_key: Any = None) -> LedgerPool:
    """Open the pool of one ``[[pools]]`` entry (name, backend, path or dsn, contribution_bp,
    reset_cents). With ``create`` the pool is created when missing, its first settings version
    recorded by ``config:<table>``; an existing pool's settings change only through ``tabled pool
    propose`` (two people), and a config that asks for others is told in ``config_differs``.
    Without it (the ``tabled pool`` commands), only an existing pool is opened and nothing is written.
    With ``wait_for_link`` (the daemon) a linked pool whose database cannot be reached is opened all
    the same and connects when it can (its calls raise PoolUnavailable until then: rule 14.13).
    ``signing_key`` (the journal's): a local pool seals its chained rows with it (tabled/pool/chain.py)."""
    settings = PoolSettings(entry.contribution_bp, entry.reset_cents) if create else None
    who = f"config:{table_id}"
    if entry.backend == "local":
        from .local import LocalPool
        if entry.path is None:
            raise PoolError(f"pool {entry.name}: a local pool needs a path")
        return await LocalPool.open(entry.path, entry.name, table_id, settings, clock=clock, who=who,
                                    signing_key=signing_key)
    if entry.backend == "postgresql":
        from .postgresql import PostgresPool
        if not entry.dsn:
            raise PoolError(f"pool {entry.name}: a postgresql pool needs a dsn")
        return await PostgresPool.open(entry.dsn, entry.name, table_id, settings, clock=clock, who=who,
                                       wait_for_link=wait_for_link)
    raise PoolError(f"pool {entry.name}: backend must be local or postgresql, not {entry.backend!r}")

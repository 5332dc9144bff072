"""Round identity: which journal, and which round of it, a pool's rows come from.

A round id (``T01-000042``) comes from the journal's round counter, so it is not unique on its own:
a journal restored from a backup, two tables configured with one ``[table] id`` or a rewound
counter play the same ids again. So the table sends, with every pool operation, the round's key:
the hash of the journal record that opened the round (``round.started``), which no other round
of any journal shares (the hash chain seals the time and every record before it). The journal's
own identity is the hash of its first record: created once with the journal, kept in it, and the
same in a copy restored from a backup (that is still the table's journal).

:func:`check_table` is what the daemon asks of each pool before it plays: the pool binds the table
id to this journal (a second table with the id and another journal is refused) and must hold no
round of this table that the journal does not have (a journal behind the pool: restored from an
older backup, or another table's).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import PoolError, ProgressivePool

ROUND_OPENED = "round.started"


def journal_id(journal: Any) -> str | None:
    """The hash of the journal's first record; None while the journal is empty."""
    first = journal.record(1)
    return first.hash if first is not None else None


def round_key(journal: Any, round_id: str) -> str | None:
    """The hash of the record that opened the latest round with this id (None: no such record)."""
    keys = [r.hash for r in journal.records_for_round(round_id) if r.kind == ROUND_OPENED]
    return keys[-1] if keys else None


def round_keys(records: Iterable[Any]) -> dict[str, list[str]]:
    """Each round id's round keys in ``records``, oldest first (more than one: the id was reused)."""
    keys: dict[str, list[str]] = {}
    for r in records:
        if r.kind == ROUND_OPENED and r.round_id:
            keys.setdefault(r.round_id, []).append(r.hash)
    return keys


#: the journal's records of the pool's answers to the table (tabled/daemon/poolfeed.py)
ANSWERS = ("pool.contributed", "pool.reversed", "pool.awards")
METER = "pool.meter"


def pool_answers(records: Iterable[Any], pool_name: str, *, primary: bool) -> list[tuple[str, dict[str, Any]]]:
    """The pool's answers among journal ``records``, as (kind, payload with the round id): those
    naming this pool (a record naming none predates several pools: the one pool there was) and,
    for the primary pool, the meter's readings (which name no pool)."""
    out = []
    for r in records:
        if r.kind == METER and primary:
            out.append((r.kind, dict(r.payload)))
        elif r.kind in ANSWERS and r.payload.get("pool", pool_name) == pool_name:
            out.append((r.kind, {"round_id": r.round_id, **r.payload}))
    return out


async def check_table(pool: ProgressivePool, table_id: str, journal: Any, *, primary: bool = True) -> None:
    """Before a table plays on ``pool``: bind its id to this journal, make sure the pool holds no
    round of the table beyond what the journal has, and that every amount and balance the pool
    answered since the journal's last checkpoint is what the pool holds now (``primary``: the
    pool whose meter readings the journal holds). Raises PoolError with one line naming what
    differs (PoolUnavailable when the pool cannot be reached: ask again when it answers)."""
    jid = journal_id(journal)
    if jid is not None:
        await pool.register_table(table_id, jid)
    last = await pool.last_round(table_id)
    if last is not None:
        _same_rounds(pool, table_id, journal, *last)
    since = journal.last_checkpoint_seq() or 0
    diffs = await pool.compare_answers(table_id, pool_answers(journal.records_after(since), pool.name,
                                                              primary=primary))
    if diffs:
        more = f" (and {len(diffs) - 1} more)" if len(diffs) > 1 else ""
        raise PoolError(f"pool {pool.name} does not hold what it answered table {table_id} since the journal's last"
                        f" checkpoint (record {since}): {diffs[0]}{more}: the pool was changed behind the table; the"
                        f" start stops for an inspector (tabled pool verify, tabled pool reconcile)")


def _same_rounds(pool: ProgressivePool, table_id: str, journal: Any, rid: str, key: str | None) -> None:
    """The pool's last round of the table is one this journal has, as this journal played it."""
    keys = [r.hash for r in journal.records_for_round(rid) if r.kind == ROUND_OPENED]
    if not keys:
        recent = journal.recent_round_ids(1)
        raise PoolError(f"pool {pool.name} holds round {rid} of table {table_id}, which this journal does not have"
                        f" (its last round is {recent[0] if recent else 'none'}): the journal is behind the pool"
                        f" (restored from an older backup?) or another table plays as {table_id}; the start stops"
                        f" for an inspector (tabled pool reconcile)")
    if key is not None and key not in keys:
        raise PoolError(f"pool {pool.name} holds round {rid} of table {table_id} as another round played it (its"
                        f" round key {key[:12]} is not this journal's): the journal was restored from an older backup"
                        f" or replaced, or another table plays as {table_id}; the start stops for an inspector"
                        f" (tabled pool reconcile)")

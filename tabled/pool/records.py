"""What the pool hands back besides the base interface: hits, ledger rows, reconcile reports, and the
JSON form of a round's recorded result (a repeat returns exactly what was paid)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from tabled.game.progressive import ProgressiveAward, ProgressiveResult
from tabled.game.ranking import Category

from .base import PoolError


@dataclass(frozen=True)
class HitRecord:
    """One award, numbered in the order the pool paid it (the order of near-simultaneous hits)."""

    pool: str
    hit_seq: int
    table_id: str
    round_id: str
    spot: int
    category: str
    hand: str | None
    amount_cents: int
    from_pool_cents: int
    topup_cents: int
    pool_before_cents: int
    pool_after_cents: int
    rule: str
    held_since: str | None   # 14.13: when the table started holding it, if the link was down
    at: str                  # when the pool recorded and paid it


@dataclass(frozen=True)
class LedgerEntry:
    pool: str
    seq: int
    kind: str
    delta_cents: int
    balance_after_cents: int
    epoch: int
    table_id: str | None
    round_id: str | None
    spot: int | None
    reason: str
    who: str | None
    at: str


@dataclass(frozen=True)
class ReconcileReport:
    """A table's journal compared with the pool's ledger, key by key (table, round, spot)."""

    ok: bool
    table_id: str
    compared: int
    missing_in_pool: tuple[tuple[str, int], ...]    # answered in the journal, not in the pool
    missing_in_journal: tuple[tuple[str, int], ...]  # in the pool, neither answered nor owed in the journal
    differences: tuple[str, ...]                     # same key, different amounts, reversal state or round
    owed: tuple[tuple[str, int, int], ...] = ()      # (round, spot, wager) taken, not yet in the pool
    owed_reversals: tuple[tuple[str, int], ...] = ()  # reversals taken, not yet in the pool
    in_flight: tuple[tuple[str, int], ...] = ()      # in the pool, its answer not yet journaled

    def as_dict(self) -> dict:
        return asdict(self)


def result_to_json(result: ProgressiveResult) -> str:
    return json.dumps({
        "pool_before_cents": result.pool_before_cents, "pool_after_cents": result.pool_after_cents,
        "reset": result.reset, "reset_funding_cents": result.reset_funding_cents,
        "awards": [{"spot": a.spot, "category": a.category.name, "amount_cents": a.amount_cents,
                    "from_pool_cents": a.from_pool_cents, "operator_topup_cents": a.operator_topup_cents,
                    "rule": a.rule} for a in result.awards],
    }, sort_keys=True)


def result_from_json(text: str) -> ProgressiveResult:
    try:
        d = json.loads(text)
        awards = tuple(ProgressiveAward(a["spot"], Category[a["category"]], a["amount_cents"],
                                        a["from_pool_cents"], a["operator_topup_cents"], a["rule"])
                       for a in d["awards"])
        return ProgressiveResult(d["pool_before_cents"], awards, d["pool_after_cents"], d["reset"],
                                 d["reset_funding_cents"])
    except (ValueError, KeyError, TypeError) as exc:
        raise PoolError(f"recorded award result cannot be read: {exc}") from exc

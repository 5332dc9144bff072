"""The table's book of its progressive pools (11.5): what it owes them, what they show, the awards.

* docs/settlement.md: an operation committed in the journal is delivered to every pool the table
  feeds exactly once (keyed), whatever happens to the link or the daemon before the pools answer;
  it is owed (``undelivered``) until every pool has answered it, and re-sent until then (14.13).
* 2.4.3: every linked table shows the primary pool's own readings, in ledger order; another
  table's award is shown as "award pending" (:data:`AWARD_PENDING_MS`).
* 9.5, 14.13: while the pool cannot be reached, a round's progressive hands are held face up until
  the pool takes the awards; both times are kept.

Checkpoint section ``pool`` (version :data:`VERSION`); :func:`upcast` reads a checkpoint written
before the section existed (the same fields at its top level).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from tabled.game.limits import dollars
from tabled.game.progressive import ProgressiveResult, ProgressiveSchedule
from tabled.table import notes
from tabled.table.checkpoint import SKIP, CheckpointError, load_fields, saved_fields
from tabled.table.effects import Effect, MeterShow, Note, PoolOp, Say
from tabled.table.round import Round

VERSION = 1
MINUTE_MS = 60_000
#: another linked table's hit is shown as "award pending" until that table contributes again (its
#: award paid, its next round under way) or this long after the reading (it may have closed)
AWARD_PENDING_MS = 15 * MINUTE_MS
#: a pool's answer -> the operation it answers
POOL_ANSWERS = {"pool.contributed": "contribute", "pool.reversed": "reverse", "pool.awards": "awards"}
#: ledger kinds after which the pool may show less than before (docs/settlement.md; tabled/pool/ledger.py)
POOL_DOWN_KINDS = ("award", "reversal", "fund_reset", "reset", "settings", "correction")


def op_key(op: str, round_id: str, spot: int | None) -> str:
    return f"{op}:{round_id}:{spot if spot is not None else '-'}"


def result_as_dict(result: ProgressiveResult) -> dict[str, Any]:
    """A pool's award result as journal data (integer cents)."""
    return {
        "pool_before_cents": result.pool_before_cents, "pool_after_cents": result.pool_after_cents,
        "reset": result.reset, "reset_funding_cents": result.reset_funding_cents,
        "awards": [{"spot": a.spot, "category": a.category.label, "amount_cents": a.amount_cents,
                    "from_pool_cents": a.from_pool_cents, "operator_topup_cents": a.operator_topup_cents,
                    "rule": a.rule} for a in result.awards],
    }


@dataclass
class Owed:
    """An operation journaled and not yet answered by every pool, and the pools that have."""

    op: PoolOp
    done: list[str] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        e = self.op
        return {"op": e.op, "round_id": e.round_id, "spot": e.spot, "cents": e.cents, "reason": e.reason,
                "hits": [list(h) for h in e.hits], "done": list(self.done), "table_id": e.table_id,
                "hands": [[s, list(cards)] for s, cards in e.hands], "held_since_ms": e.held_since_ms}

    @classmethod
    def from_snapshot(cls, d: dict[str, Any], schedule: ProgressiveSchedule | None) -> Owed:
        op = PoolOp(d["op"], d["round_id"], d["spot"], d["cents"], d["reason"],
                    tuple((s, c) for s, c in d["hits"]), d["table_id"],
                    tuple((s, tuple(cards)) for s, cards in d["hands"]),
                    schedule if d["op"] == "awards" else None, d["held_since_ms"])
        return cls(op, list(d["done"]))


@dataclass
class PoolBook:
    cents: int | None = None                  # as last reported by the pool
    seq: int | None = None                    # the ledger number of the reading shown (meter feed)
    awards_held: dict[str, int] = field(default_factory=dict)  # 14.13: round id -> when first held (ms)
    award_pending: dict[str, Any] | None = None  # another linked table's hit (pool.meter)
    undelivered: dict[str, Owed] = field(default_factory=dict, metadata=SKIP)  # in order (14.13)
    count: int = field(default=1, metadata=SKIP)  # pools this table feeds (11.5): from the config

    # -- what the table owes ------------------------------------------------------------------------

    def owe(self, e: PoolOp, table_id: str) -> PoolOp:
        """An operation the fold made, complete with the table's id (and, for awards held since
        before it was made, the time they were held: 14.13), kept until every pool has it."""
        held = self.awards_held.get(e.round_id) if e.op == "awards" else None
        e = replace(e, table_id=table_id, held_since_ms=held)
        key = op_key(e.op, e.round_id, e.spot)
        if key not in self.undelivered:
            self.undelivered[key] = Owed(e)
        return e

    def delivered(self, kind: str, p: dict[str, Any]) -> None:
        key = op_key(POOL_ANSWERS[kind], p["round_id"], p.get("spot") if kind != "pool.awards" else None)
        entry = self.undelivered.get(key)
        if entry is None:
            return
        pool = p.get("pool", "")
        if pool not in entry.done:
            entry.done.append(pool)
        if len(entry.done) >= self.count:
            del self.undelivered[key]

    def pending(self) -> list[tuple[PoolOp, list[str]]]:
        """The operations some pool has not answered yet, in order, with the pools that have."""
        return [(o.op, list(o.done)) for o in self.undelivered.values()]

    # -- what the pools answer ----------------------------------------------------------------------

    def answered(self, kind: str, p: dict[str, Any], round_id: str | None, offline: bool) -> list[Effect]:
        """A pool's answer to a contribution or a reversal (11.5): journaled, its balance shown."""
        self.delivered(kind, p)
        return [notes.pool_answer(kind, p, round_id), *self.balance(p.get("balance_cents"), offline)]

    def balance(self, cents: int | None, offline: bool) -> list[Effect]:
        """A balance read after an operation: shown only without a meter feed (a feed's readings are
        ordered; a separate read may be older than a reading already shown)."""
        if cents is None or self.seq is not None or cents == self.cents:
            return []
        self.cents = cents
        return [MeterShow(cents, offline)]

    def meter(self, p: dict[str, Any], table_id: str, now: int, offline: bool) -> list[Effect]:
        """2.4.3: every linked table shows the pool's own readings, in ledger order; a reading older
        than the one shown is dropped. The pool goes down only on an award, a reversal, a reset or a
        recorded correction (docs/settlement.md); a reading that says otherwise is not shown.
        A reading of another table's award is kept as that table's "award pending" until a later
        reading of that table's contribution, or :data:`AWARD_PENDING_MS` (the screen shows it)."""
        cents, seq, kind = p["balance_cents"], p["seq"], p.get("change", "")
        other, round_id, award_cents = p.get("table_id"), p.get("round_id"), p.get("award_cents", 0)
        if not isinstance(cents, int) or not isinstance(seq, int) or cents < 0:
            raise ValueError(f"a meter reading needs whole cents and a ledger number, got {cents!r}, {seq!r}")
        if not isinstance(award_cents, int) or award_cents < 0 or (other is not None and not isinstance(other, str)):
            raise ValueError(f"a meter reading's award needs a table id and whole cents, got {other!r}, "
                             f"{award_cents!r}")
        if self.seq is not None and seq <= self.seq:
            return []
        pending = self.award_pending
        if award_cents and other is not None and other != table_id:
            self.award_pending = {"table_id": other, "round_id": round_id, "cents": award_cents,
                                  "seq": seq, "since_ms": now}
        elif pending is not None and (kind == "contribution" and other == pending["table_id"]
                                      or now - pending["since_ms"] >= AWARD_PENDING_MS):
            self.award_pending = None
        next_one = self.seq is not None and seq == self.seq + 1
        if next_one and self.cents is not None and cents < self.cents and kind not in POOL_DOWN_KINDS:
            return [Say(f"pool reading {seq} goes down by a {kind or 'change'} from {dollars(self.cents)} to "
                        f"{dollars(cents)}: not shown; call a supervisor", rule="2.4.3", level="flag")]
        self.seq = seq
        if cents == self.cents:
            return []
        self.cents = cents
        return [MeterShow(cents, offline)]

    # -- the round's progressive awards (9.5, 9.6, 14.13) -----------------------------------------------

    def hold(self, r: Round, now: int) -> list[Effect]:
        """docs/settlement.md 14.13: the pool cannot be reached, so the round's progressive hands are held,
        their cards face up (9.5), until the pool takes the awards when the link returns; the awards
        owed to it are sent with the time they were held."""
        self.awards_held[r.round_id] = now
        owed = self.undelivered.get(op_key("awards", r.round_id, None))
        if owed is not None:
            owed.op = replace(owed.op, held_since_ms=now)
        held = [s.number for s in r.spots.values() if s.award_held]
        return [Note("progressive.award_held", {"spots": held, "since_ms": now, "rule": "14.13"}, r.round_id),
                *(Say(f"spot {n}: progressive award pending: the pool cannot be reached; leave the cards face up "
                      "until it is paid", n, "9.5", "flag") for n in held)]

    def awards(self, p: dict[str, Any], r: Round | None, now: int, offline: bool) -> list[Effect]:
        """The pool took the round's awards in one step (9.6): the round is told, and a held hit is
        released (14.13)."""
        self.delivered("pool.awards", p)
        if r is None or r.round_id != p.get("round_id"):
            return [Say(f"pool awards for round {p.get('round_id')} not in play", level="refused")]
        rid, first = r.round_id, r.awards is None
        effects = r.handle("awards_applied", {"result": p["result"]})
        if first and r.awards is not None:
            effects.insert(0, notes.awarded(rid, p.get("pool"), p["result"]))
        if rid in self.awards_held:  # 14.13: the held hit is paid now; both times are kept
            since = self.awards_held.pop(rid)
            effects.insert(0, Note("progressive.award_released", {
                "held_since_ms": since, "paid_ms": now, "hits": [
                    {k: a[k] for k in ("spot", "category", "amount_cents")} for a in p["result"]["awards"]],
                "pool_before_cents": p["result"]["pool_before_cents"],
                "pool_after_cents": p["result"]["pool_after_cents"], "rule": "14.13"}, rid))
        if self.seq is not None:
            return effects  # the meter follows the pool's own readings (pool.meter), never this one
        self.cents = p["result"]["pool_after_cents"]
        return effects + [MeterShow(self.cents, offline)]

    # -- checkpoint ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        saved = saved_fields(self)
        if self.award_pending is None:
            del saved["award_pending"]
        return {"v": VERSION, **saved, "undelivered": {k: o.snapshot() for k, o in self.undelivered.items()}}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], schedule: ProgressiveSchedule) -> PoolBook:
        """The ``pool`` section, or the older flat checkpoint's fields (:func:`upcast`)."""
        section = snap["pool"] if "pool" in snap else upcast(snap)
        if section.get("v") != VERSION:
            raise CheckpointError(f"pool section version {section.get('v')!r}: this table reads {VERSION}")
        book = load_fields(cls(), section)
        book.awards_held = dict(book.awards_held)
        book.undelivered = {k: Owed.from_snapshot(d, schedule) for k, d in section["undelivered"].items()}
        return book


def upcast(flat: dict[str, Any]) -> dict[str, Any]:
    """The ``pool`` section of a checkpoint written with the table's fields at its top level, whose
    owed operations named neither the table, nor an award's hands (the round in play holds them),
    nor when it was held."""
    held = dict(flat.get("awards_held") or {})
    r = flat.get("round") or {}
    cards = {s["number"]: s.get("cards") or [] for s in r.get("spots", [])}
    undelivered = {}
    for key, d in (flat.get("undelivered") or {}).items():
        awards = d["op"] == "awards"
        hands = [[s, cards[s]] for s, _ in d["hits"] if cards.get(s)] if awards and r.get("round_id") == d["round_id"] \
            else []
        undelivered[key] = {**d, "table_id": flat["table_id"], "hands": hands,
                            "held_since_ms": held.get(d["round_id"]) if awards else None}
    return {"v": VERSION, "cents": flat["pool_cents"], "seq": flat.get("pool_seq"), "awards_held": held,
            **({"award_pending": flat["award_pending"]} if flat.get("award_pending") else {}),
            "undelivered": undelivered}


__all__ = ["PoolBook", "Owed", "VERSION", "AWARD_PENDING_MS", "POOL_ANSWERS", "op_key", "result_as_dict", "upcast"]

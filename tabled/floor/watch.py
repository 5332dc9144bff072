"""What the floor knows of each table, folded from the table's records on the central server, in
order, one record at a time (each record is read once: the floor keeps up incrementally).

For each table: the round in play and its phase, the mispays the board's check caught and those
a supervisor closed a round over (alerted, 9.3, 9.4), the open faults and since when, the progressive
awards not yet paid (``progressive.awarded`` until the table notes each paid,
``progressive.award_paid``), today's rounds and house win (from ``round.settled``), when its last record was shipped,
and whether the central copy's chain and seals verify. The chain is checked again here (each
record follows the one before, links to its hash and hashes to the hash it carries), and the
seals with the table's public keys (tabled.journal.seals), so a copy changed on the server by
someone with more rights than a table's role is flagged, by record number.

Alerts are raised once each, with an id that names what they are about, for a named person to
acknowledge (tabled/floor/central.py keeps the acknowledgements).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from tabled.journal.store import GENESIS_HASH, record_hash
from tabled.journal.seals import SealChecker
from tabled.game.settlement import money, supersedes

#: the records the floor reads for a table's state: the fold's notes, never an input
KINDS = ("round.started", "round.dealt", "round.void", "round.settled", "round.finished", "fault.raised",
         "fault.cleared", "progressive.awarded", "progressive.award_held", "progressive.award_released",
         "progressive.award_paid", "payments.override", "payments.refused", "protection.alert", "clock.fault")


@dataclass(frozen=True)
class Alert:
    """Something the floor must see and a person acknowledge. ``id``: ``TABLE:what:record``."""

    id: str
    table_id: str
    kind: str           # fault, progressive, payments, protection, chain, seal, silent
    text: str
    raised_s: float     # when it happened (the table's clock, or the floor's for a silent table)


@dataclass(frozen=True)
class Row:
    """One record as the central server holds it."""

    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: str
    prev_hash: str
    hash: str
    received_s: float   # when the server took it (POSIX seconds)


@dataclass
class Fault:
    equipment: str
    reason: str
    since_s: float
    seq: int


@dataclass
class TableWatch:
    """One table, as its central records tell it."""

    table_id: str
    keys: dict[str, Any] = field(default_factory=dict)   # key id -> Ed25519 public key
    head: int = 0
    head_hash: str = GENESIS_HASH
    last_record_s: float | None = None     # the table's clock on its last record
    last_received_s: float | None = None   # when the server took it
    reported_head: tuple[int, float] | None = None  # the table's own journal head, and when it said so
    read_s: float | None = None            # when the floor last read its central copy (the floor's clock)
    round_id: str | None = None
    phase: str = "no round yet"
    faults: dict[str, Fault] = field(default_factory=dict)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)   # "round/spot" -> award not yet paid
    days: dict[date, list[int]] = field(default_factory=dict)          # day -> [rounds, house win cents]
    settled: tuple[str | None, date, int, Any] | None = None  # the last round.settled counted: round, day, win, void
    mispays_caught: int = 0                # SETTLE DONE refused over a wrong area (9.3, 9.4)
    mispaid_cents: int = 0                 # left over (+) or under (-) what was due, in rounds closed over it
    chain_broken_at: int | None = None
    chain_reason: str = ""
    checker: SealChecker = field(init=False)
    seals_failed: set[int] = field(default_factory=set)  # records already alerted

    def __post_init__(self) -> None:
        self.checker = SealChecker(self.keys)

    # -- folding ------------------------------------------------------------------------------------

    def feed(self, row: Row) -> list[Alert]:
        """One record, the next one of the central copy; the alerts it raises."""
        alerts: list[Alert] = []
        alerts += self._chain(row)
        self.head, self.head_hash = row.seq, row.hash
        self.last_record_s, self.last_received_s = row.time_us / 1e6, row.received_s
        if self.chain_broken_at is not None:
            return alerts  # after a break nothing here can be trusted to be the table's
        self.checker.feed(row.seq, row.time_us, row.round_id, row.kind, row.payload, row.hash)
        alerts += self._seals(row)
        try:
            payload = json.loads(row.payload)
        except ValueError:
            payload = None
        if isinstance(payload, dict) and row.kind in KINDS:
            alerts += self._fold(row, payload)
        return alerts

    def changed(self, digest: str | None) -> list[Alert]:
        """The central copy's hash of the record folded last, read again: another than the one
        checked means the copy was changed after the floor checked it."""
        if self.chain_broken_at is not None or digest == self.head_hash:
            return []
        what = "is gone from" if digest is None else "was changed on"
        self.chain_broken_at = self.head
        self.chain_reason = f"record {self.head} {what} the central copy after the floor checked it"
        return [Alert(f"{self.table_id}:changed:{self.head}", self.table_id, "chain",
                      f"the central copy's chain is broken: {self.chain_reason}", self.last_record_s or 0.0)]

    def _chain(self, row: Row) -> list[Alert]:
        if self.chain_broken_at is not None:
            return []
        if row.seq != self.head + 1:
            why = f"record {row.seq} follows record {self.head}"
        elif row.prev_hash != self.head_hash:
            why = f"record {row.seq} does not link to record {self.head}"
        elif record_hash(row.seq, row.time_us, row.round_id, row.kind, row.payload, row.prev_hash) != row.hash:
            why = f"record {row.seq} does not hash to the hash it carries"
        else:
            return []
        self.chain_broken_at, self.chain_reason = row.seq, why
        return [Alert(f"{self.table_id}:chain:{row.seq}", self.table_id, "chain",
                      f"the central copy's chain is broken: {why}", row.time_us / 1e6)]

    def _seals(self, row: Row) -> list[Alert]:
        report = self.checker.report
        alerts = []
        for seq in sorted(set(report.rewritten) - self.seals_failed):
            self.seals_failed.add(seq)
            alerts.append(Alert(f"{self.table_id}:seal:{seq}", self.table_id, "seal",
                                f"record {seq} is not the record its seal signed (rewritten)", row.time_us / 1e6))
        for seq in sorted(set(report.forged) - self.seals_failed):
            self.seals_failed.add(seq)
            alerts.append(Alert(f"{self.table_id}:seal:{seq}", self.table_id, "seal",
                                f"the seal at record {seq} is not signed by the table's key", row.time_us / 1e6))
        for seq in sorted(set(report.skipped) - self.seals_failed):
            self.seals_failed.add(seq)
            alerts.append(Alert(f"{self.table_id}:seal:{seq}", self.table_id, "seal",
                                f"record {seq} is not sealed: the table seals every commit with its records, so it "
                                "is not the table's", row.time_us / 1e6))
        return alerts

    def unsealed_tail(self) -> list[Alert]:
        """Records after the last seal of a table whose key the floor has, once the table says its
        journal ends exactly where the copy does: the table seals every commit with its records, so
        its journal's last record is a seal, and a tail it has nothing more to follow is not its own
        (a tail still in transit, the table's journal further on, is not alerted)."""
        if (self.chain_broken_at is not None or not self.keys or not self.checker.since
                or self.reported_head is None):
            return []
        first = self.checker.since[0][0]
        if self.reported_head[0] != self.head or first in self.seals_failed:
            return []
        self.seals_failed.add(first)
        return [Alert(f"{self.table_id}:seal:{first}", self.table_id, "seal",
                      f"records {first} to {self.head} are not sealed and the table's journal ends there: the table "
                      "seals every commit with its records, so they are not the table's", self.last_record_s or 0.0)]

    def _fold(self, row: Row, p: dict[str, Any]) -> list[Alert]:
        at = row.time_us / 1e6
        kind, rid = row.kind, row.round_id
        if kind == "round.started":
            self.round_id, self.phase = rid, "betting"
        elif kind == "round.dealt":
            self.phase = "deciding"
        elif kind == "round.void":
            self.phase = "void"
        elif kind == "round.settled":
            self.phase = "settled"
            if self.settled is not None and self.settled[0] == rid and supersedes(p, {"void": self.settled[3]}):
                was = self.days[self.settled[1]]  # voided while it settled: the void settlement counts instead
                was[0] -= 1
                was[1] -= self.settled[2]
            when, win = datetime.fromtimestamp(at).date(), _int(p.get("house_collects_cents")) - _int(
                p.get("house_pays_cents"))
            day = self.days.setdefault(when, [0, 0])
            day[0] += 1
            day[1] += win
            self.settled = (rid, when, win, p.get("void"))
        elif kind == "round.finished":
            self.phase = "between rounds"
            for key in [k for k in self.pending if k.startswith(f"{rid}/") and self.pending[k]["paid_by"] == "dealer"]:
                del self.pending[key]
        elif kind == "fault.raised":
            equipment = str(p.get("equipment", "equipment"))
            self.faults[equipment] = Fault(equipment, str(p.get("reason", "")), at, row.seq)
            return [Alert(f"{self.table_id}:fault:{row.seq}", self.table_id, "fault",
                          f"{equipment} failed ({p.get('reason', '')}) (14.13)", at)]
        elif kind == "fault.cleared":
            self.faults.pop(str(p.get("equipment", "")), None)
        elif kind == "clock.fault":  # an error condition that does not stop play (tabled/table/clock.py)
            if not p.get("standing"):
                self.faults.pop("clock", None)
                return []
            self.faults["clock"] = Fault("clock", str(p.get("reason", "")), at, row.seq)
            return [Alert(f"{self.table_id}:clock:{row.seq}", self.table_id, "fault",
                          f"clock error: {p.get('reason', '')} (Miss. 8-4.5)", at)]
        elif kind == "progressive.awarded":
            hits = (p.get("result") or {}).get("awards") or []
            for h in hits:
                self.pending[f"{rid}/{h.get('spot')}"] = {
                    "round_id": rid, "spot": h.get("spot"), "category": str(h.get("category", "")),
                    "cents": _int(h.get("amount_cents")), "since_s": at, "paid_by": "dealer"}
            if hits:
                what = "; ".join(f"spot {h.get('spot')} {h.get('category')} {money(_int(h.get('amount_cents')))}"
                                 for h in hits)
                return [Alert(f"{self.table_id}:progressive:{row.seq}", self.table_id, "progressive",
                              f"progressive hit in round {rid}: {what}", at)]
        elif kind == "progressive.award_held":
            for spot in p.get("spots") or []:
                self.pending[f"{rid}/{spot}"] = {"round_id": rid, "spot": spot, "category": "held: pool unreachable",
                                                 "cents": 0, "since_s": at, "paid_by": "pool"}
            return [Alert(f"{self.table_id}:progressive:{row.seq}", self.table_id, "progressive",
                          f"progressive award held in round {rid} (spots {p.get('spots')}): the pool cannot "
                          "be reached (14.13)", at)]
        elif kind == "payments.override":
            # a supervisor closed a round over a mismatch the board saw (9.3, 9.4): settled as the felt lay
            diff = _int(p.get("difference_cents"))
            self.mispaid_cents += diff
            side = f"{money(diff)} against the house" if diff > 0 else f"{money(-diff)} against the player"
            return [Alert(f"{self.table_id}:payments:{row.seq}", self.table_id, "payments",
                          f"round {rid} closed by a supervisor over a mispay: {side} (9.4)", at)]
        elif kind == "payments.refused":
            self.mispays_caught += 1
        elif kind == "protection.alert":
            return [Alert(f"{self.table_id}:protection:{row.seq}", self.table_id, "protection",
                          f"game protection: {p.get('text', 'a spot whose decisions follow hidden cards')}", at)]
        elif kind == "progressive.award_released":
            for key in [k for k in self.pending if k.startswith(f"{rid}/") and self.pending[k]["paid_by"] == "pool"]:
                del self.pending[key]
        elif kind == "progressive.award_paid":  # 9.5: confirmed paid at the panel
            self.pending.pop(f"{rid}/{p.get('spot')}", None)
        return []

    # -- what the page shows ------------------------------------------------------------------------

    def view(self, now_s: float) -> dict[str, Any]:
        report = self.checker.report
        today = self.days.get(datetime.fromtimestamp(now_s).date(), [0, 0])
        if self.chain_broken_at is not None:
            verdict, status = f"chain broken: {self.chain_reason}", "failed"
        elif not report.ok:
            bad = sorted(set(report.rewritten) | set(report.forged) | set(report.skipped))
            verdict, status = f"seal check failed at record {', '.join(map(str, bad[:5]))}", "failed"
        elif report.seals and all(s.checked for s in report.stretches):
            through = report.stretches[-1].last if report.stretches else 0
            verdict, status = f"chain and {report.seals} seals verify through record {through}", "ok"
        elif report.seals:
            unknown = sorted({s.key for s in report.stretches if not s.checked})
            verdict = f"chain verifies; seals by key {', '.join(unknown)} not checked (no public key)"
            status = "unknown"
        else:
            verdict, status = ("chain verifies; no seal yet" if self.head else "no records yet"), "unknown"
        since = self.last_received_s
        return {
            "table": self.table_id, "round": self.round_id, "phase": self.phase, "head": self.head,
            "faults": [{"equipment": f.equipment, "reason": f.reason, "since_s": f.since_s,
                        "stood_s": max(0, int(now_s - f.since_s))} for f in self.faults.values()],
            "pending": [{**a, "stood_s": max(0, int(now_s - a["since_s"]))} for a in self.pending.values()],
            "today": {"rounds": today[0], "win_cents": today[1], "win": money(today[1])},
            "mispays": {"caught": self.mispays_caught, "closed_over_cents": self.mispaid_cents},
            "lag_s": None if since is None else max(0, int(now_s - since)),
            "behind": None if self.reported_head is None else max(0, self.reported_head[0] - self.head),
            "verify": {"status": status, "text": verdict},
        }


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


__all__ = ["TableWatch", "Row", "Alert", "Fault"]

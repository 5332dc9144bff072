"""Game protection at the live table: every decided spot's decisions weighed as rounds settle.

A listener on the table's effects (it runs in the table's loop) keeps each round's ``round.dealt``
and ``round.settled`` notes; the weighing (tabled.math.protection, tens of milliseconds a spot) runs
in a thread of its own, so the table never waits for it. A spot's evidence runs from the daemon's
start; when it first reaches the alert level the table is handed a ``protection.evidence`` input,
which the fold writes down as a ``protection.alert`` note for the pit and the floor
(tabled/table/protection.py). ``tabled report protection`` weighs the whole journal again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import structlog

from tabled.math import protection
from tabled.math.paytable import Paytable
from tabled.reports.protection import Decided, SpotEvidence, pack, round_decisions
from tabled.table.effects import Effect, Note

log = structlog.get_logger("tabled.protection")


class ProtectionWatch:
    """``submit``: the table's (kind, payload) intake, called in ``loop``; ``now_ms``: the table's
    clock (the time of the round's settlement as the table folded it)."""

    def __init__(self, paytable: Paytable, submit: Callable[[str, dict[str, Any]], None],
                 loop: asyncio.AbstractEventLoop, now_ms: Callable[[], int], seed: int = 0):
        self.paytable, self.submit, self.loop, self.now_ms = paytable, submit, loop, now_ms
        self.rng = np.random.default_rng(seed)
        self.dealt: dict[str, dict[str, Any]] = {}
        self.evidence: dict[int, protection.Evidence] = {}
        self.decided: dict[int, dict[int, Decided]] = {}  # spot -> the decisions its pack may need
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="protection")  # one: the rounds in order

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if not isinstance(e, Note) or e.round_id is None:
                continue
            if e.kind == "round.dealt":
                self.dealt = {e.round_id: e.payload}  # this round's only: memory stays flat
            elif e.kind == "round.settled" and e.round_id in self.dealt:
                # the journal's record numbers are for `tabled report protection`'s pack
                got = {"time_us": self.now_ms() * 1000, "seqs": [], "round.dealt": self.dealt.pop(e.round_id),
                       "round.settled": e.payload}
                self.pool.submit(self._weigh, e.round_id, got)

    def _weigh(self, round_id: str, got: dict[str, Any]) -> None:
        try:
            decided = round_decisions(round_id, got)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("protection.unreadable", round_id=round_id, error=str(exc))
            return
        if not decided:
            return
        by_size: dict[int, list[Decided]] = {}
        for d in decided:
            by_size.setdefault(len(d.neighbours), []).append(d)
        for size, group in by_size.items():
            nb = np.array([d.neighbours for d in group], dtype=np.int64) if size else None
            facts = protection.decisions(np.array([d.cards for d in group]), np.array([d.up for d in group]),
                                         np.array([d.holes for d in group]), nb, self.paytable, self.rng)
            for d, f in zip(group, facts, strict=True):
                self._add(d, f)

    def _add(self, d: Decided, fact: protection.Decision) -> None:
        ev = self.evidence.setdefault(d.spot, protection.Evidence())
        mine = self.decided.setdefault(d.spot, {})
        number = ev.rounds + 1
        mine[number] = d
        before = ev.alert_round
        ev.add(d.bet, fact, number)
        carried = {c[0] for c in ev.carriers}
        for n in [n for n in mine if n not in carried]:
            del mine[n]  # only the rounds that carry evidence are kept
        if before is None and ev.alert_round is not None:
            h = ev.leading
            rounds = pack(SpotEvidence(d.spot, ev, mine), h, most=10)
            payload = {"spot": d.spot, "hypothesis": h, "follows": protection.HYPOTHESES[h], "decisions": ev.rounds,
                       "evidence_ln_milli": round(1000 * ev.log_evidence),
                       "gain_milliantes": round(1000 * ev.gain.get(h, 0.0)), "rounds": rounds}
            self.loop.call_soon_threadsafe(self.submit, "protection.evidence", payload)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

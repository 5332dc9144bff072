"""Game protection at the live table: every decided spot's decisions weighed as rounds settle.

A listener on the table's effects (it runs in the table's loop) keeps each round's ``round.dealt``
and last ``round.settled`` notes (weighed when ``round.finished`` ends the round, so a round voided
while it settles is weighed by its void settlement, as the report does: not at all), who sits where
(``player.seated``, ``player.rating``) and the table clock's last measured offset
(``clock.offset``). The weighing (tabled.math.protection, about a second a round of seven spots)
runs in a thread of its own, so the table never waits for it; rounds that finish while it weighs
are weighed together next. A player's evidence (a player
card's across spots, else a spot's) runs from the daemon's start; when it first reaches the alert
level the table is handed a ``protection.evidence`` input, which the fold
writes down as a ``protection.alert`` note for the pit and the floor (tabled/table/protection.py).
``tabled report protection`` weighs the whole journal again.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import structlog

from tabled.math import protection
from tabled.math.paytable import Paytable
from tabled.reports.protection import Decided, Seating, SpotEvidence, add, facts_of, pack, round_decisions, subject
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
        self.settled: dict[str, tuple[dict[str, Any], dict[int, str], int]] = {}  # weighed when the round finishes
        self.seating = Seating()
        self.clock: dict[str, Any] | None = None        # the last ``clock.offset`` noted
        self.started: tuple[str | None, dict[str, Any] | None] = (None, None)  # the round in play's
        self.players: dict[str, SpotEvidence] = {}      # a player card's evidence, or a spot's
        self.waiting: list[tuple[str, dict[str, Any]]] = []  # rounds settled, not yet weighed
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="protection")  # one: the rounds in order

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if not isinstance(e, Note):
                continue
            if e.kind in Seating.KINDS:
                self.seating.take(e.kind, e.payload)
            elif e.kind == "clock.offset":
                self.clock = dict(e.payload)
            elif e.round_id is None:
                continue
            elif e.kind == "round.started":
                self.started = (e.round_id, self.clock)  # the offset as measured before the round
            elif e.kind == "round.dealt":
                self.dealt = {e.round_id: e.payload}  # this round's only: memory stays flat
            elif e.kind == "round.settled" and e.round_id in self.dealt:
                # the last is the round's: a round voided while it settles is settled again, as void
                self.settled = {e.round_id: (e.payload, self.seating.cards(), self.now_ms())}
            elif e.kind == "round.finished" and e.round_id in self.settled and e.round_id in self.dealt:
                # the journal's record numbers are for `tabled report protection`'s pack
                clock = self.started[1] if self.started[0] == e.round_id else self.clock
                settled, cards, at_ms = self.settled.pop(e.round_id)
                got = {"time_us": at_ms * 1000, "seqs": [], "round.dealt": self.dealt.pop(e.round_id),
                       "round.settled": settled, "cards": cards, "clock": clock}
                self._queue(e.round_id, got)

    def _queue(self, round_id: str, got: dict[str, Any]) -> None:
        """The round waits for the weighing thread; rounds settled while it was busy are weighed
        together (a batch costs far less a decision than one round alone)."""
        with self.lock:
            self.waiting.append((round_id, got))
            if len(self.waiting) > 1:
                return  # the thread is already on its way to them
        self.pool.submit(self._weigh)

    def _weigh(self) -> None:
        while True:
            with self.lock:
                batch = list(self.waiting)
            decided: list[Decided] = []
            for round_id, got in batch:
                try:
                    decided += round_decisions(round_id, got)
                except (KeyError, TypeError, ValueError) as exc:
                    log.warning("protection.unreadable", round_id=round_id, error=str(exc))
            try:
                for d, fact in zip(decided, facts_of(decided, self.paytable, self.rng), strict=True):
                    self.count(d, fact)
            except Exception:  # a fault in the weighing is logged; it never holds up the next rounds
                log.exception("protection.failed", rounds=[round_id for round_id, _ in batch])
            with self.lock:
                del self.waiting[:len(batch)]
                if not self.waiting:
                    return

    def count(self, d: Decided, fact: protection.Decision) -> None:
        before = self.players.get(subject(d))
        alerted = before is not None and before.alert
        se = add(self.players, d, fact)
        carried = {c[0] for c in se.evidence.carriers}
        for n in [n for n in se.decided if n not in carried]:
            del se.decided[n]  # only the rounds that carry evidence are kept
        if not alerted and se.alert:
            ev = se.evidence
            h = ev.leading
            payload = {"spot": d.spot, "card": d.card, "hypothesis": h,
                       "follows": protection.follows(h, d.spot), "decisions": ev.rounds,
                       "evidence_ln_milli": round(1000 * ev.log_evidence),
                       "gain_milliantes": round(1000 * ev.gain.get(h, 0.0)), "rounds": pack(se, h, most=10)}
            self.loop.call_soon_threadsafe(self.submit, "protection.evidence", payload)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

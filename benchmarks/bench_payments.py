"""Payments checked by the bet-spot board (measured, not asserted), the whole daemon over real ports
(the drivers, the serial simulators each in its own process on a pty, the USB ones behind the
simulated pyusb backend, the journal with synchronous=FULL, the local pool), three tables in turn:

1. an error-making dealer ([simulation.mistakes]): the errors made by kind, those the table
   detected (an area the fold's verdict shows not settled once the dealer's pass is read, before
   SETTLE DONE, which the table refuses until it is put right) and the detection delay: from the
   moment the dealer's pass lies on the board (the simulated board is read at once) to the fold's
   verdict, which is what the screen shows (p50, p99); players picking up early, and those noted;
2. an honest dealer with the check on: false alarms (an area flagged over, short or removed
   early, or SETTLE DONE refused) and the time a round takes;
3. the same honest dealer with the check off (one SETTLE DONE, nothing laid on the board): the
   time a round takes, and so the extra time of a checked round, against the board's reading
   interval (the drivers poll every 50 ms).

Last line, for anyone to check:
``payments: made M, detected D, false alarms F in H honest rounds, detection p99 X ms``

    .venv/bin/python benchmarks/bench_payments.py [--rounds 2000] [--baseline-rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import io
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import MISTAKES, Mistakes, load_config
from tabled.table.effects import Note
from tabled.table.payout_check import SETTLED, WRONG

#: the error-making dealer: each mistake in rounds per 1000
RATES = Mistakes(overpay=100, underpay=100, forget_collect=100, wrong_spot=100, early_pickup=50)
POLL_S = 0.05


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


class Bench:
    """Hooks into run_table: what the dealer did wrong, when the table saw it, the round times."""

    def __init__(self, rounds: int, warm_up: int = 3) -> None:
        self.rounds, self.warm_up = rounds, warm_up
        self.pending: list[tuple[Any, dict[tuple[int, str], int], float]] = []  # (made, laid chips, when)
        self.detected: collections.Counter[str] = collections.Counter()
        self.delay_ms: list[float] = []
        self.alarm_rounds: set[str] = set()
        self.refused = 0
        self.early_noted = 0
        self.round_ends: list[float] = []
        self.measuring = False
        self.elapsed = 0.0

    async def started(self, *, table, devices, sims, floor) -> None:
        self.table, self.floor = table, floor
        self.dealer = floor.paying
        self.seen_made = 0
        set_board = floor.set_board

        async def timed_set_board(spots: dict[int, dict[str, int]]) -> None:
            made = self.dealer.made[self.seen_made:]
            self.seen_made = len(self.dealer.made)
            t = time.perf_counter()
            # the whole pass, as the board will read it: a mistake is judged once the table has folded it
            laid = {(n, a): v for n, areas in spots.items() for a, v in areas.items() if not a.endswith("_tokens")}
            for m in made:
                self.pending.append((m, laid, t))
            await set_board(spots)

        floor.set_board = timed_set_board
        table.listeners.append(self.on_effects)

    def on_effects(self, effects: list[Any]) -> None:
        t = time.perf_counter()
        core = self.table.core
        for e in effects:
            if not isinstance(e, Note):
                continue
            if e.kind == "round.finished" and self.measuring:
                self.round_ends.append(t)
            if e.kind == "payments.area" and e.payload["state"] in (*WRONG, "removed early"):
                self.alarm_rounds.add(e.round_id or "")
            if e.kind == "payments.removed_early":
                self.early_noted += 1
            if e.kind in ("payments.refused", "payments.override"):
                self.refused += 1
                self.alarm_rounds.add(e.round_id or "")
        still = []
        for m, laid, t0 in self.pending:
            if any(core.felt.at(n, a).chips != chips for (n, a), chips in laid.items()):
                still.append((m, laid, t0))  # the pass is not folded yet
                continue
            if any(core.payments.states.get(k, ("done", 0))[0] not in SETTLED for k in m.areas):
                self.detected[m.kind] += 1
                self.delay_ms.append((t - t0) * 1000)
        self.pending = still

    async def play(self) -> None:
        await self.floor.play(self.warm_up)
        self.measuring = True
        self.alarm_rounds.clear()
        self.refused = 0
        self.round_ends = [time.perf_counter()]
        t0 = time.perf_counter()
        await self.floor.play(self.rounds)
        self.elapsed = time.perf_counter() - t0


def run(rounds: int, d: Path, check: bool, mistakes: Mistakes) -> Bench:
    cfg = load_config(None)
    cfg = dataclasses.replace(
        cfg, table=dataclasses.replace(cfg.table, check_payments=check),
        simulation=dataclasses.replace(cfg.simulation, mistakes=mistakes),
        pools=tuple(dataclasses.replace(p, path=d / "pool.db") for p in cfg.pools),
        screen=dataclasses.replace(cfg.screen, enabled=False))
    bench = Bench(rounds)
    asyncio.run(run_table(cfg, 0, out=io.StringIO(), seams=Seams(journal_path=d / "journal.db", state_dir=d / "dev",
                                                               poll_interval=POLL_S, hooks=bench)))
    return bench


def round_ms(b: Bench) -> tuple[float, float]:
    times = [(b2 - a2) * 1000 for a2, b2 in zip(b.round_ends, b.round_ends[1:], strict=False)]
    return sum(times) / len(times), pct(times, .5)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=2000, help="rounds of the error-making and of the honest dealer")
    ap.add_argument("--baseline-rounds", type=int, default=None, help="rounds with the check off (default: --rounds)")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    base_rounds = args.baseline_rounds or args.rounds
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    with tempfile.TemporaryDirectory() as tmp:
        err = run(args.rounds, Path(tmp) / "errors", True, RATES)
        honest = run(args.rounds, Path(tmp) / "honest", True, Mistakes())
        off = run(base_rounds, Path(tmp) / "off", False, Mistakes())
    made = collections.Counter(m.kind for m in err.dealer.made)
    rates = ", ".join(f"{k} {getattr(RATES, k)}" for k in MISTAKES)
    print(f"error-making dealer: {args.rounds} rounds over ptys with 7 spots in {err.elapsed:.1f} s; "
          f"mistakes per 1000 rounds: {rates}")
    for kind in ("overpay", "underpay", "forget_collect", "wrong_spot"):
        print(f"  {kind:15s} made {made[kind]:5d}  detected before SETTLE DONE {err.detected[kind]:5d}")
    m_total, d_total = sum(made.values()), sum(err.detected.values())
    print(f"  every error: made {m_total}, detected {d_total}; the dealer put right {err.dealer.corrections} "
          f"passes; SETTLE DONE refused {err.refused} times")
    print(f"detection delay (the dealer's pass on the board -> the fold's verdict, what the screen shows): "
          f"{len(err.delay_ms)} errors, p50 {pct(err.delay_ms, .5):.1f} ms, p99 {pct(err.delay_ms, .99):.1f} ms, "
          f"max {max(err.delay_ms, default=float('nan')):.1f} ms (goal: p99 under 250 ms)")
    print(f"players picking up early: {len(err.dealer.picked_up)}, noted as chips removed before settlement ended: "
          f"{err.early_noted}")
    false_alarms = len(honest.alarm_rounds)
    print(f"honest dealer, check on: {args.rounds} rounds in {honest.elapsed:.1f} s, false alarms {false_alarms} "
          f"(rounds with an area flagged over, short or removed early, or SETTLE DONE refused; goal: at most 1 "
          f"in 1000)")
    on_mean, on_p50 = round_ms(honest)
    off_mean, off_p50 = round_ms(off)
    print(f"an honest round: check on mean {on_mean:.1f} ms (p50 {on_p50:.1f}), check off mean {off_mean:.1f} ms "
          f"(p50 {off_p50:.1f}, {base_rounds} rounds): extra {on_mean - off_mean:+.1f} ms a round "
          f"(goal: no more than the board's reading interval, {POLL_S * 1000:.0f} ms)")
    print(f"payments: made {m_total}, detected {d_total}, false alarms {false_alarms} in {args.rounds} honest rounds, "
          f"detection p99 {pct(err.delay_ms, .99):.0f} ms")


if __name__ == "__main__":
    main()

"""Player ratings against an independent computation, and how wrong the usual estimate is.

    .venv/bin/python benchmarks/bench_ratings.py                 # 60 rounds, seed 1
    .venv/bin/python benchmarks/bench_ratings.py --rounds 200 --seed 3

Simulated players sit at a table folded by the real table core (tabled/table/core.py), each with
its own strategy (tabled/math/strategy.py) and bet spread; some take a break and come back (their
card out, then in again), one moves spots, two play without a card. Every input and the notes it
made are written to a journal, which ``tabled report players`` reads as it would on a table
(tabled/reports/ratings.py: the theoretical loss from the counting tables).

Beside each player's ratings (summed over their sessions), an independent computation from the
journal's raw records: who sat where from the ``player.card`` and ``player.leaves`` inputs, each
hand's wagers and result from ``round.settled``, and the theoretical loss by dealing all 163,185
dealer hole-card sets against every hand and settling each way they fall with the game core, plus
the progressive wager less its expected award at the meter counted from the five-card hands of
each category. Then the usual estimate, posted edge x average ante x hands, against the exact
theoretical, per strategy. Last line: ``ratings: P players, A agree to the cent, largest
difference D cents``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tabled.journal.store import Journal
from tabled.game.cards import parse_cards
from tabled.game.limits import Limits
from tabled.game.round_facts import SpotStatus
from tabled.math.strategy import decide
from tabled.profiles import load_profile
from tabled.reports.ratings import RATING_KINDS, rate
from tabled.table.core import TableCore
from tabled.table.effects import Note, PoolOp
from tests.reports.theoretical import hand_theoretical

NSW = load_profile("nsw")
START_MS = 1_800_000_000_000
ROUND_MS = 45_000


@dataclass
class SimPlayer:
    name: str
    card: str | None
    spot: int
    strategy: str
    antes: tuple[int, ...]          # the bet spread, in cents
    progressive: float              # how often the progressive wager is played
    breaks: tuple[int, ...] = ()    # rounds at which the player leaves for 5 rounds and comes back
    move_to: int | None = None      # moves to this spot halfway through


PLAYERS = [
    SimPlayer("steady", "4000100010001001", 1, "rules", (1000,), 0.5),
    SimPlayer("spreader", "4000100010002002", 2, "pair-plus", (500, 1000, 5000), 0.2, breaks=(20,)),
    SimPlayer("maniac", "4000100010003003", 3, "always-raise", (2500, 5000), 1.0),
    SimPlayer("ace-king", "4000100010004004", 4, "any-ak", (500, 2500), 0.0, move_to=7),
    SimPlayer("textbook", "4000100010005005", 5, "ak-j-8-3", (1000, 2000), 0.3, breaks=(10, 35)),
    SimPlayer("walk-in", None, 6, "pair-plus", (500,), 0.0),
]


class Table:
    """The table core fed as the daemon feeds it, each input and its notes journaled."""

    def __init__(self, journal: Journal, clock: list[float]) -> None:
        self.core = TableCore("B01", 7, Limits(500, 50_000, 100, NSW.progressive_wager_cents), NSW)
        self.journal, self.clock = journal, clock
        self.t = START_MS
        self.pool = 1_000_000
        self.feed("player.tracking", on=True, interval_minutes=0)
        self.feed("panel", action="open_table", key="supervisor")
        for deck in ("A", "B"):
            self.feed("deck.verified", deck=deck, cards=list(range(52)))
            self.feed("shuffler.shuffled", deck=deck)

    def feed(self, kind: str, **payload: Any) -> None:
        self.clock[0] = self.t / 1000
        effects = self.core.apply(kind, payload, self.t)
        self.journal.append_many([(kind, payload, None),
                                  *((e.kind, e.payload, e.round_id) for e in effects if isinstance(e, Note))])
        for e in effects:
            if isinstance(e, PoolOp):
                self.answer(e)

    def answer(self, op: PoolOp) -> None:
        if op.op == "contribute":
            self.pool += NSW.contribution_cents(op.cents)
            self.feed("pool.contributed", round_id=op.round_id, spot=op.spot, balance_cents=self.pool)
        elif op.op == "reverse":
            self.feed("pool.reversed", round_id=op.round_id, spot=op.spot, balance_cents=self.pool)
        else:
            from tabled.game.progressive import ProgressiveHit, award_progressive
            from tabled.game.ranking import Category as C
            from tabled.table.poolbook import result_as_dict
            hits = [ProgressiveHit(spot, C[name]) for spot, name in op.hits]
            result = award_progressive(self.pool, hits, NSW.progressive_schedule)
            self.pool = result.pool_after_cents
            self.feed("pool.awards", round_id=op.round_id, result=result_as_dict(result))


def play(table: Table, rounds: int, rng: random.Random) -> None:
    seated = {p.name: p.spot for p in PLAYERS}
    for p in PLAYERS:
        if p.card:
            table.feed("player.card", spot=p.spot, card=p.card)
    for n in range(rounds):
        table.t = START_MS + (n + 1) * ROUND_MS
        for p in PLAYERS:
            if p.move_to and n == rounds // 2 and p.card:
                table.feed("player.card", spot=p.move_to, card=p.card)
                seated[p.name] = p.move_to
            for b in p.breaks:
                if n == b and p.card:
                    table.feed("player.leaves", card=p.card)
                elif n == b + 5 and p.card:
                    table.feed("player.card", spot=seated[p.name], card=p.card)
        away = {p.name for p in PLAYERS for b in p.breaks if b <= n < b + 5}
        playing = [p for p in PLAYERS if p.name not in away]
        r = table.core.round
        assert r is not None and r.phase == "betting", f"round {n}: the table is not taking bets"
        for p in playing:
            table.feed("wager", spot=seated[p.name], area="ante", cents=rng.choice(p.antes))
            if rng.random() < p.progressive:
                table.feed("wager", spot=seated[p.name], area="progressive", cents=NSW.progressive_wager_cents)
        table.feed("panel", action="no_more_bets", key="dealer")
        deck = rng.sample(range(52), 52)
        hands = {}
        for i, target in enumerate(table.core.round.dealt_to):
            hands[target] = deck[5 * i:5 * i + 5]
            table.feed("shuffler.hand", cards=hands[target], back=table.core.round.back)
        up = table.core.round.dealer_up[0]
        for p in playing:
            spot = seated[p.name]
            if decide(p.strategy, tuple(hands[spot]), up):
                table.feed("wager", spot=spot, area="bet", cents=2 * table.core.round.spots[spot].locked_ante.cents)
            else:
                table.feed("panel", action="fold", key="dealer", spot=spot)
        table.feed("panel", action="reveal", key="dealer")
        table.feed("panel", action="settle", key="dealer")
        for _ in range(7):  # each progressive award confirmed paid (9.5), in the rules' order
            r = table.core.round
            if r is None or r.phase != "settling":
                break
            held = [s.number for s in r.spots.values() if s.award_held or getattr(s, "award", None)]
            for spot in sorted(held, reverse=True):
                table.feed("panel", action="award_paid", key="dealer", spot=spot)
        for deck_name in ("A", "B"):
            table.feed("shuffler.shuffled", deck=deck_name)
    table.t += ROUND_MS
    for p in PLAYERS:
        if p.card:
            table.feed("player.leaves", card=p.card)
        else:
            table.feed("player.leaves", spot=seated[p.name])


# -- the independent computation ------------------------------------------------------------------------

@dataclass
class Tally:
    hands: int = 0
    ante: int = 0
    result: int = 0
    theoretical: Fraction = Fraction(0)


def independent(records: list[Any]) -> dict[str, Tally]:
    """Per player (card, or the spot of a player without one): from raw inputs and the rounds' notes."""
    at: dict[int, str] = {}            # spot -> card seated there
    dealt: dict[str, Any] = {}
    out: dict[str, Tally] = defaultdict(Tally)
    for r in records:
        p = r.payload
        if r.kind == "player.card":
            at = {s: c for s, c in at.items() if c != p["card"]}
            at[p["spot"]] = p["card"]
        elif r.kind == "player.leaves":
            at = {s: c for s, c in at.items() if c != p.get("card") and s != p.get("spot")}
        elif r.kind == "round.dealt":
            dealt[r.round_id] = p
        elif r.kind == "round.settled" and not p["void"]:
            for line in p["spots"]:
                status = SpotStatus(line["status"])
                if status not in (SpotStatus.PLAYED, SpotStatus.FOLDED):
                    continue
                who = out[at.get(line["spot"], f"spot {line['spot']}")]
                who.hands += 1
                who.ante += line["ante"]["placed_cents"]
                who.result += line["total_cents"]
                (up,) = parse_cards(" ".join(dealt[r.round_id]["dealer_up"]))
                who.theoretical += hand_theoretical(line, up, p["progressive"]["pool_before_cents"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--posted-edge", type=float, default=5.22,
                        help="the house edge the usual estimate uses, percent of the ante (the figure published "
                             "for Caribbean Stud)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.db"
        clock = [START_MS / 1000]
        t0 = time.perf_counter()
        with Journal.open(path, clock=lambda: clock[0]) as journal:
            play(Table(journal, clock), args.rounds, rng)
        print(f"played: {args.rounds} rounds, {len(PLAYERS)} players, journaled in {time.perf_counter() - t0:.1f} s")
        with Journal.open(path, readonly=True, verify=False) as journal:
            records = list(journal.records_after(0))
    t0 = time.perf_counter()
    ratings = rate([r for r in records if r.kind in RATING_KINDS], lambda name: load_profile(name))
    rated_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    check = independent(records)
    print(f"rated {len(ratings)} sessions in {rated_s:.2f} s (counting tables); "
          f"independent: {time.perf_counter() - t0:.1f} s (every dealer hand dealt)")
    by_player: dict[str, list[Any]] = defaultdict(list)
    for r in ratings:
        by_player[r.card or f"spot {r.spots[0]}"].append(r)
    print(f"\n{'player':<9} {'strategy':<13} {'sessions':>8} {'hands':>5} {'avg ante':>9} {'result':>10} "
          f"{'theo (rating)':>14} {'theo (indep.)':>14} {'diff':>5} {'estimate':>9} {'est. error':>10}")
    agree, largest = 0, 0
    errors: dict[str, list[float]] = defaultdict(list)
    for p in PLAYERS:
        key = p.card or f"spot {p.spot}"
        mine = by_player.get(key, [])
        ind = check.get(key, Tally())
        theo = sum((r.theoretical for r in mine), Fraction(0))
        hands = sum(r.rounds_played for r in mine)
        ante = sum(r.ante_cents for r in mine)
        result = sum(r.result_cents for r in mine)
        diff = abs(round(theo) - round(ind.theoretical))
        same = diff == 0 and (hands, ante, result) == (ind.hands, ind.ante, ind.result)
        agree += same
        largest = max(largest, diff, abs(ante - ind.ante), abs(result - ind.result))
        average = ante / hands if hands else 0.0
        estimate = args.posted_edge / 100 * average * hands
        error = (estimate - float(theo)) / float(theo) * 100 if theo else float("nan")
        errors[p.strategy].append(estimate - float(theo))
        print(f"{p.name:<9} {p.strategy:<13} {len(mine):>8} {hands:>5} {average / 100:>9.2f} {result / 100:>10.2f} "
              f"{float(theo) / 100:>14.2f} {float(ind.theoretical) / 100:>14.2f} {diff:>5} {estimate / 100:>9.2f} "
              f"{error:>9.1f}%")
    print(f"\nthe usual estimate ({args.posted_edge}% x average ante x hands) against the exact theoretical, "
          "per strategy (estimate - exact, dollars):")
    for strategy, diffs in errors.items():
        print(f"  {strategy:<13} {' '.join(f'{d / 100:+.2f}' for d in diffs)}")
    print(f"ratings: {len(PLAYERS)} players, {agree} agree to the cent, largest difference {largest} cents")


if __name__ == "__main__":
    main()

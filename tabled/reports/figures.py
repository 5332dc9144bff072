"""The figures of one period: play, money per wager type, and the win against the mathematics.

Money (docs/reports.md):

* ante and bet sit on the layout until settlement: the house collects what it takes
  (``collected``), pays winnings (``paid``), and what goes back is ``returned``. Their win is
  collected - paid, the settlement's net with its sign turned.
* the progressive wager goes into the drop at "no more bets" (7.2.1): all of it is collected;
  what a void gives back is ``returned``, and the awards (11.8, 12.1) are ``paid``, whether from
  the pool or topped up by the operator. Its win is wagered - returned - awards.
* hold is win / wagered. Chips and promotional tokens (1.1, 5.1) are wagered apart; a token the
  house takes is part of ``collected`` and is shown as ``tokens_taken`` as well.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from tabled.game.profiles import Profile
from tabled.game.round_facts import SpotStatus
from tabled.game.settlement import Outcome
from tabled.math.progressive import progressive_math

from .integrity import Integrity, integrity
from .periods import Period
from .rounds import ConfigStart, Gathered, PlayedRound, SettledRound
from .theory import DEALER_HANDS, HandTheory, Scaled, theory_of_hands

WAGERS = ("ante", "bet", "progressive")
HOUR_US = 3_600_000_000
#: a gap between two rounds longer than this counts as the table standing closed
IDLE_US = 15 * 60_000_000


@dataclass
class WagerMoney:
    wagers: int = 0
    chips_cents: int = 0
    tokens_cents: int = 0
    paid_cents: int = 0
    collected_cents: int = 0
    returned_cents: int = 0
    tokens_taken_cents: int = 0

    @property
    def wagered_cents(self) -> int:
        return self.chips_cents + self.tokens_cents

    @property
    def win_cents(self) -> int:
        return self.collected_cents - self.paid_cents

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.win_cents, self.wagered_cents) if self.wagered_cents else None

    def add(self, other: WagerMoney) -> None:
        for name in ("wagers", "chips_cents", "tokens_cents", "paid_cents", "collected_cents", "returned_cents",
                     "tokens_taken_cents"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Progressive:
    wagers: int = 0
    rounds_with_wagers: int = 0
    contributions: int = 0
    contributed_cents: int = 0      # to the pool (11.6)
    retained_cents: int = 0         # the rest of the wagers, kept by the operator
    reversals: int = 0
    reversed_cents: int = 0
    awards: int = 0
    awards_cents: int = 0
    from_pool_cents: int = 0
    operator_topup_cents: int = 0
    by_category: dict[str, int] = field(default_factory=dict)  # category -> awards
    reset_funding_cents: int = 0    # the operator's funding of the pool's resets
    pool_start_cents: int | None = None  # the pool as the period's first settled round opened
    pool_end_cents: int | None = None    # after the last one's settlement
    by_round: dict[str, int] = field(default_factory=dict)  # round id -> progressive wagers (the drop slot's count)
    expected_win: Fraction = Fraction(0)  # the mathematics at each round's meter (11.7, 12.1)

    @property
    def pool_movement_cents(self) -> int | None:
        if self.pool_start_cents is None or self.pool_end_cents is None:
            return None
        return self.pool_end_cents - self.pool_start_cents

    @property
    def table_pool_cents(self) -> int:
        """What this table's rounds moved the pool by: contributions - reversals - awards from the
        pool + reset funding. The rest of the movement is other tables' on a linked pool."""
        return self.contributed_cents - self.reversed_cents - self.from_pool_cents + self.reset_funding_cents


@dataclass
class Play:
    rounds: int = 0                 # settled, not void
    void_rounds: int = 0
    open_us: int = 0
    hands: int = 0                  # spots with an ante in a settled round (not void)
    folds: int = 0                  # 8.4
    bets: int = 0                   # 8.5
    first_us: int | None = None     # the first round's start
    last_us: int | None = None      # the last round's end

    @property
    def rounds_per_hour(self) -> Fraction | None:
        return Fraction(self.rounds * HOUR_US, self.open_us) if self.open_us else None

    @property
    def hands_per_round(self) -> Fraction | None:
        return Fraction(self.hands, self.rounds) if self.rounds else None

    def per_hand(self, count: int) -> Fraction | None:
        return Fraction(count, self.hands) if self.hands else None


@dataclass
class Theory(Scaled):
    hands: int = 0
    left_out: int = 0               # hands with no exact figure (void, absent, conceded, dead, 2 up cards)
    actual_cents: int = 0           # ante and bet of the hands counted
    expected_n: int = 0             # x DEALER_HANDS (tabled.reports.theory)
    optimal_n: int = 0              # x DEALER_HANDS
    variance_n: int = 0             # x DEALER_HANDS squared
    ante_squares: int = 0           # sum of antes squared: the par sheet's deviation scales by its root
    par_sheet_std_dev: float | None = None  # per hand, in antes (tabled analyze), when asked for
    sigmas: float = 3.0
    running: list[tuple[int, int, float, float]] = field(default_factory=list)  # (time, actual, expected, sd)


    @property
    def std_dev_cents(self) -> float:
        if self.par_sheet_std_dev is not None:
            return self.par_sheet_std_dev * math.sqrt(self.ante_squares)
        return math.sqrt(self.variance_n) / DEALER_HANDS

    @property
    def deviation(self) -> float | None:
        """(actual - theoretical) in standard deviations."""
        sd = self.std_dev_cents
        return float(self.actual_cents - self.expected) / sd if sd else None

    @property
    def flagged(self) -> bool:
        d = self.deviation
        return d is not None and abs(d) > self.sigmas


@dataclass(frozen=True)
class ConfigChange:
    """A start within the period with the configuration it ran with, between two rounds."""

    start: ConfigStart
    round_before: str | None        # the last round started before it (in the records read)
    round_after: str | None         # the first round started after it


@dataclass
class Report:
    period: Period
    table: str | None
    profile: str | None
    play: Play
    money: dict[str, WagerMoney]
    progressive: Progressive
    theory: Theory
    integrity: Integrity
    problems: list[str]
    hourly: dict[int, int]          # hour's start (us) -> rounds started
    round_ids: list[str]
    configs: list[ConfigChange] = field(default_factory=list)  # the starts within the period

    @property
    def total(self) -> WagerMoney:
        out = WagerMoney()
        for m in self.money.values():
            out.add(m)
        return out


def _add_round_money(money: dict[str, WagerMoney], st: SettledRound) -> None:
    for spot in st.spots:
        for name, w in zip(WAGERS, spot.wagers):
            if not w.placed_cents:
                continue
            m = money[name]
            m.wagers += 1
            m.chips_cents += w.placed_cents - w.token_cents
            m.tokens_cents += w.token_cents
            m.tokens_taken_cents += w.tokens_forfeited_cents
            m.returned_cents += w.returned_cents
            if name == "progressive":
                # in the drop since the lock (7.2.1): collected whole; a return is paid back out of it
                m.collected_cents += w.placed_cents - w.returned_cents
            else:
                m.paid_cents += w.winnings_cents
                m.collected_cents += w.collected_cents
    for a in st.awards:
        money["progressive"].paid_cents += a.amount_cents


def _open_time(rounds: list[PlayedRound]) -> int:
    """The table counts as open from each round's start to its end, and between rounds less than
    :data:`IDLE_US` apart."""
    total = 0
    start: int | None = None
    end = 0
    for r in sorted(rounds, key=lambda r: r.started_us):
        if start is None or r.started_us - end > IDLE_US:
            if start is not None:
                total += end - start
            start, end = r.started_us, r.ended_us
        else:
            end = max(end, r.ended_us)
    if start is not None:
        total += end - start
    return total


def _theory_hands(rounds: list[PlayedRound], theory: Theory) -> list:
    hands = []
    for r in rounds:
        st = r.settlement
        if st is None or st.void is not None:
            continue
        for spot in st.spots:
            if not spot.ante.placed_cents:
                continue
            if spot.status not in (SpotStatus.PLAYED, SpotStatus.FOLDED) or r.up_card is None \
                    or len(set(spot.cards)) != 5 or r.up_card in spot.cards:
                theory.left_out += 1
                continue
            hands.append((r, spot))
    return hands


def report(period: Period, gathered: Gathered, profile_of: Callable[[str], Profile], *, table: str | None = None,
           sigmas: float = 3.0, par_sheet_std_dev: Callable[[Profile], float] | None = None) -> Report:
    """The figures of the rounds that started in ``period`` and of the happenings in it."""
    rounds = [r for r in gathered.rounds.values() if period.holds(r.started_us)
              and (table is None or r.round_id.startswith(f"{table}-"))]
    play, progressive, theory = Play(), Progressive(), Theory(sigmas=sigmas)
    money = {name: WagerMoney() for name in WAGERS}
    hourly: dict[int, int] = {}
    profiles = set()
    returns: dict[tuple[str, int], Fraction] = {}  # the progressive's return by profile and meter
    for r in rounds:
        hour = period.start_us + (r.started_us - period.start_us) // HOUR_US * HOUR_US
        hourly[hour] = hourly.get(hour, 0) + 1
        st = r.settlement
        if st is None:
            continue
        profiles.add(st.profile)
        _add_round_money(money, st)
        if st.void is not None:
            play.void_rounds += 1
        else:
            play.rounds += 1
            for spot in st.spots:
                if spot.ante.placed_cents and spot.status is not SpotStatus.EMPTY:
                    play.hands += 1
                    play.folds += spot.status is SpotStatus.FOLDED
                    play.bets += spot.bet.placed_cents > 0 and spot.status is SpotStatus.PLAYED
        progressive_wagers = sum(1 for s in st.spots if s.progressive.placed_cents)
        progressive.wagers += progressive_wagers
        progressive.rounds_with_wagers += progressive_wagers > 0
        progressive.by_round[r.round_id] = progressive_wagers
        progressive.reset_funding_cents += st.reset_funding_cents
        if progressive.pool_start_cents is None:  # the pool before this round's own contributions
            progressive.pool_start_cents = st.pool_before_cents - sum(int(c.get("pool_cents", 0))
                                                                      for c in r.contributions)
        progressive.pool_end_cents = st.pool_after_cents
        for a in st.awards:
            progressive.awards += 1
            progressive.awards_cents += a.amount_cents
            progressive.from_pool_cents += a.from_pool_cents
            progressive.operator_topup_cents += a.operator_topup_cents
            progressive.by_category[a.category] = progressive.by_category.get(a.category, 0) + 1
        if progressive_wagers and st.void is None:
            key = (st.profile, st.pool_before_cents)
            if key not in returns:
                returns[key] = progressive_math(profile_of(st.profile)).return_at(st.pool_before_cents)
            taken = sum(s.progressive.placed_cents for s in st.spots if s.progressive.outcome == Outcome.TAKEN)
            progressive.expected_win += -returns[key] * taken
        for c in r.contributions:
            progressive.contributions += 1
            progressive.contributed_cents += int(c.get("pool_cents", 0))
            progressive.retained_cents += int(c.get("retained_cents", 0))
        for c in r.reversals:
            progressive.reversals += 1
            progressive.reversed_cents += int(c.get("reversed_cents", 0))
    settled = [r for r in rounds if r.settlement is not None]
    play.open_us = _open_time(settled)
    if rounds:
        play.first_us, play.last_us = rounds[0].started_us, max(r.ended_us for r in rounds)
    _add_theory(settled, theory, profile_of, par_sheet_std_dev)
    events = [e for e in gathered.events if e.time_us < period.end_us]
    return Report(period, table, ", ".join(sorted(profiles)) or None, play, money, progressive, theory,
                  integrity(period, events, rounds), _problems(period, gathered, rounds), hourly,
                  [r.round_id for r in rounds], _configs(period, gathered, table))


def _configs(period: Period, gathered: Gathered, table: str | None) -> list[ConfigChange]:
    """Each start within the period, with the rounds of the table either side of it."""
    starts = [c for c in gathered.configs if period.holds(c.time_us)]
    if not starts:
        return []
    ours = [r for r in gathered.rounds.values() if table is None or r.round_id.startswith(f"{table}-")]
    out = []
    for c in starts:
        before = [r.round_id for r in ours if r.started_us <= c.time_us]
        after = [r.round_id for r in ours if r.started_us > c.time_us]
        out.append(ConfigChange(c, before[-1] if before else None, after[0] if after else None))
    return out


def _problems(period: Period, gathered: Gathered, rounds: list[PlayedRound]) -> list[str]:
    """The problems of the period's rounds, and those of no round that happened in it."""
    ours = {r.round_id for r in rounds}
    return [p.text for p in gathered.problems
            if p.round_id in ours or (p.round_id is None and period.holds(p.time_us))]


def _add_theory(rounds: list[PlayedRound], theory: Theory, profile_of: Callable[[str], Profile],
                par_sheet_std_dev: Callable[[Profile], float] | None) -> None:
    by_profile: dict[str, list] = {}
    for r, spot in _theory_hands(rounds, theory):
        by_profile.setdefault(r.settlement.profile, []).append((r, spot))
    results: list[tuple[int, HandTheory]] = []
    for name, hands in by_profile.items():
        profile = profile_of(name)
        if par_sheet_std_dev is not None:
            theory.par_sheet_std_dev = par_sheet_std_dev(profile)
        for (r, _), hand in zip(hands, theory_of_hands([(spot, r.up_card) for r, spot in hands], profile)):
            results.append((r.started_us, hand))
    results.sort(key=lambda x: x[0])
    scale = theory.par_sheet_std_dev
    for when, hand in results:
        theory.hands += 1
        theory.actual_cents += hand.actual_cents
        theory.expected_n += hand.expected_n
        theory.optimal_n += hand.optimal_n
        theory.variance_n += hand.variance_n
        theory.ante_squares += hand.ante_cents * hand.ante_cents
        sd = math.sqrt(theory.variance_n) / DEALER_HANDS if scale is None else scale * math.sqrt(theory.ante_squares)
        theory.running.append((when, theory.actual_cents, theory.expected_n / DEALER_HANDS, sd))


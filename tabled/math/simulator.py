"""Simulated play: real rounds dealt from a shuffled deck and settled, many at a time.

Each round: one 52-card deck (3.1) shuffled, five cards to each of K spots and five to the dealer,
the dealer's last card face up (7.4). Every spot antes ``ante_cents`` and, by default, makes the
posted progressive wager (11.3). Each spot's strategy decides bet or fold (8.1); the round is
settled by the game's rules: :func:`settle_batch` does in NumPy exactly what
:func:`tabled.game.settlement.settle` does for these rounds (tested to agree round by round), and
rounds with a straight flush or royal flush on the progressive, whose awards depend on the pool
and on each other (12.3), are settled by :func:`~tabled.game.settlement.settle` itself.

The progressive meter is held at ``pool_cents`` for the whole run (each round sees the same pool),
so the measured progressive return is the return at that meter, comparable with the exact one.
The same seed always gives the same result (NumPy's PCG64 generator, fixed chunking).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tabled.game.batch import evaluate_batch
from tabled.game.profiles import Profile
from tabled.game.ranking import QUALIFYING_VALUE, Category
from tabled.game.round_facts import RoundFacts, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle
from tabled.game import seats

from . import analysis
from .counting import value_classes
from .paytable import Paytable
from .progressive import progressive_math
from .strategy import check_strategy, raises_for_cards

CHUNK_ROUNDS = 1 << 15
#: the most rounds one run deals: about 50 minutes at the measured speed (docs/performance.md,
#: some 340,000 rounds of seven spots a second); a count beyond it would not end in a working day
MAX_ROUNDS = 1_000_000_000

#: outcome codes per spot: 0..9 win with that Category, then these
NOT_QUALIFYING, STAND_OFF, FOLD, DEALER_WINS = 10, 11, 12, 13
OUTCOME_NAMES = [analysis.WIN_NAMES[c] for c in Category] + [
    analysis.NOT_QUALIFYING, analysis.STAND_OFF, analysis.FOLD, analysis.DEALER_WINS]


def _category_of_value() -> np.ndarray:
    return value_classes().category  # index: hand value


def deal(rng: np.random.Generator, rounds: int, spots: int) -> tuple[np.ndarray, np.ndarray]:
    """Shuffle a deck per round; (rounds, spots, 5) spot hands and (rounds, 5) dealer hands."""
    order = rng.random((rounds, 52)).argsort(axis=1)[:, :5 * spots + 5].astype(np.int64)
    return order[:, :5 * spots].reshape(rounds, spots, 5), order[:, 5 * spots:]


@dataclass(frozen=True)
class BatchSettlement:
    ante_bet_net_cents: np.ndarray   # (rounds, spots): + paid, - collected, on ante and bet
    award_cents: np.ndarray          # (rounds, spots): progressive awards (11.8)
    outcome: np.ndarray              # (rounds, spots): outcome codes
    core_rounds: int                 # rounds settled by tabled.game.settlement.settle


def round_facts(spot_cards: np.ndarray, dealer_cards: np.ndarray, bet: np.ndarray,
                ante_cents: int, progressive_cents: int, pool_cents: int) -> RoundFacts:
    """One dealt round as the game core's facts (spots numbered 1..K in dealing order)."""
    spots = []
    for i, cards in enumerate(spot_cards):
        raised = bool(bet[i])
        spots.append(SpotFacts(
            spot=i + 1, status=SpotStatus.PLAYED if raised else SpotStatus.FOLDED,
            ante=Wager(ante_cents), bet=Wager(2 * ante_cents) if raised else Wager(),
            progressive=Wager(progressive_cents) if progressive_cents else Wager(),
            cards=tuple(int(c) for c in cards)))
    return RoundFacts(len(spot_cards), tuple(int(c) for c in dealer_cards), tuple(spots), pool_cents)


def settle_batch(profile: Profile, spot_cards: np.ndarray, dealer_cards: np.ndarray, bet: np.ndarray,
                 ante_cents: int, progressive_cents: int, pool_cents: int,
                 spot_values: np.ndarray | None = None) -> BatchSettlement:
    """Settle many rounds of played or folded spots with full wagers (rules 9, 10, 11, 12)."""
    rounds, spots = bet.shape
    if spot_values is None:
        spot_values = evaluate_batch(spot_cards.reshape(-1, 5)).reshape(rounds, spots)
    player = spot_values.astype(np.int64)
    dealer = evaluate_batch(dealer_cards).astype(np.int64)[:, None]
    category = _category_of_value()[player]
    qualifies = dealer >= QUALIFYING_VALUE                                   # 9.1
    odds = np.array([profile.bet_odds[c] for c in Category], dtype=np.int64)
    win = ante_cents * profile.ante_odds + 2 * ante_cents * odds[category]    # 9.4.1.1, 10.1
    if profile.max_bet_payout_cents is not None:                              # 10.2
        win = ante_cents * profile.ante_odds + np.minimum(2 * ante_cents * odds[category],
                                                          profile.max_bet_payout_cents)
    higher, lower = player > dealer, player < dealer
    net = np.where(~qualifies, ante_cents * profile.ante_odds,                # 9.2, 9.3.1
                   np.where(higher, win, np.where(lower, -3 * ante_cents, 0)))  # 9.4.1.x
    net = np.where(bet, net, -ante_cents)                                     # 8.4
    outcome = np.where(~qualifies, NOT_QUALIFYING,
                       np.where(higher, category, np.where(lower, DEALER_WINS, STAND_OFF)))
    outcome = np.where(bet, outcome, FOLD)

    award = np.zeros((rounds, spots), dtype=np.int64)
    core_rounds = 0
    if progressive_cents:
        eligible = bet | ("folded" not in profile.progressive_forfeited_by)
        fixed = np.zeros(len(Category), dtype=np.int64)
        for cat, cents in profile.progressive_schedule.fixed_awards_cents.items():
            fixed[cat] = cents
        award = np.where(eligible, fixed[category], 0)
        pooled = eligible & (category >= Category.STRAIGHT_FLUSH)
        for r in np.nonzero(pooled.any(axis=1))[0]:
            # 12.1.1, 12.1.2, 12.3: pool shares and minimums: the game core settles the round
            st = settle(round_facts(spot_cards[r], dealer_cards[r], bet[r], ante_cents,
                                    progressive_cents, pool_cents), profile)
            for line in st.spots:
                award[r, line.spot - 1] = line.award_cents
                net[r, line.spot - 1] = line.ante.net_cents + line.bet.net_cents
            core_rounds += 1
    return BatchSettlement(net, award, outcome, core_rounds)


@dataclass
class SimulationResult:
    profile: str
    strategy: str
    rounds: int
    spots: int
    seed: int
    ante_cents: int
    progressive_cents: int
    pool_cents: int
    net_cents: int = 0                  # ante and bet, all spots, all rounds
    round_net_squares: int = 0          # sum over rounds of (round's ante+bet net in antes)^2 * ante^2
    outcome_counts: np.ndarray = field(default_factory=lambda: np.zeros(14, dtype=np.int64))
    progressive_net_cents: int = 0      # awards - wagers
    round_progressive_squares: int = 0
    core_rounds: int = 0
    running: list[tuple[int, float]] = field(default_factory=list)  # (hands, return per ante)

    @property
    def hands(self) -> int:
        return self.rounds * self.spots

    @property
    def return_per_ante(self) -> float:
        return self.net_cents / (self.hands * self.ante_cents)

    @property
    def standard_error(self) -> float:
        """Of the return per ante; rounds are independent, spots in one round are not."""
        return _standard_error(self.net_cents, self.round_net_squares, self.rounds) / \
            (self.spots * self.ante_cents)

    @property
    def progressive_return(self) -> float:
        return self.progressive_net_cents / (self.hands * self.progressive_cents)

    @property
    def progressive_standard_error(self) -> float:
        return _standard_error(self.progressive_net_cents, self.round_progressive_squares,
                               self.rounds) / (self.spots * self.progressive_cents)

    def ci95(self) -> tuple[float, float]:
        return (self.return_per_ante - 1.96 * self.standard_error,
                self.return_per_ante + 1.96 * self.standard_error)


def _standard_error(total: int, squares: int, n: int) -> float:
    if n < 2:
        return float("nan")
    mean = total / n
    variance = (squares - n * mean * mean) / (n - 1)
    return math.sqrt(max(variance, 0.0) / n)


def simulate(profile: Profile, rounds: int, spots: int, seed: int, strategy: str = "optimal",
             ante_cents: int = 100, progressive: bool = True, pool_cents: int | None = None,
             progress: bool = False, running_points: int = 200) -> SimulationResult:
    """Deal and settle ``rounds`` rounds of ``spots`` spots; every spot plays ``strategy``."""
    check_strategy(strategy)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be a whole number from 1 to {MAX_ROUNDS:,}, got {rounds!r}")
    spots_problem = seats.spot_problem(spots)  # the table's playing areas (2.2.1)
    if spots_problem:
        raise ValueError(f"spots: {spots_problem}")
    if not isinstance(ante_cents, int) or ante_cents < 1:
        raise ValueError(f"the ante must be a whole number of cents >= 1, got {ante_cents!r}")
    pool = profile.progressive_schedule.reset_cents if pool_cents is None else pool_cents
    if not isinstance(pool, int) or pool < 0:
        raise ValueError(f"the pool must be a whole number of cents >= 0, got {pool!r}")
    wager = profile.progressive_wager_cents if progressive else 0
    paytable = Paytable.from_profile(profile)
    result = SimulationResult(profile.name, strategy, rounds, spots, seed, ante_cents, wager, pool)
    rng = np.random.default_rng(seed)
    every = max(1, rounds // max(1, running_points))
    next_mark = every
    from tqdm import tqdm

    with tqdm(total=rounds * spots, desc="simulating", unit="hand", unit_scale=True,
              disable=not progress) as bar:
        done = 0
        while done < rounds:
            n = min(CHUNK_ROUNDS, rounds - done)
            spot_cards, dealer_cards = deal(rng, n, spots)
            flat = spot_cards.reshape(-1, 5)
            values = evaluate_batch(flat)
            up = np.repeat(dealer_cards[:, 4], spots)  # 7.4.2: the dealer's last card face up
            bet = raises_for_cards(strategy, flat, up, paytable, values).reshape(n, spots)
            st = settle_batch(profile, spot_cards, dealer_cards, bet, ante_cents, wager, pool,
                              values.reshape(n, spots))
            round_net = st.ante_bet_net_cents.sum(axis=1)
            cumulative = result.net_cents + np.cumsum(round_net)
            result.net_cents = int(cumulative[-1])
            result.round_net_squares += int((round_net * round_net).sum())
            result.outcome_counts += np.bincount(st.outcome.ravel(), minlength=14)
            if wager:
                round_prog = (st.award_cents - wager).sum(axis=1)
                result.progressive_net_cents += int(round_prog.sum())
                result.round_progressive_squares += int((round_prog * round_prog).sum())
            result.core_rounds += st.core_rounds
            while next_mark <= done + n:
                hands = next_mark * spots
                result.running.append((hands, float(cumulative[next_mark - done - 1]) /
                                       (hands * ante_cents)))
                next_mark += every
            done += n
            bar.update(n * spots)
    return result


def exact_progressive_return(profile: Profile, pool_cents: int) -> float:
    return float(progressive_math(profile).return_at(pool_cents))

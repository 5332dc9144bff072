"""Game protection: do a player's decisions follow cards they should not have seen?

A player without extra information decides from their own five cards and the dealer's up card
(rule 8.1). Given those, whether they bet is independent of the dealer's hole cards and of the
other spots' hands, which the shuffle makes uniformly random among the cards the player cannot
see. So for each decision, conditioning on what the player could see *and on the decision they
made*, the hidden cards are still uniform under the honest hypothesis; a hole-carder's or a
colluder's decisions instead follow them.

For each hypothesis h (which hidden cards the decisions follow) the informed decision f_h is the
optimal one given the visible and the hidden cards (:mod:`tabled.math.informed`), and pi_h the
share of the possible hidden cards for which it is to bet. One decision x multiplies the
evidence for (h, eps) by

    q(x | f) / E_hidden[q(x | f)],   q = 1 - eps when x = f_h, eps otherwise,

which has mean exactly 1 under the honest hypothesis whatever the player's own strategy, so the
product over decisions is a test martingale, and so is the mean over the cells (h, eps). By
Ville's inequality the mean ever reaching 1/alpha has probability at most alpha for an honest
player, however long they play: an alert at 1/alpha = 100,000 is a false alarm at most once in
100,000 honest players. Where the informed decision cannot differ (pi_h is 0 or 1) the factor is
1: only the decisions the hidden cards could flip carry evidence. docs/mathematics.md writes the
statistic out, with what it cannot see.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from tabled.game import ranking
from tabled.game.batch import evaluate_batch
from tabled.math import counting

from .informed import completion_counts, raise_margin
from .paytable import Paytable

#: which hidden cards a player's decisions may follow
HYPOTHESES: dict[str, str] = {
    "hole-1": "the dealer's first hole card",
    "hole-2": "the dealer's first two hole cards",
    "hole-4": "all four of the dealer's hole cards",
    "neighbours": "the hands of the spots within two seats",
}
#: how often an informed player departs from the informed decision (a cheat who sees the
#: cards on some rounds only, or plays them loosely)
EPSILONS = (0.02, 0.15, 0.35)
#: an alert when the evidence reaches 1 / ALERT_ALPHA: at most that share of honest players ever
ALERT_ALPHA = 1e-5
#: neighbours' hands drawn besides the real ones to weigh a decision (the real hands are one of
#: the SAMPLES + 1 exchangeable draws, so the factor's honest mean is exactly 1)
SAMPLES = 31
#: seats either side whose hands the neighbours hypothesis pools
NEIGHBOUR_REACH = 2
#: the decisions that carried the most evidence kept per hypothesis (the surveillance pack's)
CARRIERS_KEPT = 50


@dataclass(frozen=True)
class Decision:
    """What one decision says about each hypothesis: the informed decision (True = bet), the
    share of the hidden cards for which it is to bet, and the margin of betting over folding
    (units of ante) given the visible cards and given the hidden ones too."""

    informed: dict[str, bool]
    share: dict[str, float]
    margin_informed: dict[str, float]
    margin_visible: float


def pair_index(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Index in :func:`_pairs` of positions a < b among the 46 unseen cards."""
    return a * 46 - a * (a + 1) // 2 + (b - a - 1)


@cache
def _pairs() -> np.ndarray:
    return np.array(list(itertools.combinations(range(46), 2)), dtype=np.int64)


def _unseen(visible: np.ndarray) -> np.ndarray:
    """(rows, 46): the cards not among each row's six visible cards, ascending."""
    mask = np.ones((len(visible), 52), dtype=bool)
    np.put_along_axis(mask, visible, False, axis=1)
    return np.nonzero(mask)[1].reshape(len(visible), 46)


def decisions(hands: np.ndarray, up_cards: np.ndarray, holes: np.ndarray | None, neighbours: np.ndarray | None,
              paytable: Paytable, rng: np.random.Generator, samples: int = SAMPLES,
              tables: dict[str, np.ndarray] | None = None) -> list[Decision]:
    """Decision facts for rows of (hand (5 cards), up card, hole cards in deal order (4), the
    cards of the spots within reach (any multiple of 5, or None)). Without hole cards, only the
    neighbours hypothesis is weighed. ``tables``, when given, receives every row's margins over
    all the hidden cards weighed ("unseen", "hole-1": 46, "hole-2": 1,035 pairs, "neighbours":
    the real hands then the draws, "draws": those hands)."""
    hands = np.asarray(hands, dtype=np.int64)
    up = np.asarray(up_cards, dtype=np.int64)
    n = len(hands)
    value = evaluate_batch(hands).astype(np.int64)
    unseen = _unseen(np.concatenate([hands, up[:, None]], axis=1))
    visible_margin = raise_margin(completion_counts(value, hands, up[:, None]), value, paytable)

    informed: dict[str, np.ndarray] = {}
    share: dict[str, np.ndarray] = {}
    margin: dict[str, np.ndarray] = {}
    if holes is not None:
        _hole_decisions(hands, up, np.asarray(holes, dtype=np.int64), value, unseen, paytable, informed, share, margin,
                        tables if tables is not None else {})
    if neighbours is not None and neighbours.shape[1]:
        k = neighbours.shape[1]
        draws = np.empty((n, samples + 1, k), dtype=np.int64)
        draws[:, 0] = neighbours
        for j in range(1, samples + 1):
            draws[:, j] = rng.permuted(unseen, axis=1)[:, :k]
        rep = np.repeat(np.arange(n), samples + 1)
        mn = raise_margin(completion_counts(value[rep], np.concatenate([hands[rep], draws.reshape(-1, k)], axis=1),
                                            up[rep, None]), value[rep], paytable).reshape(n, samples + 1)
        margin["neighbours"] = mn[:, 0]
        informed["neighbours"] = mn[:, 0] > 0
        share["neighbours"] = (mn > 0).mean(axis=1)
        if tables is not None:
            tables["neighbours"], tables["draws"] = mn, draws
    if tables is not None:
        tables["unseen"], tables["visible"] = unseen, visible_margin
    return [Decision({h: bool(informed[h][i]) for h in informed}, {h: float(share[h][i]) for h in share},
                     {h: float(margin[h][i]) for h in margin}, float(visible_margin[i])) for i in range(n)]


def _hole_decisions(hands: np.ndarray, up: np.ndarray, holes: np.ndarray, value: np.ndarray, unseen: np.ndarray,
                    paytable: Paytable, informed: dict[str, np.ndarray], share: dict[str, np.ndarray],
                    margin: dict[str, np.ndarray], tables: dict[str, np.ndarray]) -> None:
    n = len(hands)
    # one hole card: each of the 46 the player cannot see, exactly
    rep = np.repeat(np.arange(n), 46)
    m1 = raise_margin(completion_counts(value[rep], hands[rep], np.stack([up[rep], unseen.ravel()], axis=1)),
                      value[rep], paytable).reshape(n, 46)
    at = np.argmax(unseen == holes[:, :1], axis=1)
    margin["hole-1"] = m1[np.arange(n), at]
    share["hole-1"] = (m1 > 0).mean(axis=1)
    # two hole cards: each of the 1,035 pairs, exactly
    pairs = _pairs()
    rep = np.repeat(np.arange(n), len(pairs))
    two = unseen[:, pairs].reshape(-1, 2)
    m2 = raise_margin(completion_counts(value[rep], hands[rep], np.concatenate([up[rep, None], two], axis=1)),
                      value[rep], paytable).reshape(n, len(pairs))
    share["hole-2"] = (m2 > 0).mean(axis=1)
    first_two = np.sort(holes[:, :2], axis=1)
    margin["hole-2"] = raise_margin(completion_counts(value, hands, np.concatenate([up[:, None], first_two], axis=1)),
                                    value, paytable)
    # four: the dealer's hand is known; bet unless it qualifies and beats the player's (9.4.1.2)
    counts = counting.dealer_counts_batch(*_situations(hands, up, value))
    share["hole-4"] = 1 - counts[:, 3] / counting.DEALER_HANDS_PER_UP_CARD
    margin["hole-4"] = raise_margin(completion_counts(value, hands, np.concatenate([up[:, None], holes], axis=1)),
                                    value, paytable)
    for h in ("hole-1", "hole-2", "hole-4"):
        informed[h] = margin[h] > 0
    tables["hole-1"], tables["hole-2"] = m1, m2


def _situations(hands: np.ndarray, up: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    same_suit = (hands & 3) == (up[:, None] & 3)
    mask = np.where(same_suit, np.int64(1) << (hands >> 2), 0).sum(axis=1)
    return value, up >> 2, mask


def log_factors(bet: np.ndarray, informed: np.ndarray, share: np.ndarray) -> np.ndarray:
    """ln of each decision's factor for each eps of :data:`EPSILONS`: (..., len(EPSILONS))."""
    eps = np.array(EPSILONS)
    bet = np.asarray(bet, dtype=bool)[..., None]
    match = bet == np.asarray(informed, dtype=bool)[..., None]
    p = np.where(bet, np.asarray(share)[..., None], 1 - np.asarray(share)[..., None])  # P(f = x)
    return np.log(np.where(match, 1 - eps, eps)) - np.log((1 - eps) * p + eps * (1 - p))


def expected_log_factor(share: np.ndarray) -> np.ndarray:
    """Per eps: the expected ln factor of one decision by a player who always follows the
    informed decision (the evidence a cheat adds per round; 0 where nothing can flip)."""
    s = np.asarray(share)[..., None]
    eps = np.array(EPSILONS)
    out = np.zeros(np.broadcast(s, eps).shape)
    for p in (s, 1 - s):
        with np.errstate(divide="ignore", invalid="ignore"):
            term = p * (np.log(1 - eps) - np.log((1 - eps) * p + eps * (1 - p)))
        out += np.where(p > 0, term, 0.0)
    return out


@dataclass
class Evidence:
    """One player's evidence so far, every hypothesis and eps at once."""

    hypotheses: tuple[str, ...] = tuple(HYPOTHESES)
    rounds: int = 0
    log_products: np.ndarray = field(default_factory=lambda: np.zeros((len(HYPOTHESES), len(EPSILONS))))
    peak: float = 1.0
    alert_round: int | None = None
    gain: dict[str, float] = field(default_factory=dict)
    power: dict[str, float] = field(default_factory=dict)  # expected ln evidence of a full cheat
    carriers: list[tuple[int, str, float]] = field(default_factory=list)  # (round, hypothesis, ln factor)

    def add(self, bet: bool, decision: Decision, round_number: int | None = None) -> float:
        """Count one decision; returns the evidence (mean over cells) after it."""
        self.rounds += 1
        number = self.rounds if round_number is None else round_number
        for i, h in enumerate(self.hypotheses):
            if h not in decision.informed:
                continue
            lf = log_factors(np.array(bet), np.array(decision.informed[h]), np.array(decision.share[h]))
            self.log_products[i] += lf
            # the decision's value with the hidden cards, against the visible optimum's
            m = decision.margin_informed[h]
            self.gain[h] = self.gain.get(h, 0.0) + (m if bet else 0.0) - (m if decision.margin_visible > 0 else 0.0)
            self.power[h] = self.power.get(h, 0.0) + float(expected_log_factor(np.array(decision.share[h])).max())
            if float(lf.max()) > 0.5:
                self.carriers.append((number, h, float(lf.max())))
        if len(self.carriers) > 8 * CARRIERS_KEPT:  # memory stays flat over a long session
            self.carriers = sorted(c for h in self.hypotheses
                                   for c in sorted((c for c in self.carriers if c[1] == h),
                                                   key=lambda c: -c[2])[:CARRIERS_KEPT])
        e = self.evidence
        self.peak = max(self.peak, e)
        if self.alert_round is None and self.log_evidence >= np.log(1 / ALERT_ALPHA):
            self.alert_round = number
        return e

    @property
    def log_evidence(self) -> float:
        """ln of the mean over the cells of their products, computed without overflow."""
        top = float(self.log_products.max())
        return top + float(np.log(np.exp(self.log_products - top).mean()))

    @property
    def evidence(self) -> float:
        return float(np.exp(min(self.log_evidence, 700.0)))  # beyond e^700: as good as certain

    @property
    def honest_probability(self) -> float:
        """Ville's bound: the chance an honest player's evidence ever reached its peak."""
        return min(1.0, 1.0 / self.peak)

    @property
    def leading(self) -> str:
        return self.hypotheses[int(self.log_products.max(axis=1).argmax())]


def decision_of(hand: Sequence[int], up_card: int, holes: Sequence[int], neighbours: Sequence[int],
                paytable: Paytable, rng: np.random.Generator) -> Decision:
    """:func:`decisions` for one round (cards as ints; ``neighbours`` may be empty)."""
    ranking.evaluate(hand)
    nb = np.array([list(neighbours)], dtype=np.int64) if neighbours else None
    return decisions(np.array([list(hand)]), np.array([up_card]), np.array([list(holes)]), nb, paytable, rng)[0]

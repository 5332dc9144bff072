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
product over decisions is a test martingale, and so is any weighted mean over the cells (h, eps).
The hypotheses are the dealer's hole cards (the first, the first two, all four) and the hands of
other spots, one by one at any offset and together for the spots either side, the next two and
all within two seats; the hole cards weigh half, the other spots' hands half. By Ville's
inequality the weighted mean ever reaching 1/alpha has probability at most alpha for an honest
player, however long they play: an alert at 1/alpha = 100,000 is a false alarm at most once in
100,000 honest players. Where the informed decision cannot differ (pi_h is 0 or 1) the factor is
1: only the decisions the hidden cards could flip carry evidence. docs/mathematics.md writes the
statistic out, with what it cannot see.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from tabled.game import ranking
from tabled.game.batch import evaluate_batch
from tabled.math import counting

from .informed import completion_counts, raise_margin
from .paytable import Paytable

#: the hole-card hypotheses: which of the dealer's hole cards a player's decisions may follow
HOLE_HYPOTHESES: dict[str, str] = {
    "hole-1": "the dealer's first hole card",
    "hole-2": "the dealer's first two hole cards",
    "hole-4": "all four of the dealer's hole cards",
}
#: seats either side whose hands the neighbours hypothesis pools
NEIGHBOUR_REACH = 2
#: the other spots a player's decisions may follow, by offset (their spot number minus the
#: player's): any one other spot of a seven-spot table, the spots either side, the next two
#: either way, and every spot within NEIGHBOUR_REACH seats (as many of them as hold a hand)
MAX_OFFSET = 6
SEAT_OFFSETS = tuple(k for k in range(-MAX_OFFSET, MAX_OFFSET + 1) if k)
SHARING: dict[str, tuple[int, ...]] = {
    **{f"spot{k:+d}": (k,) for k in sorted(SEAT_OFFSETS, key=lambda k: (abs(k), k))},
    "spots-1+1": (-1, 1),
    "spots+1+2": (1, 2),
    "spots-2-1": (-2, -1),
    "neighbours": (-2, -1, 1, 2),
}


_WORDS = {1: "next", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}
_UNIONS = {"spots-1+1": "the hands of the spots either side", "spots+1+2": "the hands of the next two spots up",
           "spots-2-1": "the hands of the next two spots down",
           "neighbours": f"the hands of the spots within {NEIGHBOUR_REACH} seats"}


def _sharing_text(name: str, offsets: tuple[int, ...]) -> str:
    if name in _UNIONS:
        return _UNIONS[name]
    k, = offsets
    way = "up" if k > 0 else "down"
    where = f"next spot {way}" if abs(k) == 1 else f"spot {_WORDS[abs(k)]} {way}"
    return f"the hand of the {where} (spot {'+' if k > 0 else '-'} {abs(k)})"


def follows(hypothesis: str, spot: int | None = None) -> str:
    """What the hypothesis says the decisions follow; for a player at ``spot``, the spots by number."""
    offsets = SHARING.get(hypothesis)
    if offsets is None or spot is None:
        return HYPOTHESES[hypothesis]
    at = [spot + k for k in offsets if spot + k >= 1]
    if not at:
        return HYPOTHESES[hypothesis]
    if hypothesis == "neighbours":
        return HYPOTHESES[hypothesis] + f" (spots {', '.join(map(str, at))})"
    return f"the hand at spot {at[0]}" if len(at) == 1 else f"the hands at spots {' and '.join(map(str, at))}"


#: which hidden cards a player's decisions may follow
HYPOTHESES: dict[str, str] = {**HOLE_HYPOTHESES, **{h: _sharing_text(h, o) for h, o in SHARING.items()}}
#: each hypothesis's share of the alert: half to the hole cards, half to sharing hands, each
#: half split evenly (a weighted mean of test martingales is one, so Ville's bound holds as is)
WEIGHTS: dict[str, float] = {**{h: 0.5 / len(HOLE_HYPOTHESES) for h in HOLE_HYPOTHESES},
                             **{h: 0.5 / len(SHARING) for h in SHARING}}
#: how often an informed player departs from the informed decision (a cheat who sees the
#: cards on some rounds only, or plays them loosely)
EPSILONS = (0.02, 0.15, 0.35)
#: an alert when the evidence reaches 1 / ALERT_ALPHA: at most that share of honest players ever
ALERT_ALPHA = 1e-5
#: deals of the other spots' hands drawn besides the real one to weigh a decision (the real deal
#: is one of the SAMPLES + 1 exchangeable draws, so the factor's honest mean is exactly 1)
SAMPLES = 31
#: the decisions that carried the most evidence kept per hypothesis (the surveillance pack's)
CARRIERS_KEPT = 50


def cell_log_weights(hypotheses: Sequence[str] = tuple(HYPOTHESES)) -> np.ndarray:
    """(H, len(EPSILONS)): ln of each cell's weight in the evidence (they add up to 1)."""
    w = np.array([WEIGHTS[h] for h in hypotheses]) / len(EPSILONS)
    return np.log(np.repeat(w[:, None], len(EPSILONS), axis=1))


def alert_ln(hypothesis: str) -> float:
    """The ln evidence one cell of ``hypothesis`` alone needs for the alert (its weight's share)."""
    return float(np.log(len(EPSILONS) / (WEIGHTS[hypothesis] * ALERT_ALPHA)))


def log_mean(log_products: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """ln of the weighted mean over the cells (the last two axes) of exp(log_products), without
    overflow."""
    x = log_products + log_weights
    top = x.max(axis=(-2, -1), keepdims=True)
    return (top + np.log(np.exp(x - top).sum(axis=(-2, -1), keepdims=True)))[..., 0, 0]


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


def no_seats(rows: int) -> np.ndarray:
    """(rows, len(SEAT_OFFSETS), 5): every other seat empty (-1), to fill with :func:`seat`."""
    return np.full((rows, len(SEAT_OFFSETS), 5), -1, dtype=np.int64)


def seat(offset: int) -> int:
    """The index of the seat ``offset`` spots away in the seats axis of :func:`decisions`."""
    return SEAT_OFFSETS.index(offset)


def decisions(hands: np.ndarray, up_cards: np.ndarray, holes: np.ndarray | None, seats: np.ndarray | None,
              paytable: Paytable, rng: np.random.Generator, samples: int = SAMPLES,
              tables: dict[str, np.ndarray] | None = None) -> list[Decision]:
    """Decision facts for rows of (hand (5 cards), up card, hole cards in deal order (4), the other
    spots' hands by offset (rows x len(SEAT_OFFSETS) x 5, -1 where a seat holds no hand; see
    :func:`no_seats`)). Without hole cards, the hole hypotheses are not weighed; a sharing
    hypothesis is weighed where its seats hold hands (``neighbours``: any of them). ``tables``,
    when given, receives every row's margins over all the hidden cards weighed ("unseen",
    "hole-1": 46, "hole-2": 1,035 pairs, each sharing hypothesis: the real deal then the draws,
    NaN where it is not weighed; "deals": the other seats in those deals)."""
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
    if seats is not None:
        deals = other_deals(np.asarray(seats, dtype=np.int64), unseen, rng, samples)
        for h, offsets in SHARING.items():
            mn = margins_following(value, hands, up, deals, offsets, paytable, any_seat=h == "neighbours")
            weighed = ~np.isnan(mn[:, 0])
            margin[h] = mn[:, 0]
            informed[h] = mn[:, 0] > 0
            with np.errstate(invalid="ignore"):
                share[h] = np.where(weighed, (mn > 0).mean(axis=1), np.nan)
            if tables is not None:
                tables[h] = mn
        if tables is not None:
            tables["deals"] = deals
    if tables is not None:
        tables["unseen"], tables["visible"] = unseen, visible_margin
    return [Decision({h: bool(informed[h][i]) for h in informed if not np.isnan(margin[h][i])},
                     {h: float(share[h][i]) for h in share if not np.isnan(margin[h][i])},
                     {h: float(margin[h][i]) for h in margin if not np.isnan(margin[h][i])}, float(visible_margin[i]))
            for i in range(n)]


def other_deals(seats: np.ndarray, unseen: np.ndarray, rng: np.random.Generator, samples: int = SAMPLES) -> np.ndarray:
    """(rows, samples + 1, seats, 5): the real other hands, then ``samples`` deals of the cards the
    player cannot see to the same seats (-1 where a seat holds no hand). Given the player's cards
    and the up card, an honest player's real deal is one of these exchangeable draws."""
    rows, width = seats.shape[:2]
    held = seats[:, :, 0] >= 0
    if 5 * int(held.sum(axis=1).max(initial=0)) > unseen.shape[1]:
        raise ValueError("more hands at the other seats than there are cards the player cannot see")
    order = np.cumsum(held, axis=1) - 1                                    # each held seat's place in the deal
    at = np.where(held[..., None], 5 * order[..., None] + np.arange(5), 0)  # (rows, seats, 5)
    deals = np.empty((rows, samples + 1, width, 5), dtype=np.int64)
    deals[:, 0] = seats
    for j in range(1, samples + 1):
        shuffled = rng.permuted(unseen, axis=1)
        deals[:, j] = np.where(held[..., None], np.take_along_axis(shuffled, at.reshape(rows, -1), axis=1)
                               .reshape(rows, width, 5), -1)
    return deals


def margins_following(value: np.ndarray, hands: np.ndarray, up: np.ndarray, deals: np.ndarray,
                      offsets: tuple[int, ...], paytable: Paytable, any_seat: bool = False) -> np.ndarray:
    """(rows, deals): the margin of betting for a player who also knows the hands at ``offsets``,
    in each of :func:`other_deals`; NaN in a row where not every one of those seats holds a hand
    (``any_seat``: where none does; else the ones that do)."""
    rows, count = deals.shape[:2]
    idx = [seat(k) for k in offsets if -MAX_OFFSET <= k <= MAX_OFFSET]
    held = deals[:, 0, idx, 0] >= 0                                   # (rows, len(idx))
    out = np.full((rows, count), np.nan)
    weighed = held.any(axis=1) if any_seat else held.all(axis=1)
    # one batch for each pattern of held seats (equal numbers of dead cards)
    for pattern in {tuple(p) for p in held[weighed]}:
        r = np.nonzero(weighed & (held == np.array(pattern)).all(axis=1))[0]
        chosen = [i for i, h in zip(idx, pattern, strict=True) if h]
        known = deals[r][:, :, chosen].reshape(len(r), count, -1)          # (r, deals, 5 x seats)
        rep = np.repeat(r, count)
        dead = np.concatenate([hands[rep], known.reshape(len(r) * count, -1)], axis=1)
        out[r] = raise_margin(completion_counts(value[rep], dead, up[rep, None]), value[rep],
                              paytable).reshape(len(r), count)
    return out


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
        """Count one decision; returns the evidence (the weighted mean over cells) after it."""
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
        """ln of the weighted mean over the cells of their products (:data:`WEIGHTS`)."""
        return float(log_mean(self.log_products, cell_log_weights(self.hypotheses)))

    @property
    def evidence(self) -> float:
        return float(np.exp(min(self.log_evidence, 700.0)))  # beyond e^700: as good as certain

    @property
    def honest_probability(self) -> float:
        """Ville's bound: the chance an honest player's evidence ever reached its peak."""
        return min(1.0, 1.0 / self.peak)

    @property
    def leading(self) -> str:
        """The hypothesis that carries most of the evidence, among those weighed."""
        weighed = np.array([h in self.gain for h in self.hypotheses]) if self.gain else True
        carried = (self.log_products + cell_log_weights(self.hypotheses)).max(axis=1)
        return self.hypotheses[int(np.where(weighed, carried, -np.inf).argmax())]


def decision_of(hand: Sequence[int], up_card: int, holes: Sequence[int], others: Mapping[int, Sequence[int]],
                paytable: Paytable, rng: np.random.Generator) -> Decision:
    """:func:`decisions` for one round (cards as ints; ``others``: the other spots' hands by
    offset, their spot number minus the player's)."""
    ranking.evaluate(hand)
    seats = no_seats(1)
    for k, cards in others.items():
        seats[0, seat(k)] = list(cards)
    return decisions(np.array([list(hand)]), np.array([up_card]), np.array([list(holes)]), seats, paytable, rng)[0]

"""Game protection's exact values and its test (tabled.math.informed, tabled.math.protection).

The counts for a player who knows hole cards or neighbours' hands agree with enumerating every
dealer hand (rules 9.1, 9.2, 9.4.1.1-9.4.1.3); each decision's factor has mean exactly 1 and the
stated variance under the honest hypothesis, whatever the player's strategy (8.1); honest
strategies are not flagged and each persona is, on seeded sessions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.game import ranking
from tabled.game.batch import evaluate_batch
from tabled.math import counting, protection, strategy
from tabled.math.informed import completion_counts, raise_margin
from tabled.math.paytable import load_paytable

PAYTABLE = load_paytable("nsw")


def enumerate_counts(hand, dead_extra, known):
    """Every completion of the dealer's hand, evaluated one by one: (not qualifying 9.2, player
    higher 9.4.1.1, stand off 9.4.1.3, dealer higher 9.4.1.2)."""
    gone = set(hand) | set(dead_extra) | set(known)
    rest = [c for c in range(52) if c not in gone]
    dealer = evaluate_batch(np.array([list(known) + list(c)
                                      for c in itertools.combinations(rest, 5 - len(known))])).astype(int)
    v = ranking.evaluate(hand)
    nq = int((dealer < ranking.QUALIFYING_VALUE).sum())     # 9.1
    q = dealer >= ranking.QUALIFYING_VALUE
    ph = int((q & (dealer < v)).sum()) if v >= ranking.QUALIFYING_VALUE else 0
    so = int((q & (dealer == v)).sum()) if v >= ranking.QUALIFYING_VALUE else 0
    return [nq, ph, so, len(dealer) - nq - ph - so]


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seen=st.sampled_from([1, 2, 3, 4]), neighbours=st.sampled_from([0, 5, 10, 20]),
       suited=st.booleans())
def test_counts_with_hole_cards_or_neighbours_agree_with_enumeration_rules_9_1_9_4(seed, seen, neighbours, suited):
    rng = np.random.default_rng(seed)
    deck = [int(c) for c in rng.permutation(52)]
    if suited:  # the known dealer cards of one suit: the flush correction at work
        suit = deck[0] & 3
        known = [c for c in deck if c & 3 == suit][:seen]
    else:
        known = deck[:seen]
    rest = [c for c in deck if c not in known]
    hand, extra = rest[:5], rest[5:5 + neighbours]
    got = completion_counts(np.array([ranking.evaluate(hand)]), np.array([hand + extra]), np.array([known]))[0]
    assert list(got) == enumerate_counts(hand, extra, known)


@pytest.mark.parametrize("seed", range(3))
def test_many_dead_cards_are_counted_by_their_ranks_as_by_enumeration_rules_9_1_9_4(seed):
    """Four other hands (the spots within two seats): counted over the rank multisets of the dead
    cards rather than their 12,951 subsets, the same counts as every dealer hand enumerated."""
    rng = np.random.default_rng(100 + seed)
    deck = [int(c) for c in rng.permutation(52)]
    hand, extra, known = deck[:5], deck[5:25], deck[25:26]
    got = completion_counts(np.array([ranking.evaluate(hand)]), np.array([hand + extra]), np.array([known]))[0]
    assert list(got) == enumerate_counts(hand, extra, known)


def test_with_the_up_card_alone_the_counts_are_the_exact_analysis_rules_9_1_9_4():
    rng = np.random.default_rng(7)
    for _ in range(20):
        deck = rng.permutation(52)
        hand, up = [int(c) for c in deck[:5]], int(deck[5])
        got = completion_counts(np.array([ranking.evaluate(hand)]), np.array([hand]), np.array([[up]]))[0]
        assert tuple(got) == tuple(vars(counting.dealer_counts(hand, up)).values())
        # and the margin decides as the optimal strategy does (8.1, 10.1)
        margin = raise_margin(got[None, :], np.array([ranking.evaluate(hand)]), PAYTABLE)[0]
        assert (margin > 0) == strategy.decide("optimal", hand, up)


def factor_moments(share: float, eps: float) -> tuple[float, float]:
    """Null mean and variance of one factor when the informed decision is the player's with
    probability ``share``: (1 - eps) / D with that probability, eps / D otherwise."""
    d = (1 - eps) * share + eps * (1 - share)
    a, b = (1 - eps) / d, eps / d
    mean = share * a + (1 - share) * b
    return mean, share * a * a + (1 - share) * b * b - mean * mean


@pytest.mark.parametrize("seed", range(6))
def test_a_decisions_factor_has_null_mean_one_and_the_stated_variance_whatever_the_decision_rule_8_1(seed):
    """Over every first hole card (46) and every pair of hole cards (1,035) the player cannot see,
    the factor of a fixed decision averages exactly 1; its variance is the two-point one."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    hand, up = deck[None, :5], deck[5:6]
    tables: dict[str, np.ndarray] = {}
    d = protection.decisions(hand, up, deck[None, 6:10], None, PAYTABLE, rng, tables=tables)[0]
    for h, margins in (("hole-1", tables["hole-1"][0]), ("hole-2", tables["hole-2"][0])):
        for bet in (True, False):
            f = np.exp(protection.log_factors(np.full(len(margins), bet), margins > 0,
                                              np.full(len(margins), d.share[h])))  # (hidden, eps)
            share = d.share[h] if bet else 1 - d.share[h]
            for k, eps in enumerate(protection.EPSILONS):
                mean, var = factor_moments(share, eps)
                assert f[:, k].mean() == pytest.approx(1.0, abs=1e-12) == pytest.approx(mean, abs=1e-12)
                assert f[:, k].var() == pytest.approx(var, rel=1e-9, abs=1e-12)


def test_where_the_hidden_cards_cannot_flip_the_decision_it_carries_no_evidence():
    # a royal flush bets whatever the dealer holds (9.4.1.1): every factor is 1
    hand = [4 * r for r in (8, 9, 10, 11, 12)]
    lf = protection.log_factors(np.array(True), np.array(True), np.array(1.0))
    assert np.allclose(lf, 0)
    d = protection.decision_of(hand, 1, [2, 3, 5, 6], {}, PAYTABLE, np.random.default_rng(0))
    assert d.share["hole-4"] == 1.0 and d.share["hole-1"] == 1.0
    assert not set(d.share) & set(protection.SHARING)  # no other hands: no sharing weighed


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       held=st.sets(st.sampled_from([-3, -2, -1, 1, 2, 3]), min_size=1))
def test_a_sharing_decisions_factor_has_null_mean_one_over_the_exchangeable_deals_rule_8_1(seed, held):
    """The real deal of the other hands is one of 32 exchangeable deals given the player's cards
    and the up card: averaged over them, a fixed decision's factor is exactly 1, for each
    hypothesis of sharing hands with other spots, whichever seats of a seven-spot table hold hands."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    seats = protection.no_seats(1)
    for n, k in enumerate(sorted(held)):  # the player at spot 4
        seats[0, protection.seat(k)] = deck[6 + 5 * n:11 + 5 * n]
    tables: dict[str, np.ndarray] = {}
    d = protection.decisions(deck[None, :5], deck[5:6], None, seats, PAYTABLE, rng, tables=tables)[0]
    expected = {h for h, offsets in protection.SHARING.items()
                if (set(offsets) & held if h == "neighbours" else set(offsets) <= held)}
    assert set(d.share) == expected
    deals = tables["deals"][0]
    for j in range(1, len(deals)):  # every drawn deal fills the same seats with cards the player cannot see
        dealt = deals[j][deals[j][:, 0] >= 0].ravel()
        assert len(set(dealt)) == 5 * len(held) and not set(dealt) & {*deck[:6]}
    for h in d.share:
        margins = tables[h][0]
        for bet in (True, False):
            f = np.exp(protection.log_factors(np.full(len(margins), bet), margins > 0,
                                              np.full(len(margins), d.share[h])))
            assert f.mean(axis=0) == pytest.approx(np.ones(len(protection.EPSILONS)), abs=1e-12)


def test_the_cells_weights_add_up_to_one_half_of_them_the_hole_cards():
    w = np.exp(protection.cell_log_weights())
    assert w.sum() == pytest.approx(1.0)
    holes = [i for i, h in enumerate(protection.HYPOTHESES) if h in protection.HOLE_HYPOTHESES]
    assert w[holes].sum() == pytest.approx(0.5)
    # the weighted mean of products all 1 is 1: no evidence
    assert protection.log_mean(np.zeros_like(w), np.log(w)) == pytest.approx(0.0, abs=1e-12)


def test_more_other_hands_than_unseen_cards_is_a_clear_error():
    seats = np.zeros((1, len(protection.SEAT_OFFSETS), 5), dtype=np.int64)  # every seat "holds" a hand
    with pytest.raises(ValueError, match="more hands at the other seats"):
        protection.other_deals(seats, np.zeros((1, 46), dtype=np.int64), np.random.default_rng(0))


def test_the_leading_hypothesis_is_one_that_was_weighed():
    """Only spot + 1 was weighed, and against it: it still leads over the hypotheses no decision
    weighed (the hole cards, at a heavier weight), which say nothing of this player."""
    against = protection.Decision({"spot+1": True}, {"spot+1": 0.5}, {"spot+1": 0.2}, 0.1)
    ev = protection.Evidence()
    ev.add(False, against)
    assert ev.log_products[ev.hypotheses.index("spot+1")].max() < 0
    assert ev.leading == "spot+1"


def test_what_a_hypothesis_follows_names_the_spots_by_number():
    assert protection.follows("spot+1", 3) == "the hand at spot 4"
    assert protection.follows("spots-1+1", 3) == "the hands at spots 2 and 4"
    assert protection.follows("spot-2") == "the hand of the spot two down (spot - 2)"
    assert protection.follows("hole-1", 3) == "the dealer's first hole card"


ROUNDS = 200


@pytest.fixture(scope="module")
def session():
    """ROUNDS seeded rounds at spot 3 of a seven-spot table, every decision weighed; the hidden
    cards of each round (the tables of :func:`protection.decisions`) kept for the personas."""
    rng = np.random.default_rng(2025)
    deck = np.argsort(rng.random((ROUNDS, 52)), axis=1)
    hands, up, holes = deck[:, 10:15], deck[:, 35], deck[:, 36:40]
    seats = protection.no_seats(ROUNDS)
    for spot in (1, 2, 4, 5, 6, 7):
        seats[:, protection.seat(spot - 3)] = deck[:, 5 * (spot - 1):5 * spot]
    tables: dict[str, np.ndarray] = {}
    facts = protection.decisions(hands, up, holes, seats, PAYTABLE, rng, tables=tables)
    tables["hands"], tables["up"] = hands, up
    return hands, up, facts, tables


def run(bets, facts) -> protection.Evidence:
    ev = protection.Evidence()
    for bet, f in zip(bets, facts, strict=True):
        ev.add(bool(bet), f)
    return ev


@pytest.mark.slow
@pytest.mark.parametrize("name", [*strategy.STRATEGIES, "hunch"])
def test_honest_players_of_every_strategy_are_not_flagged(session, name):
    hands, up, facts, _ = session
    if name == "hunch":
        bets = np.random.default_rng(3).random(ROUNDS) < 0.5
    else:
        bets = strategy.raises_for_cards(name, hands, up, PAYTABLE)
    ev = run(bets, facts)
    assert ev.alert_round is None
    assert ev.honest_probability > protection.ALERT_ALPHA
    if name == "optimal":  # the visible optimum gains nothing over itself
        assert all(abs(g) < 1e-9 for g in ev.gain.values())


@pytest.mark.slow
@pytest.mark.parametrize("hypothesis, within", [("hole-1", 200), ("hole-2", 120), ("hole-4", 50),
                                                 ("spots-1+1", 200), ("neighbours", 200)])
def test_each_persona_is_flagged_on_a_seeded_session_and_its_hypothesis_leads(session, hypothesis, within):
    _, _, facts, _ = session
    bets = [f.informed[hypothesis] for f in facts]
    ev = run(bets, facts)
    assert ev.alert_round is not None and ev.alert_round <= within
    assert ev.honest_probability <= protection.ALERT_ALPHA
    assert ev.gain[hypothesis] > 0  # it won more than the honest optimum with the cards it saw
    # two hole cards seen also look like one or four seen
    assert ev.leading == hypothesis or (hypothesis == "hole-2" and ev.leading.startswith("hole"))


@pytest.mark.slow
@pytest.mark.parametrize("partners, leads", [((4,), "spot+1"), ((6,), "spot+3"), ((1,), "spot-2"),
                                              ((4, 5), "spots+1+2")])
def test_colluders_among_honest_neighbours_are_flagged_by_the_spots_they_share_with(session, partners, leads):
    """Spot 3 plays the joint optimum with the hands at ``partners`` (next door, three up, two
    down, the next two up), every other spot honest: the hypothesis of exactly those spots leads,
    and the alert comes within ROUNDS decisions."""
    hands, up, facts, tables = session
    offsets = tuple(p - 3 for p in partners)
    value = evaluate_batch(hands).astype(np.int64)
    joint = protection.margins_following(value, hands, up, tables["deals"], offsets, PAYTABLE)[:, 0] > 0
    ev = run(joint, facts)
    assert ev.alert_round is not None and ev.honest_probability <= protection.ALERT_ALPHA
    assert ev.leading == leads
    assert ev.gain[leads] > 0  # it won more than the honest optimum with the hands it shared


def test_a_long_session_keeps_only_the_rounds_that_carry_the_most_evidence():
    """Memory stays flat: at most CARRIERS_KEPT carriers a hypothesis survive each trim, the
    strongest ones."""
    strong = protection.Decision({"hole-4": True}, {"hole-4": 0.1}, {"hole-4": 1.0}, -0.5)
    weak = protection.Decision({"hole-4": True}, {"hole-4": 0.4}, {"hole-4": 1.0}, -0.5)
    ev = protection.Evidence()
    for n in range(1, 2001):
        ev.add(True, strong if n % 10 == 0 else weak)
    assert len(ev.carriers) <= 8 * protection.CARRIERS_KEPT
    strongest = float(np.log(0.98 / (0.98 * 0.1 + 0.02 * 0.9)))  # eps = 0.02, the informed bet 1 in 10
    assert sum(w == pytest.approx(strongest) for _, _, w in ev.carriers) >= protection.CARRIERS_KEPT
    assert len(ev.carriers) < 2000 * 0.5  # most of the weaker ones were let go

"""Every card equally likely at every position: the chi-square over the card-by-position counts
judged against its simulated null (tabled/reports/positions.py; rule 15.1's "stops intermixing",
seen over a period)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.reports.positions import (
    chi_square_of,
    chi_square_tail,
    positions_test,
    simulated_squares,
    squares_of_counts,
)


def random_orders(rng: random.Random, n: int) -> list[list[int]]:
    orders = []
    for _ in range(n):
        order = list(range(52))
        rng.shuffle(order)
        orders.append(order)
    return orders


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.integers(min_value=0, max_value=2**32))
def test_the_statistic_is_pearsons_chi_square_over_the_counts(n, seed):
    orders = random_orders(random.Random(seed), n)
    counts = [[0] * 52 for _ in range(52)]
    for order in orders:
        for position, card in enumerate(order):
            counts[card][position] += 1
    expected = n / 52
    pearson = sum((c - expected) ** 2 / expected for row in counts for c in row)
    assert abs(chi_square_of(squares_of_counts(orders), n) - pearson) < 1e-6 * max(1.0, pearson)


def test_the_p_value_counts_the_simulated_statistics_at_least_the_observed_one():
    orders = random_orders(random.Random(5), 60)
    found = positions_test(orders)
    null = simulated_squares(60)
    observed = squares_of_counts(orders)
    assert found is not None and found.replicates == len(null) == 999
    assert found.as_large == int((null >= observed).sum())
    assert found.p_value == (1 + found.as_large) / (1 + found.replicates)
    assert positions_test(orders) == found  # seeded: the same orders give the same P value


def test_the_simulated_null_has_the_exact_mean_and_matches_the_scaled_chi_square_at_many_shuffles():
    """Each count is Binomial(n, 1/52), so E[sum c^2] = 51 n + n^2 and the statistic's mean is
    exactly 52 x 51 = 2,652 whatever n. The textbook chi-square on 51^2 = 2,601 degrees is wrong
    here (a shuffle is a permutation matrix, not a multinomial draw; its indicators' covariance has
    2,601 eigenvalues of 1/51): the statistic tends to 52/51 times it, which the simulated quantiles
    match; the unscaled one puts a random device's median at a tail of about 0.24."""
    n = 300
    chi = simulated_squares(n) * 52 / n - 52 * n
    assert abs(chi.mean() - 52 * 51) < 4 * chi.std() / np.sqrt(len(chi))
    assert abs(chi.var() / (2 * 2601 * (52 / 51) ** 2) - 1) < 0.15
    for q in (0.05, 0.5, 0.95):
        point = float(np.quantile(chi, q))
        assert abs(chi_square_tail(point * 51 / 52, 51 * 51) - (1 - q)) < 0.03, (q, point)
    assert chi_square_tail(float(np.quantile(chi, 0.5)), 51 * 51) < 0.3


def test_a_uniform_device_gives_uniform_p_values_and_a_biased_one_is_caught():
    """Forty periods of 60 random shuffles: the P values spread over (0, 1] (none below 0.01 and a
    mean near a half); a device that leaves the bottom card where it was is caught at 1/1000."""
    rng = random.Random(17)
    ps = [positions_test(random_orders(rng, 60)).p_value for _ in range(40)]
    assert min(ps) > 0.005 and 0.35 < sum(ps) / len(ps) < 0.65
    assert sum(p < 0.5 for p in ps) in range(12, 29)
    biased = random_orders(rng, 60)
    for order in biased:  # the card 51 stays at the bottom, the rest random
        order.remove(51)
        order.append(51)
    found = positions_test(biased)
    assert found is not None and found.as_large == 0 and found.p_value == 0.001


def test_the_chi_square_tail_is_the_textbook_one():
    assert abs(chi_square_tail(3.841458820694124, 1) - 0.05) < 1e-9       # the 95% quantile, 1 degree
    assert abs(chi_square_tail(18.307038053275146, 10) - 0.05) < 1e-9     # 10 degrees
    assert abs(chi_square_tail(2601, 2601) - 0.4963) < 1e-3                # about a half at the mean
    assert chi_square_tail(0, 5) == 1.0


def test_fewer_than_two_shuffles_give_no_test():
    assert positions_test([]) is None and positions_test([list(range(52))]) is None


def test_one_shuffles_indicators_have_equal_eigenvalues_1_over_deck_minus_1():
    """The scaling of the approximation, on every order of a 5-card deck: the covariance of the
    card-at-position indicators has (5 - 1)^2 eigenvalues of 1/4, the other 9 are 0 (for 52: 2,601
    of 1/51, so Pearson's statistic tends to 52/51 x chi-square(2,601))."""
    import itertools
    n = 5
    rows = [[1.0 if order[card] == position else 0.0 for card in range(n) for position in range(n)]
            for order in itertools.permutations(range(n))]
    eigen = np.sort(np.linalg.eigvalsh(np.cov(np.array(rows).T, bias=True)))
    assert np.allclose(eigen[-(n - 1) ** 2:], 1 / (n - 1)) and np.allclose(eigen[:-(n - 1) ** 2], 0)

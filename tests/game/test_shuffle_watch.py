"""The shuffle watch (rule 15.1: a device that stops intermixing): exact null distributions checked
against every permutation of small decks, false alarms on a working device, and how soon each way
of failing to intermix is caught."""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations
from math import factorial

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabled.game import shuffle_watch as sw
from tabled_drivers.sim import mixing


@pytest.mark.parametrize("n", range(2, 9))
def test_the_rising_sequence_counts_are_those_of_every_permutation(n):
    before = list(range(n))
    seen = Counter(sw.rising_sequences(before, p) for p in permutations(before))
    assert [seen.get(r, 0) for r in range(1, n + 1)] == sw.eulerian_counts(n)


@pytest.mark.parametrize("n", range(2, 9))
def test_the_pairs_kept_counts_are_those_of_every_permutation(n):
    before = list(range(n))
    seen = Counter(sw.pairs_kept(before, p) for p in permutations(before))
    assert [seen.get(k, 0) for k in range(n)] == sw.succession_counts(n)


def test_the_counts_for_52_cards_cover_every_order_once():
    assert sum(sw.eulerian_counts()) == factorial(52) == sum(sw.succession_counts())
    mean_kept = sum(k * c for k, c in enumerate(sw.succession_counts())) / factorial(52)
    assert mean_kept == pytest.approx(51 / 52)


@given(st.permutations(list(range(52))))
def test_the_statistics_of_any_order(order):
    assert sw.rising_sequences(order, order) == 1 and sw.pairs_kept(order, order) == 51
    assert sw.rising_sequences(order, order[::-1]) == 52 and sw.pairs_kept(order, order[::-1]) == 0
    v = sw.ShuffleWatch().judge(order, order)  # the deck back as it went in: 15.1
    assert v.alarm and "rising sequences" in v.why()


def test_a_shuffle_that_is_not_the_decks_cards_is_refused():
    with pytest.raises(ValueError, match="each once"):
        sw.ShuffleWatch().judge(list(range(52)), [0, *range(51)])


@pytest.mark.slow
def test_a_working_device_raises_no_alarm_and_its_tails_are_as_the_mathematics_says():
    """50,000 random shuffles: no alarm (the bound is 7.5e-7 a shuffle), and the share of
    shuffles beyond a looser threshold is the exact tail probability."""
    rng = random.Random(2026)
    watch, deck, alarms, loose = sw.ShuffleWatch(), list(range(52)), 0, 0
    threshold = 5  # P(S >= 5) for a random shuffle
    p_threshold = sw.ShuffleWatch().judge(list(range(52)), _with_kept(threshold)).p_kept
    n = 50_000
    for _ in range(n):
        new = mixing.random_order(deck, rng)
        v = watch.judge(deck, new)
        alarms += v.alarm
        loose += v.kept >= threshold
        deck = new
    assert alarms == 0
    expected = n * p_threshold
    assert abs(loose - expected) < 5 * expected ** 0.5  # within five standard deviations


def _with_kept(k: int) -> list[int]:
    """An order of 52 keeping exactly k pairs of 0..51: k + 1 cards in a row, the rest reversed."""
    head = list(range(k + 1))
    rest = list(range(k + 1, 52))[::-1]
    return [*rest[:1], *head, *rest[1:]] if k < 51 else head + rest


@pytest.mark.parametrize(("fault", "within"), [("cut", 1), ("riffle", 1), ("partial_riffle", 1),
                                                ("stuck_gate", 4)])
def test_each_way_of_not_intermixing_is_caught_within_a_stated_number_of_shuffles(fault, within):
    """Detection delay, over 20 devices that fail this way from their first shuffle."""
    delays = []
    for seed in range(20):
        rng = random.Random(seed)
        watch, deck = sw.ShuffleWatch(), mixing.random_order(list(range(52)), rng)
        for shuffle in range(1, 200):
            new = mixing.MIXERS[fault](deck, rng)
            if watch.judge(deck, new).alarm:
                delays.append(shuffle)
                break
            deck = new
    assert len(delays) == 20 and max(delays) <= within, delays

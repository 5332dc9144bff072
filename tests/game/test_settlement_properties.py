"""Properties of settlement over random rounds (hypothesis): money is conserved."""

from __future__ import annotations

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.game.cards import DECK
from tabled.game.round_facts import RoundFacts, RoundVoid, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import Outcome, settle

from .helpers_settlement import NSW, NZ, US

money = st.integers(0, 50_000)


@st.composite
def rounds(draw):
    profile = draw(st.sampled_from([NSW, US, NZ]))
    deck = list(draw(st.permutations(DECK)))
    void = draw(st.sampled_from([None] * 8 + ["misdeal", "shuffler_failure", "invalidated"]))
    dealer = tuple(deck.pop() for _ in range(5))
    # a round's facts hold decided spots only (8.1: PLAYING is refused)
    statuses = [s for s in SpotStatus
                if (profile.dead_hands or s is not SpotStatus.DEAD) and s is not SpotStatus.PLAYING]
    spot_numbers = draw(st.lists(st.integers(1, 7), unique=True, max_size=7))
    spots = []
    for n in spot_numbers:
        status = draw(st.sampled_from(statuses))
        if status is SpotStatus.EMPTY:
            cards = tuple(deck.pop() for _ in range(draw(st.sampled_from([0, 5]))))
            spots.append(SpotFacts(n, status, cards=cards))
            continue
        ante = Wager(draw(money), draw(st.sampled_from([0, 0, 500, 2500])))
        if not ante:
            ante = Wager(100, 0)
        # bets near twice the ante, sometimes off (14.10)
        bet_total = 2 * ante.cents + draw(st.sampled_from([0, 0, 0, -ante.cents, ante.cents, 7]))
        bet_token = draw(st.sampled_from([0, 0, min(500, bet_total)]))
        bet = Wager(bet_total - bet_token, bet_token)
        if status is SpotStatus.FOLDED:
            bet = draw(st.sampled_from([Wager(), bet]))
        if status is SpotStatus.ABSENT:
            bet = Wager()
        prog = draw(st.sampled_from([Wager(), Wager(profile.progressive_wager_cents, 0),
                                     Wager(0, profile.progressive_wager_cents)]))
        if status is SpotStatus.VOID:
            count = draw(st.sampled_from([0, 1, 4, 6]))
        elif status in (SpotStatus.PLAYED, SpotStatus.DEAD, SpotStatus.FOLDED, SpotStatus.CONCEDED):
            count = 5
        else:
            count = 0
        cards = tuple(deck.pop() for _ in range(count))
        spots.append(SpotFacts(n, status, ante, bet, prog, cards))
    pool = draw(st.integers(0, 10**8))
    return profile, RoundFacts(7, dealer, tuple(spots), pool, RoundVoid(void) if void else None)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(rounds())
def test_house_pays_minus_collects_equals_sum_of_spot_results(case):
    profile, facts = case
    st_ = settle(facts, profile)
    pays = collects = 0
    for s in st_.spots:
        for w in s.wagers:
            if w.wager == "progressive":
                # taken at the lock: nothing at settlement unless paid back
                assert w.collected_cents == 0
                expected_net = w.returned_cents if w.outcome is Outcome.RETURNED else 0
                pays += expected_net
            else:
                # every cent on the layout is either taken or left with the player
                assert w.collected_cents + w.returned_cents == w.placed.cents
                expected_net = w.winnings_cents - w.collected_cents
                pays += w.winnings_cents
                collects += w.collected_cents
            assert w.net_cents == expected_net
            assert 0 <= w.tokens_forfeited_cents <= w.placed.token_cents
            assert all(isinstance(v, int) for v in (w.net_cents, w.winnings_cents, w.collected_cents))
        pays += s.award_cents
    assert pays == st_.house_pays_cents and collects == st_.house_collects_cents
    assert st_.house_pays_cents - st_.house_collects_cents == sum(s.total_cents for s in st_.spots)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(rounds())
def test_progressive_from_pool_plus_topups_equals_awards(case):
    profile, facts = case
    st_ = settle(facts, profile)
    pr = st_.progressive
    awards = sum(s.award_cents for s in st_.spots)
    assert pr.paid_from_pool_cents + pr.operator_topup_cents == awards
    assert pr.pool_after_cents == facts.pool_cents - pr.paid_from_pool_cents + pr.reset_funding_cents
    for s in st_.spots:
        if s.award is not None:
            # only an accepted, standing progressive wager wins (11.7, docs/settlement.md forfeits)
            assert s.progressive.outcome is Outcome.TAKEN
            assert s.status.value not in profile.progressive_forfeited_by
            assert s.status not in (SpotStatus.DEAD, SpotStatus.VOID, SpotStatus.ABSENT, SpotStatus.FORFEITED)
    if facts.void is not None:
        assert pr.awards == ()
        # every wager back (1.1), but one the supervisor forfeited (16.5) goes to the house
        assert all(s.net_cents == 0 or s.progressive.outcome is Outcome.RETURNED for s in st_.spots
                   if s.status is not SpotStatus.FORFEITED)
        assert all(s.net_cents == -(s.ante.placed.cents + s.bet.placed.cents) for s in st_.spots
                   if s.status is SpotStatus.FORFEITED)


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_no_played_hand_loses_when_the_dealer_does_not_qualify_rule_9_2(case):
    profile, facts = case
    st_ = settle(facts, profile)
    if st_.dealer_qualifies is False:
        for s in st_.spots:
            if s.status is SpotStatus.PLAYED:
                assert s.ante.outcome is Outcome.PAID and s.bet.outcome is Outcome.VOID
                assert s.net_cents >= 0

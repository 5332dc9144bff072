"""A settlement is read as journaled, or named as a problem: never skipped silently."""

from __future__ import annotations

import copy

import pytest

from tabled.game.round_facts import RoundFacts, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle, settlement_as_dict
from tabled.profiles import load_profile
from tabled.reports.rounds import SettlementError, gather, read_settlement

SETTLED = settlement_as_dict(settle(RoundFacts(2, (0, 5, 10, 15, 21), (
    SpotFacts(1, SpotStatus.PLAYED, Wager(1000), Wager(2000), Wager(100), (48, 44, 36, 9, 2)),
    SpotFacts(2, SpotStatus.FOLDED, Wager(500, 500), progressive=Wager(100), cards=(1, 6, 11, 16, 22))),
    1_000_000), load_profile("nsw")))


class Rec:
    def __init__(self, seq, kind, payload, round_id="T01-000001"):
        self.seq, self.time_us, self.round_id, self.kind, self.payload = seq, seq * 1000, round_id, kind, payload


def test_a_settlement_reads_back_its_amounts():
    st = read_settlement(SETTLED)
    assert st.net_cents == SETTLED["net_cents"]
    assert [s.spot for s in st.spots] == [2, 1]
    assert st.spots[0].ante.token_cents == 500 and st.spots[0].ante.chips_cents == 500


def _altered(path, value):
    data = copy.deepcopy(SETTLED)
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return data


@pytest.mark.parametrize("path, value, says", [
    (("net_cents",), 1, "do not add up to the round's net"),
    (("spots", 0, "ante", "collected_cents"), "500", "collected_cents is '500', not whole cents"),
    (("spots", 1, "bet", "net_cents"), True, "net_cents is True, not whole cents"),
    (("spots", 1, "total_cents"), 12345, "spot 1: its wagers and award do not add up"),
    (("spots", 0, "cards"), ["Zz"], "CardError"),
    (("house_collects_cents",), 0, "do not add up to what the house collects"),
    (("spots", 0, "status"), "sleeping", "ValueError"),
])
def test_a_settlement_that_does_not_add_up_is_refused(path, value, says):
    with pytest.raises(SettlementError, match=says):
        read_settlement(_altered(path, value))


def test_the_report_names_an_unreadable_settlement():
    gathered = gather([Rec(1, "round.started", {}), Rec(2, "round.settled", _altered(("net_cents",), 7))])
    assert gathered.rounds["T01-000001"].settlement is None
    assert [p.text for p in gathered.problems] == [
        "record 2: round T01-000001: the settlement cannot be read: the spots do not add up to the round's net"]


def test_a_round_settled_twice_is_named():
    gathered = gather([Rec(1, "round.started", {}), Rec(2, "round.settled", SETTLED),
                       Rec(3, "round.settled", SETTLED)])
    assert [p.text for p in gathered.problems] == [
        "record 3: round T01-000001 settled a second time (ignored; run `tabled audit verify`)"]


def test_a_pool_record_of_an_unknown_round_is_named():
    gathered = gather([Rec(1, "progressive.reversed", {"round_id": "T01-000099", "reversed_cents": 25})])
    assert "round 'T01-000099', which has no round.started" in gathered.problems[0].text


def test_a_problem_is_in_the_report_of_its_rounds_period_only():
    from tabled.reports.figures import report
    from tabled.reports.periods import range_period

    gathered = gather([Rec(1, "round.started", {}), Rec(9, "round.settled", _altered(("net_cents",), 7)),
                       Rec(10, "round.started", {}, "T01-000002")])
    first, second = range_period(0, 5_000, "first"), range_period(5_000, 20_000, "second")
    no_profile = {}.__getitem__
    assert len(report(first, gathered, no_profile).problems) == 1  # settled after the period: still its round's
    assert report(second, gathered, no_profile).problems == []


def test_tokens_are_counted_apart_and_a_taken_token_is_collected():
    from tabled.reports.figures import report
    from tabled.reports.periods import range_period

    gathered = gather([Rec(1, "round.started", {}), Rec(2, "round.settled", SETTLED)])
    money = report(range_period(0, 10_000, "all"), gathered, load_profile).money
    ante, bet, progressive = money["ante"], money["bet"], money["progressive"]
    # spot 1: ace-king against a dealer who does not qualify: ante paid 1 to 1 (9.3.1), bet void (9.2)
    # spot 2: folded (8.4) with a $5 token in its $10 ante: collected whole, the token taken
    assert (ante.wagers, ante.chips_cents, ante.tokens_cents) == (2, 1500, 500)
    assert (ante.paid_cents, ante.collected_cents, ante.tokens_taken_cents, ante.win_cents) == (1000, 1000, 500, 0)
    assert (bet.wagers, bet.returned_cents, bet.win_cents) == (1, 2000, 0)
    assert (progressive.wagers, progressive.collected_cents, progressive.win_cents) == (2, 200, 200)

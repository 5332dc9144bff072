"""A journaled settlement holds the facts it was computed from (16.11): read back from its JSON
form it is the same settlement, and settling its facts again gives it exactly (voids, tokens,
progressive hits and 14.10 bets included)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings

from tabled.game.cards import parse_cards
from tabled.game.round_facts import (RoundError, RoundFacts, SpotFacts, SpotStatus, Wager, round_as_json,
                                     round_from_json)
from tabled.game.settlement import settle, settlement_as_dict, settlement_facts, settlement_from_dict

from .helpers_settlement import NSW
from .test_settlement_properties import rounds


def journaled(data) -> dict:
    return json.loads(json.dumps(data))  # as the journal stores it


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(rounds())
def test_a_journaled_settlement_round_trips_through_its_facts_16_11(case):
    profile, facts = case
    # as the daemon lists them
    facts = dataclasses.replace(facts, spots=tuple(sorted(facts.spots, key=lambda s: s.spot)))
    data = journaled(settlement_as_dict(settle(facts, profile)))
    st = settlement_from_dict(data)
    assert settlement_as_dict(st) == data
    again = settlement_facts(st)
    assert again.spots == facts.spots and again.dealer_cards == facts.dealer_cards
    assert (again.pool_cents, again.void) == (facts.pool_cents, facts.void)
    name, parsed = round_from_json(journaled(round_as_json(again, profile.name, "R1")))
    assert name == profile.name and parsed == again
    assert journaled(settlement_as_dict(settle(parsed, profile))) == data


def test_bets_settled_by_14_10_round_trip():
    facts = RoundFacts(7, parse_cards("Kd Ks 4h 3d 2c"), (
        SpotFacts(1, SpotStatus.PLAYED, Wager(500), Wager(700), cards=parse_cards("Qc Qd 9h 8h 3s")),
        SpotFacts(2, SpotStatus.PLAYED, Wager(1000), Wager(2500), cards=parse_cards("Ac Ad 7c 6s 5h"))), 0)
    data = journaled(settlement_as_dict(settle(facts, NSW)))
    assert {s["spot"]: s["bet"]["rule"] for s in data["spots"]} == {1: "9.4.1.2; 14.10.1", 2: "9.4.1.1, 10.1; 14.10.2"}
    again = settlement_facts(settlement_from_dict(data))
    assert settlement_as_dict(settle(round_from_json(round_as_json(again, "nsw"))[1], NSW)) == data


@pytest.mark.parametrize("damage", [
    lambda d: d.pop("spots"),
    lambda d: d["spots"][0].update(status="asleep"),
    lambda d: d["spots"][0]["ante"].update(net_cents=d["spots"][0]["ante"]["net_cents"] + 1),
    lambda d: d["progressive"].update(pool_after_cents="lots"),
    lambda d: d["dealer"].update(cards=["Zz"]),
])
def test_a_record_that_is_not_a_settlement_is_refused_in_one_line(damage):
    facts = RoundFacts(7, parse_cards("Kd Ks 4h 3d 2c"), (
        SpotFacts(1, SpotStatus.PLAYED, Wager(500), Wager(1000), cards=parse_cards("Qc Qd 9h 8h 3s")),), 0)
    data = journaled(settlement_as_dict(settle(facts, NSW)))
    damage(data)
    with pytest.raises(RoundError, match="not a settlement as tabled journals it"):
        settlement_from_dict(data)

"""A session's theoretical loss is exact: recomputed here for seeded sessions by dealing every one of
the 163,185 dealer hole-card sets against each hand and settling each way they fall with the game
core, beside the rating the report computes from the counting tables."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any, NamedTuple

import pytest

from tabled.game.cards import hand_text, parse_cards
from tabled.game.round_facts import SpotStatus
from tabled.profiles import load_profile
from tabled.reports.ratings import rate, rating_data
from tabled.table.core import TableCore
from tabled.table.effects import Note
from tests.reports.theoretical import hand_theoretical
from tests.table.harness import Harness


class Record(NamedTuple):
    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: dict[str, Any]


def journal(h: Harness) -> list[Record]:
    """The notes a journal of the harness's inputs holds, each at its input's time, as JSON."""
    core = TableCore("T01", 7, h.limits, h.profile)
    out: list[Record] = []
    for kind, payload, t in h.inputs:
        for e in core.apply(kind, payload, t):
            if isinstance(e, Note):
                out.append(Record(len(out) + 1, t * 1000, e.round_id, e.kind, json.loads(json.dumps(e.payload))))
    return out


def seeded_session(seed: int, rounds: int = 4) -> Harness:
    """Two carded players: spot 1 bets every hand ("never fold"), spot 2 decides at random and
    plays the progressive; spot 3 plays without a card."""
    rnd = random.Random(seed)
    h = Harness()
    h.feed("player.tracking", on=True)
    h.feed("player.card", spot=1, card="11112222")
    h.feed("player.card", spot=2, card="33334444")
    for n in range(rounds):
        h.t = (n + 1) * 60_000
        rid = h.round.round_id
        antes = {1: rnd.choice([500, 1000, 2500]), 2: rnd.choice([500, 1000]), 3: 500}
        for spot, cents in antes.items():
            h.ante(spot, cents, progressive=spot == 2)
        h.panel("no_more_bets")
        deck = rnd.sample(range(52), 20)
        hands = {s: hand_text(deck[5 * i:5 * i + 5]) for i, s in enumerate(antes)}
        h.deal({**hands, "dealer": hand_text(deck[15:20])})
        for spot in antes:
            if spot == 1 or rnd.random() < 0.5:
                h.bet(spot)
            else:
                h.panel("fold", spot=spot)
        h.panel("reveal")
        h.panel("settle")
        if h.round is not None and h.round.round_id == rid:
            h.panel("award_paid", spot=2)
        h.feed("shuffler.shuffled", deck="A")
        h.feed("shuffler.shuffled", deck="B")
    h.t += 60_000
    for spot in (1, 2):
        h.feed("player.leaves", spot=spot)
    return h


def independent(records: list[Record], spot: int) -> tuple[Fraction, int, int]:
    """The theoretical loss, antes and result of the player who sat at ``spot`` throughout, from the
    rounds' own notes (not the rating)."""
    dealt = {r.round_id: r.payload for r in records if r.kind == "round.dealt"}
    theo, antes, result = Fraction(0), 0, 0
    for r in (r for r in records if r.kind == "round.settled" and not r.payload["void"]):
        line = next(s for s in r.payload["spots"] if s["spot"] == spot)
        status = SpotStatus(line["status"])
        if status not in (SpotStatus.PLAYED, SpotStatus.FOLDED):
            continue
        antes += line["ante"]["placed_cents"]
        result += line["total_cents"]
        (up,) = parse_cards(" ".join(dealt[r.round_id]["dealer_up"]))
        theo += hand_theoretical(line, up, r.payload["progressive"]["pool_before_cents"])
    return theo, antes, result


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_theoretical_loss_is_the_expectation_over_every_dealer_hand(seed):
    records = journal(seeded_session(seed))
    by_card = {r.card: r for r in rate(records, lambda name: load_profile(name))}
    for card, spot in (("11112222", 1), ("33334444", 2)):
        rating = by_card[card]
        theo, antes, result = independent(records, spot)
        assert rating.theoretical == theo                     # exact, not only to the cent
        assert (rating.ante_cents, rating.result_cents, rating.rounds_played) == (antes, result, 4)
    anonymous = by_card[None]         # spot 3's anonymous session goes on: rated as it stands, open
    theo, antes, result = independent(records, 3)
    assert anonymous.open and anonymous.reason == "open" and anonymous.theoretical == theo
    assert (anonymous.ante_cents, anonymous.result_cents, anonymous.rounds_played) == (antes, result, 4)


def test_a_session_open_at_the_end_of_a_period_is_rated_as_it_stood_then():
    records = journal(seeded_session(4))
    finished = [r for r in records if r.kind == "round.finished"]
    until_ms = finished[1].time_us // 1000          # the end of the period: after the second round
    before = {r.round_id for r in finished[:2]}
    by_card = {r.card: r for r in rate(records, load_profile, until_ms)}
    ended = {r.card: r for r in rate(records, load_profile)}
    for card, spot in (("11112222", 1), ("33334444", 2)):
        then = by_card[card]
        theo, antes, result = independent([r for r in records if r.round_id in before], spot)
        assert then.open and then.end_ms == until_ms and then.rounds_played == 2
        assert (then.theoretical, then.ante_cents, then.result_cents) == (theo, antes, result)
        assert not ended[card].open and ended[card].rounds_played == 4       # the same session, ended later


def test_a_rating_reads_as_data_with_the_card_whole_or_masked():
    records = journal(seeded_session(7, rounds=1))
    rating = next(r for r in rate(records, load_profile) if r.card == "11112222")
    assert rating_data(rating, cards=True)["card"] == "11112222"
    assert rating_data(rating, cards=False)["card"] == "\u2022\u2022\u2022\u20222222"
    assert rating_data(rating, cards=True)["theoretical_cents"] == round(rating.theoretical)


def test_a_void_round_adds_nothing_to_the_theoretical_loss():
    h = Harness()
    h.feed("player.tracking", on=True)
    h.feed("player.card", spot=1, card="11112222")
    h.ante(1, 1000)
    h.panel("no_more_bets")
    h.panel("invalidate_round", key="supervisor", reason="test")
    h.feed("player.leaves", spot=1)
    (rating,) = rate(journal(h), load_profile)
    assert (rating.theoretical, rating.rounds_played, rating.rounds_void) == (0, 0, 1)

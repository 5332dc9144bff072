"""The felt (tabled/table/felt.py): the bet-spot board's readings folded as the table's state.
A reading's changes are the round's wagers (5.8 stacks included); the chips lying on the felt
when betting opens are the round's antes and progressive wagers; a bet held back by 14.11.1 is
taken from the felt once the first spot has decided."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from tabled.table.felt import EMPTY, Felt, parse_reading
from tabled.table.names import AREAS

from .harness import Harness, notes, refused, says
from .test_rules_gaps import DEALER_QUALIFIES, spot_2_plays_first

SPOTS = 3

area = st.builds(lambda c, t, s: {"cents": c, "token_cents": t, "stacks": s if c or t else 0},
                 st.sampled_from([0, 500, 1000]), st.sampled_from([0, 100]), st.integers(1, 2))
reading = st.lists(st.fixed_dictionaries({a: area for a in AREAS}), min_size=SPOTS, max_size=SPOTS).map(
    lambda spots: [{"spot": n, **s} for n, s in enumerate(spots, 1)])


@settings(max_examples=200, deadline=None)
@given(st.lists(reading, min_size=1, max_size=6))
def test_the_felt_holds_the_last_reading_and_says_exactly_what_changed(readings):
    felt = Felt()
    before: dict = {}
    for spots in readings:
        read = parse_reading(spots, SPOTS)
        changed = felt.read(read)
        now = {(n, a): felt.at(n, a) for n in range(1, SPOTS + 1) for a in AREAS}
        assert now == read                                   # the felt is the board's last reading
        expected = [(n, a) for n in range(1, SPOTS + 1) for a in AREAS
                    if before.get((n, a), EMPTY) != read[(n, a)]]
        assert [(w["spot"], w["area"]) for w in changed] == expected  # spot by spot, ante first (11.1)
        for w in changed:
            got = read[(w["spot"], w["area"])]
            assert (w["cents"], w["token_cents"], w["stacks"]) == (got.chips, got.tokens, got.stacks)
        assert not felt.changes(read) and felt.read(read) == []  # the same reading again: nothing
        before = now
        snap = json.loads(json.dumps(felt.snapshot()))
        again = Felt.from_snapshot(snap)
        assert again.areas == felt.areas and again.offered == felt.offered  # a checkpoint keeps it


@settings(max_examples=50, deadline=None)
@given(st.lists(reading, min_size=1, max_size=5))
def test_readings_replayed_give_the_same_table(readings):
    """The fold is the same from the journal: the same readings give the same state and effects."""
    runs = []
    for _ in range(2):
        h = Harness(spots=SPOTS)
        effects = [h.feed("board.reading", spots=spots) for spots in readings]
        runs.append((h.core.snapshot(), effects))
    assert runs[0] == runs[1]
    spots = runs[0][0]["round"]["spots"]
    last = readings[-1]
    assert [s["ante"][0] for s in spots] == [s["ante"]["cents"] for s in last]  # betting: the antes as read


def test_a_reading_is_applied_as_the_wagers_it_changes_with_its_stacks_5_8():
    h = Harness()
    h.board({3: {"ante": 1000}})
    assert h.round.spots[3].ante.cents == 1000 and h.round.spots[3].stacks["ante"] == 1
    eff = h.feed("board.reading", spots=[{"spot": 3, "ante": {"cents": 1000, "stacks": 2}}])
    assert says(eff, "flag")[0].rule == "5.8" and h.round.spots[3].stacks["ante"] == 2  # same chips, 2 wagers
    assert refused(h.panel("no_more_bets"))[0].rule == "5.8"
    h.feed("board.reading", spots=[{"spot": 3, "ante": {"cents": 1000, "stacks": 1}}])
    assert not refused(h.panel("no_more_bets"))


def test_chips_on_the_felt_when_betting_opens_are_the_rounds_antes_and_progressive_wagers_not_its_bet():
    h = Harness()
    h.board({1: {"ante": 500, "progressive": 100}})
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    h.board({1: {"ante": 500, "progressive": 100, "bet": 1000}})
    h.panel("reveal")
    h.panel("settle")                                         # the player leaves the chips where they lie
    assert h.core.rounds_finished == 1 and h.round.phase == "betting"
    s = h.round.spots[1]
    assert (s.ante.cents, s.progressive.cents, s.bet.cents) == (500, 100, 0)  # the bet area is not carried
    assert [h.round.spots[n].ante.cents for n in range(2, 8)] == [0] * 6


def test_a_reading_with_no_round_open_is_flagged_5_2_and_kept_for_the_next_round():
    h = Harness(ready=False)
    eff = h.board({2: {"ante": 500}})
    assert says(eff, "flag")[0].rule == "5.2" and h.round is None
    h.panel("open_table", key="supervisor")
    h.prepare_cards()
    assert h.round.phase == "betting" and h.round.spots[2].ante.cents == 500


def test_a_bad_reading_is_refused_whole_and_the_felt_is_unchanged():
    h = Harness()
    h.board({1: {"ante": 500}})
    before = h.core.snapshot()
    for spots in ([{"spot": 1, "ante": {"cents": 900}}, {"spot": 9}],     # no spot 9: nothing taken
                  [{"spot": 1, "ante": {"cents": -5}}],
                  [{"spot": 1, "ante": {"cents": 500, "stacks": "two"}}],
                  [{"spot": 1}, {"spot": 1}],
                  "spot 1: $5",
                  [["spot", 1]]):
        eff = h.feed("board.reading", spots=spots)
        assert "malformed input" in refused(eff)[0].text, spots
        assert h.core.snapshot() == before


def test_a_table_that_never_read_the_board_checkpoints_as_before_and_one_that_did_keeps_its_felt():
    h = Harness()
    assert "felt" not in h.core.snapshot() and "links" not in h.core.snapshot()
    h.board({1: {"ante": 500}, 2: {"bet": 700}})
    snap = json.loads(json.dumps(h.core.snapshot()))
    core = type(h.core).from_snapshot(snap, h.core.spot_count, h.profile)
    assert core.felt.areas == h.core.felt.areas
    assert core.apply("board.reading", {"spots": [{"spot": 1, "ante": {"cents": 500}},
                                                  {"spot": 2, "bet": {"cents": 700}}]}, 0) == []


def test_a_bet_held_back_is_offered_once_per_amount_and_journaled_as_its_spots_bet_14_11_1():
    h = spot_2_plays_first()
    h.board({1: {"bet": 1000}})
    eff = h.panel("fold", spot=2)
    assert not refused(eff) and h.round.spots[1].status == "played"
    assert h.core.felt.offered == {1: (h.round.round_id, 1000, 0)}
    assert h.feed("tick") == []                               # offered once, not again on every input
    h.panel("reveal")
    h.panel("settle")
    line = next(s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == 1)
    assert line["status"] == "played" and line["bet"]["placed_cents"] == 1000  # settled as its bet


def test_with_the_boards_link_lost_nothing_is_read_from_the_felt_and_once_back_its_next_reading_counts_14_13():
    h = Harness()
    h.board({1: {"ante": 500, "progressive": 100}, 2: {"ante": 700}})
    h.feed("device.link", device="betspots", up=False)                         # the board is lost
    h.feed("equipment.fault", equipment="betspots", reason="link lost")
    h.panel("invalidate_round", key="supervisor", reason="test: next round")  # the chips stay on the felt
    assert h.round is None                                                     # 14.13: until the inspector
    h.press("approve", key="inspector")                                        # 14.13: play on, offline
    assert h.round.phase == "betting" and h.round.progressive_offline
    assert [s.ante.cents for s in h.round.spots.values()] == [0] * 7           # the felt is not known
    h.feed("device.link", device="betspots", up=True)
    assert h.core.felt.areas == {}                                             # taken to be the round's
    h.board({2: {"ante": 700}})                                                # what the board reads now
    assert [s.ante.cents for s in h.round.spots.values()] == [0, 700, 0, 0, 0, 0, 0]
    assert not h.round.spots[1].progressive


def test_the_boards_link_back_mid_round_compares_its_next_reading_with_the_rounds_wagers_5_6():
    h = Harness()
    h.board({1: {"ante": 500}})
    h.panel("no_more_bets")
    h.feed("device.link", device="betspots", up=False)
    h.feed("device.link", device="betspots", up=True)
    assert h.core.felt.at(1, "ante").chips == 500
    assert h.board({1: {"ante": 500}}) == []                                    # the same chips: nothing
    eff = h.board({1: {"ante": 900}})
    assert says(eff, "flag")[0].rule == "5.6" and h.round.spots[1].past_posting

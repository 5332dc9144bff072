"""A round's checkpoint: snapshot -> JSON -> from_snapshot -> snapshot is the identity at every point
of any play, the restored round folds the rest of the inputs as the one that never stopped, and a
checkpoint without the shoe's deal (as older ones are) or a damaged one is read as such."""

from __future__ import annotations

import json

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tabled.game.limits import Limits
from tabled.game.round_facts import SpotStatus
from tabled.profiles import load_profile
from tabled.table.checkpoint import CheckpointError
from tabled.table.phase import Phase
from tabled.table.round import Round

PROFILES = {name: load_profile(name) for name in ("nsw", "nz-irregularities")}
SPOTS = 3
OPENING = [("cards_ready", {}), ("wager", {"spot": 1, "area": "ante", "cents": 1000}),
           ("wager", {"spot": 2, "area": "ante", "cents": 500}),
           ("wager", {"spot": 2, "area": "progressive", "cents": 100}), ("no_more_bets", {})]

spot = st.integers(1, SPOTS)
wager = st.fixed_dictionaries({"spot": spot, "area": st.sampled_from(["ante", "progressive", "bet"]),
                               "cents": st.sampled_from([0, 100, 500, 1000, 2000]),
                               "token_cents": st.sampled_from([0, 0, 500]), "stacks": st.sampled_from([1, 1, 2])})
one_spot = st.fixed_dictionaries({"spot": spot})
cards_read = st.fixed_dictionaries({"cards_read": st.integers(0, 20)})
noise = st.one_of(
    st.tuples(st.just("wager"), wager),
    st.tuples(st.sampled_from(["fold", "absent", "concede", "play_first", "dead_hand", "void_player", "bet",
                               "award_paid", "resolve_past_posting", "hand_without_ante", "exposed_card",
                               "invalidate", "deck_count", "awards_applied"]), one_spot),
    st.tuples(st.sampled_from(["cards_ready", "no_more_bets", "reveal", "settle", "misdeal", "card"]), st.just({})),
    st.tuples(st.sampled_from(["shoe_removed", "shoe_replaced", "shoe_empty"]), cards_read),
    st.tuples(st.just("shoe_unreadable"), st.fixed_dictionaries({"reader_seq": st.integers(1, 60)})),
)


@st.composite
def plays(draw) -> list[tuple[str, dict]]:
    """A round played through (antes, the deal, each spot's decision, the reveal, settlement, the
    progressive payments) with anything else the table may send at any point of it."""
    script = OPENING + [("deal", {})]
    script += [(draw(st.sampled_from(["bet", "bet", "fold"])), {"spot": n}) for n in (1, 2)]
    script += [("reveal", {}), ("settle", {}), ("award_paid", {"spot": 2}), ("award_paid", {"spot": 1})]
    for at, extra in draw(st.lists(st.tuples(st.integers(0, len(script)), noise), max_size=4)):
        script.insert(at, extra)
    return script


class Table:
    """What the devices and the panel send: cards from one shuffled deck, a whole deal, a bet of twice
    the ante (the pseudo-inputs ``deal`` and ``bet`` become the inputs they stand for)."""

    def __init__(self, deck: list[int]):
        self.deck = deck

    def inputs(self, r: Round, kind: str, p: dict) -> list[tuple[str, dict]]:
        n = p.get("spot", 1)
        if kind == "deal" and r.card_source == "shuffler":
            return [("hand", {"cards": [self.deck.pop() for _ in range(5)]}) for _ in r.dealt_to
                    if len(self.deck) >= 5]
        if kind == "deal":
            return [("card", {"card": self.deck.pop()}) for _ in range(5 * len(r.dealt_to)) if self.deck]
        if kind == "card":
            return [("card", {"card": self.deck.pop() if self.deck else 0})]
        if kind == "bet":
            return [("wager", {"spot": n, "area": "bet", "cents": 2 * r.spots[n].locked_ante.cents})]
        return [{"exposed_card": ("exposed_card", {"target": n}),
                 "invalidate": ("invalidate", {"forfeit": [n] if n == 3 else []}),
                 "deck_count": ("deck_count", {"count": 50 + n}),
                 "awards_applied": ("awards_applied", {"result": {"awards": []}})}.get(kind, (kind, p))]


def restored(r: Round, profile) -> Round:
    return Round.from_snapshot(json.loads(json.dumps(r.snapshot())), SPOTS, r.limits, profile)


@settings(max_examples=200, deadline=None)
@given(profile_name=st.sampled_from(sorted(PROFILES)), card_source=st.sampled_from(["shuffler", "shoe"]),
       deck=st.permutations(range(52)), play=plays(), split=st.integers(0, 16))
def test_a_restored_round_is_the_same_round_and_folds_the_rest_alike(profile_name, card_source, deck, play, split):
    profile = PROFILES[profile_name]
    limits = Limits(500, 50_000, 100, profile.progressive_wager_cents)
    table = Table(list(deck))
    live = Round("T01-000001", SPOTS, limits, profile, card_source, "S" if card_source == "shoe" else "A", None)
    back = None
    for i, (kind, p) in enumerate(play):
        if i == split:
            event(f"split at {live.phase}")
            back = restored(live, profile)
            assert back.snapshot() == live.snapshot()
            assert back.phase is live.phase and isinstance(back.phase, Phase)
            assert all(isinstance(s.status, SpotStatus) for s in back.spots.values())
        for step in table.inputs(live, kind, p):
            effects = live.handle(*step)
            if back is not None:
                assert back.handle(*step) == effects, step
    if back is not None:
        assert back.try_finish() == live.try_finish()  # 9.5: the core finishes a round once its awards are paid
        assert back.snapshot() == live.snapshot()
    assert restored(live, profile).snapshot() == live.snapshot()


def _dealing_round() -> tuple[Round, object]:
    profile = PROFILES["nsw"]
    r = Round("T01-000002", SPOTS, Limits(500, 50_000, 100, profile.progressive_wager_cents), profile, "shoe", "S")
    for kind, payload in OPENING + [("card", {"card": 7}), ("shoe_unreadable", {"reader_seq": 2})]:
        r.handle(kind, payload)
    return r, profile


def test_a_checkpoint_without_the_shoe_deal_loads_with_no_deal_waiting():
    r, profile = _dealing_round()
    snap = r.snapshot()
    assert (snap["phase"], snap["unread"], snap["spots"][0]["status"]) == ("dealing", 2, "playing")
    older = {k: v for k, v in snap.items() if k not in ("unread", "deal_stopped", "shoe_off")}
    back = Round.from_snapshot(older, SPOTS, r.limits, profile)
    assert back.unread is None and back.deal_stopped is None and back.shoe_off is None
    assert back.spots[1].cards == [7] and back.phase is Phase.DEALING


@pytest.mark.parametrize(("damage", "named"), [
    ({"deliveries": "three"}, "deliveries"), ({"seen": [1, "2"]}, "seen"),
    ({"void_reason": ["misdeal"]}, "void_reason"),
    ({"spots": [{"number": 1, "status": "sleeping"}]}, "status"), ({"spots": [{"number": 1, "ante": [100]}]}, "ante"),
    ({"spots": [{"number": 1, "contributed": 1}]}, "contributed"), ({"spots": [{"number": 9}]}, "spot 9"),
    ({"spots": ["1"]}, "spot None"),
])
def test_a_damaged_checkpoint_is_refused_naming_what_is_wrong(damage, named):
    r, profile = _dealing_round()
    with pytest.raises(CheckpointError, match=named):
        Round.from_snapshot({**r.snapshot(), **damage}, SPOTS, r.limits, profile)
    with pytest.raises(ValueError, match="shuffling"):
        Round.from_snapshot({**r.snapshot(), "phase": "shuffling"}, SPOTS, r.limits, profile)

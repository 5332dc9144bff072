"""The round's machine is its one gate: every input out of its phase is refused, with the rule that
places it, and changes nothing (exhaustive over phases x inputs)."""

from __future__ import annotations

import pytest

from tabled.game.limits import Limits
from tabled.profiles import load_profile
from tabled.table.effects import Say
from tabled.table.phase import OUT_OF_PHASE, Phase
from tabled.table.round import INPUTS, Round

from .harness import refused

PROFILE = load_profile("nz-irregularities")  # dead hands (NZ 14.1) are one of its inputs
LIMITS = Limits(500, 50_000, 100, PROFILE.progressive_wager_cents)
IN_PLAY = (Phase.PREPARING, Phase.BETTING, Phase.DEALING, Phase.DECIDING, Phase.REVEALED, Phase.SETTLING)

#: input -> (the phases that take it, the rule that refuses it elsewhere, a well-formed payload)
PLACES: dict[str, tuple[tuple[Phase, ...], str, dict]] = {
    "cards_ready": ((Phase.PREPARING,), "4.1", {}),
    "no_more_bets": ((Phase.BETTING,), "7.2.1", {}),
    "hand": ((Phase.DEALING,), "7.4", {"cards": [0, 1, 2, 3, 4]}),
    "card": ((Phase.DEALING,), "7.3", {"card": 0}),
    "shoe_unreadable": ((Phase.DEALING,), "7.3", {"reader_seq": 1}),
    "shoe_removed": ((Phase.DEALING,), "7.3", {"cards_read": 0}),
    "shoe_replaced": ((Phase.DEALING,), "7.3", {"cards_read": 0}),
    "shoe_empty": ((Phase.DEALING,), "7.3", {"cards_read": 0}),
    "exposed_card": ((Phase.DEALING,), "14.3", {"target": 1}),
    "misdeal": ((Phase.DEALING, Phase.DECIDING), "14.1", {}),
    "hand_without_ante": ((Phase.DEALING, Phase.DECIDING), "14.8", {"spot": 1}),
    "fold": ((Phase.DECIDING,), "8.1", {"spot": 1}),
    "absent": ((Phase.DECIDING,), "14.12", {"spot": 1}),
    "play_first": ((Phase.DECIDING,), "14.11.1", {"spot": 1}),
    "reveal": ((Phase.DECIDING,), "8.6", {}),
    "dead_hand": ((Phase.DECIDING, Phase.REVEALED), "NZ 14.1", {"spot": 1}),
    "concede": ((Phase.REVEALED,), "9.7", {"spot": 1}),
    "settle": ((Phase.REVEALED,), "9.3", {}),
    "awards_applied": ((Phase.SETTLING,), "9.5", {"result": {}}),
    "award_paid": ((Phase.SETTLING,), "9.5", {"spot": 1}),
    "void_player": (IN_PLAY[:-1], "16.3.1", {"spot": 1}),
    "invalidate": (IN_PLAY, "16.4", {}),
    "shuffler_failed": (IN_PLAY, "15.2.1", {}),
}
#: inputs every phase takes: what the board sees (its meaning depends on the phase), a past posting
#: resolved, a deck counted
ANY_PHASE = {"wager", "resolve_past_posting", "deck_count"}


def round_in(phase: Phase, card_source: str = "shuffler") -> Round:
    """A round of three spots in ``phase``, restored from a checkpoint as a restart would."""
    snap = Round("T01-000001", 3, LIMITS, PROFILE, card_source).snapshot()
    return Round.from_snapshot({**snap, "phase": phase.value}, 3, LIMITS, PROFILE)


def test_every_input_is_placed_and_every_event_has_its_rule():
    assert set(PLACES) | ANY_PHASE == set(INPUTS)
    events = {e.id for e in round_in(Phase.PREPARING).machine.events}
    assert events == set(OUT_OF_PHASE)
    for kind in set(INPUTS) & events:
        assert OUT_OF_PHASE[kind][0] == PLACES[kind][1]


@pytest.mark.parametrize("phase", list(Phase))
@pytest.mark.parametrize("kind", sorted(PLACES))
def test_an_input_out_of_its_phase_is_refused_with_its_rule_and_changes_nothing(kind, phase):
    allowed, rule, payload = PLACES[kind]
    event = kind if kind in OUT_OF_PHASE else "void_round"  # a supervisor's void, a device's failure
    for source in ("shuffler", "shoe"):
        r = round_in(phase, source)
        if phase in allowed:
            assert event in {e.id for e in r.machine.allowed_events}
            continue
        before = r.snapshot()
        effects = r.handle(kind, dict(payload))
        assert len(effects) == 1 and isinstance(effects[0], Say), (kind, phase, effects)
        assert effects[0].level == "refused" and effects[0].rule == rule, (kind, phase, effects)
        assert "is not possible while" in effects[0].text
        assert f"round T01-000001 is {phase.value}" in effects[0].text
        assert r.snapshot() == before and r.phase is phase


def test_the_machine_holds_a_phase_change_back_with_the_rule_of_what_is_missing():
    r = round_in(Phase.BETTING)
    [refusal] = r.handle("no_more_bets", {})
    assert (refusal.rule, r.phase) == ("7.2", Phase.BETTING)  # 7.2: no ante anywhere
    r.handle("wager", {"spot": 2, "area": "ante", "cents": 1000})
    r.handle("wager", {"spot": 2, "area": "bet", "cents": 2000})
    [refusal] = r.handle("no_more_bets", {})
    assert (refusal.rule, refusal.spot, r.phase) == ("5.6", 2, Phase.BETTING)  # a bet before the deal
    r.handle("wager", {"spot": 2, "area": "bet", "cents": 0})
    r.handle("wager", {"spot": 2, "area": "ante", "cents": 1000, "stacks": 2})
    [refusal] = r.handle("no_more_bets", {})
    assert (refusal.rule, refusal.spot) == ("5.8", 2)  # two wagers on one area
    r.handle("wager", {"spot": 2, "area": "ante", "cents": 1000})
    assert not refused(r.handle("no_more_bets", {})) and r.phase is Phase.DEALING
    r.handle("hand", {"cards": [0, 1, 2, 3, 4]})
    r.handle("hand", {"cards": [5, 6, 7, 8, 9]})
    assert r.phase is Phase.DECIDING  # the deal completes the machine's own step (7.4.2)
    [refusal] = r.handle("reveal", {})
    assert (refusal.rule, r.phase) == ("8.6", Phase.DECIDING)  # spot 2 has not decided
    r.handle("wager", {"spot": 2, "area": "bet", "cents": 1500})
    [refusal] = r.handle("reveal", {})
    assert (refusal.rule, refusal.spot, r.phase) == ("14.9", 2, Phase.DECIDING)  # not twice the ante


def test_a_malformed_input_is_refused_before_the_machine_moves():
    r = round_in(Phase.BETTING)
    r.handle("wager", {"spot": 1, "area": "ante", "cents": 1000})
    [refusal] = r.handle("no_more_bets", {"spot": 1})
    assert refusal.level == "refused" and "malformed" in refusal.text and r.phase is Phase.BETTING
    r.handle("no_more_bets", {})
    [refusal] = r.handle("hand", {"cards": None})
    assert refusal.level == "refused" and "malformed" in refusal.text and r.phase is Phase.DEALING


def test_a_dead_hand_in_a_profile_without_them_is_refused_under_nz_14_1_in_any_phase():
    nsw = load_profile("nsw")
    for phase in Phase:
        snap = Round("T01-000001", 3, LIMITS, nsw).snapshot()
        r = Round.from_snapshot({**snap, "phase": phase.value}, 3, LIMITS, nsw)
        [refusal] = r.handle("dead_hand", {"spot": 1})
        assert (refusal.rule, refusal.text) == ("NZ 14.1", "profile nsw has no dead hands")


def test_a_void_refused_once_the_round_is_over_cites_the_rule_that_asked():
    for phase in (Phase.COMPLETE, Phase.VOID):
        assert [e.rule for e in round_in(phase).handle("shuffler_failed", {})] == ["15.2.1"]
        assert [e.rule for e in round_in(phase).handle("invalidate", {})] == ["16.4"]

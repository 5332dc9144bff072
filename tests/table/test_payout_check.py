"""Payments checked by the bet-spot sensors (tabled/table/payout_check.py, rules 9.3, 9.4, 9.5, 1.1):
every area judged against the settlement on each board reading while the round settles; SETTLE
DONE refused while an area is wrong, overridden by a supervisor's key (settled as left on the
felt); chips taken off a paid area before SETTLE DONE noted; a restart resumes the check."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings, strategies as st

from tabled.table.core import TableCore
from tabled.table.felt import Area
from tabled.table.payout_check import SETTLED, Due, verdict

from .harness import Harness, notes, refused, says

DEALER_QUALIFIES = "Ac Kc 4d 2s 2h"    # a pair of twos
DEALER_NO_HAND = "Ac Qc 9d 4s 2h"      # ace-queen: does not qualify (9.2)
FLUSH = "3h 6h 8h Jh Kh"               # bet pays 5 to 1 (10.1); progressive flush $100 (12.1.5)
LOSER = "3c 6d 7s 9c Jd"
EQUAL = "Ad Kd 4c 2c 2d"               # the dealer's exact hand value: stand off (9.4.1.3)

AREAS = ("ante", "progressive", "bet")


def board(h: Harness, chips: dict[int, dict[str, int | tuple[int, int]]]) -> list:
    """A whole reading: each area cents, or (chips, tokens)."""
    spots = []
    for n in range(1, h.core.spot_count + 1):
        entry: dict = {"spot": n}
        for area in AREAS:
            v = chips.get(n, {}).get(area, 0)
            c, t = v if isinstance(v, tuple) else (v, 0)
            entry[area] = {"cents": c, "token_cents": t}
        spots.append(entry)
    return h.feed("board.reading", spots=spots)


def checked(**kw) -> Harness:
    h = Harness(spots=3, **kw)
    h.core.payments.enabled = True
    return h


def settled(h: Harness, wagers: dict[int, dict], hands: dict, bets: set[int], dealer: str = DEALER_QUALIFIES) -> dict:
    """Play a round to settlement: ``wagers`` laid while betting, ``bets`` bet twice the ante."""
    if h.round.phase == "preparing":  # a round after another: its deck shuffled again (4.1)
        h.feed("shuffler.shuffled", deck=h.round.deck)
    board(h, wagers)
    h.panel("no_more_bets")
    h.deal({**hands, "dealer": dealer})
    felt = {n: dict(w) for n, w in wagers.items()}
    for n in bets:
        ante = felt[n]["ante"]
        felt[n]["bet"] = 2 * (ante if isinstance(ante, int) else sum(ante))
    board(h, felt)
    h.press("reveal")
    h.press("settle_done")
    assert h.round.phase == "settling"
    return felt


def states(h: Harness) -> dict:
    return {k: s for k, (s, _) in h.core.payments.states.items()}


def test_a_round_stays_settling_until_the_board_shows_every_area_paid_and_collected_9_3_9_4():
    h = checked()
    felt = settled(h, {1: {"ante": 500}, 2: {"ante": 1000, "progressive": 100}},
                   {1: FLUSH, 2: LOSER}, bets={1, 2})
    due = notes(h.log, "payments.due")[0].payload["areas"]
    row = {(r["spot"], r["area"]): r for r in due}
    # spot 1 wins: ante 1 to 1, bet 5 to 1 (10.1); spot 2 loses everything; the progressive wager is in the drop
    assert (row[(1, "ante")]["due_cents"], row[(1, "bet")]["due_cents"]) == (1000, 1000 + 5000)
    assert row[(2, "ante")]["due_cents"] == row[(2, "bet")]["due_cents"] == row[(2, "progressive")]["due_cents"] == 0
    assert states(h)[(1, "bet")] == "to pay" and states(h)[(2, "bet")] == "not collected"
    eff = h.press("settle_done")                                   # nothing paid yet: refused
    [r] = refused(eff)
    assert r.rule == "9.3, 9.4" and "spot 1 ante: still to pay $5.00" in r.text and h.round.phase == "settling"
    assert notes(eff, "payments.refused")[0].payload["areas"][0]["spot"] == 1
    board(h, {1: {"ante": 1000, "bet": 6000}, 2: {}})             # paid beside, collected, drop taken
    assert set(states(h).values()) == {"done"}
    eff = h.press("settle_done")
    assert notes(eff, "payments.checked") and h.core.rounds_finished == 1
    assert felt  # the round laid its bets


@settings(max_examples=60, deadline=None)
@given(area=st.sampled_from([(1, "ante"), (1, "bet"), (2, "ante"), (2, "bet"), (2, "progressive"), (3, "ante")]),
       off=st.integers(-1000, 1000).filter(lambda v: v != 0))
def test_each_error_on_each_area_is_named_with_its_amount_and_blocks_settle_done(area, off):
    h = checked()
    settled(h, {1: {"ante": 500}, 2: {"ante": 1000, "progressive": 100}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    right = {1: {"ante": 1000, "bet": 6000}, 2: {}}
    due = right.get(area[0], {}).get(area[1], 0)
    wrong = {n: dict(a) for n, a in right.items()} | {3: {}}
    wrong[area[0]][area[1]] = max(0, due + off)
    real_off = max(0, due + off) - due
    assume(real_off != 0)                                          # an empty area cannot be short of nothing
    placed = h.core.payments.due[area].placed.chips
    eff = board(h, wrong)
    state, got = h.core.payments.states[area]
    assert got == real_off
    flagged = [s for s in says(eff, "flag") if s.spot == area[0]]
    read = due + real_off
    if min(placed, due) <= read <= max(placed, due):  # between the wager and what is due: still at work
        assert state == ("to pay" if real_off < 0 else "not collected") and not flagged
    else:                                            # beyond either: an error, flagged as it is read
        assert state == ("short" if real_off < 0 else "over")
        assert flagged and flagged[0].rule == "9.3, 9.4"
    assert refused(h.press("settle_done")) and h.round.phase == "settling"
    board(h, right)
    assert not refused(h.press("settle_done")) and h.core.rounds_finished == 1


def test_a_win_paid_to_the_wrong_spot_shows_one_short_and_the_other_over():
    h = checked()
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 500, "bet": 1000}, 2: {"ante": 1000, "bet": 5000}})  # spot 1's winnings on spot 2
    st_ = states(h)
    assert st_[(1, "ante")] == "to pay" and st_[(1, "bet")] == "to pay"
    assert st_[(2, "ante")] == "over" and st_[(2, "bet")] == "over"       # more than was wagered there


def test_a_supervisor_overrides_and_the_round_is_settled_by_what_was_left_9_4():
    h = checked()
    h.feed("staff.roster", people=[{"badge": 1, "name": "Dee", "roles": ["dealer"]},
                                   {"badge": 2, "name": "Sam", "roles": ["supervisor"]}], attempts=5,
           lockout_minutes=15)
    h.feed("staff.sign_in", badge=1, role="dealer", pin_ok=True)
    h.feed("staff.sign_in", badge=2, role="supervisor", pin_ok=True)
    settled(h, {1: {"ante": 500}}, {1: FLUSH}, bets={1})
    board(h, {1: {"ante": 1000, "bet": 6500}})                      # overpaid $5.00 on the bet
    assert refused(h.press("settle_done"))
    eff = h.press("settle_done", key="supervisor")
    [o] = notes(eff, "payments.override")
    assert o.payload["difference_cents"] == 500 and o.payload["dealer"] == 1
    assert (o.payload["person"], o.payload["name"]) == (2, "Sam")
    assert o.payload["areas"] == [{"spot": 1, "area": "bet", "state": "over", "due_cents": 6000,
                                   "left_cents": 6500, "difference_cents": 500}]
    assert h.core.rounds_finished == 1


def test_chips_taken_off_a_paid_area_before_settle_done_are_their_own_irregularity():
    h = checked()
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 1000, "bet": 6000}, 2: {}})
    eff = board(h, {1: {"ante": 1000}, 2: {}})                    # the player takes the bet and its winnings
    [n] = notes(eff, "payments.removed_early")
    assert (n.payload["spot"], n.payload["area"], n.payload["rule"]) == (1, "bet", "9.4")
    assert "removed before settlement ended" in says(eff, "flag")[0].text
    assert not refused(h.press("settle_done"))                     # seen paid right: the round goes on


def test_a_token_wager_is_paid_in_chips_and_the_token_taken_1_1():
    h = checked()
    settled(h, {1: {"ante": (0, 500)}}, {1: FLUSH}, bets={1})
    # the bet: 1000 in chips (twice a 500 ante); the ante: a 500 token, paid 500 in chips, token taken
    assert h.core.payments.due[(1, "ante")] == Due(Area(0, 500, 1), 500, 0)
    board(h, {1: {"ante": (500, 500), "bet": 6000}})              # token left on the area
    assert h.core.payments.states[(1, "ante")] == ("over", 500)
    board(h, {1: {"ante": 500, "bet": 6000}})
    assert h.core.payments.states[(1, "ante")] == ("done", 0)


def test_a_stand_off_and_a_dealer_without_a_hand_leave_the_wagers_as_they_lie_9_2_9_4_1_3():
    h = checked()
    settled(h, {1: {"ante": 500}}, {1: EQUAL}, bets={1})
    assert states(h)[(1, "ante")] == states(h)[(1, "bet")] == "done"     # stand off: nothing to do
    assert not refused(h.press("settle_done"))
    h2 = checked()
    settled(h2, {1: {"ante": 500}}, {1: LOSER}, bets={1}, dealer=DEALER_NO_HAND)
    assert h2.core.payments.due[(1, "bet")].cents == 1000 and states(h2)[(1, "bet")] == "done"  # void bet stays
    assert states(h2)[(1, "ante")] == "to pay"                                                 # ante paid 1 to 1
    board(h2, {1: {"ante": 1000, "bet": 1000}})
    assert not refused(h2.press("settle_done"))


def test_a_folded_spot_has_its_ante_collected_and_its_progressive_in_the_drop_8_4():
    h = checked()
    settled(h, {1: {"ante": 500, "progressive": 100}, 2: {"ante": 500}}, {1: LOSER, 2: FLUSH}, bets={2})
    d = h.core.payments.due
    assert (d[(1, "ante")].cents, d[(1, "progressive")].cents, d[(1, "bet")].cents) == (0, 0, 0)
    board(h, {1: {"progressive": 100}, 2: {"ante": 1000, "bet": 6000}})
    assert h.core.payments.states[(1, "progressive")] == ("not collected", 100)


def test_a_progressive_award_is_paid_by_slip_first_then_the_felt_is_checked_9_5():
    h = checked()
    settled(h, {1: {"ante": 500, "progressive": 100}}, {1: FLUSH}, bets={1})
    assert h.round.awards is not None and h.round.spots[1].award_held
    assert not notes(h.press("settle_done"), "payments.refused")   # the award confirmed first (9.5)
    assert not h.round.spots[1].award_held and h.round.phase == "settling"
    board(h, {1: {"ante": 1000, "bet": 6000}})
    assert notes(h.press("settle_done"), "payments.checked") and h.core.rounds_finished == 1


def test_a_restart_in_the_middle_of_settling_resumes_the_check_from_the_journal():
    h = checked()
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 1000, "bet": 5500}, 2: {}})
    again = TableCore("T01", 3, h.limits, h.profile)
    again.payments.enabled = True
    for kind, payload, t in h.inputs:                              # the journal replayed
        again.apply(kind, payload, t)
    assert again.payments.states == h.core.payments.states and again.payments.waiting(h.round.round_id)
    snap = json.loads(json.dumps(h.core.snapshot()))               # and from a checkpoint
    restored = TableCore.from_snapshot(snap, 3, h.profile)
    assert restored.payments.states == h.core.payments.states and restored.payments.due == h.core.payments.due
    eff = restored.apply("panel.button", {"button": "settle_done", "key": "dealer"}, h.t)
    assert any(e.level == "refused" and "spot 1 bet: still to pay $5.00" in e.text for e in says(eff))


def test_with_the_check_off_settle_done_ends_the_round_at_once_as_before():
    h = Harness(spots=3)
    board(h, {1: {"ante": 500}})
    h.panel("no_more_bets")
    h.deal({1: LOSER, "dealer": DEALER_QUALIFIES})
    board(h, {1: {"ante": 500, "bet": 1000}})
    h.press("reveal")
    h.press("settle_done")
    assert h.core.rounds_finished == 1 and not notes(h.log, "payments.due")


@given(placed=st.integers(0, 5000), due=st.integers(0, 20000), read=st.integers(0, 30000))
def test_an_area_is_done_exactly_when_it_holds_what_is_due_and_an_error_only_beyond_wager_and_due(placed, due, read):
    state, off = verdict(Due(Area(placed), due, 0), Area(read), seen_done=False)
    assert (state == "done") == (read == due) and off == read - due
    assert (state in ("over", "short")) == (read > max(placed, due) or read < min(placed, due))


def test_the_log_names_only_the_areas_to_settle_not_every_area_of_every_spot():
    from tabled.daemon.report import loggable
    h = checked()
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    [due] = notes(h.log, "payments.due")
    assert loggable(due) == {"to_settle": ["spot 1 ante: to pay", "spot 1 bet: to pay", "spot 2 ante: not collected",
                                           "spot 2 bet: not collected"]}


def test_a_void_round_is_checked_every_wager_returned_as_it_lies_a_token_too_1_1_16_4():
    h = checked()
    board(h, {1: {"ante": (500, 500), "progressive": 100}, 2: {"ante": 1000}})
    h.panel("no_more_bets")
    h.deal({1: FLUSH, 2: LOSER, "dealer": DEALER_QUALIFIES})
    board(h, {1: {"ante": (500, 500), "progressive": 100, "bet": 2000}, 2: {"ante": 1000}})
    eff = h.panel("invalidate_round", key="supervisor", reason="test: cards exposed")   # 16.4: the round void
    [due] = notes(eff, "payments.due")
    row = {(r["spot"], r["area"]): r for r in due.payload["areas"]}
    # the wager alone, the token given back (the profile's tokens_returned_on_stand_off), the progressive too
    assert (row[(1, "ante")]["due_cents"], row[(1, "ante")]["due_tokens"]) == (1000, 500)
    assert row[(1, "progressive")]["due_cents"] == 100 and row[(1, "bet")]["due_cents"] == 2000
    assert row[(2, "ante")]["due_cents"] == 1000 and row[(3, "ante")]["due_cents"] == 0
    assert {r["state"] for r in due.payload["areas"]} == {"done"}
    [ok] = notes(eff, "payments.checked")
    assert ok.payload["void"] is True and h.core.rounds_finished == 1
    assert not [s for s in says(eff, "flag") if s.rule == "1.1, 16.4"]               # nothing to give back


def test_a_void_round_whose_felt_does_not_hold_its_wagers_is_flagged_with_the_amount_1_1():
    h = checked()
    board(h, {1: {"ante": 500, "progressive": 100}})
    h.panel("no_more_bets")
    h.deal({1: FLUSH, "dealer": DEALER_QUALIFIES})
    board(h, {1: {"ante": 500}})                       # the progressive wager taken to the drop early
    eff = h.panel("invalidate_round", key="supervisor", reason="test: misdeal")
    assert h.core.payments.states[(1, "progressive")] == ("to pay", -100)
    [area] = notes(eff, "payments.area")
    assert (area.payload["spot"], area.payload["area"], area.payload["due_cents"]) == (1, "progressive", 100)
    [flag] = [s for s in says(eff, "flag") if s.rule == "1.1, 16.4"]
    assert "void round: spot 1 progressive: still to pay $1.00" in flag.text
    assert not notes(eff, "payments.checked") and h.core.rounds_finished == 1   # over: nothing waits


OTHER_LOSER = "5c 8d Ts Qd 7c"          # queen high: spot 2's hand beside spot 1's
#: situation -> (wagers, spot 1's hand, bet or not, dealer): a token wager, a stand off, a void bet, a
#: folded spot, a progressive award alongside (1.1, 9.4.1.3, 9.2, 8.4, 9.5)
SITUATIONS = {
    "token win": ({1: {"ante": (0, 500)}}, FLUSH, True, DEALER_QUALIFIES),
    "stand off": ({1: {"ante": 500}}, EQUAL, True, DEALER_QUALIFIES),
    "void bet": ({1: {"ante": 500}}, LOSER, True, DEALER_NO_HAND),
    "folded": ({1: {"ante": 500, "progressive": 100}}, LOSER, False, DEALER_QUALIFIES),
    "award alongside": ({1: {"ante": 500, "progressive": 100}}, FLUSH, True, DEALER_QUALIFIES),
}


def settled_in(situation: str) -> Harness:
    """Spot 1 in ``situation`` beside spot 2's losing hand, settled, any award confirmed first (9.5)."""
    wagers, hand, bets, dealer = SITUATIONS[situation]
    h = checked()
    settled(h, {**wagers, 2: {"ante": 500}}, {1: hand, 2: OTHER_LOSER}, bets={1, 2} if bets else {2}, dealer=dealer)
    if h.round.awards is not None:
        assert not notes(h.press("settle_done"), "payments.refused")    # the award by slip first (9.5)
    return h


@pytest.mark.parametrize("situation", sorted(SITUATIONS))
@pytest.mark.parametrize("error", ["over", "short", "untouched", "token left", "wrong spot"])
def test_every_kind_of_error_on_every_kind_of_area_blocks_settle_done_until_put_right(situation, error):
    tried = 0
    for area in AREAS:
        h = settled_in(situation)                                        # each area's error in a round of its own
        due = h.core.payments.due
        right = {n: {a: (d.chips, d.tokens) for (m, a), d in due.items() if m == n} for n in (1, 2, 3)}
        d = due[(1, area)]
        chips, tokens = d.chips, d.tokens
        if error == "over":
            chips += 500
        elif error == "short":
            chips -= min(chips, 500)
        elif error == "untouched":
            chips, tokens = d.placed.chips, d.placed.tokens              # paid or collected nothing
        elif error == "token left":
            tokens += d.placed.tokens                                    # a token not taken
        elif error == "wrong spot":
            chips = 0                                                    # its due laid on spot 3 instead
        wrong = {n: dict(a) for n, a in right.items()}
        wrong[1][area] = (chips, tokens)
        if error == "wrong spot":
            wrong[3][area] = (d.chips, d.tokens)
        if wrong == right or not (d.placed.chips or d.placed.tokens or d.cents):
            continue                                                     # the error cannot happen here
        tried += 1
        board(h, wrong)
        state, _ = h.core.payments.states[(1, area)]
        assert state not in SETTLED, (area, state)
        [r] = refused(h.press("settle_done"))
        assert f"spot 1 {area}:" in r.text and h.round.phase == "settling"
        if error == "wrong spot":
            assert h.core.payments.states[(3, area)][0] == "over"        # nothing is due on spot 3
        board(h, right)
        assert h.core.payments.states[(1, area)] == ("done", 0)
        assert not refused(h.press("settle_done")) and h.core.rounds_finished == 1
    assert tried or error != "over"                 # an overpayment can happen on every area with a wager


def test_a_stand_off_taken_before_settle_done_is_short_not_a_pick_up_9_4_1_3():
    h = settled_in("stand off")
    assert h.core.payments.states[(1, "ante")] == ("done", 0)         # nothing to pay: left as it lies
    board(h, {1: {"bet": 1000}, 2: {}})                                # the ante taken: by whom, the board cannot say
    assert h.core.payments.states[(1, "ante")] == ("short", -500)
    assert refused(h.press("settle_done"))
    board(h, {1: {"ante": 500, "bet": 1000}, 2: {}})
    assert not refused(h.press("settle_done")) and h.core.rounds_finished == 1

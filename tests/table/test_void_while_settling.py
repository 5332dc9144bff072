"""A round voided while it settles (16.4 invalidated, 15.2.1 the shuffling device failed; 1.1 "void")
with the payments checked by the board (9.3, 9.4; tabled/table/payout_check.py): it is settled again,
as void, and that settlement is the round's; every area must hold its wager as it lay when the round
settled, so winnings already paid are taken back before SETTLE DONE ends the round; a restart keeps
it; once the pool has been asked for the round's progressive awards the void is refused (9.5, 12.1)."""

from __future__ import annotations

import json

import pytest

from tabled.cli import main
from tabled.journal.store import Journal
from tabled.reports.rounds import gather
from tabled.table.core import TableCore

from tests.commands.test_recall import JournaledHarness
from .harness import Harness, notes, refused, says
from .test_payout_check import DEALER_QUALIFIES, FLUSH, LOSER, board, checked, settled

WAGERS = {1: {"ante": 500}, 2: {"ante": 500}}
PAID = {1: {"ante": 1000, "bet": 6000}, 2: {}}          # spot 1's flush paid 1 to 1 and 5 to 1; spot 2 collected
AS_PLACED = {1: {"ante": 500, "bet": 1000}, 2: {"ante": 500, "bet": 1000}}
VOIDS = {
    "16.4": lambda h: h.panel("invalidate_round", key="supervisor", reason="a brawl at the table (16.4.1)"),
    "15.2.1": lambda h: h.feed("shuffler.fault", fault="failed"),
}


def paid_then_voided(h: Harness, rule: str) -> list:
    """Spot 1 wins, spot 2 loses; the dealer pays and collects on the felt; then the round is void."""
    settled(h, WAGERS, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, PAID)
    return VOIDS[rule](h)


@pytest.mark.parametrize("rule", VOIDS)
def test_a_round_voided_while_it_settles_is_flagged_until_the_winnings_are_taken_back_16_4_15_2_1(rule):
    h = checked()
    eff = paid_then_voided(h, rule)
    rid = h.round.round_id
    first, void = [n.payload for n in notes(h.log, "round.settled") if n.round_id == rid]
    assert first["void"] is None and void["void"] in ("invalidated", "shuffler_failure")
    assert [s["net_cents"] for s in void["spots"] if s["spot"] in (1, 2)] == [0, 0]   # every wager back (16.5)
    flagged = {s.text for s in says(eff, "flag") if s.rule == "1.1, 16.4"}
    assert flagged == {"void round: spot 1 ante: over by $5.00: every wager goes back as it was placed",
                       "void round: spot 1 bet: over by $50.00: every wager goes back as it was placed",
                       "void round: spot 2 ante: still to pay $5.00: every wager goes back as it was placed",
                       "void round: spot 2 bet: still to pay $10.00: every wager goes back as it was placed"}
    assert {(a.payload["spot"], a.payload["area"]) for a in notes(eff, "payments.area")} == \
        {(1, "ante"), (1, "bet"), (2, "ante"), (2, "bet")}
    assert h.round.phase == "void" and h.core.rounds_finished == 0            # the round waits for its chips
    [no] = refused(h.press("settle_done"))
    assert no.rule == "9.3, 9.4" and "void round" in no.text and "spot 1 bet: over by $50.00" in no.text
    board(h, {1: {"ante": 500, "bet": 1000}, 2: PAID[2]})                     # the winnings taken back
    assert refused(h.press("settle_done")) and h.core.rounds_finished == 0   # spot 2's wagers not yet given back
    board(h, AS_PLACED)
    eff = h.press("settle_done")
    [ok] = notes(eff, "payments.checked")
    assert ok.payload["void"] is True and h.core.rounds_finished == 1 and notes(eff, "round.finished")
    assert not notes(h.log, "payments.override")


def test_a_round_voided_while_it_settles_with_the_felt_as_placed_ends_at_once_16_4():
    h = checked()
    settled(h, WAGERS, {1: FLUSH, 2: LOSER}, bets={1, 2})                    # nothing paid or collected yet
    eff = VOIDS["16.4"](h)
    [ok] = notes(eff, "payments.checked")
    assert ok.payload["void"] is True and h.core.rounds_finished == 1
    assert not [s for s in says(eff, "flag") if s.rule == "1.1, 16.4"]


def test_a_restart_in_the_middle_of_a_void_put_right_keeps_it_16_4():
    h = checked()
    paid_then_voided(h, "16.4")
    board(h, {1: {"ante": 500, "bet": 1000}, 2: {}})                          # the winnings back, spot 2 not yet
    replayed = TableCore("T01", 3, h.limits, h.profile)
    replayed.payments.enabled = True
    for kind, payload, t in h.inputs:                                         # the journal replayed
        replayed.apply(kind, payload, t)
    restored = TableCore.from_snapshot(json.loads(json.dumps(h.core.snapshot())), 3, h.profile)  # a checkpoint
    for core in (replayed, restored):
        assert core.round.phase == "void" and core.round.settlement["void"] == "invalidated"
        assert core.payments.states == h.core.payments.states and core.payments.waiting(core.round_id)
        eff = core.apply("panel.button", {"button": "settle_done", "key": "dealer"}, h.t)
        assert any(e.level == "refused" and "void round" in e.text and "spot 2 ante: short by $5.00" in e.text
                   for e in says(eff))
        core.apply("board.reading", {"spots": [{"spot": n, **{a: {"cents": AS_PLACED.get(n, {}).get(a, 0)}
                                                              for a in ("ante", "progressive", "bet")}}
                                               for n in (1, 2, 3)]}, h.t)
        eff = core.apply("panel.button", {"button": "settle_done", "key": "dealer"}, h.t)
        assert notes(eff, "payments.checked")[0].payload["void"] is True and core.rounds_finished == 1


def test_the_void_settlement_is_the_one_reports_recall_and_the_audit_read_16_4_16_11(tmp_path, capsys):
    path = tmp_path / "journal.db"
    h = JournaledHarness(path, spots=3)
    h.core.payments.enabled = True
    paid_then_voided(h, "16.4")
    rid = h.round.round_id
    board(h, AS_PLACED)
    h.press("settle_done")
    h.journal.close()
    with Journal.open(path, readonly=True) as j:
        got = gather(j.records_after(0))
    assert got.rounds[rid].settlement.void == "invalidated" and got.rounds[rid].settlement.net_cents == 0
    assert not got.problems                                                   # not "settled a second time"
    assert main(["recall", "--journal", str(path), "--round", rid, "--round-json"]) == 0
    assert json.loads(capsys.readouterr().out)["void"] == "invalidated"
    assert main(["audit", "verify", "--journal", str(path)]) == 0             # settled once, then once as void
    assert "SETTLED" not in capsys.readouterr().out


def test_a_void_is_refused_once_the_pool_has_been_asked_for_the_rounds_awards_9_5_12_1():
    h = checked()
    settled(h, {1: {"ante": 500, "progressive": 100}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2},
            dealer=DEALER_QUALIFIES)
    assert h.round.awards is not None and h.round.spots[1].award_held     # the flush's $100 (12.1.5)
    for confirm in (False, True):                                           # held, then confirmed paid (9.5)
        if confirm:
            h.press("settle_done")
        eff = VOIDS["16.4"](h)
        [no] = refused(eff)
        assert no.rule == "16.4" and "the pool has been asked for its progressive awards (spot 1" in no.text
        assert h.round.phase == "settling" and not notes(eff, "round.void") and not notes(eff, "round.settled")
    board(h, PAID)
    assert notes(h.press("settle_done"), "payments.checked") and h.core.rounds_finished == 1


def test_a_forfeited_spot_in_a_round_voided_while_it_settles_must_be_cleared_16_4_2_16_5():
    """16.5: the supervisor forfeits spot 2's wagers (16.4.2): the void settlement collects them, and
    the board must show spot 2 empty while spot 1's wagers go back as placed."""
    h = checked()
    settled(h, WAGERS, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, PAID)                                                             # spot 2 collected already
    h.panel("invalidate_round", key="supervisor", reason="cards marked (16.4.2)", forfeit=[2])
    rid = h.round.round_id
    void = [n.payload for n in notes(h.log, "round.settled") if n.round_id == rid][-1]
    lines = {s["spot"]: s for s in void["spots"]}
    assert lines[2]["status"] == "forfeited" and lines[2]["net_cents"] == -1500 and lines[1]["net_cents"] == 0
    assert refused(h.press("settle_done"))                                    # spot 1's winnings still on the felt
    board(h, {1: {"ante": 500, "bet": 1000}, 2: {}})                          # spot 2 stays empty: forfeited
    [ok] = notes(h.press("settle_done"), "payments.checked")
    assert ok.payload["void"] is True and h.core.rounds_finished == 1

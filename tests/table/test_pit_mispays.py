"""The pit's view of the board's check of the payments (9.3, 9.4): each SETTLE DONE refused over a
wrong area, each round a supervisor closed over a mismatch with the difference, each area emptied
before settlement ended, from the notes as the journal holds them."""

from __future__ import annotations

from tests.table.test_payout_check import FLUSH, LOSER, board, settled
from tests.table.test_pit import Journaled, view


def test_the_pit_lists_refusals_overrides_and_early_pickups_newest_first():
    h = Journaled()
    h.core.payments.enabled = True
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 1000, "bet": 6500}, 2: {}})
    h.press("settle_done")
    board(h, {1: {"ante": 1000, "bet": 6000}, 2: {}})
    board(h, {1: {"ante": 1000}, 2: {}})                       # the bet taken before SETTLE DONE
    h.press("settle_done")
    settled(h, {1: {"ante": 500}}, {1: FLUSH}, bets={1})
    board(h, {1: {"ante": 1000, "bet": 5000}})
    h.press("settle_done", key="supervisor")
    shown = view(h)["mispays"]
    assert [m["kind"] for m in shown] == ["payments.override", "payments.removed_early", "payments.refused"]
    assert shown[0]["text"] == ("closed by supervisor as the felt lay: spot 1 bet: to pay, due $60.00, left $50.00; "
                                "$10.00 against the player") and shown[0]["difference_cents"] == -1000
    assert shown[1]["text"] == "spot 1 bet: chips removed before settlement ended"
    assert shown[2]["text"] == "SETTLE DONE refused: spot 1 bet: over, due $60.00, left $65.00"
    assert {m["rule"] for m in shown} == {"9.3, 9.4", "9.4"}


def test_a_round_voided_while_it_settled_is_shown_once_by_its_void_settlement_16_4():
    h = Journaled()
    h.core.payments.enabled = True
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    rid = h.round.round_id
    h.panel("invalidate_round", key="supervisor", reason="a brawl (16.4.1)")
    shown = [r for r in view(h)["rounds"] if r["round_id"] == rid]
    assert [r["void"] for r in shown] == ["invalidated"] and shown[0]["net_cents"] == 0

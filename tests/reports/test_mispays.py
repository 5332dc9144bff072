"""Mispays by dealer in the integrity section (rules 9.3, 9.4): from the notes the board's check of
the payments journals, as the fold makes them: SETTLE DONE refused (a mispay caught), a
supervisor's override (over and short counted against the house and the player), chips removed
before settlement ended."""

from __future__ import annotations

from tabled.reports.integrity import integrity
from tabled.reports.periods import range_period
from tabled.reports.rounds import Event
from tabled.table.effects import Note
from tests.table.test_payout_check import FLUSH, LOSER, board, checked, settled

MINUTE = 60_000_000
PERIOD = range_period(0, 600 * MINUTE, "ten hours")


def journaled(h) -> list[Event]:
    """The notes of a harness's run, as the report reads them from the journal, a minute apart."""
    return [Event(i, (i + 1) * MINUTE, e.round_id, e.kind, e.payload)
            for i, e in enumerate(e for e in h.log if isinstance(e, Note))]


def staffed():
    h = checked()
    h.feed("staff.roster", people=[{"badge": 7, "name": "Dee", "roles": ["dealer"]},
                                   {"badge": 9, "name": "Sam", "roles": ["supervisor"]}],
           attempts=5, lockout_minutes=15)
    h.feed("staff.sign_in", badge=7, role="dealer", pin_ok=True)
    h.feed("staff.sign_in", badge=9, role="supervisor", pin_ok=True)
    return h


def test_mispays_by_dealer_over_and_short_totals_from_the_checks_notes():
    h = staffed()
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 1000, "bet": 6500}, 2: {}})            # $5.00 over on spot 1's bet
    h.press("settle_done")                                        # refused: a mispay caught
    board(h, {1: {"ante": 1000, "bet": 6000}, 2: {}})            # put right
    h.press("settle_done")
    settled(h, {1: {"ante": 500}, 2: {"ante": 500}}, {1: FLUSH, 2: LOSER}, bets={1, 2})
    board(h, {1: {"ante": 800, "bet": 6000}, 2: {"ante": 500}})  # $2.00 short (ante), $5.00 not collected
    h.press("settle_done", key="supervisor")                      # closed as the felt lies
    settled(h, {1: {"ante": 500}}, {1: FLUSH}, bets={1})
    board(h, {1: {"ante": 1000, "bet": 6000}})
    board(h, {1: {"ante": 1000}})                                 # the player takes the bet early
    h.press("settle_done")
    mp = integrity(PERIOD, journaled(h), []).mispays
    d = mp.by_dealer["dealer badge 7"]
    assert (d.rounds_checked, d.refused, d.overridden) == (2, 1, 1)
    assert (d.over_cents, d.short_cents) == (500, 200) == (mp.over_cents, mp.short_cents)
    assert mp.removed_early == 1


def test_a_period_without_the_check_has_no_mispays_section():
    assert not integrity(PERIOD, [], []).mispays

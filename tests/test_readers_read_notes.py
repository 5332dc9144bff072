"""A reader of the journal (the slip, the pit, the floor, the reports) reads only what the fold
concluded: every kind it reads is a note in the kinds' registry (tabled/table/kinds.py), never an
input, so a new input is taught to the fold once and no reader works out again what it meant."""

from __future__ import annotations

import pytest

from tabled.daemon import pit as daemon_pit
from tabled.floor import watch
from tabled.reports import protection, ratings, rounds, shuffles
from tabled.table import kinds
from tabled.views import pit, slip

READERS = {
    "hand-pay slip (tabled/views/slip.py)": slip.KINDS,
    "pit (tabled/views/pit.py)": pit.KINDS,
    "pit's standing faults (tabled/daemon/pit.py)": daemon_pit.STANDING_KINDS,
    "floor (tabled/floor/watch.py)": watch.KINDS,
    "reports and integrity (tabled/reports/rounds.py)": rounds.REPORT_KINDS,
    "shuffle report (tabled/reports/shuffles.py)": shuffles.KINDS,
    "game protection (tabled/reports/protection.py, tabled/daemon/protection.py)": protection.KINDS,
    "player ratings (tabled/reports/ratings.py, tabled/floor/ratings.py)": ratings.RATING_KINDS,
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_kind_a_reader_reads_is_a_note(reader):
    read = set(READERS[reader])
    assert read, reader
    assert {k for k in read if kinds.is_input(k)} == set(), f"{reader} reads inputs"
    assert read <= set(kinds.NOTES), f"{reader} reads kinds the registry does not know"


def test_the_check_fails_on_an_input():
    assert kinds.is_input("panel.button") and kinds.is_input("pool.awards") and kinds.is_input("shuffler.fault")
    assert not kinds.is_input("progressive.award_paid") and not kinds.is_input("panel.approved")


def test_the_integrity_sections_happenings_are_among_what_the_reports_read():
    assert rounds.EVENT_KINDS <= rounds.REPORT_KINDS

"""A linked pool's "award pending" (2.4.3, 12.1): the pool's reading says which table's award moved
it, the fold keeps another table's hit and the dealer's screen shows it beside the meter until
that table contributes again (its award paid, its next round under way) or AWARD_PENDING_MS."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from tabled.table.core import TableCore
from tabled.table.poolbook import AWARD_PENDING_MS
from tabled.table.effects import Say
from tabled.views.screen import screen_view

from .harness import Harness


def meter(h: Harness, cents: int, seq: int, change: str, **moved) -> None:
    h.feed("pool.meter", balance_cents=cents, seq=seq, change=change, **moved)


def pending_text(h: Harness) -> str | None:
    shown = screen_view(h.core)["meter"]["award_pending"]
    return shown["text"] if shown else None


def test_another_table_s_award_is_pending_beside_the_meter_until_that_table_contributes_again():
    h = Harness()
    meter(h, 1_500_000, 10, "contribution", table_id="T01", round_id="T01-000001")
    meter(h, 1_000_000, 11, "reset", table_id="T03", round_id="T03-000042", award_cents=1_500_000)
    assert h.core.pool.cents == 1_000_000
    assert pending_text(h) == "progressive hit at table T03, $15,000.00: award pending"
    assert h.core.pool.award_pending == {"table_id": "T03", "round_id": "T03-000042", "cents": 1_500_000,
                                    "seq": 11, "since_ms": h.t}
    meter(h, 1_000_025, 12, "contribution", table_id="T02", round_id="T02-000007")  # another table plays on
    assert pending_text(h) is not None
    meter(h, 1_000_050, 13, "contribution", table_id="T03", round_id="T03-000043")  # T03's next round
    assert pending_text(h) is None and h.core.pool.award_pending is None


def test_this_table_s_own_award_is_not_another_table_s_hit():
    h = Harness()
    meter(h, 900_000, 5, "award", table_id="T01", round_id="T01-000001", award_cents=100_000)
    assert h.core.pool.award_pending is None and pending_text(h) is None


def test_a_pending_award_is_shown_no_longer_than_its_time_a_table_may_close_after_its_hit():
    h = Harness()
    meter(h, 900_000, 5, "award", table_id="T02", round_id="T02-000001", award_cents=100_000)
    h.t += AWARD_PENDING_MS - 1
    h.feed("tick")
    assert pending_text(h) == "progressive hit at table T02, $1,000.00: award pending"
    h.t += 1
    h.feed("tick")
    assert pending_text(h) is None
    meter(h, 900_025, 6, "contribution", table_id="T04", round_id="T04-000001")
    assert h.core.pool.award_pending is None  # the next reading ends it in the fold too


def test_an_old_reading_without_the_table_replays_as_before_and_a_restart_keeps_the_pending_award():
    h = Harness()
    meter(h, 1_000_000, 3, "contribution")                  # a journal from before readings named tables
    assert h.core.pool.cents == 1_000_000 and h.core.pool.award_pending is None
    assert "award_pending" not in h.core.snapshot()         # old checkpoints are unchanged
    meter(h, 500_000, 4, "award", table_id="T02", round_id="T02-000009", award_cents=500_000)
    again = TableCore.from_snapshot(h.core.snapshot(), h.core.spot_count, h.profile)
    assert again.pool.award_pending == h.core.pool.award_pending
    assert screen_view(again)["meter"]["award_pending"]["table_id"] == "T02"


@pytest.mark.parametrize("moved", [{"table_id": "T02", "award_cents": -5}, {"table_id": "T02", "award_cents": 1.5},
                                   {"table_id": 7, "award_cents": 100}])
def test_a_reading_with_a_bad_award_is_refused_and_changes_nothing(moved):
    h = Harness()
    meter(h, 1_000_000, 3, "contribution")
    out = h.feed("pool.meter", balance_cents=900_000, seq=4, change="award", **moved)
    (said,) = [e for e in out if isinstance(e, Say)]
    assert said.level == "refused" and "malformed input" in said.text and "award" in said.text
    assert h.core.pool.award_pending is None and h.core.pool.cents == 1_000_000


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["T01", "T02", "T03"]), st.sampled_from(["contribution", "award"]),
                          st.integers(1, 100_000)), max_size=12))
def test_what_is_pending_is_the_last_award_of_another_table_not_followed_by_its_contribution(readings):
    h = Harness()
    expected = None
    for seq, (table, change, cents) in enumerate(readings, 1):
        award = cents if change == "award" else 0
        meter(h, 1_000_000 + seq, seq, "correction" if award else change, table_id=table, award_cents=award)
        if award and table != "T01":
            expected = (table, award)
        elif expected is not None and change == "contribution" and table == expected[0]:
            expected = None
    got = h.core.pool.award_pending
    assert ((got["table_id"], got["cents"]) if got else None) == expected

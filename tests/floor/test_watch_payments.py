"""What the floor folds from the board's check of the payments (9.3, 9.4): a round closed by a
supervisor over a mispay alerted, with its side; the mispays caught before SETTLE DONE counted."""

from __future__ import annotations

from tabled.journal.store import Journal
from tabled.floor.watch import TableWatch
from tests.floor.test_watch import NOON, keyed, rows


def watched(tmp_path, records: list) -> tuple[TableWatch, list]:
    """The floor's watch of a sealed journal holding ``records``, and the alerts it raised."""
    key, publics = keyed(tmp_path)
    path = tmp_path / "journal.db"
    with Journal.open(path, lambda: NOON, seal_with=key) as j:
        j.append_many(records)
    watch = TableWatch("T01", publics)
    return watch, [a for r in rows(path) for a in watch.feed(r)]


def test_a_round_closed_by_a_supervisor_over_a_mispay_is_alerted_and_mispays_caught_counted(tmp_path):
    """9.3, 9.4: the board's check of the payments, as the table's notes tell the floor."""
    watch, alerts = watched(tmp_path, [
        ("round.started", {}, "T01-000001"),
        ("payments.refused", {"areas": [{"spot": 2, "area": "bet", "difference_cents": 500}]}, "T01-000001"),
        ("payments.override", {"areas": [{"spot": 2, "area": "bet", "difference_cents": -300}],
                               "difference_cents": -300, "rule": "9.3, 9.4"}, "T01-000001")])
    assert [(a.kind, a.text) for a in alerts] == [
        ("payments", "round T01-000001 closed by a supervisor over a mispay: $3.00 against the player (9.4)")]
    assert watch.view(NOON)["mispays"] == {"caught": 1, "closed_over_cents": -300}


def test_a_round_voided_while_it_settled_counts_once_by_its_void_settlement_16_4(tmp_path):
    """16.4: the round's void settlement takes the place of the one before it in today's figures."""
    watch, _ = watched(tmp_path, [
        ("round.started", {}, "T01-000001"),
        ("round.settled", {"house_collects_cents": 1000, "house_pays_cents": 6000, "void": None}, "T01-000001"),
        ("round.void", {"why": "invalidated", "rule": "16.4"}, "T01-000001"),
        ("round.settled", {"house_collects_cents": 0, "house_pays_cents": 0, "void": "invalidated"}, "T01-000001"),
        ("round.started", {}, "T01-000002"),
        ("round.settled", {"house_collects_cents": 500, "house_pays_cents": 0, "void": None}, "T01-000002")])
    assert watch.view(NOON)["today"] == {"rounds": 2, "win_cents": 500, "win": "$5.00"}

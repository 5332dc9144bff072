"""Game protection's alert as the table writes it down (tabled/table/protection.py): a
``protection.evidence`` input becomes a ``protection.alert`` note the pit's view keeps and the
floor raises; nothing at the table changes and the dealer is told nothing; a malformed input is
one clear refusal."""

from __future__ import annotations

from datetime import datetime

import pytest

from tabled.journal.store import Journal
from tabled.floor.watch import TableWatch
from tabled.table.effects import Note, Say
from tabled.views.screen import screen_view
from tests.floor.test_watch import rows
from tests.table.test_pit import Journaled, view

EVIDENCE = {"spot": 3, "hypothesis": "hole-4", "follows": "all four of the dealer's hole cards", "decisions": 41,
            "evidence_ln_milli": 10_127, "gain_milliantes": 6500,
            "rounds": [{"round_id": "SIM01-000007", "time": "2026-03-02 12:00:00.000 UTC", "time_us": 0, "spot": 3,
                        "decision": "fold", "cards": ["Ah", "Kd", "9c", "5s", "2h"], "up": "7c",
                        "holes": ["Qs", "Qd", "4c", "3h"], "neighbours": [], "ln_factor_milli": 1200, "records": []}]}


def test_an_alert_is_noted_for_the_pit_and_changes_nothing_at_the_table():
    h = Journaled()
    h.plain_round()
    before = screen_view(h.core)
    effects = h.feed("protection.evidence", **EVIDENCE)
    notes = [e for e in effects if isinstance(e, Note)]
    assert [n.kind for n in notes] == ["protection.alert"]
    assert notes[0].payload["text"] == (
        "spot 3: its decisions follow all four of the dealer's hole cards (evidence e^10.1 = 2.5e+04, at most 4e-05 "
        "for an honest player over 41 decisions; +6.50 antes over the honest optimum)")
    assert not [e for e in effects if isinstance(e, Say)]  # the dealer is told nothing
    after = screen_view(h.core)
    assert {k: v for k, v in after.items() if k != "now_ms"} == {k: v for k, v in before.items() if k != "now_ms"}
    shown = view(h)["protection"]
    assert [(a["spot"], a["hypothesis"], a["rounds"][0]["round_id"]) for a in shown] == [
        (3, "hole-4", "SIM01-000007")]


def test_an_alert_names_a_carded_player_by_the_masked_card_and_the_pit_never_sees_the_whole_number():
    h = Journaled()
    h.plain_round()
    card = "4000100010002002"
    note, = [e for e in h.feed("protection.evidence", **EVIDENCE, card=card) if isinstance(e, Note)]
    assert note.payload["card"] == card and note.payload["player"] == "\u2022\u2022\u2022\u20222002"
    assert note.payload["text"].startswith("spot 3, player \u2022\u2022\u2022\u20222002: its decisions follow ")
    shown, = view(h)["protection"]
    assert shown["player"] == "\u2022\u2022\u2022\u20222002" and card not in repr(shown)


@pytest.mark.parametrize("field, value, says", [
    ("spot", "three", "protection.evidence: spot is 'three', not int"),
    ("evidence_ln_milli", 10.5, "protection.evidence: evidence_ln_milli is 10.5, not int"),
    ("rounds", "many", "protection.evidence: rounds is 'many', not list"),
    ("card", "40-00", "protection.evidence: card: a player card number is letters and digits only"),
])
def test_a_malformed_alert_is_one_refusal_naming_the_field(field, value, says):
    h = Journaled()
    effects = h.feed("protection.evidence", **{**EVIDENCE, field: value})
    assert [e.text for e in effects if isinstance(e, Say)] == [says]
    assert not [e for e in effects if isinstance(e, Note)]


def test_the_floor_raises_the_alert_once_for_a_named_person_to_acknowledge(tmp_path):
    noon = datetime(2026, 3, 2, 12, 0).timestamp()
    path = tmp_path / "journal.db"
    h = Journaled()
    note, = [e for e in h.feed("protection.evidence", **EVIDENCE) if isinstance(e, Note)]
    with Journal.open(path, lambda: noon) as j:
        j.append_many([("round.started", {}, "T01-000001"), (note.kind, note.payload, "T01-000001")])
    watch = TableWatch("T01")
    alerts = [a for r in rows(path, noon) for a in watch.feed(r)]
    assert [(a.id, a.kind) for a in alerts] == [("T01:protection:2", "protection")]
    assert alerts[0].text == "game protection: " + note.payload["text"]

"""``tabled report players``: every rated session from a journal, as text (card numbers masked),
JSON or CSV (the card number whole, for the casino's management system)."""

from __future__ import annotations

import csv
import io
import json

from tabled.cli import EX_USER, main
from tabled.journal.store import Journal
from tabled.table.core import TableCore
from tests.reports.test_ratings import seeded_session


def write_journal(path, seed: int = 5, table: str = "T01") -> None:
    """A journal of a seeded session at ``table``: each input and the notes it made, at the input's time."""
    h = seeded_session(seed, rounds=3)
    core = TableCore(table, 7, h.limits, h.profile)
    start_ms = 1_800_000_000_000
    now = [0.0]
    with Journal.open(path, clock=lambda: now[0]) as journal:
        for kind, payload, t in h.inputs:
            now[0] = (start_ms + t) / 1000
            effects = core.apply(kind, payload, start_ms + t)
            notes = [(e.kind, e.payload, e.round_id) for e in effects if hasattr(e, "kind")]
            journal.append_many([(kind, payload, None), *notes])


def test_players_as_text_json_and_csv(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)
    assert main(["report", "players", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert "players: the whole journal, 2 sessions" in text
    assert "\u2022\u2022\u2022\u20222222" in text and "11112222" not in text   # masked on paper too
    assert main(["report", "players", "--journal", str(path), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["card"] for r in rows] == ["11112222", "33334444"]
    assert all(r["rounds_played"] == 3 and r["theoretical_cents"] != 0 for r in rows)
    assert main(["report", "players", "--journal", str(path), "--csv", "--card", "33334444"]) == 0
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["card"] == "33334444" and int(row["theoretical_cents"]) == rows[1]["theoretical_cents"]


def test_players_refuses_an_option_of_the_other_reports(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)
    assert main(["report", "players", "--journal", str(path), "--pdf", "x.pdf"]) == EX_USER
    assert "--pdf does not go with `tabled report players`" in capsys.readouterr().err
    assert main(["report", "day", "--journal", str(path), "--card", "1234"]) == EX_USER
    assert "--card goes with `tabled report players`" in capsys.readouterr().err

"""``tabled report players``: every rated session from a journal, and each still open at the end of
the period with its figures then, as text, JSON or CSV; card numbers masked, whole only when asked
for the casino's management system (``--whole-cards``)."""

from __future__ import annotations

import csv
import io
import json

from tabled.cli import EX_USER, main
from tabled.journal.store import Journal
from tabled.table.core import TableCore
from tests.reports.test_ratings import seeded_session


#: the card read at spot 4 after the last round of a journal written with ``stay``
LATE_CARD = "55556666"
START_MS = 1_800_000_000_000    # 2027-01-15 08:00 UTC


def write_journal(path, seed: int = 5, table: str = "T01", stay: bool = False) -> None:
    """A journal of a seeded session at ``table``: each input and the notes it made, at the input's
    time. With ``stay`` the carded players do not leave (their sessions stay open) and
    :data:`LATE_CARD` is read at spot 4 at 08:04, after the last round: seated, no round yet."""
    h = seeded_session(seed, rounds=3)
    inputs = h.inputs
    if stay:
        inputs = [i for i in inputs if i[0] != "player.leaves"] + [("player.card", {"spot": 4, "card": LATE_CARD}, h.t)]
    core = TableCore(table, 7, h.limits, h.profile)
    start_ms = START_MS
    now = [0.0]
    with Journal.open(path, clock=lambda: now[0]) as journal:
        for kind, payload, t in inputs:
            now[0] = (start_ms + t) / 1000
            effects = core.apply(kind, payload, start_ms + t)
            notes = [(e.kind, e.payload, e.round_id) for e in effects if hasattr(e, "kind")]
            journal.append_many([(kind, payload, None), *notes])


def test_players_as_text_json_and_csv(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)
    assert main(["report", "players", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert "players: the whole journal, 3 sessions, 1 open at its end" in text   # spot 3 plays on, no card
    assert "\u2022\u2022\u2022\u20222222" in text and "11112222" not in text   # masked on paper too
    assert main(["report", "players", "--journal", str(path), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["card"] for r in rows] == ["\u2022\u2022\u2022\u20222222", "\u2022\u2022\u2022\u20224444", None]
    assert main(["report", "players", "--journal", str(path), "--json", "--whole-cards"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["card"], r["open"]) for r in rows] == [("11112222", False), ("33334444", False), (None, True)]
    assert all(r["rounds_played"] == 3 and r["theoretical_cents"] != 0 for r in rows)
    assert main(["report", "players", "--journal", str(path), "--csv", "--whole-cards", "--card", "33334444"]) == 0
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["card"] == "33334444" and int(row["theoretical_cents"]) == rows[1]["theoretical_cents"]
    assert main(["report", "players", "--journal", str(path), "--csv"]) == 0
    assert "33334444" not in capsys.readouterr().out


def test_a_session_open_at_the_end_of_the_period_is_reported_open_with_its_figures_then(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)           # rounds at 08:01, 08:02 and 08:03 UTC; the carded players leave at 08:04
    span = ["--from", "2027-01-15T08:00", "--to", "2027-01-15T08:03", "--tz", "UTC"]
    assert main(["report", "players", "--journal", str(path), "--json", "--whole-cards", *span]) == 0
    rows = {r["card"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    h = seeded_session(5, rounds=3)
    core = TableCore("T01", 7, h.limits, h.profile)
    for kind, payload, t in h.inputs:
        if t < 3 * 60_000:        # the table as it stood at 08:03
            core.apply(kind, payload, t)
    for card in ("11112222", "33334444"):
        figures = core.players.with_card(card).figures()
        assert rows[card]["open"] and rows[card]["reason"] == "open"
        assert {k: rows[card][k] for k in ("rounds_played", "ante_cents", "bet_cents", "result_cents")} == \
            {k: figures[k] for k in ("rounds_played", "ante_cents", "bet_cents", "result_cents")}
        assert figures["rounds_played"] == 2
    assert main(["report", "players", "--journal", str(path), *span]) == 0
    text = capsys.readouterr().out
    assert "3 sessions, 3 open at its end" in text and text.count(" open ") >= 3


def test_a_player_seated_with_no_round_finished_yet_is_listed_open_with_none(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path, stay=True)
    assert main(["report", "players", "--journal", str(path), "--json", "--whole-cards"]) == 0
    rows = {r["card"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"11112222", "33334444", LATE_CARD, None}
    late = rows[LATE_CARD]
    assert (late["open"], late["reason"], late["spots"]) == (True, "open", [4])
    assert late["start_ms"] == START_MS + 4 * 60_000 and late["seated_ms"] == 0
    assert {k: late[k] for k in ("rounds_played", "rounds_sat_out", "ante_cents", "result_cents",
                                 "theoretical_cents")} == dict.fromkeys(
        ("rounds_played", "rounds_sat_out", "ante_cents", "result_cents", "theoretical_cents"), 0)
    assert rows["11112222"]["open"] and rows["11112222"]["rounds_played"] == 3      # still seated: its rounds so far
    with Journal.open(path, readonly=True) as j:
        newest_ms = max(r.time_us for r in j.records_after(0)) // 1000
    # seated until the last moment the journal tells of (the late card's reading), not its last round
    assert rows["11112222"]["end_ms"] == newest_ms >= late["start_ms"]
    assert rows["11112222"]["seated_ms"] == newest_ms - rows["11112222"]["start_ms"]
    assert main(["report", "players", "--journal", str(path), "--tz", "UTC"]) == 0
    text = capsys.readouterr().out
    assert "4 sessions, 4 open at its end" in text and LATE_CARD not in text
    (line,) = [x for x in text.splitlines() if "\u2022\u2022\u2022\u20226666" in x]
    assert "01-15 08:04-01-15 08:04  0h00m open " in line and "rounds   0 played" in line
    # a period that ends before the card was read does not know of it yet
    span = ["--from", "2027-01-15T08:00", "--to", "2027-01-15T08:03", "--tz", "UTC"]
    assert main(["report", "players", "--journal", str(path), "--json", "--whole-cards", *span]) == 0
    assert LATE_CARD not in capsys.readouterr().out


def test_players_refuses_an_option_of_the_other_reports(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)
    assert main(["report", "players", "--journal", str(path), "--pdf", "x.pdf"]) == EX_USER
    assert "--pdf does not go with `tabled report players`" in capsys.readouterr().err
    assert main(["report", "day", "--journal", str(path), "--card", "1234"]) == EX_USER
    assert "--card goes with `tabled report players`" in capsys.readouterr().err
    assert main(["report", "players", "--journal", str(path), "--whole-cards"]) == EX_USER
    assert "--whole-cards goes with --json or --csv" in capsys.readouterr().err


def test_recall_shows_a_players_card_masked_and_its_json_the_journal_as_written(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path)
    assert main(["recall", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert "player.round" in text and "card=\u2022\u2022\u2022\u20222222" in text and "11112222" not in text
    assert main(["recall", "--journal", str(path), "--json"]) == 0
    assert "11112222" in capsys.readouterr().out                 # the journal keeps the casino's identifier

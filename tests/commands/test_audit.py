"""`tabled audit verify` and `tabled recall` on real journals (audit and game recall)."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from tabled.cli import main
from tabled.journal.store import Journal
from tests.daemon.tamper import change_only


def make_journal(path, rounds: int = 12) -> None:
    with Journal.open(path) as j:
        for r in range(1, rounds + 1):
            rid = f"T01-{r:06d}"
            j.append_many([("round.opened", {"table": "T01"}, rid),
                           ("bet.placed", {"spot": 3, "ante_cents": 500, "progressive_cents": 100}, rid)])
            j.append("hand.dealt", {"spot": 3, "cards": [51, 47, 43, 39, 35], "tag": f"t{r:04d}"}, rid)
            j.append("round.settled", {"spots": [{"spot": 3, "net_cents": 1000}],
                                       "pool": {"before_cents": 1_000_000, "after_cents": 1_000_025}}, rid)
            if r % 5 == 0:
                j.checkpoint({"rounds": r})


def test_verify_a_good_journal(tmp_path, capsys):
    path = tmp_path / "journal.db"
    make_journal(path)
    assert main(["audit", "verify", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "50 records, chain intact from record 1 to 50" in out and "head hash " in out


def test_verify_a_tampered_journal_names_the_record(tmp_path, capsys):
    path = tmp_path / "journal.db"
    make_journal(path)
    with Journal.open(path, readonly=True, verify=False) as j:
        seq = next(r.seq for r in j.records_after(0) if r.payload.get("tag") == "t0007")
    change_only(path, seq, lambda p: {**p, "tag": "t0008"})  # round 7's hand record, its hash left as it was
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"BROKEN at record {seq}: contents do not match its hash" in out
    assert main(["audit", "verify", "--journal", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["first_broken_seq"], report["head_seq"]) == (False, seq, seq - 1)


def test_verify_finds_the_journal_through_the_config(tmp_path, capsys):
    (tmp_path / "tabled.toml").write_text(
        '[table]\nid = "T01"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 50000\n'
        '[journal]\npath = "state/j.db"\n')
    make_journal(tmp_path / "state" / "j.db", rounds=2)
    assert main(["audit", "verify", "--config", str(tmp_path / "tabled.toml")]) == 0
    assert "8 records, chain intact" in capsys.readouterr().out


def test_verify_reports_unreadable_input_in_one_line(tmp_path, capsys):
    assert main(["audit", "verify", "--journal", str(tmp_path / "none.db")]) == 2
    assert capsys.readouterr().err.strip() == f"tabled audit: error: {tmp_path / 'none.db'}: no journal there"
    bad = tmp_path / "bad.toml"
    bad.write_text("[table]\nspots = 9\n")
    assert main(["audit", "verify", "--config", str(bad)]) == 2
    assert "table.id: is missing" in capsys.readouterr().err


def test_recall_shows_the_last_ten_rounds_in_full(tmp_path, capsys):
    path = tmp_path / "journal.db"
    make_journal(path)
    assert main(["recall", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    shown = [line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith("round ")]
    assert shown == [f"T01-{r:06d}" for r in range(3, 13)]  # the last 10, oldest first
    assert "cards=As Ks Qs Js Ts" in out                    # card indexes shown as cards
    assert "ante_cents=$5.00" in out and "before_cents=$10,000.00" in out and "after_cents=$10,000.25" in out


def test_recall_one_round_as_json(tmp_path, capsys):
    path = tmp_path / "journal.db"
    make_journal(path)
    assert main(["recall", "--journal", str(path), "--round", "T01-000004", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    data = json.loads(line)
    assert data["round_id"] == "T01-000004"
    assert [r["kind"] for r in data["records"]] == ["round.opened", "bet.placed", "hand.dealt", "round.settled"]
    assert data["records"][2]["payload"]["cards"] == [51, 47, 43, 39, 35]


@pytest.mark.parametrize("argv, message", [
    (["--round", "T01-999999"], "no round 'T01-999999'"),
    (["--last", "0"], "argument --last: must be an integer of at least 1, got 0"),
])
def test_recall_errors_are_one_line(tmp_path, capsys, argv, message):
    path = tmp_path / "journal.db"
    make_journal(path, rounds=1)
    assert main(["recall", "--journal", str(path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_recall_of_an_empty_journal(tmp_path, capsys):
    Journal.open(tmp_path / "j.db").close()
    assert main(["recall", "--journal", str(tmp_path / "j.db")]) == 0
    assert "no rounds yet" in capsys.readouterr().out


def test_verify_names_a_round_settled_twice_in_an_intact_chain(tmp_path, capsys):
    """Two controllers on one journal (each its own connection, appending in turn) both settle the
    round they recovered: every record chains, but the round is settled twice."""
    path = tmp_path / "journal.db"
    make_journal(path, rounds=3)
    first, second = Journal.open(path), Journal.open(path)
    try:
        for j in (first, second):
            j.append("panel", {"action": "settle", "key": "dealer"}, "T01-000004")
            j.append("round.settled", {"spots": [{"spot": 3, "net_cents": 1000}]}, "T01-000004")
        seqs = [r.seq for r in first.records_for_round("T01-000004") if r.kind == "round.settled"]
    finally:
        first.close()
        second.close()
    assert main(["audit", "verify", "--journal", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "chain intact from record 1 to 16" in out[0]
    assert out[-1] == (f"journal {path}: round T01-000004 SETTLED 2 TIMES (records {seqs[0]}, {seqs[1]}): "
                       "a round is settled once")
    assert main(["audit", "verify", "--journal", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["chain_ok"], report["settled_twice"]) == (False, True, {"T01-000004": seqs})


def index_pages(path, index: str = "records_round") -> list[int]:
    con = sqlite3.connect(path)
    try:
        return [n for (n,) in con.execute("SELECT pageno FROM dbstat WHERE name = ?", (index,))]
    finally:
        con.close()


def sqlite_check(path) -> list[str]:
    """SQLite's own verdict, asked independently of tabled."""
    con = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return [line for (text,) in con.execute("PRAGMA integrity_check") for line in text.splitlines()
                if line != "*** in database main ***"]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    finally:
        con.close()


def test_verify_reports_a_damaged_index_that_sqlite_finds(tmp_path, capsys):
    """Bit flips in the round index leave every record (and so the chain) intact, but SQLite's own
    check fails: each of its findings is a line of the audit, never a traceback."""
    good = tmp_path / "good.db"
    make_journal(good, rounds=300)
    page_size = 4096
    pages = index_pages(good)
    assert len(pages) > 3
    rng = random.Random(2026)
    damaged_runs = 0
    for flip in range(30):
        path = tmp_path / f"flip{flip}.db"
        data = bytearray(good.read_bytes())
        at = (rng.choice(pages) - 1) * page_size + rng.randrange(page_size)
        data[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        verdict = sqlite_check(path)
        status = main(["audit", "verify", "--journal", str(path)])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.out + captured.err
        if verdict == ["ok"]:
            assert status == 0, captured.out
            continue
        damaged_runs += 1
        assert status in (1, 2), f"flip {flip}: {verdict} but audit said {captured.out}"
        if status == 1:
            found = [ln for ln in captured.out.splitlines() if "DAMAGED FILE (SQLite's integrity check)" in ln]
            assert [ln.split("check): ", 1)[1] for ln in found] == verdict
        else:
            assert len(captured.err.strip().splitlines()) == 1 and "damaged" in captured.err
    assert damaged_runs >= 10  # most flips in an index are damage SQLite sees


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.99])
def test_verify_of_a_truncated_file_is_one_line_naming_the_damage(tmp_path, capsys, keep):
    path = tmp_path / "journal.db"
    make_journal(path, rounds=300)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(int(size * keep) // 4096 * 4096)
    status = main(["audit", "verify", "--journal", str(path)])
    captured = capsys.readouterr()
    lines = (captured.out + captured.err).strip().splitlines()
    assert status != 0 and "Traceback" not in captured.out + captured.err
    assert any("damaged" in ln.lower() for ln in lines), lines
    assert not any("missing" in ln for ln in lines), lines

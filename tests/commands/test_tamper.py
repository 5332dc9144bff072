"""The tamper table (docs/verification.md): each way someone who can write the journal file may
change it, and the check that finds it and names the record. A table plays three rounds, each one
commit sealed with its records (records 1 to 18; seals at 6, 12 and 18) and ships them to the
central PostgreSQL; then the file is tampered with, and `tabled audit verify --public-key` or
`tabled audit compare` must exit 1 and name the record. The other check is run too: what it says
is part of the table."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from tabled.cli import main
from tabled.daemon import shipping
from tabled.journal.store import Journal, canonical_payload
from tests.daemon import tamper
from tests.daemon.test_seals import new_key

pytestmark = pytest.mark.postgres
INSERT = ("INSERT INTO journal_records (table_id, seq, time_us, round_id, kind, payload, prev_hash, hash) "
          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")


def ninety(payload: dict) -> dict:
    return {**payload, "cents": 9000}  # a $50 bet made $90


def play(journal: Journal, rounds: int) -> None:
    """Rounds of wagers, each round one commit: five records and their seal."""
    for n in range(rounds):
        rid = f"R{n}"
        journal.append_many([("round.started", {"round_no": n}, rid),
                             *[("wager", {"spot": spot, "area": "bet", "cents": 5000}, rid) for spot in range(1, 4)],
                             ("round.finished", {"round_no": n}, rid)])


def sign_in_appended(path: Path) -> None:
    """An inspector's sign-in with the right PIN, appended after the last seal and hashed to follow."""
    records = tamper.rows(path)
    records.append({**records[-1], "round_id": None, "kind": "staff.sign_in",
                    "payload_text": canonical_payload({"badge": "I-0001", "role": "inspector", "pin_ok": True})})
    tamper.write_rows(path, tamper.rehash(records, len(records) - 1))


def seals_stripped(path: Path) -> None:
    """Every seal taken out, a wager made $90, the rest numbered and hashed again."""
    records = [r for r in tamper.rows(path) if r["kind"] not in ("journal.seal", "journal.key")]
    records[2]["payload_text"] = canonical_payload(ninety(json.loads(records[2]["payload_text"])))
    tamper.write_rows(path, tamper.rehash(records))


# (case, tampering(journal, older copy, other table's journal), the check that finds it, what it names)
CASES: list[tuple[str, Callable[[Path, Path, Path], None], str, str]] = [
    ("change a payload, re-hash nothing", lambda j, o, x: tamper.change_only(j, 9, ninety),
     "verify", "BROKEN at record 9: contents do not match its hash"),
    ("change a payload, re-hash everything after it", lambda j, o, x: tamper.rewrite(j, 9, ninety),
     "verify", "record 9 REWRITTEN"),
    ("delete a record (renumber and re-hash the rest)", lambda j, o, x: tamper.delete(j, 9),
     "verify", "record 9 REWRITTEN"),
    ("reorder two records (re-hashed)", lambda j, o, x: tamper.swap(j, 8),
     "verify", "record 8 REWRITTEN"),
    ("truncate the tail at a seal", lambda j, o, x: tamper.truncate(j, 12),
     "compare", "PART at record 13: records 13 to 18 are on the central copy but not in this journal"),
    ("swap in an older copy of the file", lambda j, o, x: tamper.swap_in(j, o),
     "compare", "PART at record 7: records 7 to 18 are on the central copy but not in this journal"),
    ("append another table's sealed round (re-hashed to follow)", lambda j, o, x: tamper.append_from(j, x, 6),
     "verify", "records 19 to 24 sealed by key"),
    ("append another table's round without its seal (re-hashed)", lambda j, o, x: tamper.append_from(j, x, 5),
     "verify", "records from 19 to 23 are NOT SEALED"),
    ("append an inspector's sign-in after the last seal (re-hashed)", lambda j, o, x: sign_in_appended(j),
     "verify", "records from 19 to 19 are NOT SEALED"),
    ("take out every seal, change a wager, re-hash", lambda j, o, x: seals_stripped(j),
     "verify", "NOT SEALED: no record is signed with the table's key"),
]


@pytest.fixture
def table(tmp_path, pg_dsn):
    """T01's sealed journal (and an older copy of it), shipped; another table's sealed journal."""
    key, public = new_key(tmp_path, "t01")
    other_key, _ = new_key(tmp_path, "t02")
    journal, older, other = tmp_path / "t01.db", tmp_path / "t01-older.db", tmp_path / "t02.db"
    with Journal.open(journal, seal_with=key) as j:
        play(j, 1)
    shutil.copyfile(journal, older)
    with Journal.open(journal, seal_with=key) as j:
        play(j, 2)
    with Journal.open(other, seal_with=other_key) as j:
        play(j, 2)
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        shipping.migrate(admin)
        shipping.register_table(admin, "T01", "tabled_t01_" + pg_dsn.rsplit("_", 1)[-1])
        admin.execute("BEGIN")
        admin.cursor().executemany(INSERT, [("T01", r["seq"], r["time_us"], r["round_id"], r["kind"],
                                             r["payload_text"], r["prev_hash"], r["hash"])
                                            for r in tamper.rows(journal)])
        admin.execute("COMMIT")
    return journal, older, other, public, pg_dsn


def run_check(check: str, journal: Path, public: Path, central: str) -> int:
    if check == "verify":
        return main(["audit", "verify", "--journal", str(journal), "--public-key", str(public)])
    return main(["audit", "compare", "--journal", str(journal), "--central", central, "--table", "T01"])


def test_the_untouched_journal_passes_both_checks(table, capsys):
    journal, _, _, public, central = table
    assert run_check("verify", journal, public, central) == 0
    assert run_check("compare", journal, public, central) == 0
    out = capsys.readouterr().out
    assert "chain intact from record 1 to 18" in out and "agree on records 1 to 18" in out


@pytest.mark.parametrize("case, tampering, check, named", CASES, ids=[c[0] for c in CASES])
def test_each_tampering_is_detected_and_named_by_record_number(table, capsys, case, tampering, check, named):
    journal, older, other, public, central = table
    tampering(journal, older, other)
    assert run_check(check, journal, public, central) == 1, case
    assert named in capsys.readouterr().out


def test_the_table_of_tampering_is_the_documented_one():
    """docs/verification.md lists every case of this file, with the check that names it."""
    doc = (Path(__file__).parents[2] / "docs" / "verification.md").read_text()
    for case, _, check, _ in CASES:
        assert f"| {case} | `audit {check}` |" in doc, case


def test_the_primitives_give_back_what_they_read(tmp_path):
    key, _ = new_key(tmp_path, "t01")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as j:
        play(j, 1)
    before = tamper.rows(path)
    tamper.write_rows(path, before)
    assert tamper.rows(path) == before and tamper.rehash(before) == before
    with Journal.open(path, readonly=True) as j:
        assert j.verify().ok and j.head == (before[-1]["seq"], before[-1]["hash"])

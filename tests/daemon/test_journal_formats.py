"""The journal's on-disk formats: a new journal is format 2 (payloads deflated with a preset
dictionary, hashes as 32 bytes, no stored prev_hash), a journal keeps the format it was created
with, and the journals written before format 2 (the recorded fixtures) still verify, replay and
take new records. The records -- and so their hashes, the seals and the central copy -- are the
same in both."""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.journal.store import (
    FORMAT,
    GENESIS_HASH,
    ZDICT_FILE,
    Journal,
    JournalError,
    canonical_payload,
    deflate_payload,
    inflate_payload,
)
from tests.daemon.tamper import rows, write_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "journals"


def recorded(tmp_path: Path, name: str) -> Path:
    """A copy of a recorded journal (format 1, written before format 2 existed)."""
    path = tmp_path / f"{name}.db"
    with gzip.open(FIXTURES / name / "journal.db.gz", "rb") as src, open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return path


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as con:
        return con.execute("PRAGMA user_version").fetchone()[0]


def test_a_new_journal_is_format_2_and_holds_its_dictionary(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        assert j.format == FORMAT == 2
        rec = j.append("bet.placed", {"spot": 3, "ante_cents": 500}, round_id="R1")
    assert user_version(path) == 2
    with sqlite3.connect(path) as con:
        (stored, digest) = con.execute("SELECT payload, hash FROM records WHERE seq = 1").fetchone()
        (zdict,) = con.execute("SELECT value FROM journal_meta WHERE name = 'zdict'").fetchone()
        columns = [c[1] for c in con.execute("PRAGMA table_info(records)")]
    assert "prev_hash" not in columns
    assert digest == bytes.fromhex(rec.hash) and len(digest) == 32
    assert zdict == ZDICT_FILE.read_bytes()
    assert inflate_payload(stored, zdict) == canonical_payload(rec.payload)


@pytest.mark.parametrize("name", ["scripted", "simulated"])
def test_a_recorded_format_1_journal_verifies_and_takes_records_in_format_1(tmp_path, name):
    path = recorded(tmp_path, name)
    with Journal.open(path) as j:
        assert j.format == 1 and j.recovery.ok
        whole = j.verify()
        assert whole.ok and whole.count == j.count()
        head_seq, head_hash = j.head
        rec = j.append("operator.note", {"text": "after the upgrade"})
        assert (rec.seq, rec.prev_hash) == (head_seq + 1, head_hash)
    assert user_version(path) == 0
    with Journal.open(path) as j:  # reopened: still format 1, the chain goes on
        assert j.format == 1 and j.verify().ok and j.record(rec.seq) == rec
        assert rows(path)[-1]["prev_hash"] == head_hash


def test_the_same_records_in_format_2_have_the_same_hashes_in_under_8_kb_a_round(tmp_path):
    """The recorded simulated session, its records written as format 2: every record and hash the
    same, the chain intact, the raw payload text the same (what shipping sends), and the file
    under 8 KB a round (the target) and under a third of format 1's 21.7 KB. This session was
    recorded with older input kinds (a `wager` record per chip) that the dictionary does not hold:
    a session of today's kinds takes about 4 KB a round (benchmarks/bench_journal.py)."""
    old = recorded(tmp_path, "simulated")
    new = tmp_path / "format2.db"
    Journal.open(new).close()
    records = rows(old)
    write_rows(new, records)
    with Journal.open(old, readonly=True) as a, Journal.open(new, readonly=True) as b:
        assert b.format == 2 and b.verify() == a.verify()
        assert list(b.records_after(0)) == list(a.records_after(0))
        assert b.raw_records_between(1, 400) == a.raw_records_between(1, 400)
        rounds = len(a.recent_round_ids(100_000))
    with sqlite3.connect(new) as con:
        con.execute("VACUUM")  # the rows as if appended one by one, without the freed pages of the copy
    per_round = new.stat().st_size / rounds
    assert per_round < 8_000, per_round
    assert new.stat().st_size * 3 < old.stat().st_size


def test_a_record_whose_predecessor_is_gone_links_to_nothing(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        first = j.append("a.b", {"i": 1})
        j.append_many([("a.b", {"i": i}, None) for i in range(2, 6)])
    write_rows(path, [r for r in rows(path) if r["seq"] != 3])
    with Journal.open(path, verify=False) as j:
        assert j.record(1).prev_hash == GENESIS_HASH == first.prev_hash
        assert j.record(4).prev_hash == ""  # not the genesis hash: it follows a record that is not there
        assert j.verify().first_broken_seq == 3


@pytest.mark.parametrize("column, stored", [
    ("payload", b"\xff\xfe not deflate".decode("latin-1")),   # text where the deflated bytes were
    ("payload", bytes([0xC3, 0x28, 0xA0, 0xA1])),                # bytes that do not inflate
    ("hash", "ab" * 32),                                          # the hash written back as hex text
], ids=["payload-as-text", "payload-garbled", "hash-as-hex-text"])
def test_a_stored_field_overwritten_with_anything_is_a_broken_record_named_by_number(tmp_path, column, stored):
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        j.append_many([("a.b", {"i": i}, None) for i in range(1, 6)])
    with sqlite3.connect(path) as con:
        if isinstance(stored, str) and column == "payload":  # not UTF-8 as the text SQLite returns
            con.execute("UPDATE records SET payload = CAST(? AS TEXT) WHERE seq = 3", (stored.encode("latin-1"),))
        else:
            con.execute(f"UPDATE records SET {column} = ? WHERE seq = 3", (stored,))
    with Journal.open(path, verify=False) as j:
        result = j.verify()
        assert not result.ok and result.first_broken_seq == 3
        if column == "payload":
            with pytest.raises(JournalError, match="record 3: "):
                j.records_between(1, 5)


def test_a_journal_format_this_tabled_does_not_know_is_refused(tmp_path):
    path = tmp_path / "journal.db"
    Journal.open(path).close()
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA user_version = 7")
    with pytest.raises(JournalError, match="journal format 7 is not one this tabled reads"):
        Journal.open(path)
    with pytest.raises(JournalError, match="journal format must be one of 1, 2, got 3"):
        Journal.open(tmp_path / "other.db", format=3)


def test_another_sqlite_database_is_not_made_a_journal(tmp_path):
    path = tmp_path / "pool.db"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE ledger (n INTEGER)")
        con.execute("PRAGMA user_version = 3")
    with pytest.raises(JournalError, match="not a journal .an SQLite database with other tables: ledger."):
        Journal.open(path)
    assert user_version(path) == 3


def test_a_format_2_journal_without_its_dictionary_is_damaged(tmp_path):
    path = tmp_path / "journal.db"
    Journal.open(path).close()
    with sqlite3.connect(path) as con:
        con.execute("DELETE FROM journal_meta")
    with pytest.raises(JournalError, match="without its payload dictionary: the file is damaged"):
        Journal.open(path, readonly=True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-10**15, max_value=10**15) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=12), json_values, max_size=8))
def test_any_payload_text_comes_back_exactly(payload):
    zdict = ZDICT_FILE.read_bytes()
    text = canonical_payload(payload)
    assert inflate_payload(deflate_payload(text, zdict), zdict) == text

"""The journal as the pit's view reads it (tabled/daemon/pit.py): only what is new since the last
read, its chain checked from the last record verified (never the whole chain again), a record
changed after it was verified named; and when each standing fault was raised, from its record."""

from __future__ import annotations


from tabled.journal.store import Journal
from tabled.daemon.pit import PitReader, standing_since
from tests.daemon.tamper import change_only, rewrite


def approvals(journal: Journal, n: int, key: str = "supervisor") -> None:
    journal.append_many([("panel.approved", {"action": "open_table", "key": key, "rule": "16.8"}, None)
                         for _ in range(n)])


def test_each_read_checks_only_the_records_added_since_the_last(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock) as journal:
        approvals(journal, 40)
        journal.checkpoint({"faults": {}})
        reader = PitReader(path)
        first = reader.read()
        assert first == {"head_seq": 41, "head_hash": journal.head[1], "verified_seq": 41, "ok": True,
                         "problem": None}
        assert reader.checked == 41  # the whole chain, once
        approvals(journal, 5, key="inspector")
        again = reader.read()
        assert again["head_seq"] == again["verified_seq"] == 46 and again["ok"]
        assert reader.checked == 46  # the five new records only
        assert [d["key"] for d in reader.log.decisions][-5:] == ["inspector"] * 5
        reader.read()
        assert reader.checked == 46  # nothing new: nothing checked
        reader.close()


def test_a_record_changed_after_it_was_verified_is_named(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock) as journal:
        approvals(journal, 10)
    reader = PitReader(path)
    assert reader.read()["ok"]
    # the chain hashed again from record 4: intact in itself, but record 10 is not what was verified
    rewrite(path, 4, lambda p: {**p, "key": "inspector"})
    with Journal.open(path, clock, verify=False) as journal:
        approvals(journal, 1)
    seen = reader.read()
    assert not seen["ok"] and seen["problem"] == "record 10 changed after it was verified"
    assert seen["verified_seq"] == 10 and seen["head_seq"] == 11
    reader.close()


def test_a_broken_record_after_the_last_verified_is_named(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock) as journal:
        approvals(journal, 3)
        reader = PitReader(path)
        reader.read()
        approvals(journal, 3)
    change_only(path, 5, lambda p: {k: "inspector" if v == "supervisor" else v for k, v in p.items()})  # hash left
    seen = reader.read()
    assert not seen["ok"] and seen["problem"] == "record 5: contents do not match its hash (record altered)"
    assert seen["verified_seq"] == 4
    reader.close()


def test_a_standing_fault_is_dated_by_the_note_that_raised_it(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock) as journal:
        journal.append("fault.raised", {"equipment": "meter", "reason": "dark", "rule": "14.13"})
        clock.advance(60)
        journal.append("fault.raised", {"equipment": "betspots", "reason": "cable", "rule": "14.13"})
        clock.advance(60)
        journal.append("shuffler.door", {"open": True})  # the input: its note is what the pit reads
        journal.append("device.fault", {"fault": "door", "what": "door open", "rule": "15.2"})
        clock.advance(3600)
        approvals(journal, 3)
        faults = [{"id": "equipment:meter"}, {"id": "equipment:betspots"}, {"id": "door"}, {"id": "past_posting:3"}]
        since = standing_since(journal, faults)
    start = int(1_700_000_000 * 1000)
    assert since == {"equipment:meter": start, "equipment:betspots": start + 60_000, "door": start + 120_000}

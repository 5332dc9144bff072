"""The journal: durable, append-only, hash-chained (write-ahead, durable), in both on-disk formats.

The tests that tamper with the file run on format 2 (what a new journal is) and on format 1 (the
journals written before it, still read, verified and appended to): ``fmt``.
"""

from __future__ import annotations

import sqlite3
import time

import pytest

from tabled.journal.store import (
    GENESIS_HASH,
    Journal,
    JournalCorrupt,
    JournalError,
    canonical_payload,
    record_hash,
)
from tests.daemon.tamper import change_only, rows, write_rows


@pytest.fixture(params=[2, 1], ids=["format2", "format1"])
def fmt(request) -> int:
    return request.param


def test_append_is_durable_and_chained_across_reopen(tmp_path, clock, fmt):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock=clock, format=fmt) as j:
        a = j.append("round.opened", {"table": "T01"}, round_id="R1")
        clock.advance(0.25)
        b = j.append("bet.placed", {"spot": 3, "ante_cents": 500}, round_id="R1")
    assert (a.seq, b.seq) == (1, 2)
    assert a.prev_hash == GENESIS_HASH and b.prev_hash == a.hash
    assert b.time_us - a.time_us == 250_000
    assert a.hash == record_hash(1, a.time_us, "R1", "round.opened", canonical_payload(a.payload), GENESIS_HASH)

    with Journal.open(path, clock=clock) as j:
        assert j.format == fmt and j.head == (2, b.hash)
        assert list(j.records_after(0)) == [a, b]
        assert [j.record(1), j.record(2)] == [a, b] and j.records_for_round("R1") == [a, b]
        c = j.append("bet.placed", {"spot": 4, "ante_cents": 1000}, round_id="R1")
        assert c.seq == 3 and c.prev_hash == b.hash
        assert j.verify().ok and j.verify().count == 3


def test_settings_are_wal_and_synchronous_full(tmp_path, connections):
    path = tmp_path / "journal.db"
    with Journal.open(path):
        [conn] = connections
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_group_commit_writes_many_records_in_one_transaction(tmp_path, clock, connections):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock=clock) as j:
        commits = []
        [conn] = connections
        conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
        recs = j.append_many([("bet.placed", {"spot": s, "ante_cents": 500}, "R1") for s in range(1, 8)])
        assert len(commits) == 1
        assert [r.seq for r in recs] == list(range(1, 8))
        assert all(r.time_us == recs[0].time_us for r in recs)  # one commit, one time
        assert all(recs[i].prev_hash == recs[i - 1].hash for i in range(1, 7))
        assert j.verify().ok


def test_a_failed_group_writes_nothing(tmp_path):
    with Journal.open(tmp_path / "j.db") as j:
        j.append("a.b", {"x": 1})
        with pytest.raises(JournalError, match="floats are not journalled"):
            j.append_many([("bet.placed", {"spot": 1}, "R1"), ("bet.placed", {"amount": 1.5}, "R1")])
        assert j.count() == 1 and j.verify().ok


@pytest.mark.parametrize("kind, payload, round_id, message", [
    ("Bad Kind", {}, None, "record kind must be"),
    ("checkpoint", {}, None, "written by Journal.checkpoint"),
    ("a.b", [1, 2], None, "payload must be a JSON object"),
    ("a.b", {"x": {1, 2}}, None, r"payload.x: set is not JSON"),
    ("a.b", {"x": 0.1}, None, "floats are not journalled"),
    ("a.b", {1: "x"}, None, "keys must be strings"),
    ("a.b", {}, 42, "round_id must be a non-empty string"),
])
def test_bad_records_are_refused_with_a_clear_error(tmp_path, kind, payload, round_id, message):
    with Journal.open(tmp_path / "j.db") as j, pytest.raises(JournalError, match=message):
        j.append(kind, payload, round_id=round_id)
    with pytest.raises(JournalError, match=message):  # and before any write is tried
        Journal.as_written([(kind, payload, round_id)])


def test_a_write_carries_the_time_its_caller_read_before(tmp_path, clock):
    """The table folds a batch with the time its commit will carry (stamp), and the records as a
    reader reads them back (as_written), then writes them with that time."""
    with Journal.open(tmp_path / "journal.db", clock=clock) as j:
        stamped = j.stamp()
        assert stamped == 1_700_000_000_000_000
        clock.advance(3)
        items = Journal.as_written([("shoe.card", {"cards": ("As", "Kd")}, "R1"), ("tick", {})])
        assert items == [("shoe.card", {"cards": ["As", "Kd"]}, "R1"), ("tick", {}, None)]  # a tuple reads back a list
        assert j.count() == 0
        written = j.append_many(items, time_us=stamped)
        assert [r.time_us for r in written] == [stamped] * 2 and list(j.records_after(0)) == written
        assert [(r.kind, r.payload, r.round_id) for r in written] == items
        assert j.append("tick", {}).time_us == stamped + 3_000_000  # without: the clock's reading
        assert j.verify().ok


@pytest.mark.parametrize("time_us", [-1, 2**63, 1.5, "now", True])
def test_a_time_that_is_not_whole_microseconds_is_refused(tmp_path, time_us):
    with Journal.open(tmp_path / "j.db") as j:
        with pytest.raises(JournalError, match=r"^a record's time must be a whole number of microseconds since "
                                               r"1970, got "):
            j.append_many([("tick", {})], time_us=time_us)
        assert j.count() == 0


def test_checkpoint_seals_the_chain_and_restart_replays_only_what_follows(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock=clock) as j:
        j.append_many([("bet.placed", {"spot": s}, "R1") for s in (1, 2, 3)])
        cp = j.checkpoint({"round": "R1", "faults": ["meter"]})
        after = j.append_many([("fault.cleared", {"device": "meter"}, None), ("round.opened", {}, "R2")])
    assert cp.seq == 4 and cp.kind == "checkpoint"
    assert cp.payload["chain_hash"] == cp.prev_hash and cp.payload["sealed_through"] == 3
    with Journal.open(path, clock=clock) as j:
        assert j.recovery.ok and j.recovery.count == 3  # the checkpoint and the two after it
        last = j.last_checkpoint()
        assert last == cp and last.payload["snapshot"] == {"round": "R1", "faults": ["meter"]}
        assert list(j.records_after(last.seq)) == after


def test_recall_helpers_find_rounds(tmp_path):
    with Journal.open(tmp_path / "j.db") as j:
        for r in range(1, 13):
            j.append_many([("round.opened", {}, f"R{r}"), ("round.settled", {}, f"R{r}")])
            j.append("meter.shown", {"cents": 100 * r})  # records outside any round
        assert j.recent_round_ids(10) == [f"R{r}" for r in range(12, 2, -1)]
        assert [r.kind for r in j.records_for_round("R5")] == ["round.opened", "round.settled"]
        assert j.records_for_round("nope") == []


def _tamper(path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert data.count(old) == 1, "the test's marker must be unique in the file"
    path.write_bytes(data.replace(old, new))


def test_a_changed_payload_byte_is_named_by_record_number(tmp_path, clock):
    path = tmp_path / "journal.db"
    with Journal.open(path, clock=clock, format=1) as j:  # format 1 holds the payload as text
        for i in range(1, 51):
            j.append("bet.placed", {"spot": 1 + i % 7, "ante_cents": 500, "tag": f"m{i:04d}"}, round_id="R1")
    assert not (tmp_path / "journal.db-wal").exists()  # closed cleanly: everything is in the main file
    _tamper(path, b'"tag":"m0037"', b'"tag":"m0038"')   # one byte in record 37's payload
    with Journal.open(path, verify=False) as j:
        result = j.verify()
    assert not result.ok and result.first_broken_seq == 37
    assert "altered" in result.reason and result.count == 36 and result.head_seq == 36


def _bet_records(path, fmt: int, clock) -> None:
    with Journal.open(path, clock=clock, format=fmt) as j:
        for i in range(1, 51):
            j.append("bet.placed", {"spot": 1 + i % 7, "ante_cents": 500, "tag": f"m{i:04d}"}, round_id="R1")


def test_a_changed_payload_is_named_by_record_number_in_either_format(tmp_path, clock, fmt):
    path = tmp_path / "journal.db"
    _bet_records(path, fmt, clock)
    change_only(path, 37, lambda p: {**p, "ante_cents": 900})  # the hash left as it was
    with Journal.open(path, verify=False) as j:
        result = j.verify()
        assert j.record(37).payload["ante_cents"] == 900  # readers read it; verify names it
    assert (result.ok, result.first_broken_seq, result.count, result.head_seq) == (False, 37, 36, 36)
    assert "altered" in result.reason


@pytest.mark.parametrize("damage", ["bit flip", "garbage", "cut short", "text"])
def test_stored_payload_bytes_that_do_not_read_back_are_named_by_number(tmp_path, clock, damage):
    """Format 2 stores the payload deflated: a changed byte there is found like a changed payload."""
    path = tmp_path / "journal.db"
    _bet_records(path, 2, clock)
    with sqlite3.connect(path) as con:
        (stored,) = con.execute("SELECT payload FROM records WHERE seq = 37").fetchone()
        changed = {"bit flip": bytes([stored[0] ^ 0x10]) + stored[1:], "garbage": b"\xff\xfe\xfd",
                   "cut short": stored[:-3], "text": '{"spot":1}'}[damage]
        con.execute("UPDATE records SET payload = ? WHERE seq = 37", (changed,))
    with Journal.open(path, verify=False) as j:
        result = j.verify()
        assert (result.ok, result.first_broken_seq, result.head_seq) == (False, 37, 36)
        assert "altered" in result.reason
        if damage != "bit flip":  # a flipped bit may still inflate, to other text (then its hash differs)
            assert "does not read back" in result.reason
            with pytest.raises(JournalError, match="record 37: .*run `tabled audit verify`"):
                j.record(37)


def test_a_deleted_record_is_named(tmp_path, fmt):
    path = tmp_path / "journal.db"
    with Journal.open(path, format=fmt) as j:
        for i in range(10):
            j.append("a.b", {"i": i})
    write_rows(path, [r for r in rows(path) if r["seq"] != 6])
    with Journal.open(path, verify=False) as j:
        result = j.verify()
    assert (result.ok, result.first_broken_seq) == (False, 6)
    assert "missing" in result.reason


def test_restart_refuses_a_broken_tail_but_not_a_break_before_the_checkpoint(tmp_path, fmt):
    path = tmp_path / "journal.db"
    with Journal.open(path, format=fmt) as j:
        for i in range(5):
            j.append("a.b", {"n": f"early{i}"})
        j.checkpoint({"state": 1})
        for i in range(5):
            j.append("a.b", {"n": f"late{i}"})
    change_only(path, 3, lambda p: {"n": "early9"})   # record 3: before the checkpoint
    with Journal.open(path) as j:           # restart checks from the checkpoint only
        assert j.recovery.ok
        assert j.verify().first_broken_seq == 3  # audit verify checks it all
    change_only(path, 10, lambda p: {"n": "late7"})   # record 10: after the checkpoint
    with pytest.raises(JournalCorrupt, match="record 10") as info:
        Journal.open(path)
    assert info.value.result.first_broken_seq == 10


def test_not_a_journal_is_a_clear_error(tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("hello, this is not SQLite\n" * 100)
    with pytest.raises(JournalError, match="not a journal"):
        Journal.open(bogus)
    with pytest.raises(JournalError, match="no journal there"):
        Journal.open(tmp_path / "missing.db", readonly=True)


def test_readonly_reader_sees_a_live_writer(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as writer:
        writer.append("a.b", {"i": 1}, round_id="R1")
        with Journal.open(path, readonly=True) as reader:
            writer.append("a.b", {"i": 2}, round_id="R1")
            assert reader.count() == 2 and reader.verify().ok
            with pytest.raises(JournalError, match="read-only"):
                reader.append("a.b", {})


def _fill(path, rounds: int, per_round: int = 10, checkpoint_every: int = 100) -> None:
    with Journal.open(path) as j:
        for first in range(0, rounds, checkpoint_every):  # a checkpoint's worth of rounds per commit
            j.append_many([("event.x", {"spot": 1 + i % 7, "ante_cents": 500, "i": i}, f"R{r:06d}")
                           for r in range(first, first + checkpoint_every) for i in range(per_round)])
            j.checkpoint({"rounds": first + checkpoint_every, "faults": []})
        j.append_many([("event.x", {"i": i}, "tail") for i in range(50)])


@pytest.mark.slow
def test_restart_time_does_not_grow_with_the_journal(tmp_path):
    # Coarse on purpose (shared CI machines): a journal 20x longer must not restart 20x slower.
    small, large = tmp_path / "small.db", tmp_path / "large.db"
    _fill(small, 1_000)
    _fill(large, 20_000)

    def restart(path) -> float:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            with Journal.open(path) as j:
                assert j.recovery.ok and j.recovery.count == 51
                cp = j.last_checkpoint()
                replayed = sum(1 for _ in j.records_after(cp.seq))
            best = min(best, time.perf_counter() - t0)
        assert replayed == 50
        return best

    t_small, t_large = restart(small), restart(large)
    assert t_large < 0.5
    assert t_large < 5 * t_small + 0.02


def forge_checkpoint(path, snapshot: dict, seq: int) -> None:
    """Insert a checkpoint whose predecessor is not there, with the genesis hash as its previous
    hash and its own hash computed with the public function: a chain of its own."""
    payload = canonical_payload({"snapshot": snapshot, "chain_hash": GENESIS_HASH, "sealed_through": 0})
    time_us = 1_800_000_000_000_000
    digest = record_hash(seq, time_us, None, "checkpoint", payload, GENESIS_HASH)
    write_rows(path, rows(path) + [{"seq": seq, "time_us": time_us, "round_id": None, "kind": "checkpoint",
                                    "payload_text": payload, "prev_hash": GENESIS_HASH, "hash": digest}])


def test_a_checkpoint_whose_predecessor_is_missing_stops_the_start(tmp_path, fmt):
    path = tmp_path / "journal.db"
    with Journal.open(path, format=fmt) as j:
        for i in range(20):
            j.append("wager", {"spot": 1, "cents": 500, "i": i}, round_id="R1")
        j.checkpoint({"rounds_finished": 7, "faults": ["pool"]})
    forge_checkpoint(path, {"rounds_finished": 0, "faults": []}, seq=1000)
    with pytest.raises(JournalCorrupt, match="record 999 is missing") as info:
        Journal.open(path)
    assert info.value.result.first_broken_seq == 999
    with Journal.open(path, verify=False) as j:  # the whole chain names the same gap
        assert j.verify().first_broken_seq == 22


def test_a_checkpoint_must_seal_up_to_the_record_before_it(tmp_path, fmt):
    path = tmp_path / "journal.db"
    with Journal.open(path, format=fmt) as j:
        for i in range(5):
            j.append("wager", {"i": i})
        head_seq, head_hash = j.head
    payload = canonical_payload({"snapshot": {}, "chain_hash": head_hash, "sealed_through": 2})
    digest = record_hash(head_seq + 1, 1, None, "checkpoint", payload, head_hash)
    write_rows(path, rows(path) + [{"seq": head_seq + 1, "time_us": 1, "round_id": None, "kind": "checkpoint",
                                    "payload_text": payload, "prev_hash": head_hash, "hash": digest}])
    with pytest.raises(JournalCorrupt, match="record 6: checkpoint seals records to 2, not to the record before it"):
        Journal.open(path)


@pytest.mark.slow
def test_tabled_run_refuses_a_forged_checkpoint(tmp_path):
    """The forgery on the simulated table's journal: the daemon does not start, and says where."""
    import subprocess

    from tabled.daemon.assemble import make_core
    from tabled.daemon.config import load_config
    from tests.integration.test_restart_sim import ROOT, child_env, sim_config, tabled_argv

    config = sim_config(tmp_path)
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        j.append("panel", {"action": "open_table", "key": "supervisor"})
    forge_checkpoint(path, make_core(load_config(config), None).snapshot(), seq=50)
    done = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "1"), capture_output=True,
                          text=True, cwd=ROOT, env=child_env(), timeout=60)
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).strip().splitlines()
             if "journal.unsealed_simulation" not in line]  # the warning that this journal was begun unsealed
    assert len(lines) == 1 and "journal chain broken at record 49" in lines[0], lines
    with Journal.open(path, verify=False) as j:
        assert j.count() == 2  # nothing was played

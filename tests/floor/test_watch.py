"""What the floor folds from a table's central records: the round and its phase, faults and how
long they stood (14.13), progressive awards pending until paid (12.4) or held while the pool cannot
be reached (14.13), today's rounds and house win, and the chain and seals checked again, record by
record, with the table's public key."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.journal.store import GENESIS_HASH, Journal, record_hash
from tabled.journal.seals import SigningKey, public_keys
from tabled.floor.watch import Row, TableWatch
from tests.floor.casino import key_files

NOON = datetime(2026, 3, 2, 12, 0).timestamp()


def rows(path: Path, received: float = NOON) -> list[Row]:
    with Journal.open(path, readonly=True) as j:
        return [Row(r.seq, r.time_us, r.round_id, r.kind, text, r.prev_hash, r.hash, received)
                for r, text in j.raw_records_after(0, 10**9)]


def settled(collects: int, pays: int) -> dict:
    return {"house_collects_cents": collects, "house_pays_cents": pays, "net_cents": pays - collects}


def keyed(tmp_path: Path) -> tuple[SigningKey, dict]:
    private, public = key_files(tmp_path, "T01")
    return SigningKey.from_pem(private.read_bytes(), "T01.key"), public_keys([("T01.pub", public.read_bytes())])


def play(tmp_path: Path, key: SigningKey, clock=lambda: NOON) -> Path:
    """Two commits, each sealed with its records (records 6 and 11 are the seals)."""
    path = tmp_path / "journal.db"
    with Journal.open(path, clock, seal_with=key) as j:
        j.append_many([
            ("round.started", {}, "T01-000001"), ("round.dealt", {}, "T01-000001"),
            ("fault.raised", {"equipment": "meter", "reason": "link lost", "rule": "14.13"}, "T01-000001"),
            ("progressive.awarded", {"pool": "main", "result": {"awards": [{"spot": 4, "category": "four of a kind",
                                                                            "amount_cents": 50000}]}}, "T01-000001"),
            ("round.settled", settled(2000, 16000), "T01-000001")])
        j.append_many([
            ("round.finished", {"phase": "complete"}, "T01-000001"),
            ("round.started", {}, "T01-000002"),
            ("progressive.award_held", {"spots": [3], "since_ms": 0, "rule": "14.13"}, "T01-000002"),
            ("round.settled", settled(5000, 1000), "T01-000002")])
    return path


def test_state_faults_awards_and_todays_figures(tmp_path):
    key, publics = keyed(tmp_path)
    watch = TableWatch("T01", publics)
    alerts = [a for r in rows(play(tmp_path, key)) for a in watch.feed(r)]
    v = watch.view(NOON + 754)
    assert (v["round"], v["phase"]) == ("T01-000002", "settled")
    assert v["faults"] == [{"equipment": "meter", "reason": "link lost", "since_s": NOON, "stood_s": 754}]
    # the four of a kind was paid at round.finished (12.4); spot 3's award is held (14.13)
    assert [(p["round_id"], p["spot"], p["category"]) for p in v["pending"]] == [
        ("T01-000002", 3, "held: pool unreachable")]
    assert v["today"] == {"rounds": 2, "win_cents": -14000 + 4000, "win": "-$100.00"}
    assert v["verify"] == {"status": "ok", "text": "chain and 2 seals verify through record 11"}
    assert [a.kind for a in alerts] == ["fault", "progressive", "progressive"]
    assert alerts[1].text == "progressive hit in round T01-000001: spot 4 four of a kind $500.00"
    assert watch.view(NOON + 86_400)["today"]["rounds"] == 0  # a new day


def test_seals_by_a_key_the_floor_was_not_given_are_not_called_verified(tmp_path):
    key, _ = keyed(tmp_path)
    unchecked = TableWatch("T01", {})
    for r in rows(play(tmp_path, key)):
        unchecked.feed(r)
    assert unchecked.view(NOON)["verify"]["status"] == "unknown"
    assert "not checked (no public key)" in unchecked.view(NOON)["verify"]["text"]


@settings(max_examples=15, deadline=None)
@given(victim=st.sampled_from([1, 2, 3, 4, 5, 7, 8, 9, 10]), cents=st.integers(1, 10**6))  # 6, 11: seals
def test_any_record_rewritten_on_the_central_copy_is_flagged_by_number(tmp_path_factory, victim, cents):
    """Someone rewrites one record on the server and hashes every record after it again: the chain
    holds, the seal over the record does not."""
    from tabled.journal.store import canonical_payload, record_hash
    folder = tmp_path_factory.mktemp("w")
    key, publics = keyed(folder)
    original = rows(play(folder, key))
    changed, prev = [], None
    for r in original:
        payload = canonical_payload({"forged_cents": cents}) if r.seq == victim else r.payload
        link = prev or r.prev_hash
        digest = record_hash(r.seq, r.time_us, r.round_id, r.kind, payload, link)
        changed.append(Row(r.seq, r.time_us, r.round_id, r.kind, payload, link, digest, r.received_s))
        prev = digest
    watch = TableWatch("T01", publics)
    alerts = [a for r in changed for a in watch.feed(r)]
    assert watch.chain_broken_at is None
    assert watch.view(NOON)["verify"] == {"status": "failed", "text": f"seal check failed at record {victim}"}
    assert f"T01:seal:{victim}" in {a.id for a in alerts}


def test_a_record_that_does_not_hash_breaks_the_chain_there(tmp_path):
    key, publics = keyed(tmp_path)
    original = rows(play(tmp_path, key))
    r = original[4]
    original[4] = Row(r.seq, r.time_us, r.round_id, r.kind, r.payload.replace("2000", "9000"), r.prev_hash, r.hash,
                      r.received_s)
    watch = TableWatch("T01", publics)
    alerts = [a for row in original for a in watch.feed(row)]
    assert watch.view(NOON)["verify"] == {
        "status": "failed", "text": "chain broken: record 5 does not hash to the hash it carries"}
    assert [a.id for a in alerts if a.kind == "chain"] == ["T01:chain:5"]


def test_each_award_noted_paid_leaves_the_pending_list_in_a_journal_of_today(journals):
    """A journal recorded by today's table (tests/fixtures/journals/buttons), as today's daemon
    upgraded it: the fold notes each progressive payment the dealer confirms with SETTLE DONE
    (``progressive.award_paid``, 9.5), in the pool's order (12.2, 12.4). The floor takes each award
    off its pending list at its note, not at the round's end."""
    watch = TableWatch("SIM01", {})
    checked, order = 0, []
    for row in rows(journals["buttons"]):
        watch.feed(row)
        payload = json.loads(row.payload)
        if row.kind == "progressive.awarded":
            order = [a["spot"] for a in payload["result"]["awards"]]
            assert len(order) >= 2
        elif row.kind == "progressive.award_paid" and order:
            assert payload["spot"] == order.pop(0)
            checked += 1
            pending = [p["spot"] for p in watch.view(NOON)["pending"] if p["round_id"] == row.round_id]
            assert pending == order, f"after the note at record {row.seq}"
    assert checked >= 5  # the two rounds' awards, three and three
    assert watch.view(NOON)["pending"] == []


def test_the_floor_reads_no_input_a_refused_payment_leaves_the_award_waiting():
    watch = TableWatch("T01", {})
    head, seq = GENESIS_HASH, 0

    def feed(kind: str, payload: dict) -> None:
        nonlocal head, seq
        seq += 1
        text = json.dumps(payload)
        digest = record_hash(seq, int(NOON * 1e6), "T01-000001", kind, text, head)
        watch.feed(Row(seq, int(NOON * 1e6), "T01-000001", kind, text, head, digest, NOON))
        head = digest

    feed("progressive.awarded", {"pool": "main", "result": {"awards": [
        {"spot": 7, "category": "royal flush", "amount_cents": 10},
        {"spot": 3, "category": "flush", "amount_cents": 5}]}})
    feed("panel.button", {"button": "settle_done", "key": "supervisor"})  # an input: what it meant is the fold's
    feed("panel", {"action": "award_paid", "key": "dealer", "spot": 7})
    feed("panel.refused", {"action": "award_paid", "key": "supervisor", "rule": "9.5",
                           "reason": "no supervisor signed in"})
    assert [p["spot"] for p in watch.view(NOON)["pending"]] == [7, 3]
    feed("progressive.award_paid", {"spot": 7, "key": "dealer", "rule": "9.5"})
    assert [p["spot"] for p in watch.view(NOON)["pending"]] == [3]


def rehashed(original: list[Row]) -> list[Row]:
    """The rows numbered 1, 2, ... and linked and hashed again: an intact chain."""
    from tabled.journal.store import GENESIS_HASH, record_hash
    out, prev = [], GENESIS_HASH
    for seq, r in enumerate(original, 1):
        digest = record_hash(seq, r.time_us, r.round_id, r.kind, r.payload, prev)
        out.append(Row(seq, r.time_us, r.round_id, r.kind, r.payload, prev, digest, r.received_s))
        prev = digest
    return out


def test_records_a_seal_does_not_cover_are_flagged(tmp_path):
    """The first commit's seal taken out of the central copy, the chain hashed again: its five
    records are covered by no seal, and the floor names the first."""
    key, publics = keyed(tmp_path)
    changed = rehashed([r for r in rows(play(tmp_path, key)) if r.seq != 6])
    watch = TableWatch("T01", publics)
    alerts = [a for r in changed for a in watch.feed(r)]
    assert watch.chain_broken_at is None
    assert watch.view(NOON)["verify"]["status"] == "failed"
    assert "T01:seal:1" in {a.id for a in alerts}
    assert next(a for a in alerts if a.id == "T01:seal:1").text.startswith("record 1 is not sealed")


def test_an_unsealed_tail_is_flagged_once_the_table_says_its_journal_ends_there(tmp_path):
    """A record appended after the last seal with its hash computed: while the table's journal goes
    further it may be in transit; once the table reports its head there, it is not the table's."""
    from tabled.journal.store import canonical_payload, record_hash
    key, publics = keyed(tmp_path)
    original = rows(play(tmp_path, key))
    last = original[-1]
    payload = canonical_payload({"badge": "I-0001", "role": "inspector", "pin_ok": True})
    forged = Row(last.seq + 1, last.time_us, None, "staff.sign_in", payload, last.hash,
                 record_hash(last.seq + 1, last.time_us, None, "staff.sign_in", payload, last.hash), NOON)
    watch = TableWatch("T01", publics)
    assert [a for r in [*original, forged] for a in watch.feed(r)][-1].kind == "progressive"
    watch.reported_head = (13, NOON)  # the table is further on: the rest may be in transit
    assert watch.unsealed_tail() == []
    watch.reported_head = (11, NOON)  # reported before the record came: not where the copy ends
    assert watch.unsealed_tail() == []
    unkeyed = TableWatch("T01", {})  # a table whose key the floor was not given: its seals are not known
    for r in [*original, forged]:
        unkeyed.feed(r)
    unkeyed.reported_head = (12, NOON)
    assert unkeyed.unsealed_tail() == []
    watch.reported_head = (12, NOON)
    alerts = watch.unsealed_tail()
    assert [(a.id, a.kind) for a in alerts] == [("T01:seal:12", "seal")]
    assert alerts[0].text.startswith("records 12 to 12 are not sealed and the table's journal ends there")
    assert watch.unsealed_tail() == []  # raised once


def test_a_clock_error_condition_is_shown_and_alerted_until_it_ends_mississippi_8_4_5(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path, lambda: NOON) as j:
        j.append_many([("clock.offset", {"offset_ms": 1500, "against": "central", "bound_ms": 1000, "ok": False}, None),
                       ("clock.fault", {"standing": True, "reason": "the clock is +1500 ms off"}, None)])
    watch = TableWatch("T01", {})
    alerts = [a for r in rows(path) for a in watch.feed(r)]
    assert [(a.kind, a.text) for a in alerts] == [("fault", "clock error: the clock is +1500 ms off (Miss. 8-4.5)")]
    assert watch.view(NOON + 60)["faults"] == [{"equipment": "clock", "reason": "the clock is +1500 ms off",
                                                "since_s": NOON, "stood_s": 60}]
    with Journal.open(path, lambda: NOON + 60) as j:
        j.append("clock.fault", {"standing": False, "reason": "the clock is +1500 ms off", "offset_ms": 4})
    for r in rows(path)[2:]:
        watch.feed(r)
    assert watch.view(NOON + 120)["faults"] == []

"""`tabled recall` settles disputes (16.11): every settled round is shown as the table `tabled settle`
prints and round-trips through `tabled settle -`; the hash chain of what is shown is checked; records
are read by number from the journal's table, and a damaged file is one line."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tabled.cli import main
from tabled.table.effects import Note, PoolOp
from tabled.journal.store import Journal
from tests.daemon.tamper import change_only
from tests.table.harness import Harness

DEALER_QUALIFIES = "Ac Kc 4d 2s 2h"   # a pair of twos
DEALER_NO_HAND = "Ac Kc 8c 4s 2h"     # ace-king high: does not qualify (9.1)


class JournaledHarness(Harness):
    """The table harness, journaling as the daemon does: each input under the round open when it
    came, then the notes it caused."""

    def __init__(self, path: Path, **kw):
        self.journal = Journal.open(path, clock=lambda: self.t / 1000)
        super().__init__(**kw)

    def feed(self, kind, **payload):
        self.t += 10
        self.journal.append(kind, payload, self.core.round_id)
        effects = self.core.apply(kind, payload, self.t)
        self.log.extend(effects)
        notes = [(e.kind, e.payload, e.round_id) for e in effects if isinstance(e, Note)]
        if notes:
            self.journal.append_many(notes)
        out = list(effects)
        for e in effects:
            if isinstance(e, PoolOp):
                out += self.run_pool(e)
        return out

    def next_round(self):
        """The deck just used back from the shuffler (4.1.2)."""
        for deck in ("A", "B"):
            if self.core.round is None or self.core.round.deck != deck:
                self.feed("shuffler.shuffled", deck=deck)

    def pay_awards(self):
        for a in list(self.round.awards["awards"]):
            self.panel("award_paid", spot=a["spot"])


def record_session(path: Path) -> list[str]:
    """Rounds with progressive hits, a token, a concession, a misdeal, an invalidation and a dealer
    without a hand, each as the daemon journals it. Returns the round ids. (The daemon settles no
    14.10 bet: a bet that is not twice the ante stops the reveal (14.9) and bets lock at the reveal;
    14.10 rounds are round-tripped in tests/game/test_settlement_round_trip.py.)"""
    h = JournaledHarness(path)
    ids = []
    # 1. progressive hits: straight flush, full house, royal flush, flush (12.2, 12.4)
    ids.append(h.round.round_id)
    for n in (1, 2, 3, 4, 5):
        h.ante(n, 500, progressive=True)
    h.panel("no_more_bets")
    h.deal({1: "9h Th Jh Qh Kh", 2: "3c 3d 3s 8c 8d", 3: "As Ks Qs Js Ts", 4: "2d 5d 9d Jd Qd",
            5: "4c 6c 7d 8s Tc", "dealer": DEALER_QUALIFIES})
    for n in (1, 2, 3, 4):
        h.bet(n)
    h.panel("fold", spot=5)
    h.panel("reveal")
    h.panel("settle")
    h.pay_awards()
    h.next_round()
    # 2. a token on the ante (1.1), a bet corrected before the reveal (14.9.1), a concession (9.7)
    ids.append(h.round.round_id)
    h.ante(1, 500)
    h.ante(2, 1000, progressive=True)
    h.feed("wager", spot=3, area="ante", cents=0, token_cents=500)
    h.panel("no_more_bets")
    h.deal({1: "Qc Qd 9h 8h 3s", 2: "Jc Js Td 6h 3c", 3: "Ah Ad 7c 6s 5h", "dealer": "Kd Ks 4h 3d 2c"})
    h.feed("wager", spot=1, area="bet", cents=700)   # not twice the ante: corrected (14.9.1)
    h.bet(1)
    h.bet(2)
    h.bet(3)
    h.panel("reveal")
    h.panel("concede", spot=2)
    h.panel("settle")
    h.next_round()
    # 3. a misdeal (14.4): every wager returned, contributions reversed
    ids.append(h.round.round_id)
    h.ante(1, 500, progressive=True)
    h.ante(4, 1500)
    h.panel("no_more_bets")
    h.panel("misdeal")
    h.next_round()
    # 4. a supervisor invalidates the round, spot 2 forfeits (16.4, 16.5)
    ids.append(h.round.round_id)
    h.ante(1, 500, progressive=True)
    h.ante(2, 500, progressive=True)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 8d Th Qs Ah", "dealer": DEALER_QUALIFIES})
    h.panel("invalidate_round", key="supervisor", reason="fraud", forfeit=[2])
    h.next_round()
    # 5. the dealer has no hand (9.2): antes paid, bets void, a flush still wins its award (11.4)
    ids.append(h.round.round_id)
    h.ante(6, 500, progressive=True)
    h.ante(7, 2500)
    h.panel("no_more_bets")
    h.deal({6: "2d 5d 9d Jd Qd", 7: "3h 3s 6c 7s 8h", "dealer": DEALER_NO_HAND})
    h.bet(6)
    h.bet(7)
    h.panel("reveal")
    h.panel("settle")
    h.pay_awards()
    h.journal.close()
    return ids


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> tuple[Path, list[str]]:
    path = tmp_path_factory.mktemp("recall") / "journal.db"
    return path, record_session(path)


def settled_payloads(path: Path) -> dict[str, dict]:
    with Journal.open(path, readonly=True) as j:
        return {r.round_id: r.payload for r in j.records_after(0) if r.kind == "round.settled"}


def recall(capsys, *argv) -> tuple[int, str, str]:
    code = main(["recall", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def settle_stdin(capsys, monkeypatch, text: str) -> dict:
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["settle", "-", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_recorded_session_has_what_disputes_are_about(session):
    path, ids = session
    settled = settled_payloads(path)
    assert list(settled) == ids                                             # every round settled once
    voids = {s["void"] for s in settled.values()} - {None}
    assert voids == {"misdeal", "invalidated"}
    awards = [a["category"] for s in settled.values() for a in s["progressive"]["awards"]]
    assert {"royal flush", "straight flush", "full house", "flush"} <= set(awards)
    assert any(s["tokens_forfeited_cents"] for st in settled.values() for s in st["spots"])
    assert any(s["status"] == "conceded" for st in settled.values() for s in st["spots"])


def test_every_round_round_trips_through_settle_16_11(session, capsys, monkeypatch):
    path, ids = session
    settled = settled_payloads(path)
    for rid in ids:
        code, out, err = recall(capsys, "--journal", str(path), "--round", rid, "--round-json")
        assert code == 0 and not err
        assert json.loads(out)["round_id"] == rid
        assert settle_stdin(capsys, monkeypatch, out) == settled[rid], rid


def test_a_settled_round_is_shown_as_the_settle_table_16_11(session, capsys, monkeypatch, tmp_path):
    path, ids = session
    code, out, _ = recall(capsys, "--journal", str(path), "--round", ids[0])
    assert code == 0
    # the same table `tabled settle` prints for the round's facts
    _, round_json, _ = recall(capsys, "--journal", str(path), "--round", ids[0], "--round-json")
    (tmp_path / "r.json").write_text(round_json)
    assert main(["settle", str(tmp_path / "r.json")]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "\n".join("    " + line for line in table) in out
    assert "Progressive awards in payment order (12.2, 12.4):" in out
    assert "recomputed from its facts with profile nsw: the same" in out
    assert "round.settled            the settlement, below" in out
    assert max(len(line) for line in out.splitlines()) <= 200      # no multi-kilobyte line


def test_money_is_shown_one_way(session, capsys):
    path, _ = session
    code, out, _ = recall(capsys, "--journal", str(path), "--last", "5")
    assert code == 0
    assert "cents=$5.00" in out and "token_cents=$5.00" in out
    assert " cents=500" not in out and "cents=0 " not in out


def test_the_last_rounds_are_shown_oldest_first_with_the_chain_checked(session, capsys):
    path, ids = session
    code, out, _ = recall(capsys, "--journal", str(path), "--last", "3")
    assert code == 0
    shown = [line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith("round ")]
    assert shown[:2] == ids[-2:] and shown[2] > ids[-1]      # and the round opened after them
    assert out.count("settlement (record #") == 2
    assert out.splitlines()[-1].startswith("hash chain intact over every record shown")


def test_a_broken_chain_in_what_is_shown_is_a_warning_16_11(tmp_path, capsys):
    path = tmp_path / "journal.db"
    ids = record_session(path)
    with Journal.open(path, readonly=True, verify=False) as j:
        seq = next(r.seq for r in j.records_after(0) if r.payload.get("action") == "misdeal")  # the input
    change_only(path, seq, lambda p: {**p, "action": "mizdeal"})  # its hash left as it was
    code, out, err = recall(capsys, "--journal", str(path), "--round", ids[2])
    assert code == 1
    assert f"the hash chain is broken at record {seq}: contents do not match its hash" in err
    assert f"broken at record {seq}" in out.splitlines()[0]
    code, out, err = recall(capsys, "--journal", str(path), "--round", ids[2], "--json")
    assert code == 1 and json.loads(out)["chain_intact"] is False
    # a round whose records and neighbours are intact shows no warning
    code, out, err = recall(capsys, "--journal", str(path), "--round", ids[0])
    assert code == 0 and not err
    code, out, err = recall(capsys, "--journal", str(path), "--round", ids[0], "--round", ids[2], "--json")
    assert code == 1 and [json.loads(line)["chain_intact"] for line in out.splitlines()] == [True, False]


def test_records_are_read_from_the_table_not_the_round_index(tmp_path, capsys):
    # a bit flip in the round index makes it name round 1's records under round 2's id
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        for r in (1, 2):
            rid = f"T01-00000{r}"
            j.append_many([("round.started", {"round": r}, rid), ("wager", {"spot": r, "cents": 500 * r}, rid)])
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (root,) = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records_round'").fetchone()
        (size,) = c.execute("PRAGMA page_size").fetchone()
    data = bytearray(path.read_bytes())
    page = data[(root - 1) * size:root * size]
    assert page.count(b"T01-000001") == 2
    data[(root - 1) * size:root * size] = page.replace(b"T01-000001", b"T01-000002")
    path.write_bytes(bytes(data))
    code, out, err = recall(capsys, "--journal", str(path), "--round", "T01-000002", "--json")
    assert code == 0, err
    records = json.loads(out)["records"]
    assert [(r["seq"], r["payload"]) for r in records] == [(3, {"round": 2}), (4, {"spot": 2, "cents": 1000})]


def damaged_copies(tmp_path: Path):
    """The recorded session's file with one bit flipped at 150 places, cut short, overwritten in
    the middle, and replaced by text."""
    path = tmp_path / "journal.db"
    record_session(path)
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    good = path.read_bytes()
    rng = random.Random(20261130)
    for _ in range(150):
        data = bytearray(good)
        at = rng.randrange(100, len(data))  # the header's first 100 bytes make SQLite refuse the file at once
        data[at] ^= 1 << rng.randrange(8)
        yield f"bit flip at byte {at}", bytes(data)
    yield "truncated", good[:len(good) // 3]
    yield "overwritten", good[:len(good) // 2] + bytes(range(256)) * 16 + good[len(good) // 2 + 4096:]
    yield "not sqlite", b"this is not a journal\n" * 100


@pytest.mark.slow
def test_a_damaged_journal_file_is_one_line_never_a_traceback(tmp_path, capsys):
    path = tmp_path / "damaged.db"
    outcomes = set()
    for damage, data in damaged_copies(tmp_path):
        path.write_bytes(data)
        for argv in (["--last", "3"], ["--round", "T01-000002"], ["--round", "T01-000001", "--round-json"]):
            code = main(["recall", "--journal", str(path), *argv])  # raises on a traceback
            _, err = capsys.readouterr()
            outcomes.add(code)
            lines = err.splitlines()
            warnings = [line for line in lines if "the hash chain is broken at record" in line]
            if code == 2:    # cannot be read or settled: one line naming the file or record and the problem
                (error,) = [line for line in lines if line not in warnings]
                assert str(path) in error or "record" in error, (damage, err)
            elif code == 1:  # what could be read was read: the chain check names the altered record
                assert "the hash chain is broken at record" in err, (damage, err)
            else:
                assert code == 0 and not err, (damage, code, err)
    assert outcomes == {0, 1, 2}


def test_recall_errors_are_one_line(session, capsys):
    path, ids = session
    code, _, err = recall(capsys, "--journal", str(path), "--round-json")
    assert code == 2 and "--round-json needs exactly one --round ID" in err
    code, _, err = recall(capsys, "--journal", str(path), "--round", "NOPE", "--round-json")
    assert code == 2 and "no round 'NOPE'" in err


@pytest.mark.slow
def test_every_round_of_a_real_simulated_session_round_trips_16_11(tmp_path, capsys, monkeypatch):
    # `tabled run` on the simulated table (its own processes, real journal), then every round back
    from tests.integration.test_restart_sim import child_env, sim_config, tabled_argv
    config = sim_config(tmp_path / "sim")
    done = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "4", "--pace-ms", "0"),
                          capture_output=True, text=True, env=child_env(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    path = tmp_path / "sim" / "journal.db"
    settled = settled_payloads(path)
    assert len(settled) == 4
    for rid, payload in settled.items():
        code, out, err = recall(capsys, "--journal", str(path), "--round", rid, "--round-json")
        assert code == 0 and not err
        assert settle_stdin(capsys, monkeypatch, out) == payload, rid
    code, out, _ = recall(capsys, "--journal", str(path), "--last", "4")
    assert code == 0
    assert out.count("settlement (record #") == out.count("recomputed from its facts with profile nsw: the same") >= 3


def test_a_settlement_journaled_in_the_earlier_payment_order_is_recalled_as_the_same_money(tmp_path, capsys,
                                                                                            monkeypatch):
    # an earlier release listed every royal flush last; the money is the same, the order is 12.2's now
    path = tmp_path / "journal.db"
    record_session(path)
    rid = "T01-000001"
    payload = settled_payloads(path)[rid]
    today = [a["spot"] for a in payload["progressive"]["awards"]]
    assert today == [4, 1, 3, 2]                          # flush, straight flush, royal, full house
    by_spot = {a["spot"]: a for a in payload["progressive"]["awards"]}
    earlier = {**payload, "progressive": {**payload["progressive"], "awards": [by_spot[s] for s in (4, 2, 1, 3)]}}
    old = tmp_path / "earlier.db"
    with Journal.open(path, readonly=True) as j, Journal.open(old) as o:
        for r in j.records_after(0):
            if r.round_id == rid and r.kind != "checkpoint":
                o.append(r.kind, earlier if r.kind == "round.settled" else r.payload, r.round_id)
    code, out, _ = recall(capsys, "--journal", str(old), "--round", rid)
    assert code == 0
    assert ("the same amounts; the progressive awards are paid today in the order of spots 4, 1, 3, 2 "
            "(12.2, 12.4), journaled as 4, 2, 1, 3") in out
    code, out, _ = recall(capsys, "--journal", str(old), "--round", rid, "--round-json")
    assert settle_stdin(capsys, monkeypatch, out) == payload


def test_a_round_shows_the_install_before_it_and_the_clock_offset_last_measured_by_its_end(tmp_path, capsys):
    path = tmp_path / "journal.db"
    h = JournaledHarness(path)
    h.feed("clock.measured", offset_ms=-37, against="central", bound_ms=1000, ntp={"synchronized": "yes"})
    h.feed("software.installed", what="upgrade", result="installed", version="1.4.0", by="ops-lee",
           started="2026-12-03T07:00:00Z", ended="2026-12-03T07:02:10Z")
    first = h.round.round_id
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    h.feed("clock.measured", offset_ms=1400, against="central", bound_ms=1000, ntp={"synchronized": "yes"})
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    h.journal.close()
    code, out, _ = recall(capsys, "--journal", str(path), "--round", first)
    assert code == 0
    assert "  software: tabled 1.4.0 (upgrade installed by ops-lee, ended 2026-12-03T07:02:10Z; record #" in out
    (line,) = [x for x in out.splitlines() if x.startswith("  clock: ")]
    assert line.startswith("  clock: +1400 ms off the central database's clock at ") and line.endswith(
        "bound 1000 ms: BEYOND IT)")
    code, out, _ = recall(capsys, "--journal", str(path), "--round", first, "--json")
    assert json.loads(out)["clock_offset"]["offset_ms"] == 1400

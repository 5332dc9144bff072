"""Journals recorded by an earlier tabled replay to the same results (tests/fixtures/journals).

A journal written by the table must keep its meaning for as long as it is kept: the fixtures
hold sessions recorded with the simulated table (hundreds of rounds, folds and bets, dealer
non-qualifying voids, progressive hits up to a royal flush, a device fault and its clearing, a
shuffler jam, the pool out of reach (14.13), restarts and a kill -9), their pool databases, and
the results the recording code computed from them. Replayed by this code they must give:

- the same table state: the core's snapshot after the daemon's own replay (from the last
  checkpoint) and after a replay of every record from the first;
- the same settlement of every round, as the fold makes it again from the journaled inputs;
- the same pool: its ledger, hits, status, and that the ledger proves the meter and agrees with
  the journal;
- the same rounds in ``tabled recall --json``, compared on what a dispute turns on (which rounds,
  and each spot's outcome and amounts in each round's settlement), not on the layout of the
  output, which may change;

and a daemon restarted on a copy of a fixture delivers nothing and settles nothing again.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tabled.cli import main as tabled_main
from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.table.effects import Note
from tabled.journal.store import Journal
from tabled.daemon.controller import NOTES_VERSION, Table, is_input
from tabled.table.kinds import is_note

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "journals"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if (p / "journal.db.gz").exists())
SETTLEMENT_KINDS = ("round.settled", "round.void")
#: what moves money or ends a round: never written again for what the journal already holds
MONEY_KINDS = {"pool.contributed", "pool.reversed", "pool.awards", "round.settled", "round.void", "round.finished",
               "progressive.award_released"}
POOL_ACTIONS = ("status", "history", "ledger", "verify", "reconcile")


def _plain(value: Any) -> Any:
    """As JSON holds it (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def tabled(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = tabled_main(list(argv))
    assert code == 0, f"tabled {' '.join(argv)} exited {code}: {out.getvalue()[-2000:]}"
    return out.getvalue()


# -- the results, computed the same way when recording and when testing --------------------------------

def replayed_state(config: Path) -> dict[str, Any]:
    """The core's snapshot after the daemon's replay, and after a replay from the first record."""
    cfg = load_config(config)
    with Journal.open(cfg.journal.path, readonly=True) as journal:
        core, _, _ = Table.replay(journal, lambda snap: make_core(cfg, snap))
        from_checkpoint = core.snapshot()
        whole, _ = replay_from_start(journal, cfg)
    return {"from_checkpoint": _plain(from_checkpoint), "from_start": _plain(whole.snapshot())}


def replay_from_start(journal: Journal, cfg) -> tuple[Any, list[Note]]:
    """Fold every input the journal holds from the first record; the notes the fold makes."""
    core = make_core(cfg, None)
    notes: list[Note] = []
    for rec in journal.records_after(0):
        if rec.kind != "checkpoint" and is_input(rec.kind):
            notes += [e for e in core.apply(rec.kind, rec.payload, rec.time_us // 1000) if isinstance(e, Note)]
    return core, notes


def settlements(config: Path) -> dict[str, Any]:
    """Every round's settlement (or void) as the fold makes it again, and as the journal holds it."""
    cfg = load_config(config)
    with Journal.open(cfg.journal.path, readonly=True) as journal:
        _, notes = replay_from_start(journal, cfg)
        journaled = [{"round_id": r.round_id, "kind": r.kind, "payload": r.payload}
                     for r in journal.records_after(0) if r.kind in SETTLEMENT_KINDS]
    replayed = [{"round_id": n.round_id, "kind": n.kind, "payload": n.payload}
                for n in notes if n.kind in SETTLEMENT_KINDS]
    return {"replayed": _plain(replayed), "journaled": _plain(journaled)}


def pool_ledger(config: Path) -> dict[str, Any]:
    """``tabled pool ACTION --json`` for the fixture's pool: every ledger row and hit, the status,
    the proof of the meter and the reconciliation with the journal."""
    return {action: json.loads(tabled("pool", action, "--config", str(config), "--json", "--last", "1000000"))
            for action in POOL_ACTIONS}


def recall_rounds(config: Path) -> list[dict[str, Any]]:
    """``tabled recall --json`` of every round, as it prints it (one JSON document a line)."""
    journal = load_config(config).journal.path
    out = tabled("recall", "--journal", str(journal), "--json", "--last", "1000000")
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def settled_amounts(payload: dict[str, Any]) -> dict[str, Any]:
    """What a dispute turns on in a settlement: each spot's status and money, the dealer, the net."""
    spots = {str(s["spot"]): {k: v for k, v in s.items() if k == "status" or k.endswith("_cents")
                              or k in ("ante", "bet", "progressive")}
             for s in payload.get("spots", [])}
    return {"void": payload.get("void"), "net_cents": payload.get("net_cents"), "spots": spots,
            "dealer": payload.get("dealer")}


def recall_digest(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per round recalled: its id and the amounts of each settlement record recall shows for it."""
    digest = []
    for line in lines:
        found: list[dict[str, Any]] = []
        _settlements_in(line, found)
        digest.append({"round_id": line.get("round_id"), "settled": [settled_amounts(p) for p in found]})
    return digest


def _settlements_in(value: Any, found: list[dict[str, Any]]) -> None:
    if isinstance(value, dict):
        if value.get("kind") == "round.settled" and isinstance(value.get("payload"), dict):
            found.append(value["payload"])
            return
        for v in value.values():
            _settlements_in(v, found)
    elif isinstance(value, list):
        for v in value:
            _settlements_in(v, found)


def golden(config: Path) -> dict[str, Any]:
    return {"state": replayed_state(config), "settlements": settlements(config),
            "pool": pool_ledger(config), "recall": recall_rounds(config)}


# -- the tests ---------------------------------------------------------------------------------------------------

def unpack(name: str, dest: Path) -> Path:
    """The fixture's journal, pool and config in ``dest``; returns the config's path."""
    src = FIXTURES / name
    for db in ("journal.db", "pool.db"):
        with gzip.open(src / f"{db}.gz", "rb") as f, open(dest / db, "wb") as out:
            shutil.copyfileobj(f, out)
    shutil.copy(src / "config.toml", dest / "config.toml")
    shutil.copy(ROOT / "config" / "sim-staff.toml", dest / "sim-staff.toml")  # a config that names a staff file
    return dest / "config.toml"


def expected(name: str, what: str) -> Any:
    path = FIXTURES / name / f"{what}.json"
    if path.exists():
        return json.loads(path.read_text())
    with gzip.open(path.with_suffix(".json.gz"), "rt") as f:
        return json.load(f)


def test_the_fixtures_hold_what_the_readme_says(tmp_path):
    assert NAMES == ["buttons", "notes", "scripted", "simulated"]
    rounds = 0
    awards: dict[str, set[str]] = {}
    for name in NAMES:
        st = [r for r in expected(name, "settlements")["journaled"] if r["kind"] == "round.settled"]
        rounds += len(st)
        awards[name] = {a["category"] for r in st for a in r["payload"]["progressive"]["awards"]}
        statuses = {s["status"] for r in st for s in r["payload"]["spots"]}
        assert {"folded", "played"} <= statuses, name
        assert any(r["payload"]["dealer"]["qualifies"] is False for r in st), name  # bets void (9.2)
    assert rounds >= 200
    assert awards["simulated"]
    assert {"royal flush", "straight flush", "four of a kind", "full house", "flush"} <= awards["scripted"]
    assert {"royal flush", "straight flush", "four of a kind", "full house", "flush"} <= awards["buttons"]
    with Journal.open(unpack("buttons", tmp_path).parent / "journal.db", readonly=True) as j:
        kinds = {r.kind for r in j.records_after(0)}
    assert "panel.button" in kinds and "panel" not in kinds  # today's vocabulary
    with Journal.open(unpack("notes", tmp_path).parent / "journal.db", readonly=True) as j:
        held = list(j.records_after(0))
    # today's notes from the first record: every key's actions, the awards determined and paid
    assert not any("late" in r.payload for r in held)
    assert any(r.kind == "panel.approved" and r.payload["key"] == "dealer" for r in held)
    assert {"progressive.awarded", "progressive.award_paid", "shuffle.read", "config.in_force",
            "progressive.contributed"} <= {r.kind for r in held}


def restored_today(config: Path, state: dict[str, Any]) -> dict[str, Any]:
    """A recorded state, written in the layout of its day (the table's fields at the top level,
    before each part had its own section), restored by today's table and written again."""
    cfg = load_config(config)
    return {k: _plain(make_core(cfg, snap).snapshot()) for k, snap in state.items()}


@pytest.mark.parametrize("name", NAMES)
def test_replay_gives_the_recorded_table_state(tmp_path, name):
    config = unpack(name, tmp_path)
    recorded = expected(name, "state")
    assert "hours" not in recorded["from_start"] and "faults" in recorded["from_start"]  # the older layout
    assert replayed_state(config) == restored_today(config, recorded)


def awards_by_spot(settled: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The settlements with each round's progressive awards in spot order: which spot got what."""
    out = json.loads(json.dumps(settled))
    for s in out:
        progressive = s["payload"].get("progressive") or {}
        progressive.get("awards", []).sort(key=lambda a: a["spot"])
    return out


def paid_in_order_of_rules_12_2_and_12_4(awards: list[dict[str, Any]]) -> list[int]:
    """Right to left from the dealer's immediate right (12.2); where a royal flush and a straight
    flush qualify together the straight flush is paid first (12.4)."""
    right_to_left = sorted(awards, key=lambda a: -a["spot"])
    waiting = [a["spot"] for a in right_to_left if a["category"] == "straight flush"]
    order: list[int] = []
    for a in right_to_left:
        if a["category"] == "royal flush":
            order += [spot for spot in waiting if spot not in order]
        if a["spot"] not in order:
            order.append(a["spot"])
    return order


@pytest.mark.parametrize("name", NAMES)
def test_replay_settles_every_round_as_recorded(tmp_path, name):
    """Every amount of every round as recorded. The journals were recorded before the payment
    order of progressive awards followed 12.4 correctly (a royal flush was paid last): the awards
    are compared spot by spot, and the replayed order is the rules' (12.2, 12.4)."""
    config = unpack(name, tmp_path)
    now, then = settlements(config), expected(name, "settlements")
    assert now["journaled"] == then["journaled"]
    assert awards_by_spot(now["replayed"]) == awards_by_spot(then["replayed"])
    for s in now["replayed"]:
        awards = (s["payload"].get("progressive") or {}).get("awards", [])
        assert [a["spot"] for a in awards] == paid_in_order_of_rules_12_2_and_12_4(awards), s["round_id"]


@pytest.mark.parametrize("name", NAMES)
def test_the_pool_ledger_reads_as_recorded(tmp_path, name):
    config = unpack(name, tmp_path)
    now, then = pool_ledger(config), expected(name, "pool")
    read = ("reconcile", "verify")  # reports that may say more than was recorded: compared on what was
    assert {k: v for k, v in now.items() if k not in read} == {k: v for k, v in then.items() if k not in read}
    assert {k: now["verify"].get(k) for k in then["verify"]} == then["verify"]
    # reconcile reads as recorded; what it reports beyond that (owed, in flight) is empty: a
    # journal recorded whole owes the pool nothing
    assert {k: now["reconcile"].get(k) for k in then["reconcile"]} == then["reconcile"]
    assert now["reconcile"]["owed"] == now["reconcile"]["in_flight"] == now["reconcile"]["owed_reversals"] == []
    assert now["verify"]["ok"] and now["reconcile"]["ok"]


@pytest.mark.parametrize("name", NAMES)
def test_recall_shows_every_round_with_its_recorded_settlement(tmp_path, name):
    """Compared on the rounds and their settlements' amounts only: recall's layout may change."""
    config = unpack(name, tmp_path)
    now, then = recall_digest(recall_rounds(config)), recall_digest(expected(name, "recall"))
    assert [d["round_id"] for d in now] == [d["round_id"] for d in then]
    assert now == then
    assert sum(len(d["settled"]) for d in now) >= 20


@pytest.mark.parametrize("name", NAMES)
def test_restarts_on_a_recorded_journal_write_nothing_again(tmp_path, name):
    """Two restarts of the daemon (with its simulated devices) on a copy of the fixture, nothing
    happening at the table: the records added are inputs of the start and the stop (what the start
    runs with, the meter's reading of the pool, the bet-spot board's reading of the felt, the stop's
    tick, the simulated shuffler's fresh shuffle), never a note
    the journal holds already, and nothing is delivered to the pool or settled again."""
    from tests.integration.harness import play

    config = unpack(name, tmp_path)
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        before = list(j.records_after(0))

    async def stand(run) -> None:
        await run.until(lambda: True, act=False)

    heads = []
    for _ in range(2):
        asyncio.run(play(tmp_path, stand))
        with Journal.open(tmp_path / "journal.db", readonly=True) as j:
            heads.append(j.head[0])
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        after = list(j.records_after(0))
        assert j.verify().ok
    assert after[:len(before)] == before
    added = after[len(before):]
    assert [(r.kind, r.round_id) for r in added if r.kind in MONEY_KINDS] == []
    # the first start writes, once, the notes this version's fold makes and the journal lacks, each
    # marked late with the input it concludes from, and a checkpoint; the second writes none of them
    late = [r for r in added if "late" in r.payload]
    assert bool(late) == (name != "notes")  # a journal of today's notes owes none
    assert all(r.seq <= heads[0] and is_note(r.kind) for r in late)
    assert all(r.payload["late"]["record"] <= before[-1].seq for r in late)
    assert any(r.kind == "checkpoint" and r.payload["snapshot"].get("notes") == NOTES_VERSION
               for r in added if r.seq <= heads[0]) or not late
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        assert Table.replay(j, lambda snap: make_core(load_config(config), snap))[1] == []  # nothing owed
    start = {"software.checked", "config.started"}  # what each start runs with (tabled/daemon/provenance.py)
    felt = {"board.reading"}  # today's bet-spot board says at a start what lies on the felt
    # the clock measured at each start (tabled/daemon/clock.py), the clean stop's mark; the fixture
    # ends without one, so the first start says it follows an unclean stop, the second does not
    life = {"clock.measured", "table.stopped", "table.restarted"}
    own = [r for r in added if "late" not in r.payload]
    assert {r.kind for r in own if is_input(r.kind)} <= {"pool.meter", "tick", "shuffler.shuffled", *start, *felt,
                                                          *life}
    assert [r.seq <= heads[0] for r in own if r.kind == "table.restarted"] == [True]
    assert len([r for r in own if r.kind == "table.stopped"]) == 2
    # the notes of the starts' own inputs: what each start runs with, the shuffles read, the restart
    assert {r.kind for r in own if is_note(r.kind)} <= {"config.in_force", "shuffle.read", "power.restored"}, \
        [r.kind for r in own if is_note(r.kind)]
    pool = pool_ledger(config)
    assert pool["ledger"] == expected(name, "pool")["ledger"]
    assert pool["verify"]["ok"] and pool["reconcile"]["ok"]

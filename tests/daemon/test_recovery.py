"""Recovery: stop the table at EVERY journal step of scripted rounds (as kill -9 would), restart
from the journal, let the devices repeat what was not acknowledged, and compare with a run that
never stopped: same settlements, same pool, no contribution lost or counted twice."""

import asyncio
import itertools
import json

import pytest

from tabled.cli import main
from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.journal.store import Journal
from tabled.sim.players import Player
from tests.daemon.floor import SimulatedFloor
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings
from tabled.daemon.controller import Table
from tests.crash import Crash, CrashingJournal

ROUNDS = 2
CFG = load_config(None)
PLAYERS = [Player(1, 500, True, "optimal"), Player(3, 1000, True, "optimal"), Player(6, 2500, False, "optimal")]


class FakeClock:
    def __init__(self):
        self.ticks = itertools.count(1_800_000_000_000)

    def __call__(self) -> float:
        return next(self.ticks) / 1000


async def session(tmp, clock, floor, stop_after=None):
    """One life of the daemon: open, replay, resume, play until ROUNDS rounds are finished."""
    journal = Journal.open(tmp / "journal.db", clock=clock)
    p = CFG.primary_pool
    pool = await LocalPool.open(tmp / "pool.db", "main", CFG.table.id, PoolSettings(p.contribution_bp, p.reset_cents))
    core, missing, _ = Table.replay(journal, lambda snap: make_core(CFG, snap))
    table = Table(core, journal if stop_after is None else CrashingJournal(journal, stop_after), pool,
                  checkpoint_every=1)
    if floor is None:
        floor = SimulatedFloor(table, PLAYERS, seed=7)
    else:
        floor.reconnect(table)
    consumer = None
    crashed = False
    try:
        await table.resume(missing)
        consumer = asyncio.create_task(table.run())
        table.submit("pool.balance", {"balance_cents": await pool.balance()})
        if not core.hours.is_open:
            table.submit("panel", {"action": "open_table", "key": "supervisor"})
        while core.rounds_finished < ROUNDS:
            idle = asyncio.create_task(table.idle.wait())
            await asyncio.wait([idle, consumer], return_when=asyncio.FIRST_COMPLETED)
            idle.cancel()
            if consumer.done():
                consumer.result()
            if not floor.step() and core.rounds_finished < ROUNDS:
                raise AssertionError(f"stuck: {core.round_id} {core.round.phase if core.round else None}")
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        if consumer.done():
            consumer.result()  # a crash while writing the last notes
    except Crash:
        crashed = True
    finally:
        if consumer and not consumer.done():
            consumer.cancel()
            try:
                await consumer
            except (asyncio.CancelledError, Crash):
                pass
        settled = {}
        if not crashed:
            for rec in journal.records_after(0):
                if rec.kind == "round.settled":
                    assert rec.round_id not in settled, f"{rec.round_id} settled twice"
                    settled[rec.round_id] = rec.payload
        balance = await pool.balance()
        verified = await pool.verify()
        chain = journal.verify()
        count = journal.count()
        await pool.close()
        journal.close()
    return floor, crashed, settled, balance, verified, chain, count


def run_with_crash(tmp, stop_after):
    clock = FakeClock()
    floor, crashed, settled, balance, verified, chain, count = asyncio.run(session(tmp, clock, None, stop_after))
    assert crashed, f"step {stop_after}: the table did not stop there"
    restarts = 0
    while crashed:  # restart until the rounds are played
        restarts += 1
        floor, crashed, settled, balance, verified, chain, count = asyncio.run(session(tmp, clock, floor))
    assert restarts >= 1
    return crashed, settled, balance, verified, chain, count


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reference")
    _, crashed, settled, balance, verified, chain, count = asyncio.run(session(tmp, FakeClock(), None))
    assert not crashed and len(settled) == ROUNDS and verified.ok and chain.ok
    return settled, balance, count


def test_reference_run_plays_the_rounds(reference):
    settled, balance, count = reference
    assert balance > CFG.primary_pool.reset_cents  # contributions went in
    assert count > 30


@pytest.mark.slow
def test_kill_at_every_journal_step(reference, tmp_path):
    settled_ref, balance_ref, count = reference
    assert count > 50  # two rounds with three spots: every one of these steps is a kill point
    for step in range(1, count):
        tmp = tmp_path / f"step{step}"
        tmp.mkdir()
        _, settled, balance, verified, chain, _ = run_with_crash(tmp, step)
        assert chain.ok, f"step {step}: journal chain broken: {chain}"
        assert verified.ok, f"step {step}: pool ledger: {verified.problems}"
        assert balance == balance_ref, f"step {step}: pool {balance} != {balance_ref}"
        assert settled == settled_ref, f"step {step}: settlements differ"


async def restart(tmp, clock, inputs=()):
    """One life of the daemon in which only ``inputs`` happen: open, replay, resume, stop."""
    journal = Journal.open(tmp / "journal.db", clock=clock)
    p = CFG.primary_pool
    pool = await LocalPool.open(tmp / "pool.db", "main", CFG.table.id, PoolSettings(p.contribution_bp, p.reset_cents))
    try:
        core, missing, _ = Table.replay(journal, lambda snap: make_core(CFG, snap))
        table = Table(core, journal, pool, checkpoint_every=1, follow_meter=False)
        await table.resume(missing)
        consumer = asyncio.create_task(table.run())
        for kind, payload in inputs:
            table.submit(kind, payload)
        await table.idle.wait()
        table.stop()
        await consumer
        return core
    finally:
        await pool.close()
        journal.close()


#: the table opened, deck A shuffled by a device without card recognition (3.4: the dealer checks it)
DECK_A_SHUFFLED = [
    ("panel", {"action": "open_table", "key": "supervisor"}),
    ("shuffler.recognition", {"on": False}),
    ("shuffler.shuffled", {"deck": "A"}),
]
DECK_A_CHECKED = ("panel", {"action": "deck_checked", "key": "dealer", "deck": "A"})


def test_a_restart_writes_nothing_twice(tmp_path, capsys):
    """Five restarts with nothing happening between add only the stop of each life (a tick); the
    notes already journaled (here the dealer's deck check, 3.4) are not written again."""
    clock = FakeClock()
    asyncio.run(restart(tmp_path, clock, [*DECK_A_SHUFFLED, DECK_A_CHECKED]))
    with Journal.open(tmp_path / "journal.db") as j:
        before = list(j.records_after(0))
    assert [r.kind for r in before].count("deck.checked") == 1
    for _ in range(5):
        core = asyncio.run(restart(tmp_path, clock))
        assert core.decks.status["A"]["verified"]
    with Journal.open(tmp_path / "journal.db") as j:
        after = list(j.records_after(0))
        assert j.verify().ok
    assert after[:len(before)] == before
    assert [r.kind for r in after[len(before):]] == ["tick"] * 5
    assert [r.kind for r in after].count("deck.checked") == 1
    capsys.readouterr()
    assert main(["recall", "--journal", str(tmp_path / "journal.db"), "--json"]) == 0
    (shown,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    events = [r["kind"] for r in shown["records"] if r["kind"] != "tick"]
    assert events == ["round.started", "panel.approved", "deck.checked"]  # recall shows each event once


def test_a_note_a_crash_lost_is_written_once_on_restart(tmp_path):
    """The notes of the last input are lost (a kill between the input and its notes): the restart
    writes them, and the restarts after it do not."""
    clock = FakeClock()
    asyncio.run(restart(tmp_path, clock, DECK_A_SHUFFLED))
    with Journal.open(tmp_path / "journal.db", clock=clock) as j:  # the input, then the kill
        j.append(*DECK_A_CHECKED)
    for _ in range(3):
        asyncio.run(restart(tmp_path, clock))
    with Journal.open(tmp_path / "journal.db") as j:
        kinds = [r.kind for r in j.records_after(0)]
    # the lost notes, then a checkpoint: the journal holds this version's notes from here
    assert kinds[-7:] == ["panel", "panel.approved", "deck.checked", "checkpoint", "tick", "tick", "tick"]
    assert kinds.count("deck.checked") == 1


def test_an_input_folded_with_the_round_that_finished_is_in_the_checkpoint(tmp_path):
    """The input that ends a round and another one arrive together (one group commit): the
    checkpoint after the round holds both, so a restart from it loses neither."""
    clock = FakeClock()
    asyncio.run(restart(tmp_path, clock, [*DECK_A_SHUFFLED, DECK_A_CHECKED]))
    live = asyncio.run(restart(tmp_path, clock, [
        ("panel", {"action": "invalidate_round", "key": "supervisor", "reason": "commotion"}),  # 16.4: ends it
        ("shuffler.shuffled", {"deck": "B"})]))
    assert live.rounds_finished == 1 and live.decks.status["B"]["shuffled"]
    with Journal.open(tmp_path / "journal.db") as j:
        kinds = [r.kind for r in j.records_after(0)]
        assert kinds.index("checkpoint") > kinds.index("round.finished")  # a checkpoint was written
        core, missing, _ = Table.replay(j, lambda snap: make_core(CFG, snap))
    assert missing == [] and core.snapshot() == live.snapshot()

"""One commit per batch: the inputs that arrive together and the notes the fold draws from them are
journaled in ONE transaction (the inputs, then their notes), before any frame is acknowledged and
any effect carried out; a write that fails leaves neither and stops the table; a journal written
so replays to the same table, note for note."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path

import pytest

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.daemon.controller import Table
from tabled.journal.store import Journal, JournalDiskFull, JournalError
from tabled.pool.local import LocalPool
from tabled.pool.settings import PoolSettings
from tabled.sim.players import Player
from tabled.table.effects import Note
from tabled.table.kinds import CHECKPOINT, is_input, is_note
from tests.daemon.floor import SimulatedFloor

CFG = load_config(None)
#: the table opened and deck A shuffled by a device without card recognition, which the dealer checks (3.4)
OPEN_AND_CHECK = [
    ("panel", {"action": "open_table", "key": "supervisor"}),
    ("shuffler.recognition", {"on": False}),
    ("shuffler.shuffled", {"deck": "A"}),
    ("panel", {"action": "deck_checked", "key": "dealer", "deck": "A"}),
]


class Ticking:
    """A clock one millisecond on at each reading: every commit carries a time of its own."""

    def __init__(self) -> None:
        self.ms = itertools.count(1_800_000_000_000)

    def __call__(self) -> float:
        return next(self.ms) / 1000


async def opened(path: Path, clock) -> tuple[Table, LocalPool]:
    """The daemon's table on the journal at ``path`` (opened first: its connection is the first
    SQLite connection of the test), with a local pool beside it."""
    journal = Journal.open(path, clock=clock)
    p = CFG.primary_pool
    pool = await LocalPool.open(path.with_name("pool.db"), "main", CFG.table.id,
                                PoolSettings(p.contribution_bp, p.reset_cents))
    core, _, _ = Table.replay(journal, lambda snap: make_core(CFG, snap))
    return Table(core, journal, pool, checkpoint_every=1, follow_meter=False), pool


async def test_a_batch_and_the_notes_drawn_from_it_are_one_commit_before_any_acknowledgement(
        tmp_path, clock, connections):
    table, pool = await opened(tmp_path / "journal.db", clock)
    journal, conn = table.journal, connections[0]
    try:
        happened: list[str] = []
        conn.set_trace_callback(lambda sql: happened.append(sql) if sql == "COMMIT" else None)
        table.listeners.append(lambda effects: happened.append("effects"))
        clock.advance(2.5)
        await table.process([(kind, payload, lambda n=n: happened.append(f"ack {n}"))
                             for n, (kind, payload) in enumerate(OPEN_AND_CHECK, 1)])
        assert happened == ["COMMIT", "ack 1", "ack 2", "ack 3", "ack 4", *["effects"] * 4]
        written = list(journal.records_after(0))
        kinds = [r.kind for r in written]
        assert kinds[:4] == [kind for kind, _ in OPEN_AND_CHECK]  # the inputs, in the order they came
        assert kinds[4:] and all(is_note(kind) for kind in kinds[4:])  # then every note drawn from them
        assert {"panel.approved", "deck.checked"} <= set(kinds[4:])
        assert {r.time_us for r in written} == {journal.stamp()}  # the time the fold was given
        assert table.failed is None
    finally:
        await pool.close()
        journal.close()


async def test_an_input_the_journal_refuses_is_refused_before_the_fold(tmp_path, clock):
    table, pool = await opened(tmp_path / "journal.db", clock)
    try:
        before = table.core.snapshot()
        with pytest.raises(JournalError, match=r"payload.deck: floats are not journalled"):
            await table.process([OPEN_AND_CHECK[0] + (None,), ("shuffler.shuffled", {"deck": 0.5}, None)])
        assert table.core.snapshot() == before and table.journal.count() == 0 and table.failed is None
    finally:
        await pool.close()
        table.journal.close()


async def test_a_write_that_fails_leaves_neither_inputs_nor_notes_and_stops_the_table(tmp_path, clock, connections):
    """The journal's disk fills up under the batch's commit (SQLite's page limit on the journal's
    connection): nothing of it is journaled, acknowledged or carried out, the table takes nothing
    more, and a start on the journal is the table as it was before the batch."""
    table, pool = await opened(tmp_path / "journal.db", clock)
    journal, conn = table.journal, connections[0]
    try:
        await table.process([(kind, payload, None) for kind, payload in OPEN_AND_CHECK[:3]])
        head, before = journal.head, table.core.snapshot()
        conn.execute(f"PRAGMA max_page_count = {conn.execute('PRAGMA page_count').fetchone()[0]}")
        acks, shown = [], []
        table.listeners.append(shown.append)
        batch = [OPEN_AND_CHECK[3], *[("tick", {})] * 500]  # the deck checked, and more than the disk has room for
        with pytest.raises(JournalDiskFull, match="nothing was written and the journal is intact"):
            await table.process([(kind, payload, lambda kind=kind: acks.append(kind)) for kind, payload in batch])
        assert journal.head == head and acks == [] and shown == []
        assert table.core.decks.status["A"]["verified"]  # the fold took the deck's check: ahead of the journal
        with pytest.raises(JournalError, match=f"^{re.escape(str(journal.path))}: the table stopped when a batch "
                                               "of inputs could not be folded and journaled"):
            await table.process([("tick", {}, lambda: acks.append("tick"))])
        assert journal.head == head and acks == []
        conn.execute("PRAGMA max_page_count = 1000000")
        core, missing, _ = Table.replay(journal, lambda snap: make_core(CFG, snap))
        assert missing == [] and core.snapshot() == before and not core.decks.status["A"]["verified"]
    finally:
        await pool.close()
        journal.close()


async def test_rounds_journaled_a_commit_a_batch_replay_to_the_same_table_note_for_note(tmp_path, connections):
    """Two rounds played by the simulated floor: each batch is one commit holding its inputs, then
    their notes (a checkpoint, after a round, is a commit of its own); the journal folded again from
    its first record gives the same table and the same notes, payload for payload."""
    table, pool = await opened(tmp_path / "journal.db", Ticking())
    journal, conn, core = table.journal, connections[0], table.core
    commits: list[str] = []
    conn.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    batches: list[list[str]] = []
    process = table.process

    async def counted(batch):
        batches.append([kind for kind, _, _ in batch])
        await process(batch)
    table.process = counted
    floor = SimulatedFloor(table, [Player(1, 500, True, "optimal"), Player(3, 1000, True, "optimal"),
                                   Player(6, 2500, False, "optimal")], seed=7)
    consumer = asyncio.create_task(table.run())
    try:
        table.submit("pool.balance", {"balance_cents": await pool.balance()})
        table.submit("panel", {"action": "open_table", "key": "supervisor"})
        while core.rounds_finished < 2:
            idle = asyncio.create_task(table.idle.wait())
            await asyncio.wait([idle, consumer], return_when=asyncio.FIRST_COMPLETED)
            idle.cancel()
            if consumer.done():
                consumer.result()
            assert floor.step() or core.rounds_finished >= 2, f"stuck: {core.round_id}"
            await asyncio.sleep(0)
        table.stop()
        await consumer
        records = list(journal.records_after(0))
        by_commit: dict[int, list[str]] = {}
        for r in records:
            by_commit.setdefault(r.time_us, []).append(r.kind)
        checkpoints = [kinds for kinds in by_commit.values() if kinds == [CHECKPOINT]]
        assert len(checkpoints) == 2 and len(commits) == len(by_commit) == len(batches) + 2
        in_batches = [kinds for kinds in by_commit.values() if kinds != [CHECKPOINT]]
        assert [[k for k in kinds if is_input(k)] for kinds in in_batches] == batches
        for kinds in in_batches:  # the inputs, then their notes
            assert kinds == sorted(kinds, key=is_note), kinds
        assert [k for kinds in in_batches for k in kinds].count("round.finished") == 2

        again, made = make_core(CFG, None), []
        for r in records:
            if is_input(r.kind):
                made += [(e.kind, e.round_id, json.loads(json.dumps(e.payload)))
                         for e in again.apply(r.kind, r.payload, r.time_us // 1000) if isinstance(e, Note)]
        assert made == [(r.kind, r.round_id, r.payload) for r in records if is_note(r.kind)]
        assert again.snapshot() == core.snapshot()
        replayed, missing, _ = Table.replay(journal, lambda snap: make_core(CFG, snap))
        assert missing == [] and replayed.snapshot() == core.snapshot()
    finally:
        if not consumer.done():
            consumer.cancel()
        await pool.close()
        journal.close()

"""The running table with a linked pool on a real PostgreSQL, and the link cut (rule 14.13; docs/settlement.md
"When the pool cannot be reached").

Each table here is the real controller (tabled/daemon/controller.py: journal, core, one worker per pool, the
meter feed) fed the inputs its devices would send; the pool is a real PostgresPool reached through
a TCP proxy the test cuts and restores. The PostgreSQL is the local one when it answers, otherwise
a throwaway server (tests/pool/conftest.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tabled.daemon.controller import NOTES_VERSION

from tabled.table.core import TableCore
from tabled.table.effects import MeterShow, Say
from tabled.game.cards import parse_cards
from tabled.profiles import load_profile
from tabled.journal.store import Journal
from tabled.pool.postgresql import PostgresPool
from tabled.pool.settings import PoolSettings
from tabled.game.limits import Limits
from tabled.daemon.controller import Table
from tests.pool.proxy import LinkProxy

pytestmark = pytest.mark.postgres

PROFILE = load_profile("nsw")
SETTINGS = PoolSettings(PROFILE.contribution_basis_points, PROFILE.progressive_schedule.reset_cents)
WAGER = PROFILE.progressive_wager_cents
PLAIN = {1: "2c 7d 9h Js Kd", 3: "3c 8d Th Qs 4d", "dealer": "Ac Kc 4h 3s 2h"}
STRAIGHT_FLUSH = {1: "2c 7d 9h Js Kd", 3: "9s 8s 7s 6s 5s", "dealer": "Ac Kc 4h 3h 2h"}


class LinkedTable:
    """One table's daemon (without its devices) feeding a pool through its own proxy."""

    def __init__(self, tmp: Path, table_id: str, proxy: LinkProxy):
        self.tmp, self.table_id, self.proxy = tmp, table_id, proxy
        self.meter_shown: list[int] = []
        self.meter_offline: list[bool] = []  # per meter command: did it show "progressive offline"?
        self.says: list[Say] = []

    async def start(self, *, pool_up: bool = True, setup: bool = True) -> LinkedTable:
        """Start as the daemon does (tabled run): open the pool (waiting for its link when it
        cannot be reached), replay the journal, resume, wait for the meter's first answer.
        ``setup``: a fresh table is opened and its decks verified and shuffled."""
        self.journal = Journal.open(self.tmp / f"{self.table_id}.db")
        self.pool = await PostgresPool.open(self.proxy.dsn, "main", self.table_id, SETTINGS, op_timeout=2,
                                            wait_for_link=True)
        limits = Limits(500, 50_000, 100, WAGER)
        core, missing, _ = Table.replay(self.journal, lambda snap: TableCore.from_snapshot(snap, 7, PROFILE)
                                        if snap else TableCore(self.table_id, 7, limits, PROFILE))
        self.table = Table(core, self.journal, self.pool, retry_interval=0.05)
        self.table.listeners.append(self._watch)
        self.task = asyncio.create_task(self.table.run())
        await self.table.resume(missing)
        assert await self.table.feed.meter_shown(5) is pool_up
        if setup:
            await self.feed("panel", action="open_table", key="supervisor")
            for deck in ("A", "B"):
                await self.feed("deck.verified", deck=deck, cards=list(range(52)))
            for deck in ("A", "B"):
                await self.feed("shuffler.shuffled", deck=deck)
        return self

    def _watch(self, effects) -> None:
        self.says += [e for e in effects if isinstance(e, Say)]
        for e in effects:
            if isinstance(e, MeterShow):
                # a "show" while 14.13 play is approved shows "progressive offline"
                assert e.offline == self.core.equipment.progressive_offline  # told complete, as the table stands
                self.meter_offline.append(e.offline)
                if e.cents is not None:
                    self.meter_shown.append(e.cents)

    @property
    def core(self) -> TableCore:
        return self.table.core

    @property
    def round(self):
        return self.core.round

    async def feed(self, kind: str, **payload) -> None:
        self.table.submit(kind, payload)
        await asyncio.wait_for(self.table.folded(), 10)

    async def until(self, cond, timeout: float = 10.0) -> None:
        async def wait():
            while not cond():
                await asyncio.sleep(0.005)
        await asyncio.wait_for(wait(), timeout)

    async def close(self) -> None:
        self.table.stop()
        await asyncio.wait_for(self.task, 5)
        await self.pool.close()
        self.journal.close()

    def records(self, kind: str) -> list:
        return [r for r in self.journal.records_after(0) if r.kind == kind]

    # -- a round, step by step (the inputs the devices and the dealer's panel would send) -------------

    async def bets_placed(self, progressive: bool = True) -> None:
        await self.until(lambda: self.round is not None and self.round.phase == "betting")
        for spot in (1, 3):
            await self.feed("wager", spot=spot, area="ante", cents=500)
            if progressive:
                await self.feed("wager", spot=spot, area="progressive", cents=WAGER)

    async def dealt(self, hands: dict) -> None:
        await self.feed("panel", action="no_more_bets", key="dealer")
        back = self.round.back
        for target in list(self.round.dealt_to):
            await self.feed("shuffler.hand", cards=list(parse_cards(hands[target])), back=back, up=4)

    async def decided(self) -> None:
        for spot in (1, 3):
            await self.feed("wager", spot=spot, area="bet", cents=1000)

    async def revealed(self) -> None:
        await self.feed("panel", action="reveal", key="dealer")

    async def settled(self) -> None:
        self.used_deck = self.round.deck
        await self.feed("panel", action="settle", key="dealer")

    async def next_deck_shuffled(self) -> None:
        """The shuffling device gives back the deck just used, shuffled (4.1.2)."""
        await self.feed("shuffler.shuffled", deck=self.used_deck)

    async def whole_round(self, hands=PLAIN, progressive: bool = True) -> str:
        await self.bets_placed(progressive)
        rid = self.round.round_id
        await self.dealt(hands)
        await self.decided()
        await self.revealed()
        await self.settled()
        await self.next_deck_shuffled()
        return rid


async def _open(tmp: Path, dsn: str, table_id: str) -> LinkedTable:
    proxy = await LinkProxy(dsn).start()
    return await LinkedTable(tmp, table_id, proxy).start()


async def _delivered_once(t: LinkedTable) -> None:
    """docs/settlement.md: every contribution the journal holds is in the pool once, and the ledger proves the meter."""
    journal = [r.payload for r in t.records("pool.contributed")]
    report = await t.pool.reconcile(journal, reversed_keys=[(r.payload["round_id"], r.payload["spot"])
                                                            for r in t.records("pool.reversed")])
    assert report.ok, report
    assert (await t.pool.verify()).ok
    assert not t.core.pool.undelivered


STEPS = ("betting", "dealing", "deciding", "revealed", "between rounds")


@pytest.mark.parametrize("cut_in", STEPS)
async def test_link_lost_in_every_state_of_a_round_and_back_14_13(tmp_path, pg_dsn, cut_in):
    t = await _open(tmp_path, pg_dsn, "T01")
    try:
        await t.whole_round()                                     # round 1: the link is up
        steps = [("betting", t.bets_placed), ("dealing", lambda: t.dealt(PLAIN)), ("deciding", t.decided),
                 ("revealed", t.revealed), ("settled", t.settled)]
        if cut_in == "between rounds":
            t.proxy.cut()                                          # before round 2's deck is shuffled
        rid = t.round.round_id
        for name, step in steps:
            if name == cut_in:
                t.proxy.cut()
                await t.until(lambda: "pool" in t.core.equipment.faults)    # 14.13: the link is lost
            await step()
        await t.until(lambda: "pool" in t.core.equipment.faults)
        assert [r.payload["phase"] for r in t.records("round.finished") if r.round_id == rid] == ["complete"]
        await t.next_deck_shuffled()
        assert t.round is None                                     # no new round without the inspector
        await t.feed("panel", action="approve_play", key="supervisor")
        assert t.round is None
        await t.feed("panel", action="approve_play", key="inspector")
        assert t.round is not None and t.round.progressive_offline  # progressive acceptance locked
        await t.whole_round(progressive=False)                      # round 3 plays, progressive offline
        assert t.meter_shown[-1] == t.core.pool.cents
        t.proxy.restore()                                           # the link returns
        await t.until(lambda: not t.core.equipment.faults)
        assert t.records("fault.raised")[-1].payload["equipment"] == "pool"
        assert t.records("fault.cleared")[-1].payload == {"equipment": "pool"}
        assert t.round is not None and not t.round.progressive_offline
        await t.whole_round()                                       # round 4: progressive again
        await t.until(lambda: not t.core.pool.undelivered)
        await _delivered_once(t)
        contributed = {(r.payload["round_id"], r.payload["spot"]) for r in t.records("pool.contributed")}
        assert (rid, 1) in contributed and (rid, 3) in contributed  # round 2's, delivered after the cut
        balance = await t.pool.balance()
        await t.until(lambda: t.core.pool.cents == balance)          # the meter shows the pool
    finally:
        await t.close()
        await t.proxy.close()


async def test_hits_held_during_link_loss_are_paid_once_in_the_pools_order_14_13_9_5(tmp_path, pg_dsn):
    t1 = await _open(tmp_path, pg_dsn, "T01")
    t2 = await _open(tmp_path, pg_dsn, "T02")
    try:
        for t in (t1, t2):
            await t.bets_placed()
            await t.dealt(STRAIGHT_FLUSH)
            await t.decided()
            await t.revealed()
            t.proxy.cut()
        for t in (t2, t1):                                          # both hit while their links are down
            await t.settled()
            await t.until(lambda t=t: t.round.round_id in t.core.pool.awards_held)
            assert t.round.phase == "settling" and t.round.spots[3].award_held  # 9.5: cards face up
            assert [r.payload["spots"] for r in t.records("progressive.award_held")] == [[3]]
        await t2.next_deck_shuffled()
        assert t2.round.phase == "settling"                         # nothing new until it is paid
        t2.proxy.restore()                                          # T02's link returns first...
        await t2.until(lambda: t2.round.awards is not None)
        t1.proxy.restore()                                          # ...then T01's
        await t1.until(lambda: t1.round.awards is not None)
        for t in (t1, t2):
            await t.feed("panel", action="award_paid", spot=3, key="dealer")
            await t.until(lambda t=t: not t.core.equipment.faults and not t.core.pool.undelivered)
        hits = list(reversed(await t1.pool.history()))
        assert [(h.table_id, h.spot) for h in hits] == [("T02", 3), ("T01", 3)]  # the pool's order
        assert all(h.held_since is not None for h in hits)
        for t, h in ((t1, hits[1]), (t2, hits[0])):
            released = t.records("progressive.award_released")
            assert len(released) == 1                               # paid once
            p = released[0].payload
            assert p["hits"][0]["amount_cents"] == h.amount_cents
            assert p["pool_before_cents"] == h.pool_before_cents   # from the pool as it then stood
            assert p["held_since_ms"] <= p["paid_ms"]
            assert len(t.records("pool.awards")) == 1
        # the second paid from what the first left, plus T01's parked contributions delivered before it
        ledger = await t1.pool.ledger(100)
        awards = [e.seq for e in ledger if e.kind == "award"]
        between = [e for e in ledger if awards[0] < e.seq < awards[1]]
        assert all(e.kind == "contribution" and e.table_id == "T01" for e in between)
        assert hits[1].pool_before_cents == hits[0].pool_after_cents + sum(e.delta_cents for e in between)
        await _delivered_once(t1)
        await _delivered_once(t2)
        # every linked table's meter shows the pool; neither ever went down but for the awards
        balance = await t1.pool.balance()
        await t1.until(lambda: t1.core.pool.cents == balance and t2.core.pool.cents == balance)
    finally:
        for t in (t1, t2):
            await t.close()
            await t.proxy.close()


async def test_two_tables_sharing_one_pool_show_the_same_meter_2_4_3(tmp_path, pg_dsn):
    t1 = await _open(tmp_path, pg_dsn, "T01")
    t2 = await _open(tmp_path, pg_dsn, "T02")
    try:
        for _ in range(2):
            await t1.whole_round()
            await t2.whole_round()
        await t1.until(lambda: not t1.core.pool.undelivered and not t2.core.pool.undelivered)
        balance = await t1.pool.balance()
        assert balance == SETTINGS.reset_cents + 8 * (WAGER * PROFILE.contribution_basis_points // 10_000)
        await t1.until(lambda: t1.core.pool.cents == balance and t2.core.pool.cents == balance)
        for t in (t1, t2):
            assert t.meter_shown == sorted(t.meter_shown)           # never down without a hit
            assert t.meter_shown[-1] == balance
        # T02 sees T01's contributions too: its meter moved more often than its own rounds' locks
        assert len(set(t2.meter_shown)) >= 4
    finally:
        for t in (t1, t2):
            await t.close()
            await t.proxy.close()


# -- round identity: a round id played again never swallows a contribution ------------------------------


def _in_pool(counts: dict, table: LinkedTable) -> int:
    return sum(n for (tid, rid, _), n in counts.items() if rid in table.played)


async def _rounds(t: LinkedTable, n: int) -> None:
    t.played = getattr(t, "played", [])
    for _ in range(n):
        t.played.append(await t.whole_round())


def _owed(t: LinkedTable) -> int:
    return sum(1 for e in t.core.pool.undelivered.values() if e.op.op == "contribute")


async def test_two_tables_with_one_id_on_one_pool_lose_no_contribution(tmp_path, pg_dsn):
    """Two tables configured with the same [table] id on one linked pool play the same round ids.
    The pool binds the id to the first table's journal: the second is refused (14.13, with the
    reason), and its contributions stay owed in its journal; none is taken for a repeat."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = await _open(tmp_path / "a", pg_dsn, "T01")
    second = await _open(tmp_path / "b", pg_dsn, "T01")
    try:
        await _rounds(first, 2)
        await first.until(lambda: not first.core.pool.undelivered)
        await second.whole_round()                                 # its lock: refused by the pool
        await second.until(lambda: "pool" in second.core.equipment.faults)
        assert "already plays here with another journal" in second.core.equipment.faults["pool"]
        assert not second.records("pool.contributed")              # nothing answered as a "repeat"
        counts = await _contribution_count(first.pool)
        assert counts == {("T01", rid, spot): 1 for rid in first.played for spot in (1, 3)}
        assert _owed(second) == 2                                  # expected 6 = 4 in the pool + 2 owed
        assert (await first.pool.verify()).ok
    finally:
        for t in (first, second):
            await t.close()
            await t.proxy.close()


async def test_a_journal_restored_from_a_backup_loses_no_contribution(tmp_path, pg_dsn):
    """The journal restored from a backup plays round ids the pool already has. The pool holds
    rounds beyond the journal's: the start check refuses (one line), and a table that reached the
    pool only later is refused at its first operation; every contribution stays owed, none is
    answered with the old round's split."""
    import shutil
    import sqlite3

    from tabled.daemon.assemble import CannotStart, check_pools
    t = await _open(tmp_path, pg_dsn, "T01")
    path = t.journal.path
    try:
        await _rounds(t, 2)
        await t.until(lambda: not t.core.pool.undelivered)
        live, copy = sqlite3.connect(path), sqlite3.connect(tmp_path / "backup.db")
        live.backup(copy)                                          # docs/operations.md: the backup
        live.close()
        copy.close()
        await _rounds(t, 2)
        await t.until(lambda: not t.core.pool.undelivered)
    finally:
        await t.close()
    for leftover in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        leftover.unlink(missing_ok=True)
    shutil.copy(tmp_path / "backup.db", path)                      # restored
    restored = Journal.open(path)
    pool = await PostgresPool.open(t.proxy.dsn, "main", "T01", SETTINGS)
    try:
        with pytest.raises(CannotStart, match="holds round T01-000004 of table T01, which this journal does not"
                                            " have .its last round is T01-000003.") as raised:
            await check_pools("T01", restored, [pool])             # tabled run stops here
        assert "\n" not in str(raised.value)
    finally:
        await pool.close()
        restored.close()
    again = LinkedTable(tmp_path, "T01", t.proxy)
    try:
        await again.start(setup=False)                             # as if the pool had been out of reach
        played = await again.whole_round()
        assert played == "T01-000003"                              # the id the pool already has
        await again.until(lambda: "pool" in again.core.equipment.faults)
        assert "holds round T01-000004 of table T01" in again.core.equipment.faults["pool"]
        assert not [r for r in again.records("pool.contributed") if r.payload["round_id"] == played]
        assert _owed(again) == 2                                   # owed, not swallowed
        counts = await _contribution_count(again.pool)
        assert len(counts) == 8 and set(counts.values()) == {1}     # the 4 rounds before, nothing else
    finally:
        await again.close()
        await t.proxy.close()


async def test_a_rewound_round_counter_loses_no_contribution(tmp_path, pg_dsn):
    """A checkpoint whose snapshot rewinds the round counter (as a forged one would) passes the
    start check, then plays round ids the pool has: each round's contributions carry its own round
    key, so the pool refuses them (14.13, with the reason) instead of answering with the old split."""
    t = await _open(tmp_path, pg_dsn, "T01")
    try:
        await _rounds(t, 2)
        await t.until(lambda: not t.core.pool.undelivered)
        snapshot = t.core.snapshot()
    finally:
        await t.close()
    journal = Journal.open(tmp_path / "T01.db")
    journal.checkpoint({**snapshot, "round_no": 0, "round": None, "rounds_finished": 0, "notes": NOTES_VERSION})
    journal.close()
    again = LinkedTable(tmp_path, "T01", t.proxy)
    try:
        await again.start(setup=False)
        await again.feed("shuffler.shuffled", deck="A")
        await again.feed("shuffler.shuffled", deck="B")
        played = await again.whole_round()
        assert played == "T01-000001"                              # an id the pool already has
        await again.until(lambda: "pool" in again.core.equipment.faults)
        assert "the pool holds another round with this id" in again.core.equipment.faults["pool"]
        assert not [r for r in again.records("pool.contributed")
                    if r.payload["round_id"] == played and r.seq > journal_head(again, played)]
        assert _owed(again) == 2
        counts = await _contribution_count(again.pool)
        assert len(counts) == 4 and set(counts.values()) == {1}
    finally:
        await again.close()
        await t.proxy.close()


def journal_head(t: LinkedTable, round_id: str) -> int:
    """The record that opened the latest round with this id."""
    return [r.seq for r in t.records("round.started") if r.round_id == round_id][-1]


async def test_the_link_back_after_an_outage_raises_no_second_fault_14_13(tmp_path, pg_dsn):
    """The meter feed notices the outage and, when the pool is back, clears the fault; the next
    pool operation must not then fail on a connection that sat idle through the outage."""
    t = await _open(tmp_path, pg_dsn, "T01")
    try:
        await t.whole_round()
        await t.until(lambda: not t.core.pool.undelivered)
        t.proxy.cut()                                              # between operations: only the feed sees it
        await t.until(lambda: "pool" in t.core.equipment.faults)
        t.proxy.restore()
        await t.until(lambda: not t.core.equipment.faults)
        await t.whole_round()                                      # its contributions on the pool
        await t.until(lambda: not t.core.pool.undelivered)
        assert [r.payload["equipment"] for r in t.records("fault.raised")] == ["pool"]   # once
        assert not t.core.equipment.faults
        await _delivered_once(t)
    finally:
        await t.close()
        await t.proxy.close()


# -- reconcile sees what the table still owes ---------------------------------------------------------


async def test_reconcile_lists_owed_and_in_flight_contributions_and_the_next_start_delivers_them(
        tmp_path, pg_dsn, capsys):
    """The inspector runs `tabled pool reconcile` before approving normal play after a failover:
    contributions taken at the lock while the pool was out of reach are owed (they live in the
    journal's state until delivered), and one the pool took just before the daemon stopped, its
    answer never journaled, is in flight; the report names both and says the next start settles them."""
    from tabled.cli import main
    from tabled.pool.rounds import round_key
    t = await _open(tmp_path, pg_dsn, "T01")
    try:
        await t.whole_round()
        await t.until(lambda: not t.core.pool.undelivered)
        await t.bets_placed()
        held = t.round.round_id
        t.proxy.cut()
        await t.dealt(PLAIN)                                       # the lock: both contributions owed
        await t.until(lambda: "pool" in t.core.equipment.faults)
        key = round_key(t.journal, held)
    finally:
        await t.close()
    pool = await PostgresPool.open(pg_dsn, "main", "T01")
    await pool.contribute("T01", held, 1, WAGER, round_key=key)   # taken, the answer lost with the daemon
    await pool.close()
    from tabled.daemon.config import DEFAULT_TOML
    table_config = tmp_path / "table.toml"                         # the fold that derives what is owed
    table_config.write_text(DEFAULT_TOML)                          # needs the table's own settings
    args = ["pool", "reconcile", "--config", str(table_config), "--dsn", pg_dsn, "--table", "T01",
            "--journal", str(t.journal.path)]
    assert await asyncio.to_thread(main, args) == 1
    out = capsys.readouterr().out
    assert "STILL OWED TO THE POOL" in out
    assert "owed: 1 contribution on $1.00 of progressive wagers" in out and f"round {held} spot 3" in out
    assert f"its answer not yet in the journal (the daemon stopped first): round {held} spot 1: the next start" \
           " records it" in out
    assert "in the pool, not in the journal:" not in out
    again = LinkedTable(tmp_path, "T01", t.proxy)
    t.proxy.restore()
    try:
        await again.start(setup=False)                             # the next start delivers both, once
        await again.until(lambda: not again.core.pool.undelivered and not again.core.equipment.faults)
        counts = await _contribution_count(again.pool)
        assert counts[("T01", held, 1)] == counts[("T01", held, 3)] == 1
    finally:
        await again.close()
        await t.proxy.close()
    assert await asyncio.to_thread(main, args) == 0
    assert "the journal and the pool agree" in capsys.readouterr().out


# -- the pool cannot be reached when the daemon starts (14.13: unplayable rather than wrong) ------------


async def _contribution_count(pool: PostgresPool) -> dict[tuple[str, str, int], int]:
    """The pool's contribution rows by (table, round, spot): each key must appear once."""
    counts: dict[tuple[str, str, int], int] = {}
    for e in await pool.ledger(1000):
        if e.kind == "contribution":
            key = (e.table_id, e.round_id, e.spot)
            counts[key] = counts.get(key, 0) + 1
    return counts


async def test_started_with_the_pool_unreachable_it_runs_under_14_13_until_it_connects(tmp_path, pg_dsn):
    proxy = await LinkProxy(pg_dsn).start()
    proxy.cut()                                                   # the pool database is out of reach
    t = LinkedTable(tmp_path, "T01", proxy)
    try:
        await t.start(pool_up=False)                              # the daemon starts all the same
        assert not t.pool.ready and "pool" in t.core.equipment.faults
        raised = t.records("fault.raised")
        assert [r.payload["equipment"] for r in raised] == ["pool"]  # journaled, once
        assert "cannot reach the pool database" in raised[0].payload["reason"]
        assert raised[0].payload["rule"] == "14.13"
        assert t.round is None                                     # open, decks ready: still no round
        await t.feed("panel", action="approve_play", key="dealer")
        await t.feed("panel", action="approve_play", key="supervisor")
        assert t.round is None and not t.records("round.started")  # only an inspector's key
        await t.feed("panel", action="approve_play", key="inspector")
        assert t.round is not None and t.round.progressive_offline  # progressive acceptance locked
        assert t.meter_offline[-1]                                   # the meter: "progressive offline"
        await t.until(lambda: t.round.phase == "betting")
        await t.feed("wager", spot=1, area="ante", cents=500)
        await t.feed("wager", spot=1, area="progressive", cents=WAGER)
        assert any(say.rule == "14.13" and "progressive is offline" in say.text for say in t.says)
        await t.feed("wager", spot=1, area="progressive", cents=0)  # the dealer has it taken back
        for _ in range(2):                                          # two rounds played, progressive offline
            rid = await t.whole_round(progressive=False)
            assert [r.payload["progressive_offline"] for r in t.records("round.started") if r.round_id == rid] == [True]
        assert not t.records("pool.contributed") and not t.core.pool.undelivered
        assert t.core.pool.cents is None and not t.meter_shown     # never a number the pool did not give
        proxy.restore()                                             # the link comes up
        await t.until(lambda: not t.core.equipment.faults)
        assert t.pool.ready                                         # schema created, pool opened at its reset
        assert t.records("fault.cleared")[-1].payload == {"equipment": "pool"}
        await t.until(lambda: t.core.pool.cents == SETTINGS.reset_cents)  # the meter shows the pool
        assert t.meter_shown[-1] == SETTINGS.reset_cents and not t.meter_offline[-1]
        assert t.round is not None and not t.round.progressive_offline
        rid = await t.whole_round()                                 # progressive wagers again
        await t.until(lambda: not t.core.pool.undelivered)
        await _delivered_once(t)
        share = WAGER * PROFILE.contribution_basis_points // 10_000
        assert await _contribution_count(t.pool) == {("T01", rid, 1): 1, ("T01", rid, 3): 1}
        balance = await t.pool.balance()
        assert balance == SETTINGS.reset_cents + 2 * share
        await t.until(lambda: t.core.pool.cents == balance)
    finally:
        await t.close()
        await proxy.close()


async def test_restarted_while_the_pool_is_unreachable_contributions_are_delivered_once(tmp_path, pg_dsn):
    """A restart during the link loss (docs/settlement.md: contributions already made stay in the journal and
    are delivered exactly once when the link returns)."""
    proxy = await LinkProxy(pg_dsn).start()
    t = await LinkedTable(tmp_path, "T01", proxy).start()
    try:
        first = await t.whole_round()                             # the link is up
        await t.bets_placed()
        held = t.round.round_id
        proxy.cut()
        await t.dealt(PLAIN)                                       # no more bets: the contributions are journaled
        await t.until(lambda: "pool" in t.core.equipment.faults)
        assert held in {e.op.round_id for e in t.core.pool.undelivered.values()}
    finally:
        await t.close()                                            # the daemon stops with the link down
    t = LinkedTable(tmp_path, "T01", proxy)
    try:
        await t.start(pool_up=False, setup=False)                  # ...and starts again, still down
        assert "pool" in t.core.equipment.faults and not t.pool.ready
        assert len(t.records("fault.raised")) == 1                 # the standing fault, not a second one
        await t.decided()                                          # the round in play finishes
        await t.revealed()
        await t.settled()
        await t.next_deck_shuffled()
        assert t.round is None                                     # no new round without the inspector
        await t.feed("panel", action="approve_play", key="inspector")
        assert t.round.progressive_offline and t.meter_offline[-1]
        offline = await t.whole_round(progressive=False)
        assert held in {e.op.round_id for e in t.core.pool.undelivered.values()}  # still waiting for the pool
        proxy.restore()
        await t.until(lambda: not t.core.equipment.faults and not t.core.pool.undelivered)
        assert t.records("fault.cleared")[-1].payload == {"equipment": "pool"}
        await _delivered_once(t)
        counts = await _contribution_count(t.pool)
        assert counts == {("T01", rid, spot): 1 for rid in (first, held) for spot in (1, 3)}
        assert not any(rid == offline for _, rid, _ in counts)
        balance = await t.pool.balance()
        share = WAGER * PROFILE.contribution_basis_points // 10_000
        assert balance == SETTINGS.reset_cents + 4 * share
        await t.until(lambda: t.core.pool.cents == balance)        # the meter shows the pool again
        assert t.meter_shown[-1] == balance and not t.meter_offline[-1]
    finally:
        await t.close()
        await proxy.close()


async def test_tabled_run_starts_with_the_pool_unreachable_plays_once_an_inspector_approves(tmp_path, pg_dsn):
    """The whole daemon (tabled run: devices, simulators, the simulated floor) started with its
    linked pool out of reach: it runs, the meter says "progressive offline" once an inspector
    approves, and when the pool answers every contribution arrives once and the meter shows it."""
    from tabled_drivers.meter import MeterMessage
    from tabled.commands.run import Seams, run_table
    from tests.integration.harness import FAST, POLL, Run, Discard

    proxy = await LinkProxy(pg_dsn).start()
    proxy.cut()
    cfg = _linked_config(tmp_path, proxy.dsn)
    seen: dict = {}

    async def scenario(run: Run) -> None:
        core, meter = run.core, run.devices.drivers["meter"]
        assert "pool" in core.equipment.faults and not run.table.feed.primary.ready   # started, under 14.13
        await run.until(lambda: core.hours.is_open and all(core.decks.status[d]["shuffled"] for d in "AB"))
        assert core.round is None                                   # ready to deal: no round
        run.floor.press("approve", key="inspector")                 # 14.13: the inspector approves
        await run.until(lambda: core.round is not None, act=False)
        assert core.round.progressive_offline
        await run.rounds(1)                                         # played with the progressive locked
        assert (await meter.showing()).message is MeterMessage.PROGRESSIVE_OFFLINE
        assert not [r for r in run.table.journal.records_after(0) if r.kind == "pool.contributed"]
        proxy.restore()                                             # the pool answers
        await run.until(lambda: not core.equipment.faults, act=False)
        await run.rounds(2)                                         # progressive wagers again
        await run.until(lambda: not core.pool.undelivered and core.round is not None, act=False)
        pool = run.table.feed.primary
        balance = await pool.balance()
        await run.until(lambda: core.pool.cents == balance, act=False)
        display = await meter.showing()
        assert display.message is MeterMessage.AMOUNTS and display.amounts == (balance,)
        records = list(run.table.journal.records_after(0))
        journaled = [r.payload for r in records if r.kind == "pool.contributed"]
        report = await pool.reconcile(journaled, reversed_keys=[(r.payload["round_id"], r.payload["spot"])
                                                                for r in records if r.kind == "pool.reversed"])
        seen.update(verify=await pool.verify(), reconcile=report, journaled=journaled,
                    counts=await _contribution_count(pool), balance=balance, records=records)

    try:
        run = Run(scenario)
        await run_table(cfg, 0, out=Discard(), human=True,
                        seams=Seams(state_dir=tmp_path / "dev", timing=FAST, poll_interval=POLL, hooks=run,
                                    pool_retry=0.05))
    finally:
        await proxy.close()
    assert seen["verify"].ok and seen["reconcile"].ok, seen
    assert seen["journaled"] and all(n == 1 for n in seen["counts"].values())   # each contribution once
    assert len(seen["counts"]) == len(seen["journaled"])
    share = sum(p["pool_cents"] for p in seen["journaled"])
    assert seen["balance"] == SETTINGS.reset_cents + share
    assert run.said("14.13", "inspector approved play")
    faults = [(r.kind, r.payload["equipment"]) for r in seen["records"] if r.kind.startswith("fault.")]
    assert faults == [("fault.raised", "pool"), ("fault.cleared", "pool")]   # journaled, once each
    started = [r.payload["progressive_offline"] for r in seen["records"] if r.kind == "round.started"]
    assert started[0] is True and started[-1] is False


def _linked_config(tmp: Path, dsn: str):
    import dataclasses

    from tabled.daemon.config import PoolConfig
    from tests.integration.harness import config
    pool = PoolConfig("main", "postgresql", None, dsn, SETTINGS.contribution_bp, SETTINGS.reset_cents, True)
    return dataclasses.replace(config(tmp), pools=(pool,))


async def test_a_reachable_pool_with_a_newer_schema_stops_the_start_with_one_line(tmp_path, pg_dsn):
    """Configuration, not a link failure: the daemon does not start on a pool it cannot use."""
    import psycopg

    from tabled.daemon.assemble import CannotStart, open_pools
    await (await PostgresPool.open(pg_dsn, "main", "T01", SETTINGS)).close()
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("UPDATE schema_version SET version = 999")
    with pytest.raises(CannotStart, match="schema version 999") as raised:
        await open_pools(_linked_config(tmp_path, pg_dsn))
    assert "\n" not in str(raised.value)


async def test_a_pool_reached_late_with_a_newer_schema_is_refused(tmp_path, pg_dsn):
    """Reached only after the start, a pool tabled cannot use is refused, never played on: the
    error names the schema and is a PoolError (people), not PoolUnavailable (a retry)."""
    import psycopg

    from tabled.pool.base import PoolError, PoolUnavailable
    await (await PostgresPool.open(pg_dsn, "main", "T01", SETTINGS)).close()
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("UPDATE schema_version SET version = 999")
    proxy = await LinkProxy(pg_dsn).start()
    proxy.cut()
    pool = await PostgresPool.open(proxy.dsn, "main", "T01", SETTINGS, wait_for_link=True, op_timeout=2)
    try:
        with pytest.raises(PoolUnavailable):
            await pool.balance()
        proxy.restore()
        with pytest.raises(PoolError, match="schema version 999") as raised:
            await pool.balance()
        assert not isinstance(raised.value, PoolUnavailable) and not pool.ready
        with pytest.raises(PoolError, match="schema version 999"):
            await anext(pool.subscribe_meter())                # the meter feed: the same error
    finally:
        await pool.close()
        await proxy.close()

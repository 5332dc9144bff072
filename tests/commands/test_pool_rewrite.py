"""A local pool rewritten consistently behind the daemon's back: ``tabled pool reconcile`` compares
every amount and balance the pool answered, as the sealed journal holds them, with the pool's
ledger as it now is (docs/settlement.md "The ledger proves the meter")."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tabled.cli import main
from tabled.journal.store import Journal
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.pool.local import LocalPool
from tabled.table.poolbook import result_as_dict

from tests.pool.test_contract import MAIN, NSW
from tests.pool.tamper import rewrite


async def _play(pool: LocalPool, journal: Journal) -> None:
    """Rounds as the daemon plays them (tabled/daemon/poolfeed.py): each answer of the pool
    journaled, the balance read after it, and the meter's readings."""
    async def meter() -> None:
        m = await pool.meter()
        journal.append("pool.meter", {"balance_cents": m.balance_cents, "seq": m.seq, "change": m.kind})

    await meter()
    for n in range(1, 6):
        rid = f"R{n}"
        key = journal.append("round.started", {"round_id": rid}, round_id=rid).hash
        done = await pool.contribute_round("T01", rid, {1: 100, 4: 100, 7: 100}, round_key=key)
        balance = await pool.balance()
        for c in done:
            journal.append("pool.contributed", {"round_id": rid, "spot": c.spot, "wager_cents": c.wager_cents,
                                                "pool_cents": c.pool_cents, "retained_cents": c.retained_cents,
                                                "pool": "main", "balance_cents": balance}, round_id=rid)
        await meter()
    result = await pool.apply_awards("T01", "R5", [ProgressiveHit(7, Category.STRAIGHT_FLUSH)], NSW)
    journal.append("pool.awards", {"round_id": "R5", "result": result_as_dict(result), "pool": "main"}, round_id="R5")
    await meter()
    back = await pool.reverse("T01", "R4", 4, "14.12 absent player")
    journal.append("pool.reversed", {"round_id": "R4", "spot": 4, "reversed_cents": back, "reason": "14.12",
                                     "pool": "main", "balance_cents": await pool.balance()}, round_id="R4")
    await meter()


def played_table(tmp_path: Path) -> tuple[Path, Path]:
    async def run() -> None:
        pool = await LocalPool.open(tmp_path / "pool.db", "main", "T01", MAIN)
        journal = Journal.open(tmp_path / "journal.db")
        try:
            await _play(pool, journal)
        finally:
            journal.close()
            await pool.close()
    asyncio.run(run())
    return tmp_path / "pool.db", tmp_path / "journal.db"


def _reconcile(db: Path, journal: Path, capsys) -> tuple[int, str]:
    code = main(["pool", "reconcile", "--path", str(db), "--table", "T01", "--journal", str(journal)])
    return code, capsys.readouterr().out


def test_reconcile_agrees_with_an_untouched_pool(tmp_path, capsys):
    db, journal = played_table(tmp_path)
    code, out = _reconcile(db, journal, capsys)
    assert "15 journal contributions and 25 other answers of the pool compared, to the cent" in out
    assert "the journal and the pool agree" in out and code == 0


def test_every_balance_lowered_by_100_dollars_is_found_by_reconcile(tmp_path, capsys):
    db, journal = played_table(tmp_path)
    rewrite(db, "UPDATE ledger SET balance_after_cents = balance_after_cents - 10000",
             "UPDATE ledger SET delta_cents = delta_cents - 10000 WHERE kind = 'open'",
             "UPDATE pools SET balance_cents = balance_cents - 10000",
             "UPDATE hits SET pool_before_cents = pool_before_cents - 10000,"
             " pool_after_cents = pool_after_cents - 10000")
    code, out = _reconcile(db, journal, capsys)
    assert code == 1 and "DIFFERENCES" in out
    assert "the meter read 1000000 cents at ledger row 1, the ledger now holds 990000 cents there" in out
    assert "round R4 spot 4: the pool answered a balance of" in out
    assert "round R5 awards: spot 7: paid from a pool of" in out


def test_one_contribution_raised_by_a_cent_is_found_by_reconcile(tmp_path, capsys):
    db, journal = played_table(tmp_path)
    with sqlite3.connect(db) as conn:
        seq, = conn.execute("SELECT ledger_seq FROM contributions WHERE round_id = 'R2' AND spot = 4").fetchone()
    rewrite(db, "UPDATE contributions SET pool_cents = pool_cents + 1, retained_cents = retained_cents - 1"
                 " WHERE round_id = 'R2' AND spot = 4",
             f"UPDATE ledger SET delta_cents = delta_cents + 1 WHERE seq = {seq}",
             f"UPDATE ledger SET balance_after_cents = balance_after_cents + 1 WHERE seq >= {seq}",
             "UPDATE pools SET balance_cents = balance_cents + 1",
             "UPDATE hits SET pool_before_cents = pool_before_cents + 1, pool_after_cents = pool_after_cents + 1")
    code, out = _reconcile(db, journal, capsys)
    assert code == 1
    assert "round R2 spot 4: the pool answered 70 cents to the pool, its ledger now holds 71 cents" in out
    assert "round R2 spot 4: the pool answered 30 cents retained, its ledger now holds 29 cents" in out
    assert f"at ledger row {seq + 1}" in out  # the meter read after that round

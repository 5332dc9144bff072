"""The local pool's rows chained and sealed with the journal's key (tabled/pool/chain.py): a rewrite
that keeps the ledger consistent is found by ``tabled pool verify`` alone (docs/settlement.md)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import sqlite3
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tabled.cli import main
from tabled.journal.seals import SigningKey, key_id
from tabled.game.progressive import ProgressiveHit
from tabled.game.ranking import Category
from tabled.pool import chain
from tabled.pool.local import LocalPool
from tests.pool.tamper import rewrite

from .test_contract import MAIN, NSW

LOWER_EVERY_BALANCE = (
    "UPDATE ledger SET balance_after_cents = balance_after_cents - 10000",
    "UPDATE ledger SET delta_cents = delta_cents - 10000 WHERE kind = 'open'",
    "UPDATE pools SET balance_cents = balance_cents - 10000",
    "UPDATE hits SET pool_before_cents = pool_before_cents - 10000, pool_after_cents = pool_after_cents - 10000",
)


def _key() -> SigningKey:
    private = Ed25519PrivateKey.generate()
    return SigningKey(private, key_id(private.public_key().public_bytes_raw()))


def _play(db: Path, key: SigningKey | None = None) -> None:
    async def run() -> None:
        pool = await LocalPool.open(db, "main", "T01", MAIN, signing_key=key)
        try:
            for n in range(1, 4):
                await pool.contribute_round("T01", f"R{n}", {1: 100, 4: 100})
            await pool.apply_awards("T01", "R3", [ProgressiveHit(4, Category.STRAIGHT_FLUSH)], NSW)
            await pool.reverse("T01", "R2", 1, "14.12 absent player")
        finally:
            await pool.close()
    asyncio.run(run())


def _rechain(db: Path) -> None:
    """Someone who read tabled/pool/chain.py: every link recomputed from the rows as rewritten."""
    with sqlite3.connect(db) as conn:
        head = "0" * 64
        for n, source, row_id, columns in conn.execute("SELECT n, source, row_id, columns FROM pool_chain"
                                                       " ORDER BY n").fetchall():
            values = conn.execute(f"SELECT {columns} FROM {source} WHERE rowid = ?", (row_id,)).fetchone()
            head = chain.link_hash(head, source, columns.split(","), values)
            conn.execute("UPDATE pool_chain SET hash = ? WHERE n = ?", (head, n))


def _verify(db: Path, *keys: SigningKey, tmp: Path | None = None) -> tuple[int, str]:
    argv = ["pool", "verify", "--path", str(db)]
    for i, key in enumerate(keys):
        assert tmp is not None
        pem = tmp / f"key{i}.pub"
        pem.write_bytes(key.private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo))
        argv += ["--public-key", str(pem)]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_an_untouched_pool_verifies_with_every_row_chained_and_sealed(tmp_path):
    key = _key()
    _play(tmp_path / "pool.db", key)
    code, out = _verify(tmp_path / "pool.db", key, tmp=tmp_path)
    assert code == 0 and "the ledger proves the meter" in out and "every row is the row chained" in out
    assert "not sealed" not in out and "not checked" not in out
    with sqlite3.connect(tmp_path / "pool.db") as conn:
        (links,) = conn.execute("SELECT COUNT(*) FROM pool_chain").fetchone()
        (sealed,) = conn.execute("SELECT MAX(through) FROM pool_seals").fetchone()
    assert sealed == links > 0  # every transaction ends sealed


def test_every_balance_lowered_by_100_dollars_consistently_is_found_by_verify(tmp_path):
    _play(tmp_path / "pool.db")
    rewrite(tmp_path / "pool.db", *LOWER_EVERY_BALANCE)
    code, out = _verify(tmp_path / "pool.db")
    assert code == 1 and "THE LEDGER IS NOT AS IT WAS WRITTEN" in out
    assert "the ledger row (pool main, seq 1) is not the row chained: rewritten" in out
    assert "the hits row (pool main, table_id T01, round_id R3, spot 4, hit_seq 1) is not the row chained" in out


def test_one_contribution_raised_by_a_cent_is_found_by_verify(tmp_path):
    _play(tmp_path / "pool.db")
    with sqlite3.connect(tmp_path / "pool.db") as conn:
        (seq,) = conn.execute("SELECT ledger_seq FROM contributions WHERE round_id = 'R2' AND spot = 4").fetchone()
    rewrite(tmp_path / "pool.db",
             "UPDATE contributions SET pool_cents = pool_cents + 1 WHERE round_id = 'R2' AND spot = 4",
             f"UPDATE ledger SET delta_cents = delta_cents + 1 WHERE seq = {seq}",
             f"UPDATE ledger SET balance_after_cents = balance_after_cents + 1 WHERE seq >= {seq}",
             "UPDATE pools SET balance_cents = balance_cents + 1",
             "UPDATE hits SET pool_before_cents = pool_before_cents + 1, pool_after_cents = pool_after_cents + 1")
    code, out = _verify(tmp_path / "pool.db")
    assert code == 1
    assert "the contributions row (pool main, table_id T01, round_id R2, spot 4) is not the row chained" in out
    assert f"the ledger row (pool main, seq {seq}, table_id T01, round_id R2, spot 4) is not the row chained" in out


def test_a_rewrite_with_the_chain_recomputed_is_not_the_chain_sealed(tmp_path):
    key = _key()
    _play(tmp_path / "pool.db", key)
    rewrite(tmp_path / "pool.db", *LOWER_EVERY_BALANCE)
    _rechain(tmp_path / "pool.db")
    code, out = _verify(tmp_path / "pool.db")  # no public key needed: the sealed heads are not these
    assert code == 1 and "is not the chain sealed: a row at or before it was rewritten" in out
    assert "chain link" in out and "not the row chained" not in out  # the links themselves now agree
    # the seals' heads rewritten too: only a signature of the key would pass
    with sqlite3.connect(tmp_path / "pool.db") as conn:
        for n, head in conn.execute("SELECT n, hash FROM pool_chain").fetchall():
            conn.execute("UPDATE pool_seals SET hash = ? WHERE through = ?", (head, n))
    code, out = _verify(tmp_path / "pool.db", key, tmp=tmp_path)
    assert code == 1 and f"not signed by key {key.id}: forged" in out
    code, out = _verify(tmp_path / "pool.db")
    assert f"seal signatures not checked: no public key given for key(s) {key.id} (--public-key)" in out


def test_rows_added_outside_tabled_are_named(tmp_path):
    _play(tmp_path / "pool.db")
    with sqlite3.connect(tmp_path / "pool.db") as conn:
        conn.execute("INSERT INTO contributions (pool, table_id, round_id, spot, wager_cents, pool_cents,"
                     " retained_cents, overflow_cents, ledger_seq, at) VALUES"
                     " ('main', 'T01', 'R9', 1, 100, 0, 100, 0, 1, 'now')")
    code, out = _verify(tmp_path / "pool.db")
    assert code == 1 and "the contributions table has 7 rows, the chain links 6: rows added or removed" in out


def test_a_pool_written_before_the_chain_is_chained_as_found_when_opened(tmp_path):
    _play(tmp_path / "pool.db")
    rewrite(tmp_path / "pool.db", "DROP TABLE pool_chain", "DROP TABLE pool_seals")  # as an older tabled left it
    _play(tmp_path / "pool.db")  # opened again: the rows found are chained, then play goes on
    code, out = _verify(tmp_path / "pool.db")
    assert code == 0 and "every row is the row chained" in out
    assert "(not sealed: the pool was written without the table's signing key)" in out


def test_the_daemon_seals_its_local_pool_with_the_journal_s_key(tmp_path):
    """tabled run: the key found for the journal (config or systemd's credential) seals the pool too."""
    import dataclasses

    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    from tabled.daemon.assemble import open_table
    from tabled.daemon.config import load_config
    from tests.integration.test_restart_sim import sim_config

    key = _key()
    pem = tmp_path / "journal-signing-key.pem"
    pem.write_bytes(key.private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    pem.chmod(0o600)
    cfg = load_config(sim_config(tmp_path))
    cfg = dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, signing_key=pem))

    async def start() -> None:
        opened = await open_table(cfg, tmp_path / "journal.db", clock=lambda: 1_700_000_000.0, pool_retry=1.0)
        await opened.close()
    asyncio.run(start())
    code, out = _verify(cfg.primary_pool.path, key, tmp=tmp_path)
    assert code == 0 and "every row is the row chained" in out and "not sealed" not in out, out
    with sqlite3.connect(cfg.primary_pool.path) as conn:
        assert {k for (k,) in conn.execute("SELECT DISTINCT key_id FROM pool_seals")} == {key.id}

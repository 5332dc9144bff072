"""What a table owes its pools survives a restart: the replay knows every pool the table feeds (11.5)."""

from __future__ import annotations

import dataclasses

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.table.poolbook import op_key
from tabled.journal.store import Journal
from tabled.daemon.controller import NOTES_VERSION, Table


def test_after_a_restart_an_operation_one_pool_answered_is_still_owed_to_the_other(tmp_path):
    # 11.5: a main pool and a reserve; the lock's contribution reached main, the reserve was out of
    # reach when the daemon stopped: after the restart it is still owed to the reserve
    cfg = load_config(None)
    reserve = dataclasses.replace(cfg.primary_pool, name="reserve", primary=False, path=tmp_path / "reserve.db")
    cfg = dataclasses.replace(cfg, pools=(*cfg.pools, reserve))
    rid = f"{cfg.table.id}-000001"
    snapshot = make_core(cfg, None).snapshot()
    snapshot["pool"]["undelivered"] = {op_key("contribute", rid, 1): {
        "op": "contribute", "round_id": rid, "spot": 1, "cents": 100, "reason": None, "hits": [], "done": [],
        "table_id": cfg.table.id, "hands": [], "held_since_ms": None}}
    journal = Journal.open(tmp_path / "journal.db")
    try:
        journal.checkpoint({**snapshot, "notes": NOTES_VERSION})  # as today's daemon checkpoints
        journal.append("pool.contributed", {"round_id": rid, "spot": 1, "wager_cents": 100, "pool_cents": 70,
                                            "retained_cents": 30, "pool": cfg.primary_pool.name}, round_id=rid)
        core, _, _ = Table.replay(journal, lambda snap: make_core(cfg, snap))
    finally:
        journal.close()
    assert [(op.op, op.round_id, op.spot) for op, done in core.pool.pending()] == [("contribute", rid, 1)]
    assert [done for _, done in core.pool.pending()] == [[cfg.primary_pool.name]]

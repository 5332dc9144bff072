"""A table's config opens its pool; it never changes an existing pool's settings (N.J.A.C.
13:69D-1.52: two people, ``tabled pool propose``): the daemon says so at start and plays on the
pool's recorded settings."""

from __future__ import annotations

import asyncio
import dataclasses

from structlog.testing import capture_logs

from tabled.daemon.assemble import open_pools
from tabled.daemon.config import load_config


def test_a_config_asking_for_other_pool_settings_is_told_at_start_and_not_applied(tmp_path):
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=tmp_path / f"{p.name}.db")
                                               for p in cfg.pools))
    asked = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, contribution_bp=p.contribution_bp + 100)
                                                 if p.primary else p for p in cfg.pools))
    rate = cfg.primary_pool.contribution_bp

    async def start(config) -> tuple[list, list]:
        with capture_logs() as logs:
            primary, others = await open_pools(config)
        try:
            return [(v.version, v.settings.contribution_bp, v.who) for v in await primary.settings_history()], logs
        finally:
            for pool in (primary, *others):
                await pool.close()

    versions, logs = asyncio.run(start(cfg))
    assert versions == [(1, rate, f"config:{cfg.table.id}")]
    assert [e for e in logs if e["event"] == "pool.config_differs"] == []
    versions, logs = asyncio.run(start(asked))
    assert versions == [(1, rate, f"config:{cfg.table.id}")]  # nothing recorded, nothing changed
    told = [e for e in logs if e["event"] == "pool.config_differs"]
    assert [(e["pool"], e["differs"], e["log_level"]) for e in told] == [
        (cfg.primary_pool.name, f"contribution_bp {rate + 100} (version 1: {rate})", "warning")]
    assert "tabled pool propose --who --approved-by" in told[0]["detail"]

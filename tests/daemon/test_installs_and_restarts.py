"""Installs and upgrades journaled (25 CFR 547.12: tabled/daemon/installs.py, `tabled install-record`,
packaging/install.sh) and power loss and restart journaled as such (tabled/daemon/restart.py): a
start after no clean stop says so, with the last record and how long the table was down."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from pathlib import Path

from tabled.cli import main
from tabled.daemon import installs
from tabled.daemon.restart import after_unclean_stop
from tabled.journal.store import Journal
from tabled.table.selfcheck import Integrity

T0 = 1_700_000_000.0


def record(**more) -> dict:
    return {"what": "upgrade", "result": "installed", "started": "2026-12-03T07:00:00Z",
            "ended": "2026-12-03T07:02:10Z", "version": "1.4.0", "by": "ops-lee", **more}


def test_the_install_record_command_writes_versions_the_manifests_digest_and_who(tmp_path, capsys, monkeypatch):
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes(b'{"release": "1.4.0"}')
    monkeypatch.setenv("SUDO_USER", "ops-lee")
    assert main(["install-record", "--spool", str(tmp_path / "installs"), "--started", "2026-12-03T07:00:00Z",
                 "--manifest", str(manifest), "--what", "upgrade"]) == 0
    assert "journaled at the daemon's next start" in capsys.readouterr().out
    ((_, written),) = installs.waiting(tmp_path / "installs")
    assert written["by"] == "ops-lee" and written["result"] == "installed" and written["what"] == "upgrade"
    assert written["manifest_sha256"] == hashlib.sha256(b'{"release": "1.4.0"}').hexdigest()
    assert written["started"] == "2026-12-03T07:00:00Z" and written["version"] and "structlog" in written["components"]
    assert main(["install-record", "--spool", str(tmp_path / "installs"), "--started", "yesterday"]) == 2
    assert "--started 'yesterday': an ISO 8601 time" in capsys.readouterr().err


def test_each_record_waiting_is_journaled_once_and_removed(tmp_path):
    spool = tmp_path / "installs"
    first = installs.write(spool, record())
    installs.write(spool, record(result="failed"))
    (spool / "broken.json").write_text("{not json")
    seen: list = []
    assert installs.journal_waiting(spool, lambda k, p: seen.append((k, p)), lambda _id: False) == 3
    assert sorted(p["result"] for _, p in seen) == ["failed", "installed", "unreadable"]
    assert {k for k, _ in seen} == {"software.installed"} and not list(spool.glob("*.json"))
    # a record the daemon could not remove is known by its id: journaled once
    again = installs.write(spool, record())
    known = json.loads(again.read_text())["id"]
    assert installs.journal_waiting(spool, lambda k, p: seen.append((k, p)), {known}.__contains__) == 0
    assert first.name.startswith("2026-12-03T070210Z")


def test_the_fold_notes_an_install_and_a_restart_after_an_unclean_stop():
    integrity = Integrity()
    (note, said) = integrity.take("software.installed", record(components={"structlog": "24.1.0"}), None)
    assert note.kind == "software.install" and note.payload["by"] == "ops-lee"
    assert said.text == "software upgrade installed: tabled 1.4.0 by ops-lee, ended 2026-12-03T07:02:10Z"
    (power, flag) = integrity.take("table.restarted", {"clean_stop": False, "last_seq": 41, "last_kind": "wager",
                                                       "last_time_us": 1, "down_s": 95}, None)
    assert power.kind == "power.restored" and flag.level == "flag" and "down 95 s" in flag.text
    assert integrity.take("table.stopped", {"rounds_finished": 3}, None) == [] and not integrity


def test_a_journal_that_does_not_end_with_a_clean_stop_is_a_restart_after_one(tmp_path):
    with Journal.open(tmp_path / "j.db", clock=lambda: T0) as journal:
        assert after_unclean_stop(journal, int(T0 * 1e6)) is None  # a new journal: nothing to say
        journal.append("config.started", {})
        assert after_unclean_stop(journal, int(T0 * 1e6)) is None  # a start that never played
        journal.append("wager", {"spot": 1, "area": "ante", "cents": 500})
        journal.checkpoint({"state": 1})
        restarted = after_unclean_stop(journal, int((T0 + 95) * 1e6))
        assert restarted == {"clean_stop": False, "last_seq": 2, "last_kind": "wager",
                             "last_time_us": int(T0 * 1e6), "down_s": 95}
        journal.append("table.stopped", {"rounds_finished": 0})
        journal.append("tick", {})  # the stop's own, after the mark
        assert after_unclean_stop(journal, int((T0 + 95) * 1e6)) is None


def _start(tmp_path: Path, at: float) -> None:
    from tabled.daemon.assemble import open_table
    from tabled.daemon.config import load_config
    from tests.integration.test_restart_sim import sim_config
    cfg = load_config(sim_config(tmp_path))
    cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, id="T01"))

    async def run():
        opened = await open_table(cfg, tmp_path / "journal.db", clock=lambda: at, pool_retry=1.0)
        await opened.close()
    asyncio.run(run())


def test_a_start_journals_the_installs_waiting_and_a_restart_after_a_power_loss(tmp_path):
    _start(tmp_path, T0)
    with Journal.open(tmp_path / "journal.db", clock=lambda: T0 + 1) as journal:
        journal.append("wager", {"spot": 1, "area": "ante", "cents": 500})  # and then the power went
    installs.write(installs.spool_of(tmp_path / "journal.db"), record())
    _start(tmp_path, T0 + 600)
    with Journal.open(tmp_path / "journal.db", readonly=True) as journal:
        kinds = [r.kind for r in journal.records_after(0)]
        (restarted,) = [r for r in journal.records_after(0) if r.kind == "table.restarted"]
        (installed,) = [r for r in journal.records_after(0) if r.kind == "software.installed"]
    assert restarted.payload["last_kind"] == "wager" and restarted.payload["down_s"] == 599
    assert installed.payload["version"] == "1.4.0" and installed.payload["by"] == "ops-lee"
    assert kinds.index("table.restarted") < kinds.index("software.installed")
    assert not list(installs.spool_of(tmp_path / "journal.db").glob("*.json"))

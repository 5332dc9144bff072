"""`tabled compliance` (tabled/daemon/compliance.py): each requirement with its source, evidence and
PASS or FAIL, read from a table that played (its journal, its continual checks, its seals), the
config, the staff list and the pages' address."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tabled.cli import main
from tabled.daemon import compliance
from tabled.daemon.clock import ntp_state
from tabled.journal.store import Journal
from tabled.daemon.config import load_config
from tabled.daemon.staff import Person, StaffConfig
from tabled.commands.run import Seams, run_table
from tests.integration.harness import FAST, HANG_BOUND_S, POLL, Discard, Run, config


def by_requirement(findings) -> dict[str, compliance.Finding]:
    return {f.requirement.split(":")[0].split(";")[0]: f for f in findings}


@pytest.mark.slow
async def test_a_simulated_table_that_played_shows_its_checks_and_what_is_not_met(tmp_path):
    async def one_round(run) -> None:
        await run.rounds(1)
        await run.until(lambda: run.table.journal.last_of_kind("journal.checked") is not None, act=False,
                        timeout=HANG_BOUND_S * 4)  # its first check reads every installed file
    run = Run(one_round)
    await run_table(config(tmp_path), 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp_path / "dev", hooks=run,
                                verify_every_s=1))
    cfg = dataclasses.replace(load_config(None), journal=dataclasses.replace(load_config(None).journal,
                                                                              path=tmp_path / "journal.db"))
    found = by_requirement(compliance.check(cfg, tmp_path / "journal.db", unit=tmp_path / "no.service"))
    assert run.core.rounds_finished >= 1
    software = found["installed software verified against the signed release manifest"]
    assert not software.passed and software.evidence.startswith("development:")
    continual = found["software verified again on an interval and after significant events, each result logged"]
    assert continual.passed and "): verified" in continual.evidence
    seals = found["the journal's whole hash chain and its seals intact"]
    assert seals.passed and "seals by key" in seals.evidence
    assert found["the whole journal checked in the background after each start and daily"].passed
    assert found["the journal retained from the table's first record"].passed
    assert found["the inspector's field-tool answers"].passed
    clock = found["every clock synchronised at least every 24 hours"]
    # no central database here: measured against NTP only where the kernel says it is synchronised
    assert clock.passed == (ntp_state()["synchronized"] == "yes"), clock.evidence
    hardening = found["the unit's hardening (systemd-analyze security exposure)"]
    assert not hardening.passed and "not installed as a service" in hardening.evidence
    assert {f.nature for f in found.values()} == {"technical", "physical", "procedural"}


def test_two_badges_for_one_person_fail_and_a_page_off_the_loopback_fails(tmp_path):
    cfg = load_config(None)
    people = (Person(1001, "Alex Morgan", ("dealer",)), Person(1002, "alex morgan", ("supervisor",)))
    cfg = dataclasses.replace(cfg, staff=StaffConfig(tmp_path / "staff.toml", people),
                              screen=dataclasses.replace(cfg.screen, host="10.0.0.5"))
    badge, ageing = compliance.staff_badges(cfg)
    assert not badge.passed and badge.evidence == "more than one badge: alex morgan: [1001, 1002]"
    assert not ageing.passed
    page = compliance.pages(cfg)
    assert not page.passed and "10.0.0.5 over plain HTTP" in page.evidence
    one = dataclasses.replace(cfg, staff=StaffConfig(tmp_path / "staff.toml", people[:1]),
                              screen=dataclasses.replace(cfg.screen, host="127.0.0.1"))
    assert compliance.staff_badges(one)[0].passed and compliance.pages(one).passed


def test_the_command_prints_every_requirement_and_fails_while_one_fails(tmp_path, capsys):
    shipped = Path(__file__).resolve().parents[2] / "config"
    config = tmp_path / "sim.toml"
    config.write_text((shipped / "sim.toml").read_text().replace("../var/", "var/"))
    (tmp_path / "sim-staff.toml").write_text((shipped / "sim-staff.toml").read_text())
    assert main(["compliance", "--config", str(config), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["failed"] >= 1 and out["passed"] + out["failed"] == len(out["requirements"])
    assert all(r["result"] in ("PASS", "FAIL") and r["source"] and r["evidence"] for r in out["requirements"])
    assert main(["compliance", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "missing.toml" in capsys.readouterr().err


def test_the_clock_passes_on_a_recent_offset_within_its_bound_and_fails_on_a_standing_condition(tmp_path):
    cfg = load_config(None)
    now = [1_000_000.0]
    with Journal.open(tmp_path / "journal.db", clock=lambda: now[0]) as journal:
        assert not compliance.clock(cfg, journal).passed
        journal.append("clock.offset", {"offset_ms": -3, "against": "central", "bound_ms": 1000, "ok": True})
        found = compliance.clock(cfg, journal)
        assert found.passed and "-3 ms against central (bound 1000 ms)" in found.evidence
        now[0] += 90_000  # 25 hours without a measurement
        journal.append("tick", {})
        assert not compliance.clock(cfg, journal).passed
        journal.append("clock.offset", {"offset_ms": 1500, "against": "central", "bound_ms": 1000, "ok": False})
        journal.append("clock.fault", {"standing": True, "reason": "the clock is +1500 ms off"})
        found = compliance.clock(cfg, journal)
        assert not found.passed and found.evidence.endswith("error condition standing: the clock is +1500 ms off")


def test_pin_ages_pass_when_every_pin_is_dated_and_none_is_past_its_age(tmp_path):
    from datetime import date
    cfg = load_config(None)
    people = (Person(1001, "Alex Morgan", ("dealer",), pin_set=date(2026, 1, 10)),
              Person(1002, "Bo Chen", ("supervisor",), pin_set=date(2026, 3, 1)))
    staffed = dataclasses.replace(cfg, staff=StaffConfig(tmp_path / "staff.toml", people, max_pin_age_days=90))
    found = compliance.pin_ages(staffed, date(2026, 4, 10))
    assert found.passed and found.evidence == "2 PINs, at most 90 days; the oldest 90 days"
    late = compliance.pin_ages(staffed, date(2026, 4, 11))
    assert not late.passed and late.evidence.endswith("past it (changed at the next sign-in): badges [1001]")
    undated = dataclasses.replace(staffed, staff=StaffConfig(tmp_path / "s.toml", (Person(7, "Ana", ("dealer",)),)))
    assert "no pin_set for badges [7]" in compliance.pin_ages(undated, date(2026, 4, 11)).evidence


def test_the_pools_settings_pass_only_with_a_second_persons_approval(tmp_path, capsys):
    import asyncio
    from tabled.pool.local import LocalPool
    from tabled.pool.settings import PoolSettings
    path = tmp_path / "pool.db"

    async def create() -> None:
        pool = await LocalPool.open(path, "main", "T01", PoolSettings(5000, 1_000_000), who="config:T01")
        await pool.close()
    asyncio.run(create())
    cfg = load_config(None)
    cfg = dataclasses.replace(cfg, pools=tuple(dataclasses.replace(p, path=path, contribution_bp=5000,
                                                                   reset_cents=1_000_000) for p in cfg.pools))
    opened = compliance.pool_settings(cfg)
    assert opened.passed, opened.evidence  # the opening is the install's settings, not a change
    assert opened.evidence == "pool main version 1 (in force) recorded by config:T01 when the pool opened"
    assert main(["pool", "propose", "--path", str(path), "--contribution-bp", "6000", "--who", "manager Ng",
                 "--approved-by", "controller Ito", "--why", "promotion"]) == 0
    found = compliance.pool_settings(cfg)
    assert found.passed, found.evidence
    assert "version 2 (pending) recorded by manager Ng; approved by controller Ito" in found.evidence
    assert found.evidence.endswith("the config asks for contribution_bp 5000 (version 2: 6000), not applied: a change "
                                   "is proposed and approved by two people (tabled pool propose)")

    async def one_person() -> None:
        pool = await LocalPool.open(path, "main", "T01")
        await pool.propose_settings(PoolSettings(7000, 1_000_000), "manager Ng", "alone")
        await pool.close()
    asyncio.run(one_person())
    alone = compliance.pool_settings(cfg)
    assert not alone.passed
    assert "version 3 (pending) recorded by manager Ng: no second person's approval" in alone.evidence


def test_installs_and_restarts_are_read_from_the_journal(tmp_path):
    with Journal.open(tmp_path / "journal.db", clock=lambda: 1_000_000.0) as journal:
        assert not compliance.installs_logged(journal).passed and not compliance.restarts_logged(journal).passed
        journal.append("software.install", {"what": "install", "result": "installed", "version": "1.4.0",
                                            "by": "ops-lee", "started": "s", "ended": "e", "components": {"a": "1"},
                                            "manifest_sha256": "ab" * 32})
        journal.append("table.stopped", {"rounds_finished": 0})
        journal.append("power.restored", {"last_seq": 2, "down_s": 95})
        found = compliance.installs_logged(journal)
        assert found.passed and "install of tabled 1.4.0 installed by ops-lee, s to e, 1 components" in found.evidence
        restarts = compliance.restarts_logged(journal)
        assert restarts.passed and restarts.evidence.endswith("down 95 s")

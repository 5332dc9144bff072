"""A simulated session with the simulated table's staff list (config/sim-staff.toml): the simulated
dealer signs in at the panel before the first round, the supervisor and the inspector when they act,
every privileged action in the journal carries a person, every round its dealer, five wrong PINs
lock a badge (journaled), and ``tabled recall`` shows the names from the journal alone."""

from __future__ import annotations

import pytest

import dataclasses
from pathlib import Path

from tabled.cli import main
from tabled.commands.run import Seams, run_table
from tabled.daemon.staff import read_staff
from tabled.sim.players import SIMULATED_STAFF
from tests.integration.harness import FAST, POLL, Discard, Run, config, journal_records, sign_in_paced

ROOT = Path(__file__).resolve().parents[2]
NAMES = {1001: "Sim Dealer", 2001: "Sim Supervisor", 3001: "Sim Inspector"}


async def play_staffed(tmp: Path, scenario) -> Run:
    run = Run(scenario)
    cfg = dataclasses.replace(config(tmp), staff=read_staff(ROOT / "config" / "sim-staff.toml", 5, 15))
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp / "dev", hooks=run))
    return run


@pytest.mark.slow
async def test_a_recorded_simulated_session_names_a_person_for_every_privileged_action(tmp_path, capsys):
    async def scenario(run: Run) -> None:
        run.floor.plan("deciding", "void-player", "supervisor", spot=2)  # 16.3.1
        await run.rounds(2)
        run.floor.press("approve", key="inspector")  # signs in first; nothing to approve is said and journaled
        await run.until(lambda: run.core.staff.on.get("inspector") == 3001, act=False)
        for _ in range(5):  # someone trying PINs on the inspector's badge, at a pace the panel has checked
            await sign_in_paced(run, tmp_path, 3001, "86429753")
        await run.until(lambda: 3001 in run.core.staff.locked_until, act=False)

    await play_staffed(tmp_path, scenario)
    records = journal_records(tmp_path)
    kinds = [r.kind for r in records]
    # the list a start runs with is journaled before any sign-in, the dealer signs in before round 1
    assert kinds.index("staff.roster") < kinds.index("staff.sign_in") < kinds.index("round.started")
    roster = next(r for r in records if r.kind == "staff.roster").payload
    assert {p["badge"]: p["name"] for p in roster["people"]}[1001] == "Sim Dealer"
    assert "pin" not in str(roster) and "scrypt" not in str(roster)
    signed_in = [(r.payload["role"], r.payload["badge"]) for r in records if r.kind == "staff.signed_in"]
    assert signed_in[:2] == [("dealer", 1001), ("supervisor", 2001)] and ("inspector", 3001) in signed_in
    # every privileged action carries the person signed in to its key
    privileged = [r.payload for r in records if r.kind == "panel.approved"]
    assert {p["action"] for p in privileged} >= {"open_table", "void_player", "approve_play"}
    for p in privileged:
        assert p["person"] == SIMULATED_STAFF[p["key"]][0] and p["name"] == NAMES[p["person"]], p
    # every round carries its dealer
    started = [r.payload for r in records if r.kind == "round.started"]
    settled = [r.payload for r in records if r.kind == "round.settled"]
    assert len(settled) >= 2 and all(p["dealt_by"] == 1001 and p["dealt_by_name"] == "Sim Dealer"
                                     for p in started)
    # five wrong PINs in a row: counted, then the badge locked for 15 minutes from the fifth
    wrong = [r for r in records if r.kind == "staff.refused" and r.payload["badge"] == 3001]
    assert [r.payload["wrong_pins"] for r in wrong] == [1, 2, 3, 4, 5]
    (locked,) = [r for r in records if r.kind == "staff.locked"]
    assert locked.payload["until_ms"] - locked.payload["since_ms"] == 15 * 60_000
    assert [r.payload["pin_ok"] for r in records if r.kind == "staff.sign_in" and r.payload["badge"] == 3001] \
        == [True] + [False] * 5

    capsys.readouterr()
    assert main(["recall", "--journal", str(tmp_path / "journal.db"), "--last", "3"]) == 0
    out = capsys.readouterr().out
    assert "  dealt by Sim Dealer (badge 1001)" in out
    assert "  supervisor Sim Supervisor (badge 2001): void_player" in out
    assert main(["report", "day", "--journal", str(tmp_path / "journal.db")]) == 0
    out = capsys.readouterr().out
    assert "key actions by person: " in out and "supervisor Sim Supervisor (badge 2001): " in out
    assert "inspector Sim Inspector (badge 3001): approve_play 1" in out

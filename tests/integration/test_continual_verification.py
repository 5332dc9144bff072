"""The software checked again while the whole table plays (tabled/daemon/watchdog.py in its worker
process, tabled/table/selfcheck.py in the fold): one byte changed in the checked tree stops new
rounds (14.13) within the interval; the inspector's APPROVE clears it once the files verify again."""

from __future__ import annotations

import shutil

import pytest

from tabled.commands.run import Seams, run_table
from tabled.views.screen import screen_view

from .harness import FAST, HANG_BOUND_S, POLL, Discard, Run, config, journal_records

pytestmark = pytest.mark.slow


async def test_a_byte_changed_while_playing_stops_new_rounds_until_the_inspector_clears_it_14_13(tmp_path):
    import tabled.game
    tree = tmp_path / "tree"
    shutil.copytree(tabled.game.__path__[0], tree / "game", ignore=shutil.ignore_patterns("__pycache__"))
    victim = tree / "game" / "ranking.py"
    original = victim.read_bytes()
    facts: dict = {}

    async def scenario(run: Run) -> None:
        await run.rounds(1)
        victim.write_bytes(original[:100] + bytes([original[100] ^ 1]) + original[101:])
        await run.until(lambda: "software" in run.core.integrity.faults)
        facts["fault"] = screen_view(run.core)["faults"]
        await run.until(lambda: run.core.round is None)  # the round in play finishes, no other starts
        facts["stopped_at"] = run.core.rounds_finished
        victim.write_bytes(original)
        await run.until(lambda: run.core.integrity.sound_again.get("software", False), act=False)
        assert run.core.round is None and run.core.rounds_finished == facts["stopped_at"]
        run.floor.press("approve", key="inspector")
        await run.until(lambda: not run.core.integrity.faults)
        await run.rounds(1)

    run = Run(scenario)
    await run_table(config(tmp_path), 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp_path / "dev", hooks=run,
                                watch_tree=tree, verify_every_s=0.5))
    (fault,) = [f for f in facts["fault"] if f["id"] == "equipment:software"]
    assert fault["what"].endswith("changed: game/ranking.py") and fault["rule"] == "14.13"
    checks = journal_records(tmp_path, "software.checked")
    assert any(r.payload.get("problems") == ["changed: game/ranking.py"] for r in checks)
    assert {r.payload.get("reason") for r in checks} >= {"start", "interval"}
    raised = next(r.seq for r in journal_records(tmp_path, "fault.raised") if r.payload["equipment"] == "software")
    cleared = next(r.seq for r in journal_records(tmp_path, "fault.cleared") if r.payload["equipment"] == "software")
    assert not [r for r in journal_records(tmp_path, "round.started") if raised < r.seq < cleared]
    assert journal_records(tmp_path, "journal.checked")[0].payload["result"] == "intact"


async def test_the_table_pc_enclosure_door_stops_new_rounds_and_its_closing_checks_the_files_again_14_13(tmp_path):
    facts: dict = {}

    async def scenario(run: Run) -> None:
        await run.rounds(1)
        run.sims.panel.enclosure_door("table_pc", True)
        await run.until(lambda: "table_pc" in run.core.enclosures.open)
        await run.until(lambda: run.core.round is None)
        facts["stopped_at"] = run.core.rounds_finished
        run.sims.panel.enclosure_door("table_pc", False)
        await run.until(lambda: "table_pc" in run.core.enclosures.closed_unacknowledged, act=False)
        assert run.core.round is None and run.core.rounds_finished == facts["stopped_at"]
        run.floor.press("approve", key="inspector")
        await run.until(lambda: not run.core.enclosures)
        await run.rounds(1)

        def checked_after_the_door() -> bool:
            last = run.table.journal.last_of_kind("software.checked")
            return last is not None and "an enclosure door closed" in str(last.payload.get("reason"))
        # the check the door's closing asked for (it reads every installed file)
        await run.until(checked_after_the_door, act=False, timeout=HANG_BOUND_S * 4)

    run = Run(scenario)
    await run_table(config(tmp_path), 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp_path / "dev", hooks=run))
    kinds = [r.kind for r in journal_records(tmp_path)
             if r.kind in ("enclosure.opened", "enclosure.closed", "enclosure.acknowledged")]
    assert kinds == ["enclosure.opened", "enclosure.closed", "enclosure.acknowledged"]
    reasons = [r.payload.get("reason") for r in journal_records(tmp_path, "software.checked")]
    # the start's own check, then the first continual one, which the door's closing brought forward
    assert reasons[0] is None and "an enclosure door closed" in reasons[1]

"""Device faults end to end, each handled by its rule: 15.1 jam, 15.2 shuffler failure in a round,
5.6 past posting seen by the board, 14.13 the meter stops answering or the bet-spot board is lost."""

from __future__ import annotations

import pytest

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

from tabled.sim.table import SimulatedTable
from tests.integration.harness import FAST, journal_records, play
from tests.integration.test_restart_sim import ROOT, child_env, sim_config, simulator_children, tabled_argv


async def test_shuffler_jam_is_reshuffled_15_1(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.sims.control("shuffler").call("plan_shuffle", jam_at=23)  # the next shuffle jams
        await run.rounds(3)
        seen = await run.sims.control("shuffler").call("commands_seen")
        assert seen.count("shuffle") >= 2 + 3 + 1  # both decks, one per round, and the reshuffle

    run = await play(tmp_path, scenario)
    faults = journal_records(tmp_path, "shuffler.fault")
    assert [f.payload["fault"] for f in faults] == ["jam"]
    assert run.said("15.1", "jam")
    assert all(r.payload["void"] is None for r in journal_records(tmp_path, "round.settled"))


@pytest.mark.slow
async def test_shuffler_failing_mid_round_voids_it_15_2_1_and_play_continues_15_2_2(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        # the door opens after the third hand of the next deal: the device stops delivering
        shuffler = run.sims.control("shuffler")
        await run.phase("betting")
        run.floor.spare_shuffler = False
        await shuffler.call("door_open_after", hands=3)
        await run.phase("dealing")
        await run.until(lambda: run.core.round.deliveries == 3, act=False)
        await asyncio.sleep(0.1)
        assert run.core.round.deliveries == 3 and run.core.round.phase == "dealing"
        # the device dies with the deck in play: a new device session has not got it (15.2)
        await run.sims.unplug("shuffler")
        await run.sims.replug("shuffler")
        await run.until(lambda: run.core.round is None, act=False)
        assert run.core.decks.shuffler_failed
        run.floor.spare_shuffler = True  # 15.2.2: a supervisor brings another device, new cards
        await run.rounds(2)

    run = await play(tmp_path, scenario)
    voids = journal_records(tmp_path, "round.void")
    assert len(voids) == 1 and voids[0].payload["rule"] == "15.2.1"
    assert all("returned_cents" in s for s in voids[0].payload["spots"])  # every wager returned
    reversed_ = journal_records(tmp_path, "pool.reversed")
    assert {r.payload["spot"] for r in reversed_} == {1, 3, 4, 6, 7}  # contributions reversed
    assert run.said("15.2.2")
    privileged = [a.payload["action"] for a in journal_records(tmp_path, "panel.approved")
                  if a.payload["key"] != "dealer"]
    assert privileged[-1] == "use_card_source"


async def test_progressive_wager_added_after_the_lock_is_past_posting_5_6(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.phase("deciding")
        # spot 2 (no progressive this round) slides a progressive chip in after "no more bets"
        await run.sims.control("betspots").call("place", spot=2, progressive=100)
        await run.devices.drivers["betspots"].poll()
        await run.until(lambda: run.core.round.spots[2].past_posting is not None, act=False)
        await run.phase("revealed")
        run.floor.press("settle_done")  # refused: the round waits for the past posting (5.6)
        await run.until(lambda: run.said("5.6", "past posting on spots [2] is not resolved"), act=False)
        assert run.core.round.phase == "revealed"
        run.floor.press("approve", key="supervisor")  # a supervisor resolves it
        await run.until(lambda: run.core.round.spots[2].past_posting is None, act=False)
        run.floor.press("settle_done")
        await run.rounds(1)

    run = await play(tmp_path, scenario)
    flagged = run.said("5.6", "PAST POSTING", level="flag")
    assert flagged and flagged[0].spot == 2 and "progressive changed from $0.00 to $1.00" in flagged[0].text
    assert run.said("5.6", "past posting resolved")
    settled = journal_records(tmp_path, "round.settled")[1].payload
    spot2 = next(s for s in settled["spots"] if s["spot"] == 2)
    assert not any(w.get("wager") == "progressive" and w.get("outcome") not in (None, "none")
                   for w in spot2.get("wagers", []))  # settled on the wagers as locked
    approved = [a for a in journal_records(tmp_path, "panel.approved") if a.payload["key"] != "dealer"]
    assert approved[-1].payload["action"] == "resolve_past_posting" and approved[-1].payload["key"] == "supervisor"


async def test_meter_stops_answering_no_new_round_until_an_inspector_approves_14_13(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.phase("deciding")
        await run.sims.control("meter").call("silent", on=True)  # "the meter stops answering"
        await run.until(lambda: "meter" in run.core.equipment.faults, act=False)
        rid = run.core.round_id
        await run.until(lambda: run.core.round is None)  # the round in play may finish...
        assert run.core.rounds_finished == 2 and journal_records_count(run, rid)
        run.floor.press("approve", key="dealer")  # ...but the dealer cannot start the next one
        await asyncio.sleep(0.3)
        assert run.core.round is None
        run.floor.press("approve", key="inspector")  # 14.13: the inspector approves
        await run.until(lambda: run.core.round is not None, act=False)
        assert run.core.round.progressive_offline  # the meter is still down: progressive offline
        await run.rounds(1)
        await run.sims.control("meter").call("silent", on=False)  # the meter answers again
        await run.until(lambda: not run.core.equipment.faults, act=False)
        await run.rounds(2)
        assert not run.core.round.progressive_offline

    run = await play(tmp_path, scenario)
    assert run.said("14.13", "meter not answering: check its cable and its power", level="flag")
    assert run.said("14.13", "inspector approved play")
    raised = journal_records(tmp_path, "fault.raised")
    assert raised[0].payload == {"equipment": "meter", "reason": raised[0].payload["reason"], "rule": "14.13"}
    assert journal_records(tmp_path, "fault.cleared")


def journal_records_count(run, round_id):
    return round_id is not None


async def test_bet_spot_board_lost_is_a_14_13_fault_and_play_recovers_when_it_is_back(tmp_path):
    """The board records the progressive wagers (2.3): losing it (its simulator process killed) is
    a 14.13 fault the dealer is told of; nothing is read from the felt while it is gone; once it
    is back the round in play goes on from the chips on the felt, and the next round waits for
    an inspector's approval."""
    async def scenario(run):
        run.floor.inspector = True  # 14.13: approves play once the round in play is over
        await run.rounds(1)
        await run.phase("betting", act=False)  # before the players put their chips down
        rid = run.core.round_id
        await run.sims.unplug("betspots")  # SIGKILL: the board's power is cut
        await run.until(lambda: "betspots" in run.core.equipment.faults, act=False)
        # what the board reported before it died (on a loaded machine a chip may be read first)
        read_before = {n: s.ante for n, s in run.core.round.spots.items()}
        await run.until(lambda: (rid, "wager") in run.floor.done)  # the players put their chips down
        await asyncio.sleep(0.3)  # the floor keeps acting on a table without its board
        r = run.core.round
        assert r.round_id == rid and r.phase == "betting"
        assert {n: s.ante for n, s in r.spots.items()} == read_before  # nothing read from a board that is gone
        await run.sims.replug("betspots")  # a new board over the same chips
        await run.until(lambda: run.core.rounds_finished >= int(rid[-6:]))
        await run.until(lambda: "betspots" not in run.core.equipment.faults)
        await run.rounds(2)

    run = await play(tmp_path, scenario)
    flagged = run.said("14.13", "bet-spot board not answering: check its cable and its power", level="flag")
    assert len(flagged) == 1
    assert run.said("14.13", "bet-spot board working again")
    kinds = [(r.kind, r.payload.get("equipment") or r.payload.get("action")) for r in journal_records(tmp_path)
             if r.kind in ("fault.raised", "fault.cleared", "panel.approved", "round.started")]
    lost = kinds.index(("fault.raised", "betspots"))
    approved = kinds.index(("panel.approved", "approve_play"), lost)
    cleared = kinds.index(("fault.cleared", "betspots"), approved)
    assert ("round.started", None) not in kinds[lost:approved]  # 14.13: no new round before the inspector
    assert cleared == approved + 1 or kinds[approved + 1:cleared] == [("round.started", None)]
    assert kinds[cleared + 1:].count(("round.started", None)) >= 2  # and play goes on
    settled = journal_records(tmp_path, "round.settled")
    assert all(s.payload["void"] is None for s in settled) and len(settled) >= 4


def _wait(cond, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.slow
def test_tabled_run_survives_its_bet_spot_board_being_killed(tmp_path):
    """``tabled run`` on the simulated table, its bet-spot board's simulator process SIGKILLed in
    play: the dealer is told of the 14.13 fault, the daemon keeps running (no traceback), and
    SIGTERM then stops it cleanly."""
    proc = subprocess.Popen(tabled_argv("run", "--config", str(sim_config(tmp_path))), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=child_env())
    records: list[dict] = []
    reader = threading.Thread(target=lambda: records.extend(json.loads(line) for line in proc.stdout
                                                            if line.startswith("{")), daemon=True)
    reader.start()
    try:
        _wait(lambda: sum(r.get("event") == "round.finished" for r in records) >= 2, 60, "two rounds")
        (board,) = [pid for pid in simulator_children(proc.pid)
                    if b"betspots" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")]
        os.kill(board, signal.SIGKILL)
        _wait(lambda: any("bet-spot board not answering: check its cable" in str(r.get("event")) for r in records)
              or proc.poll() is not None, 20, "the fault")
        time.sleep(2.0)  # the floor goes on acting on a table without its board
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
        stderr = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    assert "Traceback" not in stderr
    fault = [r for r in records if "bet-spot board not answering: check its cable" in str(r.get("event"))]
    assert len(fault) == 1 and fault[0]["rule"] == "14.13" and fault[0]["kind"] == "flag"
    assert [r.payload["equipment"] for r in journal_records(tmp_path, "fault.raised")] == ["betspots"]


async def test_shuffler_failing_while_dealing_is_15_2_and_the_failed_command_runs_once(tmp_path):
    """The device answers a hand it could not finish with DEVICE_FAULT (two cards already out):
    the round is void (15.2.1), the failed command is executed once however the link resends it,
    and play goes on with new cards (15.2.2)."""
    script = tmp_path / "shuffler.toml"
    script.write_text("fault_at_hand = 10\n")  # round 2's second hand (8 hands a round: 7 spots and the dealer)
    sims = await SimulatedTable(tmp_path / "dev", seed=1, scripts={"shuffler": str(script)}, timing=FAST).start()

    async def scenario(run):
        await run.rounds(3)
        seen = await run.sims.control("shuffler").call("commands_seen")
        assert seen.count("deliver_hand") == 8 + 2 + 8  # rounds 1 and 3, and two hands of round 2 (void)

    try:
        run = await play(tmp_path, scenario, sims=sims)
    finally:
        await sims.close()
    # the device's answer is journaled as it came; the table judged it 15.2
    refusals = journal_records(tmp_path, "shuffler.refused")
    assert [(f.payload["command"], f.payload["status"], f.payload["reason"]) for f in refusals] == [
        ("deliver_hand", "DEVICE_FAULT",
         "shuffler refused deliver_hand: DEVICE_FAULT (RuntimeError: card transport jammed at hand 10)")]
    assert not journal_records(tmp_path, "shuffler.fault")
    voids = journal_records(tmp_path, "round.void")
    assert [(v.round_id[-6:], v.payload["rule"]) for v in voids] == [("000002", "15.2.1")]
    assert run.said("15.2.2")

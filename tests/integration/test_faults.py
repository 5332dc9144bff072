"""Device faults end to end, each handled by its rule: 15.1 jam, 15.2 shuffler failure in a round,
5.6 past posting seen by the board, 14.13 the meter stops answering."""

from __future__ import annotations

import asyncio

from tests.integration.harness import journal_records, play


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
        assert run.core.shuffler_failed
        run.floor.spare_shuffler = True  # 15.2.2: a supervisor brings another device, new cards
        await run.rounds(2)

    run = await play(tmp_path, scenario)
    voids = journal_records(tmp_path, "round.void")
    assert len(voids) == 1 and voids[0].payload["rule"] == "15.2.1"
    assert all("returned_cents" in s for s in voids[0].payload["spots"])  # every wager returned
    reversed_ = journal_records(tmp_path, "pool.reversed")
    assert {r.payload["spot"] for r in reversed_} == {1, 3, 4, 6, 7}  # contributions reversed
    assert run.said("15.2.2")
    assert [a.payload["action"] for a in journal_records(tmp_path, "panel.approved")][-1] == "use_card_source"


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
    approved = journal_records(tmp_path, "panel.approved")
    assert approved[-1].payload["action"] == "resolve_past_posting" and approved[-1].payload["key"] == "supervisor"


async def test_meter_stops_answering_no_new_round_until_an_inspector_approves_14_13(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.phase("deciding")
        await run.sims.control("meter").call("silent", on=True)  # "the meter stops answering"
        await run.until(lambda: "meter" in run.core.faults, act=False)
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
        await run.until(lambda: not run.core.faults, act=False)
        await run.rounds(2)
        assert not run.core.round.progressive_offline

    run = await play(tmp_path, scenario)
    assert run.said("14.13", "meter failed", level="flag")
    assert run.said("14.13", "inspector approved play")
    raised = journal_records(tmp_path, "fault.raised")
    assert raised[0].payload == {"equipment": "meter", "reason": raised[0].payload["reason"], "rule": "14.13"}
    assert journal_records(tmp_path, "fault.cleared")


def journal_records_count(run, round_id):
    return round_id is not None

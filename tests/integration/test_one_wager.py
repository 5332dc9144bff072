"""Rule 5.8 over the real devices: the bet-spot board (its own process on a pty) reports two
separate stacks on spot 3's ante area; the daemon flags it, "no more bets" is refused until the
player makes them one wager, and the round then plays out."""

from __future__ import annotations

from tests.integration.harness import journal_records, play


async def test_two_antes_on_one_area_are_flagged_and_block_no_more_bets_5_8(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.phase("betting", act=False)
        rid = run.core.round_id
        await run.floor.step()  # the players put down their antes and progressive wagers
        ante = run.floor.players[3].ante_cents
        await run.until(lambda: run.core.round.spots[3].ante.cents == ante, act=False)
        # "spot 3 places two separate antes": the same chips, in two stacks
        await run.floor.set_board({3: {"ante": ante, "ante_stacks": 2}})
        await run.until(lambda: run.said("5.8", level="flag"), act=False)
        # the dealer calls "no more bets": refused while two wagers lie there
        await run.until(lambda: run.said("5.8", level="refused"))
        assert run.core.round_id == rid and run.core.round.phase == "betting"
        assert run.core.round.spots[3].stacks["ante"] == 2
        await run.floor.set_board({3: {"ante": ante}})  # the player puts them together: one wager
        await run.until(lambda: run.core.round.spots[3].stacks["ante"] == 1, act=False)
        run.floor.press("no_more_bets")
        await run.until(lambda: run.core.round.round_id == rid and run.core.round.phase != "betting", act=False)
        await run.rounds(1)

    run = await play(tmp_path, scenario)
    flagged = run.said("5.8", level="flag")
    assert flagged[0].spot == 3 and "2 wagers on one area" in flagged[0].text
    refused = run.said("5.8", level="refused")
    assert refused[0].spot == 3 and "correct it before 'no more bets'" in refused[0].text
    # the journal keeps what the board reported: two stacks, then one, on spot 3's ante
    read = [next(s for s in r.payload["spots"] if s["spot"] == 3)["ante"]["stacks"]
            for r in journal_records(tmp_path, "board.reading")]
    stacks = [n for i, n in enumerate(read) if i == 0 or n != read[i - 1]]
    assert 2 in stacks and stacks[-1] == 1 and stacks.index(2) < len(stacks) - 1
    settled = journal_records(tmp_path, "round.settled")
    assert len(settled) >= 2 and settled[1].payload["void"] is None

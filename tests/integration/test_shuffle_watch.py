"""The shuffle watch end to end over the simulated devices: a shuffling device that starts to cut
instead of shuffling is caught from the order it reads (15.1), the deck is reshuffled and the
supervisor told; when it goes on failing, it is taken out of play (15.2)."""

from __future__ import annotations

import json

from tabled.cli import main
from tests.integration.harness import journal_records, play


async def test_a_device_that_cuts_instead_of_shuffling_is_caught_and_the_deck_reshuffled_15_1(tmp_path, capsys):
    async def scenario(run):
        await run.rounds(2)  # both decks shuffled (and judged) twice by a working device
        await run.sims.control("shuffler").call("plan_shuffle", mixing="cut")  # the next shuffle only cuts
        await run.until(lambda: bool(run.said("15.1", "not intermixing")))
        await run.rounds(2)  # the reshuffle works: play goes on

    run = await play(tmp_path, scenario)
    alarms = journal_records(tmp_path, "shuffle.alarm")
    assert len(alarms) == 1 and alarms[0].payload["rule"] == "15.1"
    assert alarms[0].payload["rising_sequences"] <= 2  # one cut leaves two runs of the old order
    assert run.said("15.1", "not intermixing")
    assert not run.core.shuffler_failed
    deck = alarms[0].payload["deck"]
    seq = alarms[0].seq
    later = [r for r in journal_records(tmp_path, "shuffler.shuffled") if r.seq > seq and r.payload["deck"] == deck]
    assert later, "the deck was shuffled again after the alarm"
    # tabled report shuffles: each deck's shuffles judged again from the journal, with the alarm
    capsys.readouterr()
    assert main(["report", "shuffles", "--journal", str(tmp_path / "journal.db"), "--json"]) == 0
    decks = {d["deck"]: d for d in json.loads(capsys.readouterr().out)}
    assert [a["seq"] for a in decks[deck]["alarms"]] == [seq] and decks[deck]["least_tail_probability"] < 2.5e-7
    assert all(d["judged"] >= 1 for d in decks.values())


async def test_a_device_that_goes_on_cutting_is_taken_out_of_play_15_2(tmp_path):
    async def scenario(run):
        await run.rounds(2)
        shuffler = run.sims.control("shuffler")
        for _ in range(4):
            await shuffler.call("plan_shuffle", mixing="cut")
        run.floor.spare_shuffler = False  # no other device at hand: the table waits
        await run.until(lambda: run.core.shuffler_failed, act=True)

    run = await play(tmp_path, scenario)
    rules = [a.payload["rule"] for a in journal_records(tmp_path, "shuffle.alarm")]
    assert rules[:1] == ["15.1"] and rules[-1] == "15.2"
    assert run.core.shuffler_failed

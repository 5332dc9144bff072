"""The shuffle watch end to end over the simulated devices: a shuffling device that starts to cut
instead of shuffling is caught from the order it reads (15.1), the deck is reshuffled and the
supervisor told; when it goes on failing, it is taken out of play (15.2) until an inspector clears
it, and play goes on with it."""

from __future__ import annotations

import json

from tabled.cli import main
from tests.integration.harness import journal_records, play
from tests.integration.test_staff_session import play_staffed


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
    assert not run.core.decks.shuffler_failed
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


async def test_a_device_that_goes_on_cutting_is_out_of_play_until_an_inspector_clears_it_15_2(tmp_path):
    async def scenario(run):
        await run.rounds(2)
        shuffler = run.sims.control("shuffler")
        for _ in range(2):  # the next two shuffles only cut: 15.1, then 15.2
            await shuffler.call("plan_shuffle", mixing="cut")
        await run.until(lambda: run.core.decks.device_out is not None, act=True)
        assert run.core.decks.shuffler_failed
        run.floor.press("approve", key="supervisor")  # 15.2.2's "another device": not this one
        await run.until(lambda: bool(run.said("15.2", "until an inspector clears it", "refused")), act=False)
        assert run.core.decks.device_out is not None and run.core.round is None
        run.floor.inspector = True  # the inspector comes and clears it (APPROVE, inspector key)
        await run.until(lambda: run.core.decks.device_out is None)
        await run.rounds(2)  # play goes on with the device, on new cards it verifies as it shuffles

    run = await play_staffed(tmp_path, scenario)  # with the staff list: the inspector is named
    rules = [a.payload["rule"] for a in journal_records(tmp_path, "shuffle.alarm")]
    assert rules == ["15.1", "15.2"]
    (out,) = journal_records(tmp_path, "device.out_of_play")
    assert out.payload["rule"] == "15.2" and out.payload["reason"] == "not intermixing: repeated shuffle alarms"
    refusals = [r for r in journal_records(tmp_path, "panel.refused") if r.payload["rule"] == "15.2"]
    assert [(r.payload["action"], r.payload["key"]) for r in refusals] == [("use_card_source", "supervisor")]
    (cleared,) = journal_records(tmp_path, "device.cleared")
    assert cleared.seq > refusals[0].seq > out.seq
    assert cleared.payload["person"] == 3001  # the simulated staff's inspector, signed in to the key
    assert refusals[0].payload["person"] == 2001
    later = [r for r in journal_records(tmp_path, "round.started") if r.seq > cleared.seq]
    assert later and all(r.payload["card_source"] == "shuffler" for r in later)
    settled = [r for r in journal_records(tmp_path, "round.settled") if r.seq > cleared.seq]
    assert len(settled) >= 2 and not any(r.payload.get("void") for r in settled)
    assert not run.core.decks.shuffler_failed and run.core.decks.device_out is None

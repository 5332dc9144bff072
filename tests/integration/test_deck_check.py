"""Rule 3.4 over the real devices with a shuffling device whose card recognition is off (its own
process on a pty, scripted ``recognition = false``): its shuffled decks are not verified, so no
round opens until the dealer or a supervisor confirms on the panel (behind the simulated USB
backend) that they checked the deck; the check is journaled as the deck's verification."""

from __future__ import annotations

from tabled.sim.table import SimulatedTable
from tests.integration.harness import FAST, journal_records, play


async def test_without_card_recognition_the_dealers_check_on_the_panel_verifies_each_deck_3_4(tmp_path):
    script = tmp_path / "shuffler.toml"
    script.write_text("recognition = false\n")
    sims = await SimulatedTable(tmp_path / "dev", seed=1, timing=FAST, scripts={"shuffler": str(script)}).start()

    async def scenario(run):
        await run.until(lambda: run.core.decks.recognition is False, act=False)
        run.floor.press("approve", key="supervisor")  # 16.8: the table opens
        await run.until(lambda: run.core.round is not None and run.core.decks.status["A"]["shuffled"], act=False)
        assert run.core.round.phase == "preparing" and not run.core.decks.status["A"]["verified"]  # no round yet
        run.floor.press("verify_deck", key="inspector")  # 3.4 names the dealer or a game supervisor
        await run.until(lambda: run.said("3.4", "needs the dealer or supervisor key", level="refused"), act=False)
        assert run.core.round.phase == "preparing"
        run.floor.press("verify_deck")  # the dealer checked the red deck
        await run.until(lambda: run.core.round.phase == "betting", act=False)
        await run.rounds(3)  # the floor's dealer checks the blue deck when the table waits for it

    try:
        run = await play(tmp_path, scenario, sims=sims)
    finally:
        await sims.close()
    checked = [r.payload for r in journal_records(tmp_path, "deck.checked")]
    assert checked == [{"deck": "A", "key": "dealer", "rule": "3.4"}, {"deck": "B", "key": "dealer", "rule": "3.4"}]
    assert not journal_records(tmp_path, "deck.verified")  # no order from the device: nothing else verified them
    # the device's status says so once: it is news to the table only the first time
    assert [r.payload["recognition"] for r in journal_records(tmp_path, "shuffler.status")] == [False]
    settled = journal_records(tmp_path, "round.settled")
    assert len(settled) >= 3 and all(s.payload["void"] is None for s in settled)
    assert run.said("3.4", "deck B (blue backs) checked by the dealer: verified")

"""A daemon killed mid-round comes back from its journal and the devices repeat what it had not
acknowledged: the round ends exactly as in a run that never crashed."""

from __future__ import annotations

import pytest

from tabled.sim.table import SimulatedTable
from tests.crash import Crash
from tests.integration.harness import FAST, journal_records, play


@pytest.mark.slow
async def test_restart_mid_deal_devices_repeat_unacknowledged_hand(tmp_path):
    # the run that never crashed (same seeds: same shuffles, same players)
    async def two_rounds(run):
        await run.rounds(2)
    await play(tmp_path / "ref", two_rounds)
    reference = journal_records(tmp_path / "ref", "round.settled")[0].payload

    crash = tmp_path / "crash"
    sims = await SimulatedTable(crash / "dev", seed=1, timing=FAST).start()
    try:
        async def killed_after_the_third_hand_is_durable(run):
            original = run.table.journal.append_many
            hands = []

            def append_then_die(items, time_us=None):
                records = original(items, time_us)
                hands.extend(k for k, _, _ in items if k == "shuffler.hand")
                if len(hands) >= 3:
                    raise Crash("kill -9: the hand is in the journal, its ACK never left", records)
                return records
            run.table.journal.append_many = append_then_die
            await run.rounds(1)

        with pytest.raises(Crash):
            await play(crash, killed_after_the_third_hand_is_durable, sims=sims)
        before = journal_records(crash, "shuffler.hand")
        assert len(before) == 3  # the third hand is durable; the shuffler was never told

        async def resumed(run):
            await run.rounds(1)
            assert run.devices.repeats_dropped >= 1  # the shuffler sent the third hand again
        run = await play(crash, resumed, sims=sims)
    finally:
        await sims.close()

    hands = [h.payload["cards"] for h in journal_records(crash, "shuffler.hand")]
    assert len(hands) >= 8 and len({tuple(h) for h in hands[:8]}) == 8  # no hand twice
    resumed_round = journal_records(crash, "round.settled")[0].payload
    assert resumed_round == reference  # same cards, decisions and settlement as without the crash
    # the resumed table asks the pool again for round 1's contributions (keyed by table, round and
    # spot, docs/settlement.md): the pool applies each once, so its balance is the uncrashed run's
    def pool_after_round_1(path):
        recs = [c.payload for c in journal_records(path, "pool.contributed") if c.payload["round_id"] == "SIM01-000001"]
        return {c["spot"] for c in recs}, max(c["balance_cents"] for c in recs)
    assert pool_after_round_1(crash) == pool_after_round_1(tmp_path / "ref") == ({1, 3, 4, 6, 7}, 1_000_125)
    assert run.said("9.1") or run.said("9.2")

"""Every device unplugged and plugged back in every state of the round.

Serial devices: their simulator process is killed (a cable pulled or the device's power cut) and a
new one started on the same stable path: a new device session that remembers nothing. USB devices:
the simulated cable is pulled and pushed back; the device kept its state and repeats what the
daemon had not acknowledged. Whatever happens, each round either completes with a settlement or is
void by its rule with every wager returned, and the next round plays normally."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.harness import journal_records, play

PHASES = ("betting", "dealing", "deciding", "revealed", "between rounds")


def _in(run, phase):
    r = run.core.round
    if phase == "between rounds":
        return r is not None and r.phase in ("preparing", "betting") and run.core.rounds_finished > 0 \
            and r.round_id not in run.unplugged_in
    return r is not None and r.phase == phase and r.round_id not in run.unplugged_in


@pytest.mark.slow
@pytest.mark.parametrize("device", ["shuffler", "betspots", "meter", "panel", "shoe"])
async def test_unplug_and_replug_in_every_state_of_the_round(tmp_path, device):
    card_source = "shoe" if device == "shoe" else "shuffler"
    log = []

    async def scenario(run):
        run.unplugged_in = set()
        run.floor.inspector = True  # 14.13: an inspector is at hand to approve play after the meter
        await run.rounds(1)
        for phase in PHASES:
            await run.until(lambda: _in(run, phase))  # noqa: B023
            rid = run.core.round_id
            run.unplugged_in.add(rid)
            at = run.core.round.phase
            await run.sims.unplug(device)
            await asyncio.sleep(0.05)  # the world goes on without the device for a moment
            await run.sims.replug(device)
            log.append((phase, at, rid))
            await run.until(lambda: run.core.rounds_finished >= int(rid[-6:]), timeout=20)  # noqa: B023
        await run.rounds(1)  # and the table plays on normally

    run = await play(tmp_path, scenario, card_source=card_source)
    assert len(log) == len(PHASES)
    settled = {r.round_id: r.payload for r in journal_records(tmp_path, "round.settled")}
    finished = {r.round_id: r.payload for r in journal_records(tmp_path, "round.finished")}
    for _, _, rid in log:
        assert rid in finished and rid in settled
        s = settled[rid]
        if s["void"] is not None:  # only the shuffler's lost deck voids a round (15.2.1)
            assert device == "shuffler" and s["void"] and finished[rid]["phase"] == "void"
        else:
            assert len(s["dealer"]["cards"]) == 5
    last = max(settled)
    assert settled[last]["void"] is None  # the table plays on
    # no card twice in any round, whatever was repeated
    for r in journal_records(tmp_path, "round.dealt"):
        cards = [c for h in r.payload["spots"].values() for c in h.split()] + r.payload["dealer"].split()
        assert len(cards) == len(set(cards))
    if device == "meter":
        assert run.said("14.13", "meter not answering: check its cable and its power")
    if device in ("panel", "shoe"):
        assert run.devices.repeats_dropped >= 0

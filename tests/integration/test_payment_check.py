"""Payments checked by the bet-spot board on the whole table over real ports (rules 9.3, 9.4): the
simulated dealer's mistakes ([simulation.mistakes]) are shown on the board's reading and put right
before SETTLE DONE closes the round; a player picking up early is noted; an honest dealer's rounds
raise no alarm."""

from __future__ import annotations

import dataclasses

import pytest

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import Mistakes
from tests.integration import harness

ROUNDS = 6


async def checked_table(tmp, scenario, mistakes: Mistakes) -> harness.Run:
    run = harness.Run(scenario)
    cfg = harness.config(tmp)
    cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, check_payments=True),
                              simulation=dataclasses.replace(cfg.simulation, mistakes=mistakes))
    await run_table(cfg, 0, out=harness.Discard(), human=True,
                    seams=Seams(timing=harness.FAST, poll_interval=harness.POLL, state_dir=tmp / "dev", hooks=run))
    return run


@pytest.mark.slow  # rounds over real ports, each mistake put right
async def test_every_mistake_is_shown_on_the_reading_and_put_right_before_the_round_closes(tmp_path):
    async def scenario(run):
        await run.rounds(ROUNDS)

    run = await checked_table(tmp_path, scenario, Mistakes(overpay=500, forget_collect=500, wrong_spot=500,
                                                           early_pickup=1000))
    made = run.floor.paying.made
    assert made, "the dealer made no mistake in the rounds played"
    areas = harness.journal_records(tmp_path, "payments.area")
    checked = {r.round_id for r in harness.journal_records(tmp_path, "payments.checked")}
    for m in made:
        shown = [r.payload["state"] for r in areas if r.round_id == m.round_id
                 and (r.payload["spot"], r.payload["area"]) in m.areas]
        due = [a for r in harness.journal_records(tmp_path, "payments.due") if r.round_id == m.round_id
               for a in r.payload["areas"] if (a["spot"], a["area"]) in m.areas]
        # the area was not done on the dealer's pass (a forgotten collection stays as it was at settlement)
        assert any(s not in ("done", "removed early") for s in shown + [a["state"] for a in due]), m
        assert shown[-1] in ("done", "removed early") or not shown and m.kind == "forget_collect", (m, shown)
        assert m.round_id in checked                       # closed by SETTLE DONE once every area was right
    assert not harness.journal_records(tmp_path, "payments.override")
    picked = run.floor.paying.picked_up
    noted = harness.journal_records(tmp_path, "payments.removed_early")
    assert [(n.round_id, n.payload["spot"], n.payload["area"]) for n in noted] == \
        [(p.round_id, *p.areas[0]) for p in picked]


async def test_an_honest_dealers_rounds_close_at_the_first_settle_done_with_no_alarm(tmp_path):
    async def scenario(run):
        await run.rounds(ROUNDS)

    run = await checked_table(tmp_path, scenario, Mistakes())
    assert not run.floor.paying.made and run.floor.paying.corrections == 0
    assert len(harness.journal_records(tmp_path, "payments.checked")) >= ROUNDS
    assert not harness.journal_records(tmp_path, "payments.refused")
    assert not [r for r in harness.journal_records(tmp_path, "payments.area")
                if r.payload["state"] in ("over", "short", "removed early")]

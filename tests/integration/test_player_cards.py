"""Player cards end to end: the simulated card reader on the simulated USB bus, its driver, the
daemon's translation to ``player.card`` / ``player.leaves``, the fold's sessions and their rating
journaled, with ratings on in the configuration."""

from __future__ import annotations

import dataclasses

import pytest
from structlog.testing import capture_logs

from tabled.commands.run import Seams, run_table
from tabled.daemon.config import RatingsConfig
from tabled.sim.table import SimulatedTable
from tests.crash import Crash
from tests.integration import harness

pytestmark = pytest.mark.timeout(180)

CARD = "4000100010007007"


@pytest.mark.slow
async def test_a_card_read_at_a_spot_seats_the_player_and_taking_it_out_rates_the_session(tmp_path):
    async def scenario(run):
        run.sims.cards.insert(2, CARD)
        await run.until(lambda: run.core.players.at(2) is not None and run.core.players.at(2).card == CARD)
        await run.rounds(2)
        run.sims.cards.remove(2)
        await run.until(lambda: run.core.players.with_card(CARD) is None)

    run = harness.Run(scenario)
    cfg = dataclasses.replace(harness.config(tmp_path), ratings=RatingsConfig(enabled=True))
    await run_table(cfg, 0, out=harness.Discard(), human=True,
                    seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL, hooks=run))
    tracking = harness.journal_records(tmp_path, "player.tracking")
    assert [r.payload for r in tracking] == [{"on": True, "interval_minutes": 0}]
    (card,) = harness.journal_records(tmp_path, "player.card")
    assert card.payload["spot"] == 2 and card.payload["card"] == CARD and card.payload["src"].startswith("cards@")
    (rating,) = [r for r in harness.journal_records(tmp_path, "player.rating") if r.payload["card"] == CARD]
    assert rating.payload["rounds_played"] >= 2 and rating.payload["reason"] == "left"


@pytest.mark.slow
async def test_no_log_line_carries_a_whole_card_number(tmp_path):
    """The log (journald's copy) shows a card masked, whatever carried it there: the seat, the
    rating, the running figures, a card refused; the journal keeps the number whole."""
    misread = "4000-1000-1000-7007"

    async def scenario(run):
        run.sims.cards.insert(2, CARD)
        await run.until(lambda: run.core.players.at(2) is not None)
        await run.rounds(2)
        run.table.submit("player.card", {"spot": 3, "card": misread})   # a reader that sends the dashes
        run.sims.cards.remove(2)
        await run.until(lambda: run.core.players.with_card(CARD) is None)

    run = harness.Run(scenario)
    cfg = dataclasses.replace(harness.config(tmp_path), ratings=RatingsConfig(enabled=True))
    with capture_logs() as logs:
        await run_table(cfg, 0, out=harness.Discard(), human=False,   # the rounds logged as the service logs them
                        seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL,
                                    hooks=run))
    lines = [repr(entry) for entry in logs]
    events = {entry["event"] for entry in logs}
    assert {"player.seated", "player.round", "player.rating"} <= events     # the player's records were logged
    assert any("\u2022\u2022\u2022\u20227007" in line for line in lines)
    assert any("player card refused" in line and "letters and digits" in line for line in lines)
    assert [line for line in lines if CARD in line or misread in line or CARD[:12] in line] == []
    (rating,) = [r for r in harness.journal_records(tmp_path, "player.rating") if r.payload["card"] == CARD]
    assert rating.payload["rounds_played"] >= 2                            # the journal keeps it whole


@pytest.mark.slow
async def test_a_session_goes_on_across_a_daemon_killed_mid_session_and_is_rated_once(tmp_path):
    """Ratings across a restart: the daemon dies (kill -9) with the player seated; started again on
    the same journal, the session is the same one, its rounds before and after are in one rating."""
    sims = await SimulatedTable(tmp_path / "dev", seed=2, timing=harness.FAST).start()
    seen: dict = {}
    cfg = dataclasses.replace(harness.config(tmp_path), ratings=RatingsConfig(enabled=True))
    try:
        async def killed_mid_session(run):
            run.sims.cards.insert(2, CARD)
            await run.until(lambda: run.core.players.with_card(CARD) is not None)
            await run.rounds(2)
            s = run.core.players.with_card(CARD)
            seen.update(session=s.session, rounds=[list(r) for r in s.rounds])
            raise Crash("kill -9 with the player seated")

        with pytest.raises(Crash):
            await run_table(cfg, 0, out=harness.Discard(), human=True,
                            seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL,
                                        sims=sims, hooks=harness.Run(killed_mid_session)))

        async def resumed(run):
            s = run.core.players.with_card(CARD)
            assert s is not None and s.session == seen["session"] and s.rounds == seen["rounds"] and s.spot == 2
            await run.rounds(2)
            run.sims.cards.remove(2)
            await run.until(lambda: run.core.players.with_card(CARD) is None)

        await run_table(cfg, 0, out=harness.Discard(), human=True,
                        seams=Seams(state_dir=tmp_path / "dev", timing=harness.FAST, poll_interval=harness.POLL,
                                    sims=sims, hooks=harness.Run(resumed)))
    finally:
        await sims.close()
    (rating,) = [r for r in harness.journal_records(tmp_path, "player.rating") if r.payload["card"] == CARD]
    assert rating.payload["session"] == seen["session"] and rating.payload["reason"] == "left"
    assert rating.payload["rounds"][:len(seen["rounds"])] == seen["rounds"]
    assert rating.payload["rounds_played"] >= len(seen["rounds"]) + 2
    assert len(harness.journal_records(tmp_path, "player.seated")) == len(
        {r.payload["session"] for r in harness.journal_records(tmp_path, "player.seated")})   # each seated once

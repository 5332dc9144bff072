"""The log (stdout off a terminal; journald under systemd) shows nothing hidden on the felt before
the reveal (8.6): not the dealer's hole cards, not a player's hand. The journal keeps them all."""

from __future__ import annotations

import json
import re

import pytest

from tabled.daemon.report import RoundLogger
from tabled.table.effects import Note

from .test_restart_sim import Daemon, journal_of, notes, sim_config

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")


def cards_in(record: dict) -> set[str]:
    return set(CARD.findall(json.dumps(record)))


@pytest.mark.slow  # a daemon and its simulated devices play three rounds: 10 to 20 s on a busy machine
def test_the_log_holds_no_hidden_card_before_the_reveal(tmp_path):
    config = sim_config(tmp_path)
    run = Daemon(config, 3)
    assert run.returncode == 0, run.stderr[-2000:]
    dealt = {r.round_id: r.payload for r in notes(journal_of(tmp_path), "round.dealt")}
    assert len(dealt) == 3
    for round_id, deal in dealt.items():
        hidden = set(deal["dealer"].split()) - set(deal["dealer_up"])
        for hand in deal["spots"].values():
            hidden |= set(hand.split())
        assert len(hidden) == 4 + 5 * len(deal["spots"])  # the journal keeps every card dealt
        lines = [r for r in run.records if r.get("round_id") == round_id]
        reveal = next(i for i, r in enumerate(lines) if r.get("rule") in ("9.1", "9.2"))
        before = [r for r in lines[:reveal] if cards_in(r) & hidden]
        assert before == [], f"round {round_id}: hidden cards logged before the reveal: {before}"
        logged_deal = next(r for r in lines if r["event"] == "round.dealt")
        assert logged_deal["dealer_up"] == deal["dealer_up"]
        assert logged_deal["spots_dealt"] == sorted(int(s) for s in deal["spots"])
        # from the reveal the log shows the hands, as the felt does
        assert hidden <= set().union(*(cards_in(r) for r in lines[reveal:]))


def test_a_deal_logged_names_the_up_card_and_the_spots_only():
    from structlog.testing import capture_logs

    deal = Note("round.dealt", {"dealer_up": ["Kh"], "dealer": "2c 8s Qh 2d Kh",
                                "spots": {"1": "2h Jh 4s 8d 6s", "3": "7h 3d 2s 4c Jd"}}, "SIM01-000001")
    with capture_logs() as logs:
        RoundLogger()([deal])
    assert logs == [{"event": "round.dealt", "log_level": "info", "round_id": "SIM01-000001",
                     "dealer_up": ["Kh"], "spots_dealt": [1, 3]}]

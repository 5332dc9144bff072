"""``tabled report protection`` over a journal: a spot the dealer flashes the hole cards to is
flagged, with its surveillance pack (the rounds, their times and their journal records, as the
journal holds them); honest spots beside it are not; a bad option is one line."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import datetime

import numpy as np
import pytest

from tabled.cli import EX_USER, main
from tabled.journal.store import Journal
from tabled.game import ranking
from tabled.game.cards import card_text
from tabled.math import protection, strategy
from tabled.math.informed import informed_raises
from tabled.math.paytable import load_paytable

PAYTABLE = load_paytable("nsw")
START = datetime(2026, 3, 2, 12, 0).timestamp()
ROUNDS = 60
FLASHED = 2  # the dealer shows spot 2 all four hole cards; spots 1 and 3 play honestly


def texts(cards) -> list[str]:
    return [card_text(int(c)) for c in cards]


def write_journal(path) -> None:
    rng = np.random.default_rng(11)
    clock = iter(START + 0.001 * i for i in range(10**6))
    with Journal.open(path, lambda: next(clock)) as j:
        for n in range(1, ROUNDS + 1):
            rid = f"T01-{n:06d}"
            deck = [int(c) for c in rng.permutation(52)]
            hands = {1: deck[0:5], 2: deck[5:10], 3: deck[10:15]}
            dealer = deck[15:20]
            up = dealer[4]  # 7.4.2: the dealer's last card face up
            holes = dealer[:4]
            bets = {1: strategy.decide("optimal", hands[1], up), 3: strategy.decide("rules", hands[3], up),
                    2: bool(informed_raises(np.array([ranking.evaluate(hands[2])]), np.array([hands[2]]),
                                            np.array([[up, *holes]]), PAYTABLE)[0])}
            settled = {"void": None, "profile": "nsw", "dealer": {"cards": texts(dealer)},
                       "spots": [{"spot": s, "status": "played" if bets[s] else "folded", "cards": texts(hands[s])}
                                 for s in (3, 2, 1)]}
            j.append_many([("round.started", {}, rid), ("round.dealt", {"dealer_up": [card_text(up)]}, rid),
                           ("round.settled", settled, rid), ("round.finished", {"phase": "complete"}, rid)])


def report(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["report", "protection", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


@pytest.mark.slow
def test_the_flashed_spot_is_flagged_with_a_pack_that_matches_the_journal(tmp_path):
    path = tmp_path / "journal.db"
    write_journal(path)
    got = report("--journal", str(path))
    spots = {s["spot"]: s for s in got["spots"]}
    assert [s for s, v in spots.items() if v["alert"]] == [FLASHED]
    flashed = spots[FLASHED]
    assert flashed["hypothesis"] == "hole-4" and flashed["alert_round"] <= 50
    assert flashed["honest_probability"] <= protection.ALERT_ALPHA and flashed["gain_antes"]["hole-4"] > 0
    assert all(v["honest_probability"] > protection.ALERT_ALPHA for s, v in spots.items() if s != FLASHED)
    # the pack: every round's cards, decision, time and records are the journal's own
    assert flashed["pack"]
    with Journal.open(path, readonly=True) as j:
        records = {r.seq: r for r in j.records_after(0)}
    for row in flashed["pack"]:
        mine = [records[s] for s in row["records"]]
        assert {r.round_id for r in mine} == {row["round_id"]}
        assert [r.kind for r in mine] == ["round.started", "round.dealt", "round.settled", "round.finished"]
        assert row["time_us"] == mine[0].time_us
        settled = mine[2].payload
        spot, = [s for s in settled["spots"] if s["spot"] == FLASHED]
        assert row["cards"] == spot["cards"]
        assert row["decision"] == {"played": "bet", "folded": "fold"}[spot["status"]]
        assert [row["up"]] == mine[1].payload["dealer_up"]
        assert row["holes"] + [row["up"]] == settled["dealer"]["cards"]


@pytest.mark.parametrize("option, says", [
    (["--csv"], "--csv does not go with `tabled report protection`"),
    (["--shift", "1"], "--shift does not go with `tabled report protection`"),
])
def test_a_bad_option_is_one_line(capsys, tmp_path, option, says):
    path = tmp_path / "journal.db"
    with Journal.open(path, lambda: START) as j:
        j.append_many([("round.started", {}, "T01-000001")])
    assert main(["report", "protection", "--journal", str(path), *option]) == EX_USER
    out, err = capsys.readouterr()
    assert says in err and err.count("\n") == 1 and "Traceback" not in out + err


def test_a_journal_without_decisions_says_so(capsys, tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path, lambda: START) as j:
        j.append_many([("round.started", {}, "T01-000001")])
    assert main(["report", "protection", "--journal", str(path)]) == 0
    assert "no decisions in the period" in capsys.readouterr().out

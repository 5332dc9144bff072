"""``tabled report protection`` over a journal: a spot the dealer flashes the hole cards to is
flagged, with its surveillance pack (the rounds, their times with the table clock's measured
offset, and their journal records, as the journal holds them); honest spots beside it are not; a
player identified with a player card is weighed as one player across the spots they sit at and
named by the masked card; a bad option is one line."""

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
from tabled.reports import protection as protection_report

PAYTABLE = load_paytable("nsw")
START = datetime(2026, 3, 2, 12, 0).timestamp()
ROUNDS = 60
FLASHED = 2  # the dealer shows spot 2 all four hole cards; spots 1 and 3 play honestly


def texts(cards) -> list[str]:
    return [card_text(int(c)) for c in cards]


CARD = "4000100010002002"
#: the table clock's measured offsets, noted before these rounds (none before the first)
CLOCK = {21: {"offset_ms": 12, "against": "central", "bound_ms": 4, "ok": True},
         41: {"offset_ms": -250, "against": "ntp", "bound_ms": 9, "ok": False}}


def write_journal(path, moves: bool = False) -> None:
    """ROUNDS rounds; ``moves``: the flashed player holds CARD, sits at spot 2, and after round
    30 moves to spot 4 (spot 2 then honest), with clock.offset notes before rounds 21 and 41."""
    rng = np.random.default_rng(11)
    clock = iter(START + 0.001 * i for i in range(10**6))
    with Journal.open(path, lambda: next(clock)) as j:
        if moves:
            j.append_many([("player.seated", {"session": "T01-S00001", "card": CARD, "spot": 2, "moved_from": None,
                                              "anonymous": False}, None)])
        for n in range(1, ROUNDS + 1):
            rid = f"T01-{n:06d}"
            at = 4 if moves and n > 30 else FLASHED
            if moves and n == 31:
                j.append_many([("player.seated", {"session": "T01-S00001", "card": CARD, "spot": 4, "moved_from": 2,
                                                  "anonymous": False}, None)])
            if moves and n in CLOCK:
                j.append_many([("clock.offset", CLOCK[n], None)])
            deck = [int(c) for c in rng.permutation(52)]
            spots = (1, 2, 3, 4) if moves else (1, 2, 3)
            hands = {s: deck[5 * (s - 1):5 * s] for s in spots}
            dealer = deck[20:25]
            up = dealer[4]  # 7.4.2: the dealer's last card face up
            holes = dealer[:4]
            bets = {s: strategy.decide("optimal" if s % 2 else "rules", hands[s], up) for s in spots}
            bets[at] = bool(informed_raises(np.array([ranking.evaluate(hands[at])]), np.array([hands[at]]),
                                            np.array([[up, *holes]]), PAYTABLE)[0])
            settled = {"void": None, "profile": "nsw", "dealer": {"cards": texts(dealer)},
                       "spots": [{"spot": s, "status": "played" if bets[s] else "folded", "cards": texts(hands[s])}
                                 for s in reversed(spots)]}
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


@pytest.mark.slow
def test_a_carded_player_is_weighed_across_spots_and_the_pack_gives_the_clock_offset(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write_journal(path, moves=True)
    got = report("--journal", str(path))
    by_who = {s["who"]: s for s in got["spots"]}
    player = by_who["player \u2022\u2022\u2022\u20222002 (spots 2, 4)"]
    assert player["alert"] and player["hypothesis"] == "hole-4" and player["player"] == "\u2022\u2022\u2022\u20222002"
    assert player["decisions"] == ROUNDS and player["spots"] == [2, 4]
    # spot 2 without the card (rounds 31 on) and the other spots are honest, and apart
    assert not any(v["alert"] for w, v in by_who.items() if w != player["who"])
    assert by_who["spot 2"]["decisions"] == ROUNDS - 30
    with Journal.open(path, readonly=True) as j:
        started = {r.round_id: r.seq for r in j.records_after(0) if r.kind == "round.started"}
        noted = [(r.seq, r.payload) for r in j.records_after(0) if r.kind == "clock.offset"]
    assert player["pack"]
    for row in player["pack"]:
        before = [p for seq, p in noted if seq < started[row["round_id"]]]
        assert row["clock_offset"] == (before[-1] if before else None)
        assert row["spot"] == (4 if int(row["round_id"][-6:]) > 30 else 2)
    clocks = {row["clock"] for row in player["pack"]}
    assert clocks <= {"offset not measured", "table clock +12 ms against central (within 4 ms)",
                      "table clock -250 ms against ntp (within 9 ms), outside what the table allows"}
    assert len(clocks) >= 2
    # the text report names the player by the masked card, never the whole number
    assert main(["report", "protection", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "player \u2022\u2022\u2022\u20222002 (spots 2, 4): 60 decisions" in out and CARD not in out


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


@pytest.mark.parametrize("clock, says", [
    (None, "offset not measured"),
    ({"offset_ms": 0, "against": "ntp", "bound_ms": 2, "ok": True}, "table clock +0 ms against ntp (within 2 ms)"),
    ({"offset_ms": 3, "against": "central", "bound_ms": 2}, "offset unreadable (no ok)"),
    ({"offset_ms": 1.5, "against": "central", "bound_ms": 2, "ok": True},
     "offset unreadable ({'offset_ms': 1.5, 'against': 'central', 'bound_ms': 2, 'ok': True})"),
])
def test_the_packs_clock_offset_reads_the_note_or_says_what_is_wrong(clock, says):
    assert protection_report.clock_text(clock) == says

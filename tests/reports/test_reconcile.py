"""The report reconciles to the journal to the cent: every figure is summed here again, straight
from the recorded journals' rows (read from the file by tests/daemon/tamper.py, none of tabled's
reading), and compared."""

from __future__ import annotations

import contextlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from tabled.cli import main as tabled_main

from tests.conftest import SESSIONS
from tests.daemon.tamper import rows as journal_rows

EVERYTHING = ["--from", "2000-01-01T00:00", "--to", "2100-01-01T00:00"]


def tabled_json(*argv: str) -> list[dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert tabled_main(list(argv)) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def rows(path: Path, kind: str) -> list[tuple[str, dict]]:
    return [(r["round_id"], json.loads(r["payload_text"])) for r in journal_rows(path) if r["kind"] == kind]


def sums_from_rows(path: Path) -> dict:
    """Every figure the report gives on money and play, summed from the rows themselves."""
    settled = [p for _, p in rows(path, "round.settled")]
    ups = {rid: p["dealer_up"] for rid, p in rows(path, "round.dealt")}
    rid_of = [rid for rid, _ in rows(path, "round.settled")]
    money = {w: Counter() for w in ("ante", "bet", "progressive")}
    play = Counter()
    actual = 0
    total_win = 0
    for rid, st in zip(rid_of, settled):
        void = st["void"] is not None
        play["void_rounds" if void else "rounds"] += 1
        total_win += sum(s["progressive"]["placed_cents"] for s in st["spots"]) - st["net_cents"]
        for s in st["spots"]:
            for w in money:
                d = money[w]
                x = s[w]
                if x["placed_cents"]:
                    d["wagers"] += 1
                d["chips_cents"] += x["placed_cents"] - x["token_cents"]
                d["tokens_cents"] += x["token_cents"]
                d["returned_cents"] += x["returned_cents"]
                d["tokens_taken_cents"] += x["tokens_forfeited_cents"]
                if w == "progressive":
                    d["collected_cents"] += x["placed_cents"] - x["returned_cents"]
                else:
                    d["paid_cents"] += x["winnings_cents"]
                    d["collected_cents"] += x["collected_cents"]
            if not void and s["ante"]["placed_cents"] and s["status"] != "empty":
                play["hands"] += 1
                play["folds"] += s["status"] == "folded"
                play["bets"] += s["status"] == "played" and s["bet"]["placed_cents"] > 0
                if s["status"] in ("played", "folded") and len(ups.get(rid, [])) == 1:
                    actual -= s["ante"]["net_cents"] + s["bet"]["net_cents"]
        money["progressive"]["paid_cents"] += sum(a["amount_cents"] for a in st["progressive"]["awards"])
    return {"money": money, "play": play, "actual": actual, "total_win": total_win,
            "contributed": sum(p["pool_cents"] for _, p in rows(path, "pool.contributed")),
            "retained": sum(p["retained_cents"] for _, p in rows(path, "pool.contributed")),
            "reversed": sum(p["reversed_cents"] for _, p in rows(path, "pool.reversed")),
            "awards": sum(len(p["progressive"]["awards"]) for p in settled)}


@pytest.mark.parametrize("session", SESSIONS)
def test_every_figure_is_the_sum_of_the_settled_rounds(journals, session):
    path = journals[session]
    (report,) = tabled_json("report", "range", "--journal", str(path), "--json", *EVERYTHING)
    want = sums_from_rows(path)
    assert report["problems"] == []
    for w, figures in want["money"].items():
        for name, cents in figures.items():
            assert report["money"][w][name] == cents, (w, name)
        assert report["money"][w]["win_cents"] == figures["collected_cents"] - figures["paid_cents"]
    assert report["money"]["total"]["win_cents"] == want["total_win"]
    assert sum(report["money"][w]["win_cents"] for w in want["money"]) == want["total_win"]
    for name, count in want["play"].items():
        assert report["play"][name] == count, name
    assert report["theoretical"]["actual_win_cents"] == want["actual"]
    # every hand of ante and bet has an exact figure in these sessions: the win set against the
    # mathematics is the whole ante and bet win
    assert report["theoretical"]["left_out"] == 0
    assert report["money"]["ante"]["win_cents"] + report["money"]["bet"]["win_cents"] == want["actual"]
    progressive = report["progressive"]
    assert (progressive["contributed_cents"], progressive["retained_cents"], progressive["reversed_cents"]) == \
        (want["contributed"], want["retained"], want["reversed"])
    assert progressive["awards"] == want["awards"]
    assert progressive["awards_cents"] == want["money"]["progressive"]["paid_cents"]


def test_the_scripted_session_names_its_irregularities_and_faults(journals):
    (report,) = tabled_json("report", "range", "--journal", str(journals["scripted"]), "--json", *EVERYTHING)
    integrity = report["integrity"]
    assert integrity["void_rounds"] == {"3.7": 1}  # a card seen twice: the round is void (3.7)
    assert integrity["irregularities"]["15.1 shuffling device fault: jam"] == 1  # 15.1
    assert integrity["irregularities"]["14.13 progressive award held"] == 1  # the flush of round 16
    assert sorted(f["equipment"] for f in integrity["faults"]) == ["meter", "pool", "pool"]
    assert all(f["rule"] == "14.13" and f["cleared_us"] > f["raised_us"] for f in integrity["faults"])
    assert integrity["keys"]["inspector"] == {"approve_play": 2}
    assert integrity["keys"]["supervisor"] == {"open_table": 1}
    # 14.13: play goes on with the progressive offline only after an inspector's approval
    assert [s["approvals"] for s in integrity["stops_14_13"]] == [1, 0, 1]
    assert report["progressive"]["reversals"] == 5
    # the royal flushes of rounds 4 and 5 and the held flush of round 16
    assert report["progressive"]["awards_by_category"]["royal flush"] == 2


@pytest.mark.parametrize("session", SESSIONS)
def test_the_shifts_of_a_day_add_up_to_the_day(journals, session):
    path = str(journals[session])
    (day,) = tabled_json("report", "day", "--journal", path, "--json", "--tz", "Australia/Sydney")
    shifts = tabled_json("report", "shift", "--journal", path, "--json", "--tz", "Australia/Sydney",
                         "--from", day["period"]["gaming_day"])
    assert len(shifts) == 3
    assert sorted(r for s in shifts for r in s["rounds"]) == sorted(day["rounds"])
    for w in ("ante", "bet", "progressive", "total"):
        for name in ("wagers", "chips_cents", "paid_cents", "collected_cents", "returned_cents", "win_cents"):
            assert sum(s["money"][w][name] for s in shifts) == day["money"][w][name]
    assert sum(s["theoretical"]["actual_win_cents"] for s in shifts) == day["theoretical"]["actual_win_cents"]


def test_a_fault_standing_when_the_period_starts_counts_from_its_start(journals):
    from datetime import UTC, datetime

    path = journals["scripted"]
    raised, cleared = [r["time_us"] for r in journal_rows(path)
                       if r["kind"] in ("fault.raised", "fault.cleared") and '"meter"' in r["payload_text"]]
    start = (raised + cleared) // 2
    since = datetime.fromtimestamp(start / 1e6, UTC).isoformat()
    (report,) = tabled_json("report", "range", "--journal", str(path), "--json", "--from", since,
                            "--to", "2100-01-01T00:00")
    meter = [f for f in report["integrity"]["faults"] if f["equipment"] == "meter"]
    assert len(meter) == 1 and meter[0]["raised_us"] == raised and meter[0]["cleared_us"] == cleared
    assert report["period"]["start_us"] > raised
    assert meter[0]["minutes"] == (cleared - report["period"]["start_us"]) / 60_000_000


@pytest.mark.parametrize("session", SESSIONS)
def test_the_pools_movement_and_the_progressive_wagers_by_round_reconcile(journals, session):
    """The pool's movement over the period is this table's (a local pool): contributions - reversals
    - awards from the pool + the operator's reset funding; the progressive wagers of each round, which
    the drop slot counts, add up to the wagers."""
    path = journals[session]
    (report,) = tabled_json("report", "range", "--journal", str(path), *EVERYTHING, "--json")
    pr = report["progressive"]
    settled = rows(path, "round.settled")
    first_rid = settled[0][0]
    first_own = sum(p["pool_cents"] for rid, p in rows(path, "pool.contributed") if p["round_id"] == first_rid)
    start = settled[0][1]["progressive"]["pool_before_cents"] - first_own
    end = settled[-1][1]["progressive"]["pool_after_cents"]
    assert (pr["pool_start_cents"], pr["pool_end_cents"], pr["pool_movement_cents"]) == (start, end, end - start)
    contributed = sum(p["pool_cents"] for _, p in rows(path, "pool.contributed"))
    reversed_ = sum(p["reversed_cents"] for _, p in rows(path, "pool.reversed"))
    from_pool = sum(p["progressive"]["paid_from_pool_cents"] for _, p in settled)
    funding = sum(p["progressive"]["reset_funding_cents"] for _, p in settled)
    assert end - start == contributed - reversed_ - from_pool + funding == pr["pool_movement_by_this_table_cents"]
    by_round = {rid: sum(1 for s in p["spots"] if s["progressive"]["placed_cents"]) for rid, p in settled}
    assert pr["wagers_by_round"] == by_round and sum(by_round.values()) == pr["wagers"]

"""``tabled settle``: the settlement calculator (rule 16.11 disputes)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tabled.cli import main
from tabled.game.checks import MAX_CENTS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tabled" / "examples" / "round.json"


def run(capsys, *argv, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["settle", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def base_round(**changes):
    data = {
        "profile": "nsw", "spot_count": 7, "pool_cents": 2_000_000,
        "dealer": ["As", "Kd", "7h", "4c", "2s"],
        "spots": [{"spot": 1, "cards": "Jc Js Td 6h 3c", "ante_cents": 1000, "bet_cents": 2000}],
    }
    data.update(changes)
    return data


def with_spot(**spot):
    s = {"spot": 1, "cards": "Jc Js Td 6h 3c", "ante_cents": 1000, "bet_cents": 2000}
    s.update(spot)
    return base_round(spots=[{k: v for k, v in s.items() if v is not None}])


def test_example_round_prints_table_in_payment_order(capsys):
    code, out, err = run(capsys, str(EXAMPLE))
    assert code == 0 and err == ""
    spot_lines = [line.split()[1] for line in out.splitlines() if line.startswith("spot ")]
    assert spot_lines == ["7", "6", "5", "4", "3", "2", "1"]  # 12.2: N down to 1
    assert "royal flush $30,000.00" in out and "12.1.1" in out
    assert "14.10.2" in out and "14.12" in out and "14.7" in out
    assert "House pays $35,297.00, collects $5.00" in out


def test_example_round_json_output(capsys):
    code, out, _ = run(capsys, str(EXAMPLE), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["profile"] == "nsw" and data["dealer"]["qualifies"] is True
    by_spot = {s["spot"]: s for s in data["spots"]}
    assert by_spot[7]["progressive_award"]["amount_cents"] == 3_000_000
    assert by_spot[7]["bet"]["winnings_cents"] == 500_000            # 10.1: 250 to 1
    assert by_spot[3]["ante"]["outcome"] == "returned"               # 14.12
    assert by_spot[2]["tokens_forfeited_cents"] == 500               # 1.1
    assert [a["spot"] for a in data["progressive"]["awards"]] == [7, 6]  # 12.2: no straight flush for 12.4
    assert data["house_pays_cents"] - data["house_collects_cents"] == data["net_cents"]
    assert sum(s["total_cents"] for s in data["spots"]) == data["net_cents"]


def test_no_hand_example_money_md_three_straight_flushes(capsys):
    code, out, _ = run(capsys, str(EXAMPLE.with_name("round-no-hand.json")), "--json")
    data = json.loads(out)
    assert code == 0 and data["dealer"]["qualifies"] is False                 # 9.1
    assert [a["amount_cents"] for a in data["progressive"]["awards"]] == [271_000] * 3  # 12.3.2
    assert [a["spot"] for a in data["progressive"]["awards"]] == [6, 4, 1]    # 12.2
    assert data["progressive"]["pool_after_cents"] == 2_187_000
    assert {s["bet"]["outcome"] for s in data["spots"] if s["status"] == "played"} == {"void"}  # 9.2


def test_round_from_stdin(capsys, monkeypatch):
    code, out, _ = run(capsys, "-", "--json", stdin=json.dumps(base_round()), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["spots"][0]["net_cents"] == 3000


def test_profile_override(capsys, monkeypatch):
    data = with_spot(cards="Ah Kh Qh Jh Th")
    code, out, _ = run(capsys, "-", "--json", "--profile", "us-standard",
                       stdin=json.dumps(data), monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["spots"][0]["bet"]["winnings_cents"] == 200_000


def bad(capsys, monkeypatch, text):
    code, out, err = run(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tabled settle: error: ")
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("data,message", [
    (with_spot(cards="Jc Js Td 6h Xx"), "not a card: 'Xx'"),
    (with_spot(cards="As Js Td 6h 3c"), "duplicate card As"),
    (with_spot(cards="Jc Js Td 6h"), "spot 1 has 4 cards"),                       # 14.7
    (with_spot(ante_cents=-100), "'ante_cents' must not be negative"),
    (with_spot(bet_cents=20.5), "'bet_cents' must be a whole number of cents, got 20.5 (fractional)"),
    (with_spot(bet_cents="2000"), "'bet_cents' must be a whole number of cents"),
    (with_spot(ante_cents=None, bet_cents=None, progressive_cents=100), "needs an ante first (11.1)"),
    (with_spot(progressive_cents=500), "posted $1.00 (11.3"),
    (with_spot(spot=9), "unknown spot 9"),
    (with_spot(status="asleep"), "status must be one of"),
    (with_spot(ante=1000), "unknown key 'ante'"),
    (base_round(profile="atlantis"), "no profile 'atlantis'"),
    (base_round(profile=None), "names no profile"),
    (base_round(spot_count="seven"), "'spot_count' must be a whole number"),
    (base_round(dealer="As Kd 7h"), "the dealer has 3 cards"),                   # 14.2
    (base_round(spots={"spot": 1}), "'spots' must be a list"),
    (base_round(spots=["x"]), "spots entry 1 must be a JSON object"),
    (base_round(pool_cents=1.5), "'pool_cents' must be a whole number of cents"),
    (base_round(void="earthquake"), "'void' must be one of"),
    ([1, 2], "the round must be a JSON object"),
])
def test_bad_round_is_one_clear_line(capsys, monkeypatch, data, message):
    line = bad(capsys, monkeypatch, json.dumps(data))
    assert message in line


@pytest.mark.parametrize("data, message", [
    (with_spot(ante_cents=10**30, bet_cents=2 * 10**30), "'ante_cents' must be at most 100000000000 cents"),
    (with_spot(bet_cents=MAX_CENTS + 1), f"'bet_cents' must be at most {MAX_CENTS} cents"),
    (with_spot(ante_token_cents=10**20), "'ante_token_cents' must be at most"),
    (with_spot(progressive_cents=10**15), "'progressive_cents' must be at most"),
    (base_round(pool_cents=10**12), "'pool_cents' must be at most"),
])
def test_an_amount_beyond_any_is_refused_as_the_configs_are(capsys, monkeypatch, data, message):
    assert message in bad(capsys, monkeypatch, json.dumps(data))


def test_a_number_of_thousands_of_digits_is_one_line(capsys, monkeypatch):
    text = json.dumps(with_spot(ante_cents=1000)).replace("1000", "9" * 5000, 1)
    assert "holds a whole number of 5000 digits (999999999999...): none may have more than 40" in bad(
        capsys, monkeypatch, text)


def test_the_largest_amounts_are_settled(capsys, monkeypatch):
    data = with_spot(ante_cents=MAX_CENTS // 2, bet_cents=MAX_CENTS)
    code, out, err = run(capsys, "-", "--json", stdin=json.dumps(data), monkeypatch=monkeypatch)
    assert code == 0, err
    assert json.loads(out)["spots"][0]["bet"]["placed_cents"] == MAX_CENTS


def test_missing_key_is_one_line(capsys, monkeypatch):
    data = base_round()
    del data["dealer"]
    assert "the round has no 'dealer'" in bad(capsys, monkeypatch, json.dumps(data))


def test_invalid_json_is_one_line(capsys, monkeypatch):
    assert "is not valid JSON" in bad(capsys, monkeypatch, '{"profile": "nsw",')


def test_missing_file_is_one_line(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err and len(err.strip().splitlines()) == 1


def test_royal_full_house_and_flush_are_paid_right_to_left_rules_12_2_12_4(capsys, tmp_path):
    data = base_round(pool_cents=5_000_000, spots=[
        {"spot": 7, "cards": "Ah Kh Qh Jh Th", "ante_cents": 1000, "bet_cents": 2000, "progressive_cents": 100},
        {"spot": 6, "cards": "3c 3d 3s 8c 8d", "ante_cents": 1000, "bet_cents": 2000, "progressive_cents": 100},
        {"spot": 3, "cards": "2d 5d 9d Jd Qd", "ante_cents": 1000, "bet_cents": 2000, "progressive_cents": 100},
    ])
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, str(path), "--json")
    assert code == 0
    assert [a["spot"] for a in json.loads(out)["progressive"]["awards"]] == [7, 6, 3]  # 12.2
    code, out, _ = run(capsys, str(path))
    listed = [line.split()[2] for line in out.splitlines() if line.startswith("  ") and ". spot " in line]
    assert listed == ["7", "6", "3"]
    # with a straight flush on spot 1 as well, it is paid just before the royal (12.4)
    data["spots"].append({"spot": 1, "cards": "5s 6s 7s 8s 9s", "ante_cents": 1000, "bet_cents": 2000,
                          "progressive_cents": 100})
    path.write_text(json.dumps(data))
    code, out, _ = run(capsys, str(path), "--json")
    assert [a["spot"] for a in json.loads(out)["progressive"]["awards"]] == [1, 7, 6, 3]

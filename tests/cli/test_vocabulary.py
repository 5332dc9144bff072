"""One vocabulary across the commands: one range of spots, one word for "the last N", the same
message for the same bad number with the option named, and `tabled rank` without the heavy
libraries."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tabled.cli import main
from tabled.daemon.config import ConfigError, load_config
from tabled.profiles import load_profile
from tabled.game.round_facts import RoundError, check_round, round_from_json
from tabled.math import simulator
from tabled.game.seats import MAX_SPOTS, MIN_SPOTS


def usage_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err and err.count("\n") == 1, err
    return err


# --- one range of spots (2.2.1) -------------------------------------------------------------

def config_with_spots(tmp_path, spots: int):
    path = tmp_path / "tabled.toml"
    path.write_text(textwrap.dedent(f"""
        [table]
        id = "T01"
        spots = {spots}
        minimum_cents = 500
        maximum_cents = 50_000
    """))
    return load_config(path)


def round_with_spots(spots: int):
    _, facts = round_from_json({"profile": "nsw", "spot_count": spots, "pool_cents": 0,
                                "dealer": ["As", "Kd", "7h", "4c", "2s"],
                                "spots": [{"spot": 1, "cards": "Jc Js Td 6h 3c", "ante_cents": 100,
                                           "bet_cents": 200}]})
    return facts


def test_the_table_has_one_range_of_spots_rule_2_2_1(tmp_path, capsys):
    assert (MIN_SPOTS, MAX_SPOTS) == (1, 7)
    expected = f"must be an integer from 1 to 7, got {MAX_SPOTS + 1}"
    for spots in (MIN_SPOTS, MAX_SPOTS):  # the ends are accepted everywhere
        assert config_with_spots(tmp_path, spots).table.spots == spots
        check_round(round_with_spots(spots))
        sim = simulator.simulate(load_profile("nsw"), 2, spots, seed=1, strategy="pair-plus")
        assert sim.spots == spots
    with pytest.raises(ConfigError, match=f"table.spots: {expected}"):
        config_with_spots(tmp_path, MAX_SPOTS + 1)
    with pytest.raises(RoundError, match=f"spot_count: {expected}"):
        check_round(round_with_spots(MAX_SPOTS + 1))
    with pytest.raises(ValueError, match=f"spots: {expected}"):
        simulator.simulate(load_profile("nsw"), 2, MAX_SPOTS + 1, seed=1)
    assert f"argument --spots: {expected}" in usage_error(
        capsys, ["simulate", "--profile", "nsw", "--rounds", "2", "--spots", str(MAX_SPOTS + 1)])


def test_the_pool_takes_contributions_from_the_tables_spots_only(tmp_path):
    import asyncio

    from tabled.pool import PoolError, PoolSettings
    from tabled.pool.local import LocalPool

    async def contribute(spot: int) -> None:
        pool = await LocalPool.open(tmp_path / "pool.db", "main", "T01",
                                    PoolSettings(contribution_bp=7000, reset_cents=1_000_000))
        try:
            await pool.contribute("T01", f"R{spot}", spot, 100)
        finally:
            await pool.close()

    asyncio.run(contribute(MAX_SPOTS))
    with pytest.raises(PoolError, match=f"spot: must be an integer from 1 to 7, got {MAX_SPOTS + 1}"):
        asyncio.run(contribute(MAX_SPOTS + 1))


def test_settle_refuses_a_round_with_more_spots_than_a_table_has(tmp_path, capsys):
    data = {"profile": "nsw", "spot_count": 8, "pool_cents": 0, "dealer": ["As", "Kd", "7h", "4c", "2s"],
            "spots": [{"spot": 8, "cards": "Jc Js Td 6h 3c", "ante_cents": 100, "bet_cents": 200}]}
    (tmp_path / "round.json").write_text(json.dumps(data))
    assert main(["settle", str(tmp_path / "round.json")]) == 2
    assert "spot_count: must be an integer from 1 to 7, got 8" in capsys.readouterr().err


# --- the same message for the same bad number, the option named ------------------------------

@pytest.mark.parametrize("argv, option, allowed", [
    (["recall", "--journal", "j.db", "--last", "{n}"], "--last", "of at least 1"),
    (["pool", "history", "--path", "p.db", "--last", "{n}"], "--last", "of at least 1"),
    (["simulate", "--profile", "nsw", "--rounds", "{n}"], "--rounds", "from 1 to 1000000000"),
    (["simulate", "--profile", "nsw", "--rounds", "1", "--ante-cents", "{n}"], "--ante-cents", "of at least 1"),
])
@pytest.mark.parametrize("n, problem", [("0", "0"), ("-3", "-3"), ("ten", "'ten'")])
def test_a_count_of_one_or_more_says_the_same_everywhere(capsys, argv, option, allowed, n, problem):
    err = usage_error(capsys, [a.replace("{n}", n) for a in argv])
    assert f"error: argument {option}: must be an integer {allowed}, got {problem} " in err


@pytest.mark.parametrize("argv, option", [
    (["simulate", "--profile", "nsw", "--rounds", "1", "--seed", "-1"], "--seed"),
    (["simulate", "--profile", "nsw", "--rounds", "1", "--meter-cents", "-1"], "--meter-cents"),
    (["run", "--rounds", "-1"], "--rounds"),
    (["run", "--pace-ms", "-1"], "--pace-ms"),
    (["pool", "propose", "--path", "p.db", "--reset-cents", "-1"], "--reset-cents"),
])
def test_a_number_of_zero_or_more_names_its_option(capsys, argv, option):
    assert f"error: argument {option}: must be an integer of at least 0, got -1 " in usage_error(capsys, argv)


def test_last_is_the_one_word_for_the_last_n_rows(capsys):
    for command in (["recall"], ["pool", "history"]):
        assert main([*command, "--help"]) == 0
        text = capsys.readouterr().out
        assert "--last N" in text and "--limit " not in text


# --- simulate --plot is checked before the run ------------------------------------------------

def test_a_bad_plot_path_is_refused_before_simulating(tmp_path, capsys):
    # a billion rounds would take hours: returning at once shows nothing was dealt
    argv = ["simulate", "--profile", "nsw", "--rounds", "1000000000", "--no-progress", "--plot"]
    assert "cannot write there" in usage_error(capsys, [*argv, str(tmp_path / "no" / "run.png")])
    assert "is a folder" in usage_error(capsys, [*argv, str(tmp_path)])
    assert "cannot draw a .xyz file" in usage_error(capsys, [*argv, str(tmp_path / "run.xyz")])
    assert list(tmp_path.iterdir()) == []  # the check leaves nothing behind


@pytest.mark.slow
def test_the_results_are_printed_before_the_plot_is_drawn(tmp_path, capsys, monkeypatch):
    def disk_full(sim, exact, path):
        raise OSError(28, "No space left on device", path)
    monkeypatch.setattr("tabled.math.report.plot_running", disk_full)
    png = tmp_path / "run.png"
    assert main(["simulate", "--profile", "nsw", "--rounds", "200", "--json", "--no-progress",
                 "--plot", str(png)]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["rounds"] == 200
    assert f"{png}: No space left on device" in err


# --- tabled rank starts without the heavy libraries --------------------------------------------

HEAVY = ("numpy", "structlog", "psycopg", "serial", "usb", "tqdm", "sqlite3", "matplotlib")


def test_rank_imports_none_of_the_heavy_libraries():
    code = ("import json, sys\n"
            "from tabled.cli import main\n"
            "main(['rank', 'As', 'Ks', 'Qs', 'Js', 'Ts'])\n"
            f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    first, loaded = done.stdout.splitlines()
    assert first.startswith("As Ks Qs Js Ts: royal flush")
    assert json.loads(loaded) == []

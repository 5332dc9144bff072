"""The simulator: deterministic per seed, settles like the game core, and agrees with the exact
mathematics within four standard errors."""

import dataclasses
import json

import numpy as np
import pytest

from tabled.cli import main
from tabled.game.cards import parse_cards
from tabled.profiles import load_profile
from tabled.game.settlement import settle
from tabled.math import analysis, simulator
from tabled.math.paytable import Paytable


def test_same_seed_same_result():
    p = load_profile("nsw")
    a = simulator.simulate(p, 20_000, 7, seed=42, strategy="rules")
    b = simulator.simulate(p, 20_000, 7, seed=42, strategy="rules")
    c = simulator.simulate(p, 20_000, 7, seed=43, strategy="rules")
    assert (a.net_cents, a.outcome_counts.tolist(), a.progressive_net_cents) == \
        (b.net_cents, b.outcome_counts.tolist(), b.progressive_net_cents)
    assert a.net_cents != c.net_cents


def _agree_with_core(profile, rounds, spots, seed, pool_cents, ante_cents=100):
    rng = np.random.default_rng(seed)
    capped = 0
    spot_cards, dealer_cards = simulator.deal(rng, rounds, spots)
    bet = rng.random((rounds, spots)) < 0.7
    wager = profile.progressive_wager_cents
    st = simulator.settle_batch(profile, spot_cards, dealer_cards, bet, ante_cents, wager, pool_cents)
    for r in range(rounds):
        core = settle(simulator.round_facts(spot_cards[r], dealer_cards[r], bet[r], ante_cents,
                                            wager, pool_cents), profile)
        for line in core.spots:
            i = line.spot - 1
            assert st.ante_bet_net_cents[r, i] == line.ante.net_cents + line.bet.net_cents, (r, i)
            assert st.award_cents[r, i] == line.award_cents, (r, i)
            capped += line.bet.capped
    return st, capped


@pytest.mark.parametrize("name", ["nsw", "us-standard", "nz-irregularities"])
def test_batch_settlement_agrees_with_the_game_core(name):
    st, _ = _agree_with_core(load_profile(name), 3000, 7, seed=len(name), pool_cents=2_345_678)
    outcomes = set(st.outcome.ravel().tolist())
    assert {simulator.FOLD, simulator.NOT_QUALIFYING, simulator.DEALER_WINS} <= outcomes


def test_batch_settlement_agrees_with_a_maximum_payout():
    # 10.2: a $60 cap on bet winnings binds on a $10 ante with a full house (2 x $10 x 7 = $140)
    capped = dataclasses.replace(load_profile("nsw"), max_bet_payout_cents=6_000)
    _, capped_bets = _agree_with_core(capped, 3000, 7, seed=9, pool_cents=0, ante_cents=1_000)
    assert capped_bets > 0


def test_rounds_with_pool_awards_go_through_the_core():
    # two straight flushes and a royal in one round: shares of the pool (12.3, 12.4)
    p = load_profile("nsw")
    hands = [parse_cards("9h 8h 7h 6h 5h"), parse_cards("9c 8c 7c 6c 5c"),
             parse_cards("As Ks Qs Js Ts"), parse_cards("2d 3d 4d 5d 7d")]
    dealer = parse_cards("Ad Kd 2c 3c 4h")
    spot_cards = np.array([hands])
    bet = np.array([[True, True, True, True]])
    st = simulator.settle_batch(p, spot_cards, np.array([dealer]), bet, 100, 100, 30_000_00)
    core = settle(simulator.round_facts(spot_cards[0], np.array(dealer), bet[0], 100, 100, 30_000_00), p)
    assert st.core_rounds == 1
    assert st.award_cents[0].tolist() == [core.spot(i + 1).award_cents for i in range(4)]
    assert st.award_cents[0, 3] == 10_000  # 12.1.5: the flush's fixed $100


@pytest.mark.parametrize("name,strategy,seed", [
    ("us-standard", "optimal", 1),
    ("nsw", "rules", 2),
    ("nz-irregularities", "pair-plus", 3),
    ("us-standard", "always-raise", 4),
])
def test_return_within_four_standard_errors_of_exact(name, strategy, seed):
    p = load_profile(name)
    sim = simulator.simulate(p, 60_000, 7, seed=seed, strategy=strategy)
    exact = analysis.par_sheet(Paytable.from_profile(p), strategy)
    assert abs(sim.return_per_ante - (-exact.house_edge)) < 4 * sim.standard_error
    # each outcome's frequency too (binomial standard errors, spots treated as independent)
    for o in exact.outcomes:
        code = simulator.OUTCOME_NAMES.index(o.name)
        f = sim.outcome_counts[code] / sim.hands
        se = (o.probability * (1 - o.probability) / sim.hands) ** 0.5
        assert abs(f - o.probability) < 4 * se + 2 / sim.hands, o.name
    exact_prog = simulator.exact_progressive_return(p, sim.pool_cents)
    assert abs(sim.progressive_return - exact_prog) < 4 * sim.progressive_standard_error


def test_simulate_command_json_and_plot(tmp_path, capsys):
    png = tmp_path / "run.png"
    code = main(["simulate", "--profile", "nsw", "--rounds", "3000", "--spots", "5", "--seed", "7",
                 "--strategy", "rules", "--plot", str(png), "--json", "--no-progress"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 15_000 and data["strategy"] == "rules"
    assert data["ci95"][0] < data["return_per_ante"] < data["ci95"][1]
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv,message", [
    (["--rounds", "10", "--spots", "8"], "argument --spots: must be an integer from 1 to 7, got 8"),
    (["--rounds", "10", "--strategy", "bluff"], "invalid choice"),
    (["--rounds", "0"], "argument --rounds: must be an integer from 1 to 1000000000, got 0"),
])
def test_simulate_command_errors(argv, message, capsys):
    try:
        code = main(["simulate", "--profile", "nsw", *argv])
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code
    assert code == 2
    assert message in capsys.readouterr().err

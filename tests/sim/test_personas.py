"""The simulated cheats (tabled/sim/personas.py) decide on what they see besides their own cards
(8.1): the dealer's hole cards, or their group's hands; config/sim.toml seats them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tabled.daemon.config import ConfigError, load_config
from tabled.game import ranking
from tabled.game.cards import parse_cards, parse_hand
from tabled.math import strategy
from tabled.math.informed import informed_raises
from tabled.math.paytable import load_paytable
from tabled.sim.personas import Persona
from tabled.sim.players import decide_all

ROOT = Path(__file__).resolve().parents[2]
HAND = parse_hand("Ah Kd 8c 5s 3h")
UP = parse_cards("9c")[0]
BLANK = parse_cards("2d 4c 6h 7s")        # with the 9 up: no ace-king, the dealer does not qualify (9.1)
STRONG = parse_cards("9d 9h Qs Js")       # trips: the dealer's hand beats the player's (9.4.1.2)


def test_the_honest_optimum_folds_this_ace_king_rule_8_1():
    assert not strategy.decide("optimal", HAND, UP)
    assert decide_all({1: ("optimal", HAND)}, UP, BLANK) == set()


def test_a_flashed_player_bets_a_dealer_who_does_not_qualify_and_folds_one_who_beats_it_rules_9_2_9_4_1_2():
    flashed = {1: Persona("flashed")}
    assert decide_all({1: ("optimal", HAND)}, UP, BLANK, flashed) == {1}
    assert decide_all({1: ("optimal", HAND)}, UP, STRONG, flashed) == set()


@pytest.mark.parametrize("sees", [1, 2, 4])
def test_a_hole_carder_plays_the_optimum_for_the_hole_cards_it_sees_rule_8_1(sees):
    rng = np.random.default_rng(sees)
    paytable = load_paytable("nsw")
    for _ in range(30):
        deck = [int(c) for c in rng.permutation(52)]
        hand, up, holes = tuple(deck[:5]), deck[5], tuple(deck[6:10])
        want = bool(informed_raises(np.array([ranking.evaluate(hand)]), np.array([hand]),
                                    np.array([[up, *holes[:sees]]]), paytable)[0])
        got = decide_all({2: ("optimal", hand)}, up, holes, {2: Persona("hole-carder", sees)})
        assert got == ({2} if want else set())


def test_colluders_decide_on_their_group_s_hands_and_not_on_others():
    rng = np.random.default_rng(5)
    paytable = load_paytable("nsw")
    group = {1: Persona("colluder", group="A"), 2: Persona("colluder", group="A")}
    differed = 0
    for _ in range(60):
        deck = [int(c) for c in rng.permutation(52)]
        hands = {1: tuple(deck[0:5]), 2: tuple(deck[5:10]), 3: tuple(deck[10:15])}
        up = deck[15]
        bets = decide_all({n: ("optimal", h) for n, h in hands.items()}, up, tuple(deck[16:20]), group)
        want = bool(informed_raises(np.array([ranking.evaluate(hands[1])]), np.array([hands[1] + hands[2]]),
                                    np.array([[up]]), paytable)[0])
        assert (1 in bets) == want
        assert (3 in bets) == strategy.decide("optimal", hands[3], up)  # spot 3 is not of the group
        differed += want != strategy.decide("optimal", hands[1], up)
    assert differed  # the pooled hand changed a decision in these rounds


@pytest.mark.parametrize("persona, says", [
    (("hole-carder", 3, None), "a hole-carder sees 1, 2 or 4 hole cards, not 3"),
    (("colluder", 0, None), "a colluder names the group it shares hands with"),
    (("peeker", 0, None), "no persona 'peeker'"),
])
def test_a_persona_that_cannot_be_is_refused(persona, says):
    with pytest.raises(ValueError, match=says):
        Persona(*persona)


def sim_config(tmp_path: Path, player: str) -> Path:
    text = (ROOT / "config" / "sim.toml").read_text().replace('listen = "127.0.0.1:8750"', 'listen = "127.0.0.1:0"')
    seat = '{ spot = 3, ante_cents = 500, progressive = true, strategy = "optimal", card = "4000100010003003" }'
    assert seat in text, "config/sim.toml seats spot 3 otherwise: the test's seat must follow it"
    text = text.replace(seat, player)
    (tmp_path / "sim-staff.toml").write_text((ROOT / "config" / "sim-staff.toml").read_text())
    path = tmp_path / "sim.toml"
    path.write_text(text)
    return path


def test_config_seats_a_hole_carder_and_colluders(tmp_path):
    cfg = load_config(sim_config(tmp_path, '{ spot = 3, ante_cents = 500, persona = "hole-carder", sees = 2 }'))
    seat = {p.spot: p for p in cfg.simulation.players}[3]
    assert (seat.persona, seat.sees, seat.group) == ("hole-carder", 2, None)
    cfg = load_config(sim_config(tmp_path, '{ spot = 3, ante_cents = 500, persona = "colluder", group = "A" }'))
    seat = {p.spot: p for p in cfg.simulation.players}[3]
    assert (seat.persona, seat.group) == ("colluder", "A")


@pytest.mark.parametrize("player, says", [
    ('{ spot = 3, ante_cents = 500, persona = "hole-carder", sees = 3 }', "a hole-carder sees 1, 2 or 4"),
    ('{ spot = 3, ante_cents = 500, persona = "colluder" }', "a colluder names the group"),
    ('{ spot = 3, ante_cents = 500, persona = "peeker" }', "persona"),
])
def test_a_bad_persona_in_the_config_is_one_line(tmp_path, player, says):
    with pytest.raises(ConfigError, match=says) as caught:
        load_config(sim_config(tmp_path, player))
    assert "\n" not in str(caught.value)

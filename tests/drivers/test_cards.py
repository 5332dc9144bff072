"""The drivers' card codec agrees with the game's, card by card: a byte the shoe sends is the card
the rules see, and a card a simulator script names is the card the game would parse."""

import itertools

import pytest

from tabled.game import cards as game
from tabled_drivers import cards as wire


def test_every_card_code_has_the_same_text_and_parses_back():
    assert wire.DECK_SIZE == len(game.DECK) == 52
    for code in range(52):
        text = wire.card_text(code)
        assert text == game.card_text(code)
        assert wire.parse_card(text) == game.parse_card(text) == code
        for variant in (text.lower(), text.upper(), f" {text} "):
            assert wire.parse_card(variant) == game.parse_card(variant) == code


def test_any_short_text_is_read_alike_or_refused_alike():
    """Every string of up to three characters over the card alphabet, plus a few that are not."""
    alphabet = "23456789TJQKAtjqka10cdhsCDHSx "
    for n in range(4):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            try:
                expected = game.parse_card(text)
            except game.CardError:
                with pytest.raises(wire.CardError):
                    wire.parse_card(text)
            else:
                assert wire.parse_card(text) == expected, text


@pytest.mark.parametrize("code", [-1, 52, 255, "As", None, 1.0])
def test_a_code_that_is_not_a_card_is_refused_by_both(code):
    assert not wire.is_card(code)
    with pytest.raises(wire.CardError, match="not a card code"):
        wire.card_text(code)
    with pytest.raises(game.CardError):
        game.card_text(code)


def test_hand_size_is_the_games():
    assert wire.HAND_SIZE == game.HAND_SIZE == 5


def test_parse_cards_reads_a_script_line_and_refuses_a_card_named_twice():
    assert wire.parse_cards("As Kd 7h") == game.parse_cards("As Kd 7h") == (51, 45, 22)
    assert wire.parse_cards(["10h", "2c"]) == game.parse_cards(["10h", "2c"]) == (34, 0)
    with pytest.raises(wire.CardError, match="duplicate card 7h"):
        wire.parse_cards("7h As 7H")
    with pytest.raises(game.CardError):
        game.parse_cards("7h As 7H")
    with pytest.raises(wire.CardError, match="not a card: 'Zz'"):
        wire.parse_cards("As Zz")

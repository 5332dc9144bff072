"""Cards: one deck of 52 (rule 3.1), text form, clear errors for anything else."""

import pytest
from hypothesis import given, strategies as st

from tabled.game.cards import (
    DECK, CardError, card_text, hand_text, parse_card, parse_cards, parse_hand, rank_of, suit_of,
)


def test_deck_has_52_distinct_cards_rule_3_1():
    texts = {card_text(c) for c in DECK}
    assert len(texts) == 52
    assert {t[0] for t in texts} == set("23456789TJQKA")
    assert {t[1] for t in texts} == set("cdhs")


@pytest.mark.parametrize("text, expected", [("As", "As"), ("td", "Td"), ("7H", "7h"), ("10h", "Th"), (" 2c ", "2c")])
def test_parse_and_print(text, expected):
    assert card_text(parse_card(text)) == expected


def test_ranks_and_suits_from_the_int():
    ace_spades = parse_card("As")
    assert ace_spades == 51 and rank_of(ace_spades) == 12 and suit_of(ace_spades) == 3
    assert parse_card("2c") == 0


@given(st.sampled_from(DECK))
def test_text_round_trip(card):
    assert parse_card(card_text(card)) == card


@pytest.mark.parametrize("bad", ["", "A", "1s", "Ax", "11h", "Asd", "0s", "Joker", "ZZ"])
def test_bad_card_is_a_clear_error(bad):
    with pytest.raises(CardError, match="not a card"):
        parse_card(bad)


def test_non_text_card_is_an_error():
    with pytest.raises(CardError):
        parse_card(51)  # type: ignore[arg-type]
    with pytest.raises(CardError):
        card_text(52)


def test_duplicate_card_is_an_error_rule_3_1():
    with pytest.raises(CardError, match="duplicate card As"):
        parse_cards("As Kd As")


@pytest.mark.parametrize("text", ["As Ks Qs Js", "As Ks Qs Js Ts 9s", ""])
def test_hand_must_be_five_cards(text):
    with pytest.raises(CardError, match="a hand is five cards"):
        parse_hand(text)


def test_hand_text():
    assert hand_text(parse_hand(["As", "10d", "7h", "2c", "Kc"])) == "As Td 7h 2c Kc"

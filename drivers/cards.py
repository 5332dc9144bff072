"""The wire's card code and its text, as the devices and their simulators use them.

A card travels as one byte ``rank * 4 + suit`` (0-51): ranks 0 (two) to 12 (ace), suits
0..3 = clubs, diamonds, hearts, spades; ``As`` is 51. Text is rank then suit (``As``, ``Td``,
``7h``), either case on input, ``10`` accepted for ``T``. The drivers keep their own codec so
that they stand without the daemon; a test checks it card by card against the game's.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK_SIZE = 52  # one deck, no jokers (rule 3.1)
HAND_SIZE = 5  # the shuffler delivers five cards a hand


class CardError(ValueError):
    """Text or a code that is not a card, or a card named twice."""


def is_card(code: int) -> bool:
    return isinstance(code, int) and 0 <= code < DECK_SIZE


def card_text(code: int) -> str:
    """51 -> ``'As'``."""
    if not is_card(code):
        raise CardError(f"not a card code: {code!r} (0-51, rank * 4 + suit)")
    return RANKS[code >> 2] + SUITS[code & 3]


def parse_card(text: str) -> int:
    """``'As'`` -> 51."""
    if not isinstance(text, str):
        raise CardError(f"a card is written as text like 'As', got {text!r}")
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. 'As', 'Td', '7h')")
    rank, suit = RANKS.find(t[0].upper()), SUITS.find(t[1].lower())
    if rank < 0 or suit < 0:
        raise CardError(f"not a card: {text!r} (ranks 2-9 T J Q K A, suits c d h s)")
    return rank * 4 + suit


def parse_cards(texts: str | Iterable[str]) -> tuple[int, ...]:
    """A space-separated string or a sequence of card texts; a card named twice is an error."""
    items = texts.split() if isinstance(texts, str) else list(texts)
    codes = tuple(parse_card(t) for t in items)
    if len(set(codes)) != len(codes):
        twice = next(c for c in codes if codes.count(c) > 1)
        raise CardError(f"duplicate card {card_text(twice)}: one deck holds each card once")
    return codes

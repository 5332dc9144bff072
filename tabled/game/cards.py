"""Cards: one deck of 52, no jokers (rule 3.1); all suits rank the same (rule 3.3).

A card is held as a plain ``int`` from 0 to 51, ``rank * 4 + suit``, with ranks 0 (two) to
12 (ace) and suits 0..3 = clubs, diamonds, hearts, spades. Ints are what the daemon, the
evaluator and the simulator pass around; text is for people and files.

Text form: rank then suit, ``As``, ``Td``, ``7h``. Ranks ``2-9 T J Q K A`` and suits ``c d h s``,
either case. ``10h`` is accepted on input as a synonym of ``Th``; output always uses ``T``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK: tuple[int, ...] = tuple(range(52))
HAND_SIZE = 5  # "hand" means five cards (definition in rule 1.1)

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king", "ace")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


class CardError(ValueError):
    """A card, or a set of cards, that cannot be on a Caribbean Stud table."""


def make_card(rank: int, suit: int) -> int:
    if not (0 <= rank < 13 and 0 <= suit < 4):
        raise CardError(f"no such card: rank {rank}, suit {suit}")
    return rank * 4 + suit


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def parse_card(text: str) -> int:
    """``'As'`` -> 51. Raises :class:`CardError` naming the text when it is not a card."""
    if not isinstance(text, str):
        raise CardError(f"a card is written as text like 'As', got {text!r}")
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. 'As', 'Td', '7h')")
    r = RANKS.find(t[0].upper())
    s = SUITS.find(t[1].lower())
    if r < 0 or s < 0:
        raise CardError(f"not a card: {text!r} (ranks 2-9 T J Q K A, suits c d h s)")
    return r * 4 + s


def card_text(card: int) -> str:
    if not isinstance(card, int) or not 0 <= card < 52:
        raise CardError(f"not a card index: {card!r}")
    return RANKS[card >> 2] + SUITS[card & 3]


def parse_cards(texts: str | Iterable[str]) -> tuple[int, ...]:
    """Parse a space-separated string or a sequence of card texts; duplicates are an error."""
    items = texts.split() if isinstance(texts, str) else list(texts)
    cards = tuple(parse_card(t) for t in items)
    check_distinct(cards)
    return cards


def parse_hand(texts: str | Iterable[str]) -> tuple[int, ...]:
    """Exactly five distinct cards (rule 1.1 "hand")."""
    cards = parse_cards(texts)
    if len(cards) != HAND_SIZE:
        raise CardError(f"a hand is five cards, got {len(cards)}: {hand_text(cards)!r}")
    return cards


def check_distinct(cards: Sequence[int]) -> None:
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"duplicate card {card_text(c)}: one deck holds each card once (rule 3.1)")
        seen.add(c)


def hand_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)

"""The cards of the deck in play: real cards (3.1), each seen once (3.7), backs of its colour (3.1, 3.2)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tabled.game.cards import card_text
from tabled.table.refused import Refused


class IntegrityFault(Exception):
    """A card that cannot belong to the deck in play: the round is void (16.4.2)."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule


def check_cards(cards: Iterable[Any]) -> None:
    for c in cards:
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
            raise Refused(None, f"the card reader sent {c!r}: not a card")


def check_back(back: Any, deck_back: str | None, rule: str) -> None:
    """A back of another colour than the deck in play's is a fault; no colour reported (a reader that
    cannot see backs) is no evidence either way."""
    if back is not None and not isinstance(back, str):
        raise Refused(None, f"the card reader sent back={back!r}: not a colour")
    if back is not None and deck_back is not None and back != deck_back:
        raise IntegrityFault(rule, f"a card with a {back} back in a round played with the {deck_back} deck")


def take(seen: set[int], cards: list[Any]) -> None:
    """3.7: each card once in the deck in play."""
    check_cards(cards)
    for c in cards:
        if c in seen:
            raise IntegrityFault("3.7", f"{card_text(c)} seen twice in the deck in play")
        seen.add(c)


__all__ = ["IntegrityFault", "check_cards", "check_back", "take"]

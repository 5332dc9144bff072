"""Simulated cheats: players whose decisions follow cards an honest player cannot see.

* ``hole-carder``: sees the dealer's first ``sees`` hole cards (1, 2 or 4) on every round (a
  sloppy deal) and plays the strategy optimal for what they see;
* ``flashed``: the dealer shows this spot all four hole cards as they go down; it plays them;
* ``colluder``: shares hands with the other colluders of its ``group`` and every one of them plays
  the joint optimum (the decision optimal given all the group's cards).

They exist to prove game protection (tabled.math.protection, ``tabled report protection``): the
table treats them as any player; only their decisions differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

PERSONAS = {
    "honest": "decides from its own five cards and the up card by its strategy",
    "hole-carder": "sees the dealer's first `sees` hole cards (1, 2 or 4) and plays them optimally",
    "flashed": "the dealer flashes it all four hole cards; it plays them optimally",
    "colluder": "shares hands with its `group` and plays the joint optimum",
}
SEES = (1, 2, 4)


@dataclass(frozen=True)
class Persona:
    kind: str = "honest"
    sees: int = 0            # hole cards seen (hole-carder)
    group: str | None = None  # colluders sharing hands

    def __post_init__(self) -> None:
        if self.kind not in PERSONAS:
            raise ValueError(f"no persona {self.kind!r}: choose one of {', '.join(PERSONAS)}")
        if self.kind == "hole-carder" and self.sees not in SEES:
            raise ValueError(f"a hole-carder sees 1, 2 or 4 hole cards, not {self.sees}")
        if self.kind == "colluder" and not self.group:
            raise ValueError("a colluder names the group it shares hands with")


def informed_bet(persona: Persona, cards: Sequence[int], up: int, holes: Sequence[int],
                 hands: Mapping[int, Sequence[int]], groups: Mapping[int, str | None], spot: int) -> bool:
    """The decision optimal for what ``persona`` sees: its cards, the up card, and the hole cards
    (in the order dealt) or its group's hands (``hands``: spot -> cards of every spot dealt in)."""
    import numpy as np

    from tabled.game import ranking
    from tabled.math.informed import informed_raises
    from tabled.math.strategy import _nsw_paytable

    known = [up]
    dead = list(cards)
    if persona.kind == "hole-carder":
        known += list(holes[:persona.sees])
    elif persona.kind == "flashed":
        known += list(holes[:4])
    elif persona.kind == "colluder":
        for other, their in sorted(hands.items()):
            if other != spot and groups.get(other) == persona.group:
                dead += list(their)
    value = np.array([ranking.evaluate(cards)])
    # the optimum for the NSW odds (10.1), as the simulated honest players' ``optimal``
    return bool(informed_raises(value, np.array([dead]), np.array([known]), _nsw_paytable())[0])

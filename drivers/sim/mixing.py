"""How a shuffling device that stops intermixing (rule 15.1) leaves a deck, for the simulated device.

Each function takes the order the cards went in and a random generator and gives the order that
comes out. :func:`random_order` is a device that works; the others are faults that still report a
complete shuffle, so only the order of the cards can tell:

* ``cut``: the deck is cut once and the halves swapped (the input comes back, cut);
* ``riffle``: one riffle (Gilbert-Shannon-Reeds) instead of a full cycle;
* ``partial_riffle``: the top half riffled once, the bottom half left as it was;
* ``stuck_gate``: a gate keeps a block of ``block`` cards together, in order; the rest is mixed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

Mixer = Callable[[Sequence[int], random.Random], list[int]]


def random_order(cards: Sequence[int], rng: random.Random) -> list[int]:
    """A working device: every order equally likely, whatever order the cards went in (so the
    same seed gives the same shuffles however the deck came back)."""
    out = sorted(cards)
    rng.shuffle(out)
    return out


def cut(cards: Sequence[int], rng: random.Random) -> list[int]:
    at = rng.randrange(1, len(cards))
    return [*cards[at:], *cards[:at]]


def riffle(cards: Sequence[int], rng: random.Random) -> list[int]:
    """One Gilbert-Shannon-Reeds riffle: a binomial cut, then cards drop from each packet in
    proportion to its size."""
    at = sum(rng.random() < 0.5 for _ in cards)
    left, right = list(cards[:at]), list(cards[at:])
    out = []
    while left or right:
        if rng.random() < len(left) / (len(left) + len(right)):
            out.append(left.pop(0))
        else:
            out.append(right.pop(0))
    return out


def partial_riffle(cards: Sequence[int], rng: random.Random) -> list[int]:
    half = len(cards) // 2
    return [*riffle(cards[:half], rng), *cards[half:]]


def stuck_gate(cards: Sequence[int], rng: random.Random, block: int = 6) -> list[int]:
    start = rng.randrange(len(cards) - block + 1)
    kept = list(cards[start:start + block])
    rest = [*cards[:start], *cards[start + block:]]
    rng.shuffle(rest)
    at = rng.randrange(len(rest) + 1)
    return [*rest[:at], *kept, *rest[at:]]


MIXERS: dict[str, Mixer] = {"random": random_order, "cut": cut, "riffle": riffle,
                            "partial_riffle": partial_riffle, "stuck_gate": stuck_gate}

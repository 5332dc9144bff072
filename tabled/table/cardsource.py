"""The shuffling device as the table's card source: what it is asked to do, and what its
reports mean for the round.

* Shuffles (4.1): every deck the table needs shuffled and not in play is asked for once per need
  (after a round, 4.1.2; new cards, 3.6; another device, 15.2.2; a reconnect). A request stands
  until the device reports the deck shuffled or its shuffle failed, so a deck is never asked twice
  for one need, and a restart sends the same requests again (standing effects).
* The deal (7.4): a round that reached dealing gets its hands from the device; the command says
  the deck and how many hands the round needs. How many the device has given already is its own
  reading, which the adapter uses so that a repeated deal delivers only the hands still missing.
* What the device says it holds (``shuffler.status``, read on reconnect and before a deal): a
  deck it lost before any card of the round was dealt from it is a failed shuffle cycle, so it
  is reshuffled (15.1); a deck it lost with cards of the round already dealt from it means the
  device can no longer operate as intended: the round is void (15.2). A change of card
  recognition changes who verifies a new deck (3.4).
* A hand the device refuses with DEVICE_FAULT is 15.2 at once: asking again would not help. A
  shuffle it refuses (busy, door open) is asked again once it can take one: when it reports a deck
  shuffled, its door closed, or its link back.

The requests and the hands asked for are kept out of the checkpoint (which holds the table's
state between rounds): a table restored from one has asked for every deck it needs shuffled.
"""

from __future__ import annotations

from typing import Any, Protocol

from tabled.table.phase import Phase
from tabled.table.effects import Deal, Effect, Shuffle
from tabled.table.links import Links
from tabled.table.state import RoundState

DECKS = {"A": "red", "B": "blue"}  # 3.2.2: the two decks' backs differ in colour
SHUFFLER = "shuffler"


class Cards(Protocol):
    """What the card source reads of the table's cards (tabled.table.decks.Decks)."""

    @property
    def source(self) -> str: ...

    @property
    def shuffler_failed(self) -> bool: ...

    @property
    def status(self) -> dict[str, dict[str, Any]]: ...


class Equipment(Protocol):
    @property
    def links(self) -> Links: ...


class TableCore(Protocol):
    """What the card source reads of the table (tabled.table.core.TableCore)."""

    @property
    def round(self) -> RoundState | None: ...

    @property
    def decks(self) -> Cards: ...

    @property
    def equipment(self) -> Equipment: ...


def in_play(r: RoundState | None, deck: str) -> bool:
    """The deck the round deals from, once its cards are out of the device's hands (past preparing)."""
    return r is not None and r.deck == deck and r.phase != Phase.PREPARING


def dealing(r: RoundState | None) -> RoundState | None:
    """The round, while it deals from the shuffling device."""
    if r is None or r.phase != Phase.DEALING or r.card_source != SHUFFLER:
        return None
    return r


def read_status(p: dict[str, Any]) -> tuple[dict[str, int], bool | None]:
    """A ``shuffler.status`` input's decks ready (deck -> cards left) and card recognition."""
    ready, recognition = p["ready"], p.get("recognition")
    if not isinstance(ready, dict) or any(d not in DECKS for d in ready) or any(
            not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 52 for n in ready.values()):
        raise ValueError(f"ready={ready!r}: deck (A, B) -> cards left (0 to 52)")
    if recognition is not None and not isinstance(recognition, bool):
        raise ValueError(f"recognition={recognition!r}: true or false")
    return ready, recognition


class CardSource:
    """What the table has asked of the shuffling device and not yet heard back."""

    def __init__(self) -> None:
        self.requested: set[str] = set()     # decks asked to be shuffled, not yet reported shuffled
        self.dealt_round: str | None = None  # the round whose hands were asked for
        self.refused: set[str] = set()       # decks whose shuffle it refused, asked again when it can

    @classmethod
    def restored(cls, core: TableCore) -> CardSource:
        """After a checkpoint: every deck the table needs shuffled counts as asked for (the
        standing effects ask for it again)."""
        cs = cls()
        cs.requested = set(cs.wanted(core))
        return cs

    def usable(self, core: TableCore) -> bool:
        return core.decks.source == SHUFFLER and not core.decks.shuffler_failed \
            and core.equipment.links.is_up(SHUFFLER)

    def wanted(self, core: TableCore) -> list[str]:
        """4.1: decks not shuffled and not in play (the deck in play is shuffled after its round)."""
        if core.decks.source != SHUFFLER or core.decks.shuffler_failed:
            return []
        return [d for d in DECKS
                if not core.decks.status[d]["shuffled"] and not in_play(core.round, d) and d not in self.refused]

    # -- what the device reported ------------------------------------------------------------------

    def shuffled(self, deck: str, r: RoundState | None) -> None:
        """The need is met, and the device can take another shuffle; a deal that waited for this
        deck may go on."""
        self.requested.discard(deck)
        self.refused.clear()
        r = dealing(r)
        if r is not None and r.deck == deck:
            self.dealt_round = None

    def shuffle_over(self, deck: str) -> None:
        """The device's shuffle of ``deck`` failed (15.1): the reshuffle is a new request."""
        self.requested.discard(deck)

    def shuffle_refused(self, deck: str) -> None:
        """The device would not shuffle ``deck`` now: asked again when it can take a shuffle."""
        self.requested.discard(deck)
        self.refused.add(deck)

    def door_closed(self) -> None:
        self.refused.clear()

    def new_cards(self, decks: list[str] | tuple[str, ...]) -> None:
        """3.6, 15.2.2: new cards are a new need, whatever was asked of the old ones."""
        self.requested.difference_update(decks)
        self.refused.difference_update(decks)

    def link(self) -> None:
        """The device's link was lost or is back: what it was asked may be lost with it, so a
        reconnect is a new need. The decks the table needs and the deal in progress are asked for
        again (:meth:`requests`); a deck in play it lost is judged from what it reports (15.1, 15.2)."""
        self.requested.clear()
        self.refused.clear()
        self.dealt_round = None

    def judge_status(self, cards: Cards, r: RoundState | None, ready: dict[str, int]) -> list[tuple[str, str]]:
        """(fault, deck) for each deck the device does not hold that the table needs it to:
        ``cycle_fail`` reshuffles (15.1), anything else is 15.2. A deck asked for and not yet
        reported is being shuffled: its absence says nothing."""
        if cards.source != SHUFFLER or cards.shuffler_failed:
            return []
        out: list[tuple[str, str]] = []
        for deck in DECKS:
            if deck in ready or deck in self.requested:
                continue
            if r is not None and in_play(r, deck):
                dealt_from = r.deliveries > 0 or r.phase not in (Phase.BETTING, Phase.DEALING)
                if not dealt_from:
                    out.append(("cycle_fail", deck))  # 15.1: no card dealt from it yet: reshuffle
                elif r.phase == Phase.DEALING:
                    out.append(("lost the deck in play", deck))  # 15.2: cards dealt from a deck it lost
            elif cards.status[deck]["shuffled"]:
                out.append(("cycle_fail", deck))  # 15.1: a shuffled deck it no longer holds
        return out

    # -- what the table asks ---------------------------------------------------------------------

    def requests(self, core: TableCore, effects: list[Effect]) -> list[Effect]:
        """The effects of one input, with each shuffle asked for once per need (a shuffle already
        asked for, or one the device cannot be asked now, is left out), then the shuffles of decks
        the table needs and nobody asked for (4.1), then the deal of a round that reached dealing
        (7.4)."""
        out: list[Effect] = []
        for e in effects:
            if isinstance(e, Shuffle):
                if not self.usable(core) or e.deck not in DECKS or e.deck in self.requested:
                    continue
                self.requested.add(e.deck)
            out.append(e)
        if not self.usable(core):
            return out
        for deck in self.wanted(core):
            if deck not in self.requested:
                self.requested.add(deck)
                out.append(Shuffle(deck))
        r = dealing(core.round)
        if r is not None and self.dealt_round != r.round_id:
            self.dealt_round = r.round_id
            out.append(self.deal(r))
        return out

    def deal(self, r: RoundState) -> Deal:
        """7.4: the round's hands, one per target in deal order (7.2.2)."""
        return Deal(r.round_id, r.deck, len(r.dealt_to))

    def standing(self, core: TableCore) -> list[Effect]:
        """Safe to send again after a restart: the shuffles asked for, and the deal in progress."""
        if core.decks.source != SHUFFLER or core.decks.shuffler_failed:
            return []
        effects: list[Effect] = [Shuffle(d) for d in sorted(self.requested)]
        r = dealing(core.round)
        if r is not None:
            effects.append(self.deal(r))
        return effects

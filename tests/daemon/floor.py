"""An in-process stand-in for everything on the casino side of the table, for the daemon's
recovery tests (tests/daemon/test_recovery.py), which run without devices: it submits table inputs
directly, numbered and repeated until acknowledged as a device would, and acts only when the table
has gone idle, so a run is deterministic for a seed. Players ante and wager on the progressive,
decide by a strategy of tabled.math.strategy and bet twice the ante (5.5) or fold; the dealer
presses the panel and deals from a seeded two-deck shuffler (3.2, 7.4) or shoe (7.3)."""

from __future__ import annotations

import random
from typing import Any

from tabled.sim.players import Player
from tabled.table.cardsource import DECKS
from tabled.table.effects import Effect, Shuffle


class SimulatedFloor:
    """Everything on the casino side of the table, driven by the table's state."""

    def __init__(self, table: Any, players: list[Player], seed: int = 1, card_source: str = "shuffler"):
        self.table = table
        self.players = {p.spot: p for p in players}
        self.rng = random.Random(seed)
        self.card_source = card_source
        self.decks: dict[str, list[int]] = {}
        self.to_shuffle: set[str] = set(DECKS) if card_source == "shuffler" else set()
        self.verified = False
        self.fresh: set[str] = set()   # decks shuffled and not dealt from since
        self.resend: set[str] = set()
        self.wagered: str | None = None  # round id the players have wagered on
        self.position = 0
        self.seq = 0
        self.pending: dict[int, tuple[str, dict[str, Any]]] = {}  # sent, not yet acknowledged
        table.listeners.append(self.on_effects)

    def submit(self, kind: str, payload: dict[str, Any]) -> None:
        """Send an input as a device would: numbered, and repeated until acknowledged."""
        self.seq += 1
        seq = self.seq
        payload = {**payload, "src": "floor", "seq": seq}
        self.pending[seq] = (kind, payload)
        self.table.submit(kind, payload, lambda: self.pending.pop(seq, None))

    def reconnect(self, table: Any) -> None:
        """The table restarted: send again everything it did not acknowledge (in order)."""
        self.table = table
        table.listeners.append(self.on_effects)
        for seq in sorted(self.pending):
            kind, payload = self.pending[seq]
            table.submit(kind, payload, lambda seq=seq: self.pending.pop(seq, None))

    def on_effects(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Shuffle):
                deck = e.deck  # 4.1.2: the used deck goes back in
                if deck in self.fresh:
                    self.resend.add(deck)  # a repeated command: the deck is shuffled already
                else:
                    self.to_shuffle.add(deck)

    def _shuffled_deck(self) -> list[int]:
        deck = list(range(52))
        self.rng.shuffle(deck)
        return deck

    def step(self) -> bool:
        """Submit the next inputs the floor would make; False when there is nothing to do."""
        t, core = self, self.table.core
        if self.pending:
            return True  # wait for the table to acknowledge what it has
        if not self.verified:
            self.verified = True
            for d in (*DECKS, "S"):
                t.submit("deck.verified", {"deck": d, "cards": list(range(52))})  # 3.4
            return True
        if self.to_shuffle or self.resend:
            for d in sorted(self.to_shuffle):
                self.decks[d] = self._shuffled_deck()
                self.fresh.add(d)
            for d in sorted(self.to_shuffle | self.resend):
                t.submit("shuffler.shuffled", {"deck": d})
            self.to_shuffle.clear()
            self.resend.clear()
            return True
        r = core.round
        if r is None:
            return False
        if r.phase == "preparing":
            if core.decks.source == "shoe" and not core.decks.cut_done:
                self.decks["S"] = self._shuffled_deck()
                t.submit("panel", {"action": "shuffle_and_cut", "key": "dealer"})  # 4.2
                return True
            return False
        if r.phase == "betting":
            if self.wagered != r.round_id:
                self.wagered = r.round_id
                for p in self.players.values():
                    t.submit("wager", {"spot": p.spot, "area": "ante", "cents": p.ante_cents})
                    if p.progressive:
                        t.submit("wager", {"spot": p.spot, "area": "progressive",
                                           "cents": core.hours.limits.progressive_wager_cents})
                return True
            t.submit("panel", {"action": "no_more_bets", "key": "dealer"})
            self.position = 0
            return True
        if r.phase == "dealing":
            deck = self.decks[r.deck]
            self.fresh.discard(r.deck)
            if r.card_source == "shuffler":
                for _ in r.dealt_to:  # 7.4: five at a time, spots in order, then the dealer
                    cards, self.position = deck[self.position:self.position + 5], self.position + 5
                    t.submit("shuffler.hand", {"cards": cards, "back": r.back})
            else:
                for _ in range(5 * len(r.dealt_to)):  # 7.3
                    t.submit("shoe.card", {"card": deck[self.position]})
                    self.position += 1
            return True
        if r.phase == "deciding":
            from tabled.math.strategy import decide  # NumPy: the 'sim' extra
            up = r.dealer_up[0]
            for s in r.spots.values():
                if s.status != "playing":
                    continue
                p = self.players.get(s.number)
                if p and decide(p.strategy, s.cards, up):
                    t.submit("wager", {"spot": s.number, "area": "bet", "cents": 2 * s.locked_ante.cents})
                else:
                    t.submit("panel", {"action": "fold", "key": "dealer", "spot": s.number})
            t.submit("panel", {"action": "reveal", "key": "dealer"})
            return True
        if r.phase == "revealed":
            t.submit("panel", {"action": "settle", "key": "dealer"})
            return True
        if r.phase == "settling" and r.awards is not None:
            for a in r.awards["awards"]:  # 12.2, 12.4: in the order the pool gave
                if r.spots[a["spot"]].award_held:
                    t.submit("panel", {"action": "award_paid", "key": "dealer", "spot": a["spot"]})
                    return True
        return False

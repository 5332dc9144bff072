"""Simulated players and a simulated dealer.

:class:`DeviceFloor` acts through the simulated devices (tabled/sim/table.py), exactly as people at
the table would: players put chips on the bet-spot board, the dealer presses the button panel
(with the key switch turned for privileged actions) and draws cards from the shoe; the shuffling
device delivers its hands when the daemon asks (7.4). It is what ``tabled run`` uses.

:class:`SimulatedFloor` is the older in-process stand-in that submits table inputs directly,
kept for the table's own unit tests (tests/table), which run without devices.

Players place antes and progressive wagers, decide by a strategy of tabled.math.strategy, and bet
twice the ante (5.5) or fold; the dealer presses the panel ("no more bets", fold, reveal, settle,
progressive paid) and deals from a seeded two-deck shuffler (3.2, 7.4) or shoe (7.3). Each action
is an input submitted to the table, exactly what the devices and the panel would send, and the
floor acts only when the table has gone idle, so a run is deterministic for a seed.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tabled.table.core import DECKS
from tabled.table.effects import Command, Effect
from tabled.table.round import DEALER


@dataclass(frozen=True)
class Player:
    spot: int
    ante_cents: int
    progressive: bool = True
    strategy: str = "optimal"


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
            if isinstance(e, Command) and e.device == "shuffler" and e.name == "shuffle":
                deck = e.args["deck"]  # 4.1.2: the used deck goes back in
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
            if core.card_source == "shoe" and not core.cut_done:
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
                                           "cents": core.limits.progressive_wager_cents})
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


@dataclass(frozen=True)
class Felt:
    """What is physically at the table: chips on each spot (the board's amounts, in cents) and the
    decks sitting shuffled in the shuffling device (back colour -> cards still in it)."""
    board: dict[int, dict[str, int]]
    decks: dict[str, list[int]]


def felt_as_journaled(core: Any, seed: int = 1) -> Felt:
    """The felt as the journal says it stood (after a restart the cards and chips are
    still on the felt). In simulation the felt is the simulators' state, which a restarted daemon
    starts afresh; this is what to put back so that the resumed round ends exactly as if nothing
    had happened.

    * Chips: from "no more bets" on, every spot's ante, progressive wager and bet as the board last
      reported them (a change after the lock would be past posting, 5.6). While betting they are
      the wagers placed so far; before it (and between rounds) the players have yet to wager.
    * Decks (3.2, 4.1): a deck the table knows shuffled sits in the device, 52 cards; the deck in
      play holds the cards not yet dealt, so the device deals the hands still missing (7.4). The
      order of undealt cards was never journaled: any order is as good as the lost one.
    """
    from tabled.table.core import DECKS
    r = core.round
    board: dict[int, dict[str, int]] = {}
    if r is not None and r.phase != "preparing":
        for s in r.spots.values():
            board[s.number] = {"ante": s.ante.chips_cents, "ante_tokens": s.ante.token_cents,
                               "progressive": s.progressive.chips_cents,
                               "progressive_tokens": s.progressive.token_cents,
                               "bet": s.bet.chips_cents, "bet_tokens": s.bet.token_cents}
    decks: dict[str, list[int]] = {}
    if core.card_source == "shuffler" and not core.shuffler_failed:
        rng = random.Random(seed * 7919 + core.round_no)
        for deck, colour in DECKS.items():
            order = list(range(52))
            rng.shuffle(order)
            if r is not None and r.deck == deck and r.phase != "preparing":
                seen = _dealt(r)
                decks[colour] = [c for c in order if c not in seen]
            elif core.decks[deck]["shuffled"]:
                decks[colour] = order
    return Felt(board, decks)


def _dealt(r: Any) -> set[int]:
    """The cards of the deck in play already dealt (3.7: each once)."""
    seen = getattr(r, "seen", None)
    if seen is not None:
        return set(seen)
    return set(r.dealer_cards) | {c for s in r.spots.values() for c in s.cards}


class Stalled(RuntimeError):
    """The table waits for something the simulated floor cannot do (the message says what)."""


class DeviceFloor:
    """Players and a dealer acting through the simulators: the board, the panel, the shoe."""

    def __init__(self, table: Any, sims: Any, devices: Any, players: list[Player], seed: int = 1):
        self.table, self.sims, self.devices = table, sims, devices
        import tabled.math.strategy  # noqa: F401  NumPy (the 'sim' extra): missing, it stops the start, not a round
        self.players = {p.spot: p for p in players}
        self.rng = random.Random(seed)
        self.board = sims.control("betspots")
        self.done: set[tuple] = set()   # (round id, action): each done once
        self.current: str | None = None
        self.shoe_deck: list[int] = []
        self.changed = asyncio.Event()
        self.inspector = False          # an inspector at hand approves play after a fault (14.13)
        self.spare_shuffler = True      # 15.2.2: a supervisor brings another shuffling device
        self.planned: list[tuple[str, str, str, dict[str, Any]]] = []  # (phase, button, key, fields)
        self.decisions: dict[str, set[int]] = {}  # round id -> the spots whose players bet (8.5)
        # the players think in their own thread, not in the loop's default executor, which a
        # stopping loop waits for; shut down (not waited for) when play ends
        self.thinking: ThreadPoolExecutor | None = None
        table.listeners.append(self._on_effects)

    def _on_effects(self, effects: list[Effect]) -> None:
        self.changed.set()

    def once(self, *key: Any) -> bool:
        if key in self.done:
            return False
        self.done.add(key)
        return True

    # -- what people do --------------------------------------------------------------------------------

    def press(self, button: str, key: str = "dealer", *, spot: int | None = None, value: int | None = None,
              spots: list[int] | None = None) -> None:
        """The dealer presses a panel button, turning the key first when the action needs it; with
        ``spot`` selected (0: the dealer's hand), ``value`` keyed or ``spots`` selected before it."""
        from tabled_drivers.panel import KeyPosition
        panel = self.sims.panel
        if panel.key is not KeyPosition[key.upper()]:
            panel.turn_key(key)
        panel.press(button, spot=spot, value=value, spots=spots)
        if key != "dealer":
            panel.turn_key("dealer")

    def plan(self, phase: str, button: str, key: str = "dealer", **fields: Any) -> None:
        """Script an action: pressed once, the next time a round is in ``phase``, before the floor's
        own actions of that phase (``floor.plan("deciding", "absent", spot=3)``)."""
        self.planned.append((phase, button, key, fields))

    def _planned_now(self, r: Any) -> bool:
        for i, (phase, button, key, fields) in enumerate(self.planned):
            if r.phase == phase:
                del self.planned[i]
                self.press(button, key, **fields)
                return True
        return False

    async def set_board(self, spots: dict[int, dict[str, int]]) -> None:
        """Chips put down or taken up; the board's sensors are read at once (a poll)."""
        from tabled_drivers.link.errors import LinkError
        await self.board.call("set", spots={str(k): v for k, v in spots.items()})
        try:
            await self.devices.drivers["betspots"].poll()
        except LinkError:
            pass  # the board is unplugged: its next poll after the replug reports the chips

    # -- the floor's loop ----------------------------------------------------------------------------------

    async def play(self, rounds: int | None, *, pause_s: float = 0.0, stall_s: float = 15.0,
                   stop: asyncio.Event | None = None, pace_s: float = 0.0) -> None:
        """Play until ``rounds`` more rounds have finished (None: until ``stop`` is set).
        ``pause_s``: between rounds; ``pace_s``: after each action, the time people take before
        the next one (0: as fast as the table goes)."""
        try:
            await self._play(rounds, pause_s, stall_s, stop, pace_s)
        finally:
            if self.thinking is not None:
                self.thinking.shutdown(wait=False, cancel_futures=True)
                self.thinking = None

    async def _play(self, rounds: int | None, pause_s: float, stall_s: float, stop: asyncio.Event | None,
                    pace_s: float) -> None:
        core = self.table.core
        target = core.rounds_finished + rounds if rounds else None
        finished = core.rounds_finished
        while (target is None or core.rounds_finished < target) and not (stop and stop.is_set()):
            await self.table.idle.wait()
            self.changed.clear()
            acted = await self.step()
            if core.rounds_finished != finished:
                finished = core.rounds_finished
                if pause_s:
                    await asyncio.sleep(pause_s)
            if acted:
                await asyncio.sleep(pace_s)
                continue
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for returns the result and drops the
                # cancellation when the event is set in the same turn as the task is cancelled
                async with asyncio.timeout(stall_s):
                    await self.changed.wait()
            except TimeoutError:
                raise Stalled(self.describe()) from None

    def describe(self) -> str:
        core, r = self.table.core, self.table.core.round
        if r is None:
            why = ("the table is closed" if not core.is_open else
                   f"equipment fault {core.faults} awaits an inspector (14.13)" if core.faults and not core.approved
                   else "the shuffling device failed (15.2.2)" if core.shuffler_failed else "no round")
            return f"no round in play: {why}"
        return f"round {r.round_id} is {r.phase}; devices up: {sorted(self.devices.up)}"

    async def step(self) -> bool:
        """Do the next thing people at the table would do now; False when waiting on the table."""
        core, r = self.table.core, self.table.core.round
        if not core.is_open:
            if self.once("open", core.rounds_finished):
                self.press("approve", key="supervisor")  # 16.8: a supervisor opens the table
                return True
            return False
        if r is not None and self.current != r.round_id:
            self.current = r.round_id
            self.done = {k for k in self.done if k[0] == r.round_id}  # memory stays flat
        if r is None:
            if core.shuffler_failed and self.spare_shuffler and self.once("spare", core.rounds_finished):
                self.press("approve", key="supervisor")  # 15.2.2: continue with another device
                return True
            if core.faults and not core.approved and self.inspector \
                    and self.once("inspector", core.rounds_finished, tuple(sorted(core.faults))):
                self.press("approve", key="inspector")  # 14.13
                return True
            return False
        rid = r.round_id
        if self._planned_now(r):
            return True
        if r.phase == "preparing" and core.card_source == "shuffler":
            deck = core.deck_to_check()  # 3.4: a device that does not read its cards: the dealer checks
            if deck is not None and self.once(rid, "check", deck):
                self.press("verify_deck")
                return True
            return False
        if r.phase == "preparing" and core.card_source == "shoe":
            if not core.decks["S"]["verified"] and self.once(rid, "verify"):
                self.press("verify_deck")  # 3.4: new cards counted and checked
                return True
            if not core.cut_done and self.once(rid, "cut"):
                self.shoe_deck = list(range(52))
                self.rng.shuffle(self.shoe_deck)  # 4.2: shuffled and cut by the dealer
                self.press("confirm_cut")
                return True
            return False
        if r.phase == "betting":
            return await self._betting(r)
        if r.phase == "dealing" and r.card_source == "shoe":
            if self.once(rid, "draw"):
                dealt = _dealt(r)
                if not self.shoe_deck or dealt & set(self.shoe_deck):
                    # a restart: the cards left in the shoe are those the journal has not seen dealt
                    self.shoe_deck = [c for c in range(52) if c not in dealt]
                    self.rng.shuffle(self.shoe_deck)
                for _ in range(5 * len(r.dealt_to) - r.deliveries):  # 7.3: the dealer draws, the shoe reads
                    self.sims.shoe.draw(self.shoe_deck.pop())
                return True
            return False
        if r.phase == "deciding":
            return await self._deciding(r)
        if r.phase == "revealed":
            if self.once(rid, "settle"):
                self.press("settle_done")
                return True
            return False
        if r.phase == "settling" and r.awards is not None:
            held = [a["spot"] for a in r.awards["awards"] if r.spots[a["spot"]].award_held]
            if held and self.once(rid, "paid", held[0]):
                self.press("settle_done")  # 9.5: the dealer confirms the progressive payment
                return True
        return False

    async def _betting(self, r: Any) -> bool:
        core, rid = self.table.core, r.round_id
        wager = core.limits.progressive_wager_cents
        if self.once(rid, "wager"):
            spots = {}
            for n in range(1, core.spot_count + 1):
                p = self.players.get(n)
                progressive = wager if p and p.progressive and not r.progressive_offline else 0  # 14.13
                spots[n] = {"ante": p.ante_cents if p else 0, "ante_tokens": 0, "bet": 0, "bet_tokens": 0,
                            "progressive": progressive, "progressive_tokens": 0}
            await self.set_board(spots)
            return True
        placed = all(r.spots[p.spot].ante.cents == p.ante_cents for p in self.players.values())
        # a dealer closes bets on what the board reads: not while it is lost (14.13), when the table
        # still holds what it last read (the last round's bets, say) and refuses the close
        if placed and "betspots" in self.devices.up and self.once(rid, "no_more_bets"):
            self.press("no_more_bets")  # 7.2.1
            return True
        return False

    async def _deciding(self, r: Any) -> bool:
        rid = r.round_id
        if rid not in self.decisions:
            up = r.dealer_up[0] if r.dealer_up else None
            hands = {s.number: (self.players[s.number].strategy, tuple(s.cards)) for s in r.spots.values()
                     if s.status in ("playing", "played") and s.number in self.players and up is not None}
            # the players think off the event loop: an exact count takes long on a busy machine, and
            # the table (and a SIGTERM) must not wait for it
            if self.thinking is None:
                self.thinking = ThreadPoolExecutor(1, thread_name_prefix="players")
            betting = await asyncio.get_running_loop().run_in_executor(self.thinking, _decide_all, hands, up)
            self.decisions = {rid: betting}  # this round's only: memory stays flat
        betting = self.decisions[rid]
        if self.once(rid, "decide"):
            if betting:  # 8.5: a bet of twice the ante
                await self.set_board({n: {"bet": 2 * r.spots[n].locked_ante.cents} for n in sorted(betting)})
            return True
        if all(r.spots[n].status == "played" for n in betting) and self.once(rid, "reveal"):
            self.press("reveal")  # 8.6: the others fold (8.3)
            return True
        return False


def _decide_all(hands: dict[int, tuple[str, tuple[int, ...]]], up: int) -> set[int]:
    """The spots whose players bet, each by their strategy (8.1)."""
    from tabled.math.strategy import decide  # NumPy: the 'sim' extra
    return {spot for spot, (strategy, cards) in hands.items() if decide(strategy, cards, up)}


__all__ = ["Player", "SimulatedFloor", "DeviceFloor", "Felt", "felt_as_journaled", "Stalled", "DEALER"]

"""Simulated players and a simulated dealer, acting on what they can see.

:class:`DeviceFloor` acts through the simulated devices (tabled/sim/table.py), exactly as people at
the table would: players put chips on the bet-spot board, the dealer presses the button panel
(with the key switch turned for privileged actions) and draws cards from the shoe; the shuffling
device delivers its hands when the daemon asks (7.4). It is what ``tabled run`` uses.

The people decide from what a person at the table could know: the table as its dealer sees it
(tabled/views/view.py: the display, the lamps, the chips and cards on the felt), the lines the
table tells the dealer (``Say`` effects), the devices that are up, and their own memory (what they
have done this round, the shoe's deck they shuffled). Players place antes and progressive wagers,
decide by a strategy of tabled.math.strategy, and bet twice the ante (5.5) or fold (8.3); the dealer
closes bets (7.2.1), reveals (8.6), settles and confirms progressive payments (9.5), and where the
table checks the payments on the board, pays and collects there (tabled/sim/paying.py). The floor acts
only when the table has gone idle, so a run is deterministic for a seed.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tabled.sim.paying import SettlingDealer
from tabled.sim.personas import Persona, informed_bet
from tabled.table.cardsource import DECKS
from tabled.table.core import TableCore
from tabled.table.effects import Effect, Say
from tabled.views.view import RoundView, TableView, dealer_view


@dataclass(frozen=True)
class Player:
    spot: int
    ante_cents: int
    progressive: bool = True
    strategy: str = "optimal"
    persona: Persona = Persona()  # honest unless a simulated cheat (tabled/sim/personas.py)
    card: str | None = None  # presented at the spot's card reader when player ratings are on


@dataclass(frozen=True)
class Felt:
    """What is physically at the table: chips on each spot (the board's amounts, in cents) and the
    decks sitting shuffled in the shuffling device (back colour -> cards still in it)."""
    board: dict[int, dict[str, int]]
    decks: dict[str, list[int]]


def felt_as_journaled(core: TableCore, seed: int) -> Felt:
    """The felt as the journal says it stood (after a restart the cards and chips are still on the
    felt). In simulation the felt is the simulators' state, which a restarted daemon starts afresh;
    this is what to put back so that the resumed round ends exactly as if nothing had happened.

    * Chips: from "no more bets" on, every spot's ante, progressive wager and bet as the board last
      reported them (a change after the lock would be past posting, 5.6). While betting they are
      the wagers placed so far; before it (and between rounds) the players have yet to wager.
    * Decks (3.2, 4.1): a deck the table knows shuffled sits in the device, 52 cards; the deck in
      play holds the cards not yet dealt, so the device deals the hands still missing (7.4). The
      order of undealt cards was never journaled: any order is as good as the lost one.
    """
    view = dealer_view(core)
    r = view.round
    board: dict[int, dict[str, int]] = {}
    if r is not None and r.phase != "preparing":
        for s in r.spots.values():
            board[s.number] = {"ante": s.ante.chips_cents, "ante_tokens": s.ante.token_cents,
                               "progressive": s.progressive.chips_cents,
                               "progressive_tokens": s.progressive.token_cents,
                               "bet": s.bet.chips_cents, "bet_tokens": s.bet.token_cents}
    decks: dict[str, list[int]] = {}
    if view.card_source == "shuffler" and not view.shuffler_failed:
        rng = random.Random(seed * 7919 + view.rounds_started)
        for deck, colour in DECKS.items():
            order = list(range(52))
            rng.shuffle(order)
            if r is not None and r.deck == deck and r.phase != "preparing":
                decks[colour] = [c for c in order if c not in r.cards_out]
            elif deck in view.decks_shuffled:
                decks[colour] = order
    return Felt(board, decks)


class Stalled(RuntimeError):
    """The table waits for something the simulated floor cannot do (the message says what)."""


def decide_all(hands: dict[int, tuple[str, tuple[int, ...]]], up: int, holes: tuple[int, ...] = (),
               personas: dict[int, Persona] | None = None) -> set[int]:
    """The spots whose players bet (8.1): ``hands`` is spot -> (strategy, the five cards in front of
    it), ``up`` the dealer's up card; a simulated cheat among ``personas`` decides on what it sees
    besides (``holes``: the dealer's hole cards in the order dealt)."""
    from tabled.math.strategy import decide  # NumPy: the 'sim' extra
    personas = personas or {}
    groups = {n: p.group for n, p in personas.items()}
    cards_of = {n: cards for n, (_, cards) in hands.items()}
    out = set()
    for spot, (strategy, cards) in hands.items():
        persona = personas.get(spot, Persona())
        if persona.kind == "honest" or (persona.kind != "colluder" and len(holes) != 4):
            bet = decide(strategy, cards, up)
        else:
            bet = informed_bet(persona, cards, up, holes, cards_of, groups, spot)
        if bet:
            out.add(spot)
    return out


#: the simulated staff's badges and PINs: those of config/sim-staff.toml (SIMULATION ONLY, docs/staff.md)
SIMULATED_STAFF: dict[str, tuple[int, str]] = {"dealer": (1001, "2468"), "supervisor": (2001, "1357"),
                                               "inspector": (3001, "9753")}


class DeviceFloor:
    """Players and a dealer acting through the simulators: the board, the panel, the shoe.

    ``view``: what the people see, called before each action (default: the dealer's view of
    ``table``, tabled.views.view.dealer_view)."""

    def __init__(self, table: Any, sims: Any, devices: Any, players: list[Player], seed: int = 1,
                 view: Callable[[], TableView] | None = None):
        self.table, self.sims, self.devices = table, sims, devices
        import tabled.math.strategy  # noqa: F401  NumPy (the 'sim' extra): missing, it stops the start, not a round
        self.players = {p.spot: p for p in players}
        self.rng = random.Random(seed)
        self.look = view or (lambda: dealer_view(table.core))
        self.board = sims.control("betspots")
        self.done: set[tuple] = set()   # (round id, action): each done once
        self.current: str | None = None
        self.shoe_deck: list[int] = []
        self.changed = asyncio.Event()
        self.told: deque[Say] = deque(maxlen=3)  # the dealer's last flagged lines: for a stall's message
        self.inspector = False          # an inspector at hand: approves play (14.13), clears a device (15.2)
        self.spare_shuffler = True      # 15.2.2: a supervisor brings another shuffling device
        self.planned: list[tuple[str, str, str, dict[str, Any]]] = []  # (phase, button, key, fields)
        self.decisions: dict[str, set[int]] = {}  # round id -> the spots whose players bet (8.5)
        self.paying = SettlingDealer(seed=seed)  # pays and collects on the board when the table checks it
        # the players think in their own thread, not in the loop's default executor, which a
        # stopping loop waits for; shut down (not waited for) when play ends
        self.thinking: ThreadPoolExecutor | None = None
        table.listeners.append(self._on_effects)

    def _on_effects(self, effects: list[Effect]) -> None:
        self.told.extend(e for e in effects if isinstance(e, Say) and e.level != "info")
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
        if key != "dealer":
            self.sign_in(key)  # a supervisor's or inspector's action is theirs: they sign in first
        panel.press(button, spot=spot, value=value, spots=spots)
        if key != "dealer":
            panel.turn_key("dealer")

    def sign_in(self, role: str) -> bool:
        """With a staff list, the simulated person of ``role`` signs in at the panel (badge and PIN
        keyed, the key turned to the role) unless they are signed in already. True if they did."""
        from tabled_drivers.panel import KeyPosition
        view = self.look()
        badge, pin = SIMULATED_STAFF[role]
        if not view.staff_listed or view.on_duty(role) == badge:
            return False
        panel = self.sims.panel
        if panel.key is not KeyPosition[role.upper()]:
            panel.turn_key(role)  # the key says the role signed in to (press turns it back)
        panel.sign_in(badge, pin)
        return True

    def plan(self, phase: str, button: str, key: str = "dealer", **fields: Any) -> None:
        """Script an action: pressed once, the next time a round is in ``phase``, before the floor's
        own actions of that phase (``floor.plan("deciding", "absent", spot=3)``)."""
        self.planned.append((phase, button, key, fields))

    def _planned_now(self, r: RoundView) -> bool:
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

    async def play(self, rounds: int | None, *, pause_s: float = 0.0, stall_s: float | None = 15.0,
                   stop: asyncio.Event | None = None, pace_s: float = 0.0) -> None:
        """Play until ``rounds`` more rounds have finished (None: until ``stop`` is set).
        ``pause_s``: between rounds; ``pace_s``: after each action, the time people take before
        the next one (0: as fast as the table goes); ``stall_s``: how long to wait for a table
        that does nothing before raising :class:`Stalled` (None: for ever)."""
        try:
            await self._play(rounds, pause_s, stall_s, stop, pace_s)
        finally:
            if self.thinking is not None:
                self.thinking.shutdown(wait=False, cancel_futures=True)
                self.thinking = None

    async def _play(self, rounds: int | None, pause_s: float, stall_s: float | None,
                    stop: asyncio.Event | None, pace_s: float) -> None:
        self.present_cards()
        finished = self.look().rounds_finished
        target = finished + rounds if rounds else None
        while (target is None or finished < target) and not (stop and stop.is_set()):
            await self.table.idle.wait()
            self.changed.clear()
            acted = await self.step()
            if self.look().rounds_finished != finished:
                finished = self.look().rounds_finished
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

    def present_cards(self) -> None:
        """With player ratings on, each player with a card presents it at their spot's reader."""
        core = getattr(self.table, "core", None)
        if core is None or not core.players.on:
            return
        for p in self.players.values():
            seated = core.players.with_card(p.card) if p.card else None
            if p.card and (seated is None or seated.spot != p.spot):
                self.sims.cards.insert(p.spot, p.card)

    def describe(self) -> str:
        """Why the people stand still: where the table is, the devices up, what the dealer was last told."""
        view = self.look()
        text = view.describe()
        if view.round is not None and self.devices is not None:
            text += f"; devices up: {sorted(self.devices.up)}"
        if self.told:
            text += f"; the dealer was told: {self.told[-1].text}"
        if view.round is None and view.faults and not view.approved and not self.inspector:
            text += ("; no simulated inspector is at hand: set `inspector = true` in the config's [simulation] "
                     "(the simulated inspector approves play, 14.13), or deal by hand (`dealer = \"manual\"`) "
                     "and press APPROVE with the inspector's key")
        return text

    async def step(self) -> bool:
        """Do the next thing people at the table would do now; False when waiting on the table."""
        v = self.look()
        r = v.round
        if v.staff_listed and v.on_duty("dealer") is None and self.once("sign in", v.rounds_finished):
            return self.sign_in("dealer")  # the dealer signs in before dealing
        if not v.is_open:
            if self.once("open", v.rounds_finished):
                self.press("approve", key="supervisor")  # 16.8: a supervisor opens the table
                return True
            return False
        if r is not None and self.current != r.round_id:
            self.current = r.round_id
            self.done = {k for k in self.done if k[0] == r.round_id}  # memory stays flat
        if r is None:
            if v.shuffler_out and self.inspector and self.once("clear", v.rounds_finished):
                self.press("approve", key="inspector")  # 15.2: the device out of play, cleared
                return True
            if v.shuffler_failed and not v.shuffler_out and self.spare_shuffler \
                    and self.once("spare", v.rounds_finished):
                self.press("approve", key="supervisor")  # 15.2.2: continue with another device
                return True
            if v.faults and not v.approved and self.inspector \
                    and self.once("inspector", v.rounds_finished, v.faults):
                self.press("approve", key="inspector")  # 14.13
                return True
            return False
        rid = r.round_id
        if self._planned_now(r):
            return True
        if r.phase == "preparing" and v.card_source == "shuffler":
            deck = v.deck_to_check  # 3.4: a device that does not read its cards: the dealer checks
            if deck is not None and self.once(rid, "check", deck):
                self.press("verify_deck")
                return True
            return False
        if r.phase == "preparing" and v.card_source == "shoe":
            if "S" not in v.decks_verified and self.once(rid, "verify"):
                self.press("verify_deck")  # 3.4: new cards counted and checked
                return True
            if not v.cut_done and self.once(rid, "cut"):
                self.shoe_deck = list(range(52))
                self.rng.shuffle(self.shoe_deck)  # 4.2: shuffled and cut by the dealer
                self.press("confirm_cut")
                return True
            return False
        if r.phase == "betting":
            return await self._betting(v, r)
        if r.phase == "dealing" and r.card_source == "shoe":
            if self.once(rid, "draw"):
                if not self.shoe_deck or r.cards_out & set(self.shoe_deck):
                    # a restart: the cards left in the shoe are those not out on the felt
                    self.shoe_deck = [c for c in range(52) if c not in r.cards_out]
                    self.rng.shuffle(self.shoe_deck)
                for _ in range(r.deliveries_due):  # 7.3: the dealer draws, the shoe reads
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
        if r.phase == "settling" and r.awards_to_pay and self.once(rid, "paid", r.awards_to_pay[0]):
            self.press("settle_done")  # 9.5: the dealer confirms the progressive payment
            return True
        if r.phase == "settling" and not r.awards_to_pay and r.payments:
            return await self.paying.step(r, self.once, self.set_board, self.press)  # 9.3, 9.4: on the board
        if r.phase == "void" and r.payments:  # voided while it settled: every wager laid back as placed (16.4)
            return await self.paying.step(r, lambda *key: self.once(*key, "void"), self.set_board, self.press)
        return False

    async def _betting(self, v: TableView, r: RoundView) -> bool:
        rid = r.round_id
        if self.once(rid, "wager"):
            spots = {}
            for n in range(1, v.spot_count + 1):
                p = self.players.get(n)
                progressive = v.progressive_wager_cents if p and p.progressive and not r.progressive_offline \
                    else 0  # 14.13
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

    def _hole_cards(self, up: int) -> tuple[int, ...]:
        """The dealer's hole cards in the order dealt, as a simulated cheat glimpses them (a
        person could not read them from the table's view: the simulation takes them from the core)."""
        core_round = getattr(self.table.core, "round", None)
        dealt = tuple(getattr(core_round, "dealer_cards", ()) or ())
        return tuple(c for c in dealt if c != up) if len(dealt) == 5 else ()

    async def _deciding(self, r: RoundView) -> bool:
        rid = r.round_id
        if rid not in self.decisions:
            up = r.dealer_up[0] if r.dealer_up else None
            hands = {s.number: (self.players[s.number].strategy, s.cards) for s in r.spots.values()
                     if s.status in ("playing", "played") and s.number in self.players and up is not None}
            # the players think off the event loop: an exact count takes long on a busy machine, and
            # the table (and a SIGTERM) must not wait for it
            if self.thinking is None:
                self.thinking = ThreadPoolExecutor(1, thread_name_prefix="players")
            betting: set[int] = set()  # no dealer's card up: no hand to decide on
            if up is not None:
                personas = {n: p.persona for n, p in self.players.items() if p.persona.kind != "honest"}
                holes = self._hole_cards(up) if personas else ()
                betting = await asyncio.get_running_loop().run_in_executor(self.thinking, decide_all, hands, up,
                                                                           holes, personas)
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


__all__ = ["Player", "DeviceFloor", "Felt", "felt_as_journaled", "Stalled", "decide_all"]

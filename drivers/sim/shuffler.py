"""A simulated shuffling device, speaking the protocol of :mod:`tabled_drivers.shuffler` in the device role.

Script keys (TOML or JSON)::

    seed = 7                       # the shuffles' random order
    recognition = true             # report the shuffled order (card recognition)
    decks = ["red", "blue"]        # back colours loaded (3.2.2: they must differ)
    shuffle_seconds = 0.0          # how long a shuffle cycle takes
    self_test = "passed"           # or "mechanism", "card_reader", "door_sensor"
    door_open_after_hands = 3      # the door opens after the third hand is delivered (since power-up)
    fault_at_hand = 10             # the tenth hand since power-up fails half way: two cards come
                                   # out, then the command is answered DEVICE_FAULT
    hands = [["As","Ks","Qs","Js","Ts"], {cards = ["2c","2d","2h","2s","3c"], bottom = 0}]
    [[shuffles]]                   # one table per shuffle command, in order
    jam_at = 23                    # ... "the next shuffle jams at card 23"
    [[shuffles]]
    card_count = 51                # also: cycle_fails = true, not_intermixing = true
    [[shuffles]]
    mixing = "cut"                 # this shuffle completes, but mixes like a fault (drivers/sim/mixing.py)
    mixing = "stuck_gate"          # at the top level: every shuffle from power-up on (a device gone bad)

A shuffle starts from the order the deck came out of the device's last shuffle of it (the order
the cards go back in, as far as the device can know), or the new deck's order (0 to 51) at power-up.
"""

from __future__ import annotations

import asyncio

from tabled_drivers import shuffler as proto
from tabled_drivers.cards import HAND_SIZE, CardError, parse_cards
from tabled_drivers.link.messages import DeviceKind, Status
from tabled_drivers.shuffler import DECK_SIZE, DeckColour, SelfTest
from tabled_drivers.sim.base import Refused, ScriptError, SimDevice
from tabled_drivers.sim.mixing import MIXERS

HAND_NUMBER_WRAP = 1 << 16  # hand_number is a u16 on the wire: it counts modulo 65,536
SHUFFLE_KEYS = {"jam_at", "cycle_fails", "not_intermixing", "card_count", "mixing"}


def _colour(name: str, key: str) -> DeckColour:
    try:
        return DeckColour[str(name).upper()]
    except KeyError:
        colours = ", ".join(c.name.lower() for c in DeckColour)
        raise ScriptError(f"{key}: no back colour {name!r} (one of {colours})") from None


def _mixer(name, key: str):
    if name not in MIXERS:
        raise ScriptError(f"{key}: no way of mixing {name!r} (one of {', '.join(MIXERS)})")
    return MIXERS[name]


class ShufflerSim(SimDevice):
    KIND = DeviceKind.SHUFFLER
    COMMANDS = proto.COMMANDS
    EVENTS = proto.EVENTS
    SCRIPT_KEYS = frozenset({"recognition", "decks", "shuffle_seconds", "self_test", "door_open_after_hands",
                             "fault_at_hand", "hands", "shuffles", "mixing"})

    def __init__(self, script=None, **kw) -> None:
        super().__init__(script, **kw)
        s = self.script
        self.recognition = bool(s.get("recognition", True))
        self.loaded = [_colour(c, "decks") for c in s.get("decks", ["red", "blue"])]
        if len(set(self.loaded)) != len(self.loaded):
            raise ScriptError("decks: the two decks must have different back colours (rule 3.2.2)")
        self.shuffle_seconds = float(s.get("shuffle_seconds", 0.0))
        try:
            self.self_test_result = SelfTest[str(s.get("self_test", "passed")).upper()]
        except KeyError:
            raise ScriptError(f"self_test: unknown result {s.get('self_test')!r}") from None
        self.door_open_after_hands = s.get("door_open_after_hands")
        self.fault_at_hand = s.get("fault_at_hand")
        if self.fault_at_hand is not None and not (isinstance(self.fault_at_hand, int) and self.fault_at_hand >= 1):
            raise ScriptError("fault_at_hand must be a hand number from 1 (hands since power-up)")
        self.hands = [self._script_hand(h, i) for i, h in enumerate(s.get("hands", []))]
        self.shuffles = list(s.get("shuffles", []))
        for i, sh in enumerate(self.shuffles):
            if not isinstance(sh, dict) or set(sh) - SHUFFLE_KEYS:
                raise ScriptError(f"shuffles[{i}]: expected a table with keys among {', '.join(sorted(SHUFFLE_KEYS))}")
            if "jam_at" in sh and not (isinstance(sh["jam_at"], int) and 1 <= sh["jam_at"] <= DECK_SIZE):
                raise ScriptError(f"shuffles[{i}].jam_at must be a card number 1-52")
            _mixer(sh.get("mixing", "random"), f"shuffles[{i}].mixing")
        self.mixing = _mixer(s.get("mixing", "random"), "mixing")
        self.last_order: dict[DeckColour, list[int]] = {}  # each deck's order out of its last shuffle
        self.ready: dict[DeckColour, list[int]] = {}  # shuffled decks: cards still to deal
        self.door_open = False
        self.hands_delivered = 0  # every hand since power-up
        self.hand_number = 0  # the same count as the wire carries it: a u16 that wraps (65,536 -> 0)
        self._shuffling: asyncio.Task | None = None

    @staticmethod
    def _script_hand(h, i: int) -> tuple[tuple[int, ...], int]:
        cards, bottom = (h.get("cards"), h.get("bottom", HAND_SIZE - 1)) if isinstance(h, dict) else (h, HAND_SIZE - 1)
        try:
            parsed = parse_cards(cards)  # type: ignore[arg-type]  # cards missing (None): the TypeError below
        except (CardError, TypeError) as exc:
            raise ScriptError(f"hands[{i}]: {exc}") from None
        if len(parsed) != HAND_SIZE or not (isinstance(bottom, int) and 0 <= bottom < HAND_SIZE):
            raise ScriptError(f"hands[{i}]: five cards and a bottom index 0-4")
        return parsed, bottom

    # -- scripted happenings a test may also trigger directly
    def open_door(self) -> None:
        self.door_open = True
        self.emit("door_open")

    def close_door(self) -> None:
        self.door_open = False
        self.emit("door_closed")

    # -- commands
    def _loaded(self, deck: int) -> DeckColour:
        if deck not in [int(c) for c in self.loaded]:
            raise Refused(Status.BAD_REQUEST, f"no deck with back colour {deck} loaded")
        return DeckColour(deck)

    async def on_shuffle(self, deck: int) -> dict:
        colour = self._loaded(deck)
        if self.door_open:
            raise Refused(Status.REFUSED, "door open")
        if self._shuffling is not None and not self._shuffling.done():
            raise Refused(Status.BUSY, "already shuffling")
        self.ready.pop(colour, None)
        plan = self.shuffles.pop(0) if self.shuffles else {}
        self._shuffling = asyncio.get_running_loop().create_task(self._shuffle(colour, plan))
        return {}

    async def _shuffle(self, deck: DeckColour, plan: dict) -> None:
        self.emit("shuffle_started", deck=deck)
        if self.shuffle_seconds:
            await asyncio.sleep(self.shuffle_seconds)
        if "jam_at" in plan:
            self.emit("jam", deck=deck, at_card=plan["jam_at"])
        elif plan.get("cycle_fails"):
            self.emit("cycle_failed", deck=deck)
        elif plan.get("not_intermixing"):
            self.emit("not_intermixing", deck=deck)
        elif plan.get("card_count", DECK_SIZE) != DECK_SIZE:
            self.emit("card_count_wrong", deck=deck, counted=plan["card_count"])
        else:
            mixer = MIXERS[plan["mixing"]] if "mixing" in plan else self.mixing
            order = mixer(self.last_order.get(deck, list(range(DECK_SIZE))), self.rng)
            self.last_order[deck] = list(order)
            self.ready[deck] = order
            self.emit("shuffle_complete", deck=deck, card_count=DECK_SIZE,
                      order=order if self.recognition else [])

    async def on_deliver_hand(self, deck: int) -> dict:
        colour = self._loaded(deck)
        if self.door_open:
            raise Refused(Status.REFUSED, "door open")
        remaining = self.ready.get(colour)
        if remaining is None:
            raise Refused(Status.REFUSED, f"{colour.name.lower()} deck is not shuffled")
        if self.hands_delivered + 1 == self.fault_at_hand:
            self.fault_at_hand = None  # once
            del remaining[:2]  # the transport jams with two cards out of the deck
            raise RuntimeError(f"card transport jammed at hand {self.hands_delivered + 1}")
        if self.hands:
            cards, bottom = self.hands.pop(0)
            for c in cards:
                if c in remaining:
                    remaining.remove(c)
        else:
            if len(remaining) < HAND_SIZE:
                raise Refused(Status.REFUSED, f"only {len(remaining)} cards left in the {colour.name.lower()} deck")
            cards, bottom = tuple(remaining[:HAND_SIZE]), HAND_SIZE - 1
            del remaining[:HAND_SIZE]
        self.hands_delivered += 1
        self.hand_number = self.hands_delivered % HAND_NUMBER_WRAP
        self.emit("hand_delivered", deck=colour, hand_number=self.hand_number, cards=cards, bottom=bottom)
        if self.door_open_after_hands is not None and self.hands_delivered == self.door_open_after_hands:
            self.open_door()
        return {}

    async def on_status(self) -> dict:
        ready = sorted(self.ready)
        return {"ready": [int(c) for c in ready], "cards_left": [len(self.ready[c]) for c in ready],
                "door_open": int(self.door_open), "recognition": int(self.recognition)}

    async def on_self_test(self) -> dict:
        return {"result": int(self.self_test_result)}

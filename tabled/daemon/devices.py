"""The table's five devices, joined to the controller.

Driver events become table inputs, submitted with the driver's acknowledgement, so the device
hears its frame acknowledged only once the input is in the journal (tabled/daemon/controller.py acks after the
group commit). Table effects that are device commands go to the drivers through one ordered worker
per device, so the table's consumer never waits on a device.

Repeats: a device sends again an event the daemon did not acknowledge, also to the *next* daemon
after a crash. Each device frame's input carries ``src`` (device and boot id) and a ``seq`` that
grows by one per frame; the core ignores a ``seq`` it has already folded (tabled/table/core.py), and the
adapter drops a frame it can see is a repeat before translating it again.

Choices where the rules and the devices leave room (documented, each where it is made):

* The panel has no button per spot. "Reveal" folds every spot still deciding whose bet area is
  empty on the board (8.3, 8.6: the reveal comes after the bets of every player continuing);
  "settle done" settles, then confirms each held progressive payment in the order of 12.2/12.4;
  "approve" does what the key allows and the table needs (inspector: 14.13; supervisor: open the
  table, resolve past posting 5.6, continue after a shuffler failure 15.2.2).
* A driver's link coming up or being lost is journaled as ``device.link``; the table judges what
  it means (tabled/table/links.py). The bet-spot board is read again from the chips on the felt
  when it is back.
* The shuffling device: what it says it holds (STATUS: the decks ready and the cards left in each,
  and whether it reads its cards) is journaled as ``shuffler.status`` when it (re)connects and
  before a deal; a command it refuses as ``shuffler.refused`` with its answer; the table judges
  both (tabled/table/cardsource.py). The table's commands say which decks to shuffle and how many
  hands a round needs; how many the device has already given from a deck is read back from it
  (cards left), so a repeated deal asks for exactly the hands still missing.
* The panel's spot and keypad actions become the core's panel inputs with their spot or number;
  the core checks the key (tabled/game/keys.py) and journals the refusal or the approval. A
  closure (16.8) carries the minutes keyed; a raised minimum (6.2) none, so it takes effect at the
  earliest the 20 minutes allow: the core counts them from the input's own journal time.
* EXPOSED_CARD on the dealer's hand (spot 0) names no card on the wire: with the shoe it is the
  card the shoe last dealt to the dealer (the dealer presses it before the dealer's next card), so
  the journaled input carries the card (14.6, NZ 14.6: it becomes the dealer's up card).
* Everything the shoe and the shuffling device's door report is journaled as it comes (shoe.card,
  shoe.unreadable, shoe.removed, shoe.replaced, shoe.empty, shuffler.door, ENTER_CARD as a keyed
  shoe.card); the core decides what it means for the deal (7.3, 14.1, 3.1: a card of the wrong
  back colour voids the round), what the dealer is told and how the panel's FAULT lamp shows it,
  so a restart finds the deal exactly where it stood. The shoe is not equipment of 2.3 / 2.4.3,
  so none of this is a 14.13 fault (which would also take the progressive offline).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from tabled_drivers.base import BadDeviceData, DeviceEvent, Driver, LinkFailed, LinkUp
from tabled_drivers.betspots import BetSpotsDriver, Lamp as SpotLamp, WagerAfterLock, WagersChanged
from tabled_drivers.link.client import serial_opener
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.errors import CommandRejected, LinkError, PortBusyError
from tabled_drivers.link.messages import Status
from tabled_drivers.meter import MeterDriver, MeterFault, MeterFaultCleared
from tabled_drivers.panel import (DEALER_HAND, Button, ButtonPressed, KeyTurned, Lamp, LampState, NumberEntered,
                           PanelDriver, SpotAction, SpotsAction)
from tabled_drivers.shoe import (BackColour, CardDrawn, CardUnreadable, ShoeDriver, ShoeEmpty, ShoeRemoved,
                          ShoeReplaced)
from tabled_drivers.shuffler import (DECK_SIZE, CardCountWrong, DeckColour, DoorClosed, DoorOpen, HandDelivered,
                              NotIntermixing, ShuffleComplete, ShuffleCycleFailed, ShufflerDriver, ShufflerJam)
from tabled.table.effects import Command, Effect
from tabled.game.cards import HAND_SIZE
from tabled.table.links import EQUIPMENT
from tabled.table.round import DEALER

log = structlog.get_logger("tabled.daemon.devices")

DEVICES = ("shuffler", "betspots", "meter", "shoe", "panel")
FIRST_OPEN_TIMEOUT = 5.0  # seconds for every driver's first try at opening its port
DECK_COLOURS = {"A": DeckColour.RED, "B": DeckColour.BLUE}  # tabled.table.core.DECKS: A red, B blue (3.2.2)
COLOUR_DECKS = {c: d for d, c in DECK_COLOURS.items()}
AREAS = ("ante", "progressive", "bet")  # in this order: an ante before its progressive wager (11.1)
SEQ_CYCLE = 255   # link SEQs run 1..255 and wrap (docs/protocols.md)
PER_FRAME = 16    # inputs one frame may become (a reveal folds up to 7 spots, then reveals)
BUSY_RETRY_S = 0.01
BUSY_RETRIES = 200
SHOE_HAPPENINGS = {ShoeRemoved: "shoe.removed", ShoeReplaced: "shoe.replaced", ShoeEmpty: "shoe.empty"}

#: spot actions of the panel -> (core panel action, extra fields)
SPOT_ACTIONS = {
    Button.CONCEDE: ("concede", {}),                    # 9.7
    Button.ABSENT: ("absent", {}),                      # 14.12
    Button.NO_ANTE_HAND: ("hand_without_ante", {}),     # 14.8, NZ 14.7
    Button.PLAY_FIRST: ("play_first", {}),              # 14.11.1
    Button.VOID_PLAYER: ("void_player", {"forfeit": False}),  # 16.3.1
    Button.FORFEIT: ("void_player", {"forfeit": True}),       # 16.3.1, 16.5
    Button.DEAD_HAND: ("dead_hand", {}),                # NZ 14.1
}

Input = tuple[str, dict[str, Any]]


def frame_seq(ack: Any) -> int | None:
    """The link SEQ of the frame an acknowledgement belongs to (tabled_drivers.link.client.Ack.seq)."""
    return getattr(ack, "seq", None)


def build_drivers(consumer_for: Callable[[str], Any], *, spots: int, ports: dict[str, str],
                  usb_backend: Any = None, usb_addresses: dict[str, Any] | None = None,
                  timing: LinkTiming = LinkTiming(), poll_interval: float = 0.05,
                  baudrates: dict[str, int] | None = None) -> dict[str, Driver]:
    """The five drivers: serial ones on ``ports``, USB ones found on ``usb_backend`` (None: libusb),
    or on ``ports`` when a port is given for them."""
    baud = baudrates or {}
    addr = usb_addresses or {}
    return {
        "shuffler": ShufflerDriver(port=ports["shuffler"], consumer=consumer_for("shuffler"), timing=timing,
                                   baudrate=baud.get("shuffler", 115200)),
        "betspots": BetSpotsDriver(port=ports["betspots"], consumer=consumer_for("betspots"), timing=timing,
                                   spots=spots, poll_interval=poll_interval, baudrate=baud.get("betspots", 115200)),
        "meter": MeterDriver(port=ports["meter"], consumer=consumer_for("meter"), timing=timing,
                             baudrate=baud.get("meter", 115200)),
        # a shoe or panel given a port speaks the same link over it (``tabled sim shoe|panel``)
        "shoe": ShoeDriver(consumer=consumer_for("shoe"), address=addr.get("shoe"), backend=usb_backend,
                           timing=timing, opener=serial_opener(ports["shoe"]) if ports.get("shoe") else None),
        "panel": PanelDriver(consumer=consumer_for("panel"), address=addr.get("panel"), backend=usb_backend,
                             timing=timing, opener=serial_opener(ports["panel"]) if ports.get("panel") else None),
    }


class TableDevices:
    """Joins the drivers to a :class:`tabled.daemon.controller.Table` (whose ``commands`` sink is :meth:`command`)."""

    def __init__(self, table: Any, make_drivers: Callable[[Callable[[str], Any]], dict[str, Driver]]) -> None:
        self.table = table
        self.drivers = make_drivers(self._consumer_for)
        self.boots: dict[str, int] = {}
        self.up: set[str] = set()
        self.last_frame: dict[str, int] = {}
        self.board: dict[tuple[int, str], tuple[int, int]] = {}  # (spot, area) -> (chips, tokens) submitted
        self.stacks: dict[tuple[int, str], int] = {}  # (spot, area) -> separate stacks submitted (5.8)
        # spot -> (round, chips, tokens) offered again (14.11.1)
        self.bets_offered: dict[int, tuple[str, int, int]] = {}
        self.events_in = 0
        self.repeats_dropped = 0
        self.resumed = False  # nothing goes to a device before the table has resumed from its journal
        self._queues: dict[str, asyncio.Queue] = {}
        self._workers: list[asyncio.Task] = []
        self._tasks: set[asyncio.Task] = set()
        self.on_input: Callable[[str, DeviceEvent], None] | None = None  # benchmarks: event timing
        self._sync_board_from_core()
        table.listeners.append(self.on_effects)

    # -- life -------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every driver; raises :class:`PortBusyError` (one line naming the port) when a
        serial port is held by another program: another daemon drives these devices."""
        for name in self.drivers:
            self._queues[name] = asyncio.Queue()
            self._workers.append(asyncio.get_running_loop().create_task(self._work(name), name=f"{name}-commands"))
        for d in self.drivers.values():
            await d.start()
        try:
            async with asyncio.timeout(FIRST_OPEN_TIMEOUT):  # never swallows a cancellation (3.11)
                opened = await asyncio.gather(*(d.client.first_open() for d in self.drivers.values()))
        except TimeoutError:
            return  # a port still opening is not a port held by another daemon
        busy = [e for e in opened if isinstance(e, PortBusyError)]
        if busy:
            await self.stop()
            raise busy[0]

    async def wait_up(self, timeout: float) -> None:
        await asyncio.gather(*(d.wait_up(timeout) for d in self.drivers.values()))

    async def stop(self) -> None:
        for t in [*self._workers, *self._tasks]:
            t.cancel()
        for t in [*self._workers, *self._tasks]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._workers.clear()
        for d in self.drivers.values():
            with contextlib.suppress(Exception):
                await d.stop()

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("devices.task_failed", error=repr(task.exception()), round_id=self.core.round_id)

    @property
    def core(self):
        return self.table.core

    # -- events in ---------------------------------------------------------------------------------------

    def _consumer_for(self, device: str):
        async def consume(event: DeviceEvent, ack: Callable[[], None]) -> None:
            try:
                await self._on_event(device, event, ack)
            except Exception:  # a bug here must not stop the device's link; the frame is kept
                log.exception("devices.event_failed", device=device, what=repr(event),
                              round_id=self.core.round_id)
                ack()
        return consume

    async def _on_event(self, device: str, event: DeviceEvent, ack: Callable[[], None]) -> None:
        self.events_in += 1
        if isinstance(event, LinkUp):
            again = device in self.boots
            self.boots[device] = event.boot_id
            self.up.add(device)
            if again or not self.core.links.is_up(device):  # a first link the table holds up is no news
                self.table.submit("device.link", {"device": device, "up": True, "reason": ""})
            if device == "betspots":
                self._sync_board_from_core()
            if device == "shuffler":
                self._spawn(self._report_status(self.drivers["shuffler"]))  # what it holds after the link was down
            return
        if isinstance(event, LinkFailed):
            self.up.discard(device)
            log.warning("device.link_lost", device=device, reason=event.reason, round_id=self.core.round_id)
            self.table.submit("device.link", {"device": device, "up": False, "reason": event.reason})
            return
        key = self._frame_key(device, ack)
        if key is not None and key[2]:
            log.debug("devices.repeat_dropped", device=device, what=type(event).__name__)
            self.repeats_dropped += 1
            ack()  # already in the journal: the device may forget it
            return
        if isinstance(event, ButtonPressed):
            await self.table.idle.wait()  # the panel acts on the table as the dealer sees it now
        inputs = self._translate(device, event)
        if self.on_input is not None and inputs:
            self.on_input(device, event)
        self._submit(inputs, ack, key)

    def _frame_key(self, device: str, ack: Any) -> tuple[str, int, bool] | None:
        """(src, frame number, is a repeat) for a device frame; None for polled readings."""
        seq, boot = frame_seq(ack), self.boots.get(device)
        if seq is None or boot is None:
            return None
        src = f"{device}@{boot:08x}"
        folded = self.core.last_seq.get(src, -1)
        last = max(folded // PER_FRAME if folded >= 0 else -1, self.last_frame.get(src, -1))
        residue = (seq - 1) % SEQ_CYCLE
        if last < 0:
            return src, residue, False
        number = last + (residue - last) % SEQ_CYCLE
        return src, number, number == last

    def _submit(self, inputs: list[Input], ack: Callable[[], None], key: tuple[str, int, bool] | None) -> None:
        if not inputs:
            ack()  # nothing for the journal: the frame is done with
            return
        for i, (kind, payload) in enumerate(inputs):
            if key is not None:
                payload = {**payload, "src": key[0], "seq": key[1] * PER_FRAME + i}
            # all of one frame's inputs go in one group commit; the frame is acked after it
            self.table.submit(kind, payload, ack if i == len(inputs) - 1 else None)
        if key is not None:
            self.last_frame[key[0]] = key[1]

    def _translate(self, device: str, e: DeviceEvent) -> list[Input]:
        if isinstance(e, BadDeviceData):
            log.error("device.nonsense", device=device, reason=e.reason, round_id=self.core.round_id)
            return []
        if isinstance(e, HandDelivered):
            return [("shuffler.hand", {"cards": list(e.cards), "back": e.deck.name.lower(), "up": e.bottom})]
        if isinstance(e, ShuffleComplete):
            return self._shuffled(e)
        if isinstance(e, (ShufflerJam, ShuffleCycleFailed, NotIntermixing)):
            fault = {ShufflerJam: "jam", ShuffleCycleFailed: "cycle_fail", NotIntermixing: "not_intermixing"}[type(e)]
            deck = COLOUR_DECKS.get(e.deck)
            return [("shuffler.fault", {"fault": fault, "deck": deck})] if deck else []
        if isinstance(e, CardCountWrong):
            deck = COLOUR_DECKS.get(e.deck)
            return [("deck.verified", {"deck": deck, "count": e.counted})] if deck else []
        if isinstance(e, WagersChanged):
            return self._wagers(e.reading)
        if isinstance(e, WagerAfterLock):
            return []  # the round judges it (5.6; a bet in the deciding phase is allowed, 8.5)
        if isinstance(e, MeterFault):
            return [("equipment.fault", {"equipment": "meter", "reason": e.reason})]  # the meter says it is faulty
        if isinstance(e, MeterFaultCleared):
            return [("equipment.back", {"equipment": "meter"})]
        if isinstance(e, CardDrawn):  # 7.3
            return [("shoe.card", {"card": e.card, "reader_seq": e.reader_seq, **_back(e.back)})]
        if isinstance(e, CardUnreadable):  # 7.3, 14.1
            return [("shoe.unreadable", {"reader_seq": e.reader_seq, **_back(e.back)})]
        if type(e) in SHOE_HAPPENINGS:
            return [(SHOE_HAPPENINGS[type(e)], {"cards_read": e.cards_read})]
        if isinstance(e, (DoorOpen, DoorClosed)):
            return [("shuffler.door", {"open": isinstance(e, DoorOpen)})]
        if isinstance(e, ButtonPressed):
            return self._button(e)
        if isinstance(e, KeyTurned):
            log.info("panel.key_turned", position=e.position.name.lower(), round_id=self.core.round_id)
            return []
        log.debug("device.event", device=device, what=type(e).__name__, round_id=self.core.round_id)
        return []

    def _shuffled(self, e: ShuffleComplete) -> list[Input]:
        deck = COLOUR_DECKS.get(e.deck)
        if deck is None:
            log.error("shuffler.unknown_deck", colour=e.deck.name, round_id=self.core.round_id)
            return []
        return [("shuffler.shuffled", {"deck": deck, **({"cards": list(e.order)} if e.order else {})})]

    # -- the bet-spot board ----------------------------------------------------------------------------

    def _sync_board_from_core(self) -> None:
        r = self.core.round
        self.board, self.stacks = {}, {}
        if r is not None:
            for s in r.spots.values():
                for area in AREAS:
                    w = getattr(s, area)
                    self.board[(s.number, area)] = (w.chips_cents, w.token_cents)
                    self.stacks[(s.number, area)] = s.stacks.get(area, 1 if w else 0)

    def _wagers(self, reading, areas: tuple[str, ...] = AREAS, full: bool = False) -> list[Input]:
        inputs: list[Input] = []
        for sw in reading.spots:
            for area in areas:
                w = getattr(sw, area)
                now, where = (w.chips, w.tokens), (sw.spot, area)
                # a stack split or joined is news even when the amount is not (5.8)
                if full or self.board.get(where, (0, 0)) != now or self.stacks.get(where, 0) != w.stacks:
                    self.board[where], self.stacks[where] = now, w.stacks
                    inputs.append(("wager", {"spot": sw.spot, "area": area, "cents": w.chips,
                                             "token_cents": w.tokens, "stacks": w.stacks}))
        return inputs

    async def _resync_board(self) -> None:
        """Betting opens: the chips on the felt now are this round's antes and progressive wagers
        (a bet area is paid or collected at settlement, so it is not carried into a round)."""
        board: BetSpotsDriver = self.drivers["betspots"]  # type: ignore[assignment]
        reading = await board.poll()
        inputs = self._wagers(reading, ("ante", "progressive"), full=True)
        inputs = [i for i in inputs if i[1]["cents"] or i[1]["token_cents"]]
        for kind, payload in inputs:
            self.table.submit(kind, payload)

    # -- the panel ----------------------------------------------------------------------------------------

    def _button(self, e: ButtonPressed) -> list[Input]:
        key = e.key.name.lower()
        c, r = self.core, self.core.round
        b = e.button

        def panel(action: str, **fields: Any) -> Input:
            return ("panel", {"action": action, "key": key, **fields})

        if b is Button.NO_MORE_BETS:
            return [panel("no_more_bets")]
        if b is Button.REVEAL:
            if r is None or r.phase != "deciding":
                return [panel("reveal")]  # the round says why not
            folds = [panel("fold", spot=s.number) for s in r.spots.values()  # 8.3, 8.6
                     if s.status == "playing" and self.board.get((s.number, "bet"), (0, 0)) == (0, 0)]
            return [*folds, panel("reveal")]
        if b is Button.SETTLE_DONE:
            if r is not None and r.phase == "settling" and r.awards is not None:
                held = [a["spot"] for a in r.awards.get("awards", []) if r.spots[a["spot"]].award_held]
                if held:
                    return [panel("award_paid", spot=held[0])]  # 9.5, in the order of 12.2 / 12.4
            return [panel("settle")]
        if isinstance(e, SpotAction):
            if b is Button.EXPOSED_CARD and e.spot == DEALER_HAND:  # 14.6: the card becomes the up card
                return [panel("exposed_card", target=DEALER, **self._dealer_card())]
            if b is Button.EXPOSED_CARD:  # 14.5
                return [panel("exposed_card", target=e.spot)]
            action, fields = SPOT_ACTIONS[b]
            return [panel(action, spot=e.spot, **fields)]
        if isinstance(e, NumberEntered):
            return self._number(e, panel)
        if b is Button.MISDEAL:
            return [panel("misdeal")]
        if b is Button.VOID_ROUND:
            forfeit = list(e.spots) if isinstance(e, SpotsAction) else []
            return [panel("invalidate_round", reason="voided at the panel", forfeit=forfeit)]  # 16.4, 16.5
        if b is Button.NEW_CARDS:  # 3.6: every deck of the card source in use, each to be verified
            decks = ["S"] if c.card_source == "shoe" else list(DECK_COLOURS)
            return [panel("new_cards", deck=d) for d in decks]
        if b is Button.SWITCH_TO_SHOE:
            return [panel("use_card_source", source="shoe")]  # 15.2.2
        if b is Button.CONFIRM_CUT:
            if c.card_source == "shoe" and "shoe" in self._queues:  # the cut deck is in the shoe: count from 1
                self._queues["shoe"].put_nowait(Command("shoe", "start_shoe"))
            return [panel("shuffle_and_cut")]  # 4.2, 4.3
        if b is Button.VERIFY_DECK:
            if c.card_source == "shoe":
                return [("deck.verified", {"deck": "S", "count": DECK_SIZE})]  # 3.4: counted by the dealer
            deck = c.deck_to_check()
            if deck is not None:  # 3.4: a device without card recognition: the dealer's check verifies
                return [panel("deck_checked", deck=deck)]
            return [panel("count_cards", count=DECK_SIZE)]
        if b is Button.APPROVE:
            return self._approve(key, panel)
        log.info("panel.button", button=b.name.lower(), key=key, round_id=c.round_id)
        return []

    def _number(self, e: NumberEntered, panel: Callable[..., Input]) -> list[Input]:
        b, v = e.button, e.value
        if b is Button.VERIFY_COUNT:
            return [panel("count_cards", count=v)]  # 3.7; NZ 14.9 (profile)
        if b is Button.ANNOUNCE_CLOSURE:
            return [panel("announce_closure", minutes=v)]  # 16.8: minutes from the input's journal time
        if b is Button.ANNOUNCE_MINIMUM:
            return [panel("announce_minimum", cents=v)]  # 6.2: at the earliest the 20 minutes allow
        # ENTER_CARD: the dealer read the card the shoe could not (7.3); the core says if one waits
        return [("shoe.card", {"card": v, "keyed": True})]

    def _dealer_card(self) -> dict[str, int]:
        """The card the shoe last dealt to the dealer: the one exposed on the dealer's hand (14.6)."""
        r = self.core.round
        if r is not None and r.card_source == "shoe" and r.phase == "dealing" and r.dealer_cards:
            return {"card": r.dealer_cards[-1]}
        return {}  # the core says no card of the dealer's hand can be named

    def _approve(self, key: str, panel: Callable[..., Input]) -> list[Input]:
        c, r = self.core, self.core.round
        if key == "inspector":
            if not c.faults:
                return [panel("approve_play")]  # refused by the table: nothing to approve
            out = [panel("approve_play")]  # 14.13
            for device in EQUIPMENT:  # back already: no need to go offline for it
                if device in c.faults and device in self.up:
                    out.append(("equipment.ok", {"equipment": device}))
            return out
        if r is not None and any(s.past_posting for s in r.spots.values()):
            return [panel("resolve_past_posting", spot=s.number) for s in r.spots.values() if s.past_posting]  # 5.6
        if key == "supervisor":
            if not c.is_open:
                return [panel("open_table")]  # 16.8
            if c.shuffler_failed:
                return [panel("use_card_source", source="shuffler")]  # 15.2.2: another device, new cards
        return [panel("approve_play")]  # the table says why not

    # -- the shuffling device's own state ---------------------------------------------------------------

    async def resume(self, missing_notes: list) -> None:
        """The journal checked out and was replayed: the inputs the devices gave meanwhile are folded
        (their commands were not sent), then the devices are told the table's standing effects, and
        from here on kept in step."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FIRST_OPEN_TIMEOUT):
                await self.table.idle.wait()
        self.resumed = True
        await self.table.resume(missing_notes)
        self.on_effects([])

    async def _report_status(self, d: ShufflerDriver) -> Status | None:
        """Journal what the shuffling device says it holds (``shuffler.status``) when the table says
        it is news to it; None when the device cannot say."""
        try:
            status = await d.status()
        except LinkError as exc:
            log.warning("shuffler.status_failed", error=str(exc), round_id=self.core.round_id)
            return None
        reading = {"ready": {COLOUR_DECKS[c]: left for c, left in status.ready.items() if c in COLOUR_DECKS},
                   "recognition": status.recognition}
        if self.core.is_news("shuffler.status", reading):
            self.table.submit("shuffler.status", reading)
        return status

    # -- effects out --------------------------------------------------------------------------------------

    def on_effects(self, effects: list[Effect]) -> None:
        """Table listener: a bet held back by 14.11.1 is offered again once the spot directed to play
        first has decided."""
        self._offer_bets_held_back()

    def _offer_bets_held_back(self) -> None:
        """14.11.1: a bet put down while another spot was directed to play first is refused by the
        round, and the board does not report it again while it lies unchanged. Once that spot has
        decided, the chips still on the bet area are this spot's bet: offered once per amount."""
        r = self.core.round
        if r is None or r.phase != "deciding" or r.first_to_play is None:
            return
        if r.spots[r.first_to_play].status == "playing":
            return
        for spot in r.spots.values():
            chips, tokens = self.board.get((spot.number, "bet"), (0, 0))
            offer = (r.round_id, chips, tokens)
            if spot.status == "playing" and (chips or tokens) and self.bets_offered.get(spot.number) != offer:
                self.bets_offered[spot.number] = offer
                self.table.submit("wager", {"spot": spot.number, "area": "bet", "cents": chips, "token_cents": tokens,
                                            "stacks": self.stacks.get((spot.number, "bet"), 1)})

    async def command(self, cmd: Command) -> None:
        """The table's command sink: queued, in order, per device. Before the table has resumed
        nothing is sent: the resume sends its standing effects."""
        if not self.resumed:
            return
        q = self._queues.get(cmd.device)
        if q is None:
            log.error("devices.no_such_device", device=cmd.device, command=cmd.name)
            return
        q.put_nowait(cmd)

    async def _work(self, device: str) -> None:
        q = self._queues[device]
        while True:
            cmd = await q.get()
            try:
                await self._run(cmd)
            except (LinkError, ValueError) as exc:
                # down: once it is back the table sends it its standing effects (device.link)
                log.warning("device.command_failed", device=device, command=cmd.name, error=str(exc),
                            round_id=self.core.round_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("device.command_crashed", device=device, command=cmd.name,
                              round_id=self.core.round_id)

    async def _run(self, cmd: Command) -> None:
        d = self.drivers[cmd.device]
        a = cmd.args
        if cmd.device == "shuffler":
            if cmd.name == "shuffle":
                await self._shuffle(d, a["deck"])
            elif cmd.name == "deal":
                await self._deal(d, a["deck"], a["hands"])
        elif cmd.device == "betspots":
            if cmd.name == "unlock":
                await d.unlock()
                await self._resync_board()
                if a.get("progressive_spots"):
                    await d.enable_progressive(sorted(a["progressive_spots"]))
                await d.set_lamps({})
            elif cmd.name == "progressive_acceptance" and "progressive_spots" in a:
                await d.enable_progressive(sorted(a["progressive_spots"]))
            elif cmd.name == "lock":
                await d.lock()
                if "lamps" in a:
                    await d.set_lamps({n: SpotLamp.ON for n in a["lamps"]})
        elif cmd.device == "shoe" and cmd.name == "start_shoe":
            await d.start_shoe()
        elif cmd.device == "panel" and cmd.name == "lamp":
            await d.set_lamp(Lamp[a["lamp"]], LampState[a["state"]])
        elif cmd.device == "meter" and cmd.name == "show":
            if a.get("offline"):
                await d.show_offline()
            elif a.get("cents") is not None:
                await d.show(a["cents"])
        else:
            log.info("device.command_ignored", device=cmd.device, command=cmd.name)

    def _refused(self, command: str, deck: str, exc: CommandRejected) -> None:
        status = Status(exc.status).name if exc.status in set(Status) else f"status {exc.status}"
        self.table.submit("shuffler.refused", {"command": command, "deck": deck, "status": status,
                                               "reason": str(exc)})

    async def _shuffle(self, d: ShufflerDriver, deck: str) -> None:
        last: CommandRejected | None = None
        for _ in range(BUSY_RETRIES):
            try:
                await d.shuffle(DECK_COLOURS[deck])
                return
            except CommandRejected as exc:
                if exc.status != Status.BUSY:
                    self._refused("shuffle", deck, exc)
                    return
                await asyncio.sleep(BUSY_RETRY_S)  # one shuffle at a time in the device
                last = exc
        self._refused("shuffle", deck, last)

    async def _deal(self, d: ShufflerDriver, deck: str, hands: int) -> None:
        """Deliver the hands the device has not given yet from ``deck`` (its cards left say how many
        it has); a deck it does not hold is reported, and not dealt from."""
        status = await self._report_status(d)
        if status is None:
            return
        left = status.ready.get(DECK_COLOURS[deck])
        if left is None:
            return
        for _ in range(hands - (DECK_SIZE - left) // HAND_SIZE):
            try:
                await d.deliver_hand(DECK_COLOURS[deck])
            except CommandRejected as exc:
                self._refused("deliver_hand", deck, exc)
                return


def _back(colour: BackColour) -> dict[str, str]:
    """The back colour as the core names it (3.1, 3.2.2); none when the reader did not see it."""
    return {} if colour is BackColour.NOT_SEEN else {"back": colour.name.lower()}


__all__ = ["TableDevices", "build_drivers", "DEVICES", "DECK_COLOURS"]

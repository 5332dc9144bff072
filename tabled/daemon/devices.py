"""The table's five devices, joined to the controller.

Driver events become table inputs, submitted with the driver's acknowledgement, so the device
hears its frame acknowledged only once the input is in the journal (tabled/daemon/controller.py acks after the
group commit). Table effects that are device commands go to the drivers through one ordered worker
per device, so the table's consumer never waits on a device.

Repeats: a device sends again an event the daemon did not acknowledge, also to the *next* daemon
after a crash. Each device frame's input carries ``src`` (device and boot id) and a ``seq`` that
grows by one per frame; the core ignores a ``seq`` it has already folded (tabled/table/core.py), and the
adapter drops a frame it can see is a repeat before translating it again.

The panel and the felt are translated, never judged: a button press becomes one ``panel.button``
input (the button, the key turned, the spot, spots or number keyed), and each of the bet-spot
board's readings one ``board.reading`` input (every spot's areas). What a press means in the
table's state, and what the chips on the felt are, is decided by the fold (tabled/table/buttons.py,
tabled/table/felt.py).

Choices where the rules and the devices leave room (documented, each where it is made):

* A lost link is not by itself a device failure. The meter's is (14.13: its display cannot be
  trusted), and so is the bet-spot board's: it is the electronic equipment that records the
  progressive wagers (2.3), so its loss is a 14.13 fault the dealer is told of. While it is lost
  the table reads no wagers and opens no round before an inspector approves; when it is back it
  is read again from the chips on the felt, and the fault clears by itself once an inspector has
  approved play (as for the meter). The shuffler's becomes 15.2 only when it comes back having
  lost the deck a round is being dealt from; before any card is dealt it is a failed shuffle
  cycle: reshuffle (15.1). A hand the shuffler answers with DEVICE_FAULT is 15.2 at once.
* Hands come out of the shuffling device when the round enters dealing (7.4); how many the device
  has already given for the round is read back from it (STATUS), so a restart mid-deal asks for
  exactly the hands still missing.
* Everything the shoe and the shuffling device's door report is journaled as it comes (shoe.card,
  shoe.unreadable, shoe.removed, shoe.replaced, shoe.empty, shuffler.door); the core decides
  what it means for the deal (7.3, 14.1, 3.1: a card of the wrong back colour voids the round),
  what the dealer is told and how the panel's FAULT lamp shows it,
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
from tabled_drivers.betspots import BetSpotsDriver, Lamp as SpotLamp, Reading, WagerAfterLock, WagersChanged
from tabled_drivers.link.client import serial_opener
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.errors import CommandRejected, LinkError, PortBusyError
from tabled_drivers.link.messages import Status
from tabled_drivers.meter import MeterDriver, MeterFault, MeterFaultCleared
from tabled_drivers.panel import (Button, ButtonPressed, KeyTurned, Lamp, LampState, NumberEntered, PanelDriver,
                           SpotAction, SpotsAction)
from tabled_drivers.shoe import (BackColour, CardDrawn, CardUnreadable, ShoeDriver, ShoeEmpty, ShoeRemoved,
                          ShoeReplaced)
from tabled_drivers.shuffler import (DECK_SIZE, CardCountWrong, DeckColour, DoorClosed, DoorOpen, HandDelivered,
                              NotIntermixing, ShuffleComplete, ShuffleCycleFailed, ShufflerDriver, ShufflerJam)
from tabled.table.effects import Command, Effect
from tabled.table.felt import AREAS, parse_reading
from tabled.game.cards import HAND_SIZE

log = structlog.get_logger("tabled.daemon.devices")

DEVICES = ("shuffler", "betspots", "meter", "shoe", "panel")
#: devices that are the electronic equipment of 14.13: the board records the progressive wagers
#: (2.3), the meter displays the pool (2.4.3); losing either is a fault for an inspector
EQUIPMENT = ("meter", "betspots")
FIRST_OPEN_TIMEOUT = 5.0  # seconds for every driver's first try at opening its port
DECK_COLOURS = {"A": DeckColour.RED, "B": DeckColour.BLUE}  # tabled.table.core.DECKS: A red, B blue (3.2.2)
COLOUR_DECKS = {c: d for d, c in DECK_COLOURS.items()}
SEQ_CYCLE = 255   # link SEQs run 1..255 and wrap (docs/protocols.md)
PER_FRAME = 16    # sequence numbers per frame (a frame's inputs are numbered within its block)
BUSY_RETRY_S = 0.01
BUSY_RETRIES = 200
SHOE_HAPPENINGS = {ShoeRemoved: "shoe.removed", ShoeReplaced: "shoe.replaced", ShoeEmpty: "shoe.empty"}

#: the panel's buttons -> the names ``panel.button`` inputs give them (tabled/table/buttons.py)
BUTTON_NAMES = {
    Button.NO_MORE_BETS: "no_more_bets", Button.DEAL: "deal", Button.REVEAL: "reveal",
    Button.SETTLE_DONE: "settle_done", Button.MISDEAL: "misdeal", Button.VOID_ROUND: "void_round",
    Button.CONFIRM_SHUFFLE: "confirm_shuffle", Button.CONFIRM_CUT: "confirm_cut", Button.APPROVE: "approve",
    Button.VERIFY_DECK: "verify_deck", Button.CALL_SUPERVISOR: "call_supervisor",
    Button.CONCEDE: "concede", Button.ABSENT: "absent", Button.EXPOSED_CARD: "exposed_card",
    Button.NO_ANTE_HAND: "no_ante_hand", Button.PLAY_FIRST: "play_first", Button.VOID_PLAYER: "void_player",
    Button.DEAD_HAND: "dead_hand", Button.FORFEIT: "forfeit", Button.NEW_CARDS: "new_cards",
    Button.SWITCH_TO_SHOE: "switch_to_shoe", Button.VERIFY_COUNT: "verify_count",
    Button.ANNOUNCE_CLOSURE: "announce_closure", Button.ANNOUNCE_MINIMUM: "announce_minimum",
    Button.ENTER_CARD: "enter_card",
}

Input = tuple[str, dict[str, Any]]


def button_input(e: ButtonPressed) -> Input:
    """A press of the panel as the table's ``panel.button`` input."""
    payload: dict[str, Any] = {"button": BUTTON_NAMES[e.button], "key": e.key.name.lower()}
    if isinstance(e, SpotAction):
        payload["spot"] = e.spot
    elif isinstance(e, SpotsAction):
        payload["spots"] = list(e.spots)
    elif isinstance(e, NumberEntered):
        payload["value"] = e.value
    return ("panel.button", payload)


def board_input(reading: Reading) -> Input:
    """A reading of the bet-spot board as the table's ``board.reading`` input: every spot's areas."""
    return ("board.reading", {"spots": [
        {"spot": sw.spot, **{area: {"cents": getattr(sw, area).chips, "token_cents": getattr(sw, area).tokens,
                                    "stacks": getattr(sw, area).stacks} for area in AREAS}}
        for sw in reading.spots]})


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
        self.accepting: set[int] = set()                           # spots accepting a progressive (11.1)
        self.dealt_round: str | None = None                        # hands asked for, for this round
        self.shuffling: set[str] = set()                           # decks asked to be shuffled, not yet back
        self.events_in = 0
        self.repeats_dropped = 0
        self.resumed = False  # nothing goes to a device before the table has resumed from its journal
        self.board_fresh = False  # the daemon's first board link is up and has not reported a reading
        self._queues: dict[str, asyncio.Queue] = {}
        self._workers: list[asyncio.Task] = []
        self._tasks: set[asyncio.Task] = set()
        self.on_input: Callable[[str, DeviceEvent], None] | None = None  # benchmarks: event timing
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
            told = again or not self.core.links.is_up(device)  # a first link the table holds up is no news
            if told:
                self.table.submit("device.link", {"device": device, "up": True, "reason": ""})
            if device == "betspots":  # back after a loss the table knows of: its first reading is news
                self.board_fresh = not told
            self._spawn(self._link_up(device))
            return
        if isinstance(event, LinkFailed):
            self.up.discard(device)
            self.table.submit("device.link", {"device": device, "up": False, "reason": event.reason})
            self._link_failed(device, event)
            return
        key = self._frame_key(device, ack)
        if key is not None and key[2]:
            log.debug("devices.repeat_dropped", device=device, what=type(event).__name__)
            self.repeats_dropped += 1
            ack()  # already in the journal: the device may forget it
            return
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
        if isinstance(e, (ShufflerJam, ShuffleCycleFailed, NotIntermixing, CardCountWrong)):
            self.shuffling.discard(COLOUR_DECKS.get(e.deck))  # that shuffle is over: ask again (15.1)
        if isinstance(e, (ShufflerJam, ShuffleCycleFailed, NotIntermixing)):
            fault = {ShufflerJam: "jam", ShuffleCycleFailed: "cycle_fail", NotIntermixing: "not_intermixing"}[type(e)]
            deck = COLOUR_DECKS.get(e.deck)
            return [("shuffler.fault", {"fault": fault, "deck": deck})] if deck else []  # 15.1
        if isinstance(e, CardCountWrong):
            deck = COLOUR_DECKS.get(e.deck)
            return [("deck.verified", {"deck": deck, "count": e.counted})] if deck else []  # 3.7
        if isinstance(e, WagersChanged):
            return self._board_reading(e.reading)
        if isinstance(e, WagerAfterLock):
            return []  # the round judges it (5.6; a bet in the deciding phase is allowed, 8.5)
        if isinstance(e, MeterFault):
            return [("equipment.fault", {"equipment": "meter", "reason": e.reason})]  # 14.13
        if isinstance(e, MeterFaultCleared):
            return self._equipment_back("meter")
        if isinstance(e, CardDrawn):  # 7.3
            return [("shoe.card", {"card": e.card, "reader_seq": e.reader_seq, **_back(e.back)})]
        if isinstance(e, CardUnreadable):  # 7.3, 14.1
            return [("shoe.unreadable", {"reader_seq": e.reader_seq, **_back(e.back)})]
        if type(e) in SHOE_HAPPENINGS:
            return [(SHOE_HAPPENINGS[type(e)], {"cards_read": e.cards_read})]
        if isinstance(e, (DoorOpen, DoorClosed)):  # 15.2
            return [("shuffler.door", {"open": isinstance(e, DoorOpen)})]
        if isinstance(e, ButtonPressed):
            return [button_input(e)]
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
        inputs: list[Input] = []
        if e.order and not self.core.decks[deck]["verified"]:
            inputs.append(("deck.verified", {"deck": deck, "cards": list(e.order)}))  # 3.4: read by the device
        inputs.append(("shuffler.shuffled", {"deck": deck}))
        r = self.core.round
        if r is not None and r.deck == deck and r.phase == "dealing":
            self.dealt_round = None  # a deal that waited for this deck may go on
        return inputs

    def _board_reading(self, reading: Reading) -> list[Input]:
        """The board reports a reading when it differs from its last one. The first after a start
        is not journaled when the table's felt holds it already (a restart over the same chips);
        every other one is journaled as it comes."""
        fresh, self.board_fresh = self.board_fresh, False
        kind, payload = board_input(reading)
        if fresh and not self.core.felt.changes(parse_reading(payload["spots"], self.core.spot_count)):
            return []
        return [(kind, payload)]

    # -- link state ---------------------------------------------------------------------------------------

    def _link_failed(self, device: str, e: LinkFailed) -> None:
        log.warning("device.link_lost", device=device, reason=e.reason, round_id=self.core.round_id)
        if device in EQUIPMENT and device not in self.core.faults:
            self.table.submit("equipment.fault", {"equipment": device, "reason": f"link lost: {e.reason}"})  # 14.13
        if device == "shuffler":
            self.dealt_round = None
            self.shuffling.clear()  # asked again when it is back (_link_up)

    def _equipment_back(self, device: str) -> list[Input]:
        """The meter or the bet-spot board works again: with an inspector's approval in force the
        progressive comes back online by itself (14.13); without it the fault stands until the
        inspector comes."""
        if device in self.core.faults and self.core.approved:
            return [("equipment.ok", {"equipment": device})]
        return []

    async def resume(self, missing_notes: list) -> None:
        """The journal checked out and was replayed: now tell the devices (the table's standing
        effects), and from here on keep them in step."""
        await self.table.resume(missing_notes)
        self.resumed = True
        if "shuffler" in self.up:
            await self._reconcile_shuffler()  # it may have lost decks while the daemon was down
        self.on_effects([])

    async def _link_up(self, device: str) -> None:
        """A device (re)connected: put it back in the state the table needs (standing effects)."""
        await self.table.idle.wait()
        if not self.resumed:
            return  # the resume sends the standing effects to every device
        if device in EQUIPMENT:
            for kind, payload in self._equipment_back(device):
                self.table.submit(kind, payload)
        if device == "shuffler":
            await self._reconcile_shuffler()
        for e in self.core.standing_effects():
            if isinstance(e, Command) and e.device == device and not (e.device == "shuffler" and e.name == "shuffle"):
                self._queues[device].put_nowait(e)
        if device == "shuffler":
            self._want_shuffles()  # the decks it must (re)shuffle
            self._maybe_deal()

    async def _reconcile_shuffler(self) -> None:
        """After a reconnect, compare the decks the device holds shuffled with what the table
        believes; a deck it lost (it was restarted) is reshuffled (15.1), or the round void if
        cards were being dealt from it (15.2)."""
        shuffler: ShufflerDriver = self.drivers["shuffler"]  # type: ignore[assignment]
        try:
            status = await shuffler.status()
        except LinkError as exc:
            log.warning("shuffler.status_failed", error=str(exc), round_id=self.core.round_id)
            return
        c, r = self.core, self.core.round
        if c.recognition is not status.recognition:  # 3.4: who verifies a new deck, the device or the dealer
            self.table.submit("shuffler.recognition", {"on": status.recognition})
        for deck, colour in DECK_COLOURS.items():
            if colour in status.ready:
                continue
            in_play = r is not None and r.deck == deck and r.phase not in ("preparing",)
            dealt = in_play and (r.deliveries > 0 or r.phase not in ("betting", "dealing"))
            if in_play and not dealt:  # no card dealt from it yet: reshuffle (15.1)
                self.table.submit("shuffler.fault", {"fault": "cycle_fail", "deck": deck})
            elif in_play and r.phase == "dealing":  # 15.2: cards dealt from a deck the device lost
                self.table.submit("shuffler.fault", {"fault": "lost the deck in play (restarted)", "deck": deck})
            elif not in_play and c.decks[deck]["shuffled"]:
                self.table.submit("shuffler.fault", {"fault": "cycle_fail", "deck": deck})  # 15.1

    # -- effects out --------------------------------------------------------------------------------------

    def on_effects(self, effects: list[Effect]) -> None:
        """Table listener: decks the table needs shuffled are shuffled (4.1), and a round that
        reached dealing gets its hands from the device (7.4)."""
        self._want_shuffles()
        self._maybe_deal()

    def _want_shuffles(self) -> None:
        """Any deck the table needs and nobody asked the device to shuffle is asked for (e.g.
        after new cards, 15.2.2, or a reconnect). A request is pending until the table knows
        the deck shuffled, so a deck is never shuffled twice for one need."""
        c, r = self.core, self.core.round
        for deck in DECK_COLOURS:
            in_play = r is not None and r.deck == deck and r.phase != "preparing"
            # a deck in play was shuffled before it was dealt from: no request for it is pending,
            # even when its shuffle report and the start of play fell in one step
            if c.decks[deck]["shuffled"] or in_play:
                self.shuffling.discard(deck)
        if not self.resumed or c.card_source != "shuffler" or c.shuffler_failed or "shuffler" not in self.up:
            return
        for deck in DECK_COLOURS:
            in_play = r is not None and r.deck == deck and r.phase != "preparing"
            if not c.decks[deck]["shuffled"] and not in_play and deck not in self.shuffling:
                self.shuffling.add(deck)
                self._queues["shuffler"].put_nowait(Command("shuffler", "shuffle", {"deck": deck}))

    def _maybe_deal(self) -> None:
        r = self.core.round
        if not self.resumed:
            return
        if r is None or r.phase != "dealing" or r.card_source != "shuffler" or self.dealt_round == r.round_id:
            return
        if "shuffler" not in self.up or self.core.shuffler_failed:
            return
        self.dealt_round = r.round_id
        self._queues["shuffler"].put_nowait(Command("shuffler", "deal", {"round_id": r.round_id}))

    async def command(self, cmd: Command) -> None:
        """The table's command sink: queued, in order, per device."""
        if cmd.device == "shuffler" and cmd.name == "shuffle" and cmd.args.get("deck") in DECK_COLOURS:
            if cmd.args["deck"] in self.shuffling:
                return  # asked already: one shuffle per need (and the same shuffles on every run)
            self.shuffling.add(cmd.args["deck"])
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
                # down: the reconnect puts the device back in the table's state (_link_up)
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
                await self._deal(d, a["round_id"])
        elif cmd.device == "betspots":
            if cmd.name == "unlock":
                await d.unlock()
                self.accepting = set(a.get("progressive_spots") or ())
                if self.accepting:
                    await d.enable_progressive(sorted(self.accepting))
                await d.set_lamps({})
            elif cmd.name == "progressive_acceptance":  # 11.1
                (self.accepting.add if a["enabled"] else self.accepting.discard)(a["spot"])
                await d.enable_progressive(sorted(self.accepting))
            elif cmd.name == "lock":  # 7.2.1
                await d.lock()
                r = self.core.round
                if r is not None and r.round_id == a.get("round_id"):  # 11.2: the player sees it accepted
                    await d.set_lamps({s.number: SpotLamp.ON for s in r.spots.values() if s.progressive_accepted})
        elif cmd.device == "shoe" and cmd.name == "start_shoe":
            await d.start_shoe()
        elif cmd.device == "panel" and cmd.name == "lamp":
            await d.set_lamp(Lamp[a["lamp"]], LampState[a["state"]])
        elif cmd.device == "meter" and cmd.name == "show":
            if self.core.progressive_offline:
                await d.show_offline()  # 14.13 approved with the progressive locked
            elif a.get("cents") is not None:
                await d.show(a["cents"])
        else:
            log.info("device.command_ignored", device=cmd.device, command=cmd.name)

    async def _shuffle(self, d: ShufflerDriver, deck: str) -> None:
        colour = DECK_COLOURS[deck]
        r = self.core.round
        if r is not None and r.deck == deck and r.phase not in ("preparing", "complete", "void"):
            status = await d.status()
            if colour in status.ready:
                log.debug("shuffler.keep_deck_in_play", deck=deck, round_id=r.round_id)  # 3.2.1
                self.shuffling.discard(deck)
                return
        try:
            for _ in range(BUSY_RETRIES):
                try:
                    await d.shuffle(colour)
                    return
                except CommandRejected as exc:
                    if exc.status != Status.BUSY:
                        raise
                    await asyncio.sleep(BUSY_RETRY_S)  # one shuffle at a time in the device
        except BaseException:
            self.shuffling.discard(deck)  # not asked after all: ask again later
            raise

    async def _deal(self, d: ShufflerDriver, round_id: str) -> None:
        r = self.core.round
        if r is None or r.round_id != round_id or r.phase != "dealing":
            return
        colour = DECK_COLOURS[r.deck]
        status = await d.status()
        left = status.ready.get(colour)
        if left is None:  # the device has not got the deck in play shuffled
            self.dealt_round = None
            if r.deliveries == 0:
                log.warning("shuffler.deck_not_ready", deck=r.deck, round_id=round_id)
                self.table.submit("shuffler.fault", {"fault": "cycle_fail", "deck": r.deck})  # 15.1
            else:
                self.table.submit("shuffler.fault", {"fault": "lost the deck in play", "deck": r.deck})  # 15.2
            return
        given = (DECK_SIZE - left) // HAND_SIZE  # hands the device has dealt from this deck (7.4)
        for _ in range(len(r.dealt_to) - given):
            try:
                await d.deliver_hand(colour)
            except CommandRejected as exc:
                if exc.status != Status.DEVICE_FAULT:
                    raise
                # 15.2: the device failed while dealing and says so; asking again would not help
                self.table.submit("shuffler.fault", {"fault": f"device fault: {exc}", "deck": r.deck})
                return


def _back(colour: BackColour) -> dict[str, str]:
    """The back colour as the core names it (3.1, 3.2.2); none when the reader did not see it."""
    return {} if colour is BackColour.NOT_SEEN else {"back": colour.name.lower()}


__all__ = ["TableDevices", "build_drivers", "button_input", "board_input", "BUTTON_NAMES", "DEVICES", "DECK_COLOURS"]

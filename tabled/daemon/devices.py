"""The table's five devices, joined to the controller.

Driver events become table inputs, submitted with the driver's acknowledgement, so the device
hears its frame acknowledged only once the input is in the journal (tabled/daemon/controller.py acks after the
group commit). Table effects that are device commands go to the drivers through one ordered worker
per device, so the table's consumer never waits on a device.

Repeats: a device sends again an event the daemon did not acknowledge, also to the *next* daemon
after a crash. Each device frame's input carries ``src`` (device and boot id) and a ``seq`` that
grows by one per frame; the core ignores a ``seq`` it has already folded (tabled/table/core.py), and the
adapter drops a frame it can see is a repeat before translating it again.

A sign-in at the panel is the one frame the shell does more than translate: the PIN keyed is
checked here against the staff list's salted hash (tabled/daemon/staff.py), in a worker thread
(scrypt takes some 50 ms: the table's loop goes on meanwhile), and goes no further: the input is
``staff.sign_in`` with the badge, the role (the key's position) and whether the PIN was right; who
may sign in, and a badge's lockout, are the fold's judgement (tabled/table/staff.py). A panel
sends at most :data:`SIGN_INS_PER_SECOND` sign-ins a second that are checked; one past that is
journaled unchecked (``checked: false``, no PIN check, no thread), and the fold refuses it.

The panel and the felt are translated, never judged: a button press becomes one ``panel.button``
input (the button, the key turned, the spot, spots or number keyed), and each of the bet-spot
board's readings one ``board.reading`` input (every spot's areas). What a press means in the
table's state, and what the chips on the felt are, is decided by the fold (tabled/table/buttons.py,
tabled/table/felt.py).

Choices where the rules and the devices leave room (documented, each where it is made):

* A driver's link coming up or being lost is journaled as ``device.link``; the table judges what
  it means (tabled/table/links.py). The bet-spot board's first reading after it is back says what
  lies on the felt.
* The shuffling device: what it says it holds (STATUS: the decks ready and the cards left in each,
  and whether it reads its cards) is journaled as ``shuffler.status`` when it (re)connects and
  before a deal; a command it refuses as ``shuffler.refused`` with its answer; the table judges
  both (tabled/table/cardsource.py). The table's commands say which decks to shuffle and how many
  hands a round needs; how many the device has already given from a deck is read back from it
  (cards left), so a repeated deal asks for exactly the hands still missing.
* SETTLE DONE pressed while the fold checks the payments (9.3, 9.4; ``TableCore.payments.waiting``)
  reads the bet-spot board at once and submits a changed reading before the press, so the fold
  judges the press against the felt as it lies when the dealer pressed, not as the last poll (up
  to a poll interval before) found it. Whether the felt is right stays the fold's judgement.
* Everything the shoe and the shuffling device's door report is journaled as it comes (shoe.card,
  shoe.unreadable, shoe.removed, shoe.replaced, shoe.empty, shuffler.door); the fold decides what
  it means for the deal (tabled/table/shoedeal.py), what the dealer is told and how the panel's
  FAULT lamp shows it, so a restart finds the deal exactly where it stood.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol, cast

import structlog

from tabled_drivers.base import Ack, BadDeviceData, Consumer, DeviceEvent, Driver, LinkFailed, LinkUp
from tabled_drivers.betspots import BetSpotsDriver, Lamp as SpotLamp, Reading, WagerAfterLock, WagersChanged
from tabled_drivers.link.client import LinkState, serial_opener
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.errors import CommandRejected, LinkError, PortBusyError
from tabled_drivers.link.messages import Status
from tabled_drivers.link.usb import UsbAddress
from tabled_drivers.meter import MeterDriver, MeterFault, MeterFaultCleared
from tabled_drivers.playercards import CardInserted, CardRemoved, PlayerCardDriver
from tabled_drivers.panel import (Button, ButtonPressed, EnclosureDoor, KeyTurned, Lamp, LampState, NumberEntered,
                           PanelDriver, SignIn, SignOut, SpotAction, SpotsAction)
from tabled_drivers.shoe import (BackColour, CardDrawn, CardUnreadable, ShoeDriver, ShoeEmpty, ShoeRemoved,
                          ShoeReplaced)
from tabled_drivers.shuffler import (DECK_SIZE, CardCountWrong, DeckColour, DoorClosed, DoorOpen, HandDelivered,
                              NotIntermixing, ShuffleComplete, ShuffleCycleFailed, ShufflerDriver, ShufflerJam,
                              ShufflerStatus)
from tabled.daemon.staff import StaffConfig, StaffError, hash_pin, pin_matches
from tabled.host.log import Trouble
from tabled.table.core import TableCore
from tabled.table.effects import (Command, Deal, Lock, MeterShow, Note, PanelLamp, ProgressiveAcceptance, Shuffle,
                                   StartShoe, Unlock)
from tabled.game.cards import HAND_SIZE
from tabled.table.felt import parse_reading
from tabled.table.names import AREAS

log = structlog.get_logger("tabled.daemon.devices")

FIRST_OPEN_TIMEOUT = 5.0  # seconds for every driver's first try at opening its port
DECK_COLOURS = {"A": DeckColour.RED, "B": DeckColour.BLUE}  # tabled.table.cardsource.DECKS: A red, B blue
COLOUR_DECKS = {c: d for d, c in DECK_COLOURS.items()}
SEQ_CYCLE = 255   # link SEQs run 1..255 and wrap (docs/protocols.md)
PER_FRAME = 16    # sequence numbers per frame (a frame's inputs are numbered within its block)
BUSY_RETRY_S = 0.01
BUSY_RETRIES = 200
BOARD_READ_S = 0.5  # the longest a SETTLE DONE waits for the board's reading (a link's answer takes ms)
#: sign-ins a panel may send in one second that are checked: a person keys a badge and a PIN in
#: seconds, so three a second is past any hand; more is a fault or an attack on the PINs
SIGN_INS_PER_SECOND = 3
SHOE_HAPPENINGS: dict[type[DeviceEvent], str] = {
    ShoeRemoved: "shoe.removed", ShoeReplaced: "shoe.replaced", ShoeEmpty: "shoe.empty"}

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


class Table(Protocol):
    """What the devices read of and give to the table (tabled.daemon.controller.Table)."""

    @property
    def core(self) -> TableCore: ...

    @property
    def idle(self) -> asyncio.Event: ...

    def submit(self, kind: str, payload: dict[str, Any], ack: Callable[[], None] | None = None) -> None: ...

    async def resume(self, missing_notes: list[Note]) -> None: ...


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


def frame_seq(ack: Ack) -> int | None:
    """The link SEQ of the frame an acknowledgement belongs to (tabled_drivers.link.client.Ack.seq)."""
    return getattr(ack, "seq", None)


def build_drivers(consumer_for: Callable[[str], Consumer], *, spots: int, ports: dict[str, str],
                  usb_backend: Any = None, usb_addresses: dict[str, UsbAddress] | None = None,
                  timing: LinkTiming = LinkTiming(), poll_interval: float = 0.05,
                  baudrates: dict[str, int] | None = None, cards: bool = False) -> dict[str, Driver]:
    """The five drivers: serial ones on ``ports``, USB ones found on ``usb_backend`` (None: libusb),
    or on ``ports`` when a port is given for them; with ``cards`` (player ratings on) the player
    card reader too."""
    baud = baudrates or {}
    addr = usb_addresses or {}
    reader: dict[str, Driver] = {"cards": PlayerCardDriver(consumer=consumer_for("cards"), address=addr.get("cards"),
                                                           backend=usb_backend, timing=timing)} if cards else {}
    return reader | {
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

    def __init__(self, table: Table, make_drivers: Callable[[Callable[[str], Consumer]], dict[str, Driver]],
                 staff: StaffConfig | None = None, clock: Callable[[], float] = time.monotonic,
                 today: Callable[[], dt.date] = lambda: dt.datetime.now(dt.UTC).date()) -> None:
        self.table = table
        self.staff = staff  # whose PINs a sign-in is checked against (none: no staff list)
        self.clock = clock  # seconds, for the panel's sign-ins a second
        self.today = today  # the day a PIN's age is counted to
        self._new_pins: dict[int, str] = {}  # badge -> the hash of the new PIN keyed once (a change under way)
        self._sign_ins: collections.deque[float] = collections.deque()  # when the last ones were checked
        self.drivers = make_drivers(self._consumer_for)
        self.boots: dict[str, int] = {}
        self.up: set[str] = set()
        self.last_frame: dict[str, int] = {}
        self.events_in = 0
        self.repeats_dropped = 0
        self.resumed = False  # nothing goes to a device before the table has resumed from its journal
        self.board_fresh = False  # the daemon's first board link is up and has not reported a reading
        self._queues: dict[str, asyncio.Queue[Command]] = {}
        self._troubles: dict[str, Trouble] = {}
        self._workers: list[asyncio.Task[None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- life -------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start every driver; raises :class:`PortBusyError` (one line naming the port) when a
        serial port is held by another program: another daemon drives these devices."""
        for name in self.drivers:
            self._queues[name] = asyncio.Queue()
            self._troubles[name] = Trouble(log, "device.command_failed")
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

    def _spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("devices.task_failed", error=repr(task.exception()), round_id=self.core.round_id)

    @property
    def core(self) -> TableCore:
        return self.table.core

    # -- events in ---------------------------------------------------------------------------------------

    def _consumer_for(self, device: str) -> Consumer:
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
            told = again or not self.core.equipment.links.is_up(device)  # a first link the table holds up is no news
            if told:
                self.table.submit("device.link", {"device": device, "up": True, "reason": ""})
            if device == "betspots":  # back after a loss the table knows of: its first reading is news
                self.board_fresh = not told
            if device == "shuffler":
                self._spawn(self._report_status(self._shuffler()))  # what it holds after the link was down
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
        if isinstance(event, ButtonPressed) and event.button is Button.SETTLE_DONE:
            await self._read_board_first()
        inputs = await self._sign_in(event) if isinstance(event, SignIn) else self._translate(device, event)
        self._submit(inputs, ack, key)

    async def _read_board_first(self) -> None:
        """SETTLE DONE while the fold checks the payments (9.3, 9.4): the board is read now, and a
        reading that differs from the last comes through the board's own consumer and is submitted
        before the press. A board that cannot be read in time leaves the press to the last reading."""
        board = self.drivers.get("betspots")
        if not (isinstance(board, BetSpotsDriver) and board.state is LinkState.UP
                and self.core.payments.waiting(self.core.round_id)):
            return
        try:
            async with asyncio.timeout(BOARD_READ_S):
                await board.poll()
        except (LinkError, TimeoutError) as exc:
            log.warning("betspots.not_read_at_settle_done", error=str(exc) or "no answer in time",
                        round_id=self.core.round_id)

    async def _sign_in(self, e: SignIn) -> list[Input]:
        """The PIN checked in a worker thread, within the panel's sign-ins a second; past them the
        sign-in is journaled unchecked. The PIN stops here: the journal hears only whether it was right."""
        role = e.key.name.lower()
        now, recent = self.clock(), self._sign_ins
        while recent and now - recent[0] >= 1.0:
            recent.popleft()
        if len(recent) >= SIGN_INS_PER_SECOND:
            log.warning("panel.sign_in_unchecked", badge=e.badge, role=role, per_second=SIGN_INS_PER_SECOND,
                        round_id=self.core.round_id)
            return [("staff.sign_in", {"badge": e.badge, "role": role, "checked": False})]
        recent.append(now)
        staff = self.staff
        pin_ok = staff is not None and await asyncio.to_thread(staff.check, e.badge, e.pin)
        if staff is not None and not pin_ok and e.badge in self.core.staff.must_change \
                and self.core.staff.on.get(role) == e.badge:
            return [("staff.pin_change", {"badge": e.badge, "role": role, "step": await self._new_pin(staff, e)})]
        signed: dict[str, Any] = {"badge": e.badge, "role": role, "pin_ok": pin_ok}
        if pin_ok and staff is not None and staff.expired(e.badge, self.today()):
            signed.update(pin_expired=True, age_days=staff.pin_age_days(e.badge, self.today()),
                          max_days=staff.max_pin_age_days)
        return [("staff.sign_in", signed)]

    async def _new_pin(self, staff: StaffConfig, e: SignIn) -> str:
        """A new PIN keyed by a person whose expired PIN must be changed: the first time its hash is
        held here, the second must agree, and then the changed-PINs file keeps it (tabled/daemon/staff.py)."""
        held = self._new_pins.pop(e.badge, None)
        if held is None:
            self._new_pins[e.badge] = await asyncio.to_thread(hash_pin, e.pin)
            return "first"
        if not await asyncio.to_thread(pin_matches, e.pin, held):
            return "differ"
        try:
            self.staff = await asyncio.to_thread(staff.with_pin, e.badge, held, self.today())
        except (StaffError, OSError) as exc:
            log.error("staff.pin_not_kept", badge=e.badge, error=str(exc))
            return "not_kept"
        return "changed"

    def _frame_key(self, device: str, ack: Ack) -> tuple[str, int, bool] | None:
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
            return self._board_reading(e.reading)
        if isinstance(e, WagerAfterLock):
            return []  # the round judges the board's next reading (tabled/table/wagers.py)
        if isinstance(e, MeterFault):
            return [("equipment.fault", {"equipment": "meter", "reason": e.reason})]  # the meter says it is faulty
        if isinstance(e, MeterFaultCleared):
            return [("equipment.back", {"equipment": "meter"})]
        if isinstance(e, CardDrawn):
            return [("shoe.card", {"card": e.card, "reader_seq": e.reader_seq, **_back(e.back)})]
        if isinstance(e, CardUnreadable):
            return [("shoe.unreadable", {"reader_seq": e.reader_seq, **_back(e.back)})]
        if isinstance(e, ShoeRemoved | ShoeReplaced | ShoeEmpty):
            return [(SHOE_HAPPENINGS[type(e)], {"cards_read": e.cards_read})]
        if isinstance(e, (DoorOpen, DoorClosed)):
            return [("shuffler.door", {"open": isinstance(e, DoorOpen)})]
        if isinstance(e, ButtonPressed):
            return [button_input(e)]
        if isinstance(e, SignOut):
            return [("staff.sign_out", {"badge": e.badge, "role": e.key.name.lower()})]
        if isinstance(e, EnclosureDoor):  # tabled/table/enclosure.py
            return [("enclosure.door", {"door": e.door.name.lower(), "open": e.open})]
        if isinstance(e, CardInserted):
            return [("player.card", {"spot": e.spot, "card": e.card})]
        if isinstance(e, CardRemoved):
            return [("player.leaves", {"spot": e.spot})]
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

    def _board_reading(self, reading: Reading) -> list[Input]:
        """The board reports a reading when it differs from its last one. The first after a start
        is not journaled when the table's felt holds it already (a restart over the same chips);
        every other one is journaled as it comes."""
        fresh, self.board_fresh = self.board_fresh, False
        kind, payload = board_input(reading)
        if fresh and not self.core.felt.changes(parse_reading(payload["spots"], self.core.spot_count)):
            return []
        return [(kind, payload)]

    # -- the shuffling device's own state ---------------------------------------------------------------

    async def resume(self, missing_notes: list[Note]) -> None:
        """The journal checked out and was replayed: the inputs the devices gave meanwhile are folded
        (their commands were not sent), then the devices are told the table's standing effects, and
        from here on kept in step."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(FIRST_OPEN_TIMEOUT):
                await self.table.idle.wait()
        self.resumed = True
        await self.table.resume(missing_notes)

    async def _report_status(self, d: ShufflerDriver) -> ShufflerStatus | None:
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
                self._troubles[device].ended(device=device, round_id=self.core.round_id)
            except (LinkError, ValueError) as exc:
                # down: once it is back the table sends it its standing effects (device.link); one
                # line when the failures start, a count while they last, one when they end
                self._troubles[device].failed(exc, device=device, command=cmd.name, round_id=self.core.round_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("device.command_crashed", device=device, command=cmd.name,
                              round_id=self.core.round_id)

    def _shuffler(self) -> ShufflerDriver:
        # the drivers are keyed by device (build_drivers); a test's stand-ins answer to the same calls
        return cast(ShufflerDriver, self.drivers["shuffler"])

    async def _run(self, cmd: Command) -> None:
        """One command to its device, as the table made it: nothing is added or worked out here."""
        d = self.drivers[cmd.device]
        match cmd:
            case Shuffle(deck=deck):
                await self._shuffle(self._shuffler(), deck)
            case Deal(deck=str() as deck, hands=hands):
                await self._deal(self._shuffler(), deck, hands)
            case Deal():
                log.warning("device.command_ignored", device=cmd.device, command=cmd.name, reason="no deck named")
            case Unlock(progressive_spots=accepting):
                board = cast(BetSpotsDriver, d)
                await board.unlock()
                if accepting:
                    await board.enable_progressive(list(accepting))
                await board.set_lamps({})
            case ProgressiveAcceptance(progressive_spots=accepting):
                await cast(BetSpotsDriver, d).enable_progressive(list(accepting))
            case Lock(lamps=lamps):
                board = cast(BetSpotsDriver, d)
                await board.lock()
                await board.set_lamps({n: SpotLamp.ON for n in lamps})
            case StartShoe():
                await cast(ShoeDriver, d).start_shoe()
            case PanelLamp(lamp=lamp, state=state):
                await cast(PanelDriver, d).set_lamp(Lamp[lamp], LampState[state])
            case MeterShow(offline=True):
                await cast(MeterDriver, d).show_offline()
            case MeterShow(cents=int() as cents):
                await cast(MeterDriver, d).show(cents)
            case MeterShow():
                pass  # the pool's amount is not known yet: the meter keeps what it shows

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
        if last is not None:
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
    """The back colour as the fold names it; none when the reader did not see it."""
    return {} if colour is BackColour.NOT_SEEN else {"back": colour.name.lower()}


__all__ = ["TableDevices", "build_drivers", "DECK_COLOURS"]

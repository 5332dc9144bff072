"""The bet-spot sensor board: one board for every spot, polled (it speaks only when asked).

Per spot it reads three wagering areas, the ante, the bet and the progressive wager, each as chips
and promotional tokens in cents (5.1 allows both in one wager). It is told which spots may accept
a progressive wager (only a spot with an ante, 11.1), to lock at "no more bets" (7.2.1), to
unlock, and what each spot's lamp shows (so the player sees the progressive wager accepted, 11.2).

The driver polls; a reading that differs from the last one becomes a :class:`WagersChanged`
event. The driver also knows which areas are closed (:attr:`BetSpotsDriver.locked_areas`), and a
change in a closed area is also a :class:`WagerAfterLock` fault:

* :meth:`~BetSpotsDriver.lock` at "no more bets" closes the ante and progressive areas (7.2.1)
  and tells the board (no progressive wager is accepted from then on);
* the bet area stays open while players decide (5.5, 8.5: a player who bets places it then);
  :meth:`~BetSpotsDriver.close_bets` closes it when the deciding phase ends (8.6);
* :meth:`~BetSpotsDriver.open_for_settlement` reopens every area while the dealer pays and
  collects (9.3, 9.4), and :meth:`~BetSpotsDriver.unlock` opens the next round's betting.

The closed areas are the table's notion, kept by the driver: the board itself has one lock, for
progressive acceptance.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from enum import IntEnum, StrEnum

import structlog

from tabled_drivers.base import BadDeviceData, DeviceDataError, DeviceEvent, DeviceFault, Driver
from tabled_drivers.link import messages as m
from tabled_drivers.link.client import LinkState
from tabled_drivers.link.errors import LinkError
from tabled_drivers.link.messages import I32_LIST, U8, U8_LIST, Command

log = structlog.get_logger("drivers.betspots")

MAX_SPOTS = 8  # the POLL answer must fit one 240-byte frame: 5 + 8 + 6 * 4 * 8 + 3 * 8 = 229 bytes
AMOUNTS_PER_SPOT = 6  # ante chips, ante tokens, bet chips, bet tokens, progressive chips, tokens
STACKS_PER_SPOT = 3  # separate wagers (stacks) on the ante, bet and progressive areas (5.8)
MAX_STACKS = 12  # more separate stacks than this on one area is a sensor fault, not a wager


class Area(StrEnum):
    """A wagering area of a spot (equal to its name, as the table spells it)."""

    ANTE = "ante"
    BET = "bet"
    PROGRESSIVE = "progressive"


NO_MORE_BETS = frozenset({Area.ANTE, Area.PROGRESSIVE})  # closed by "no more bets" (7.2.1)


class Lamp(IntEnum):
    OFF = 0
    ON = 1  # progressive wager accepted (11.2)
    FLASH = 2  # attention: e.g. progressive wager refused


# -- the command table -------------------------------------------------------------------------
_READING = (("locked", U8), ("accepting", U8_LIST), ("amounts", I32_LIST), ("stacks", U8_LIST))
POLL = Command("poll", 0x20, response=_READING)
ENABLE_PROGRESSIVE = Command("enable_progressive", 0x21, request=(("spots", U8_LIST),))
LOCK = Command("lock", 0x22, response=_READING)  # answers with the reading as locked
UNLOCK = Command("unlock", 0x23)
SET_LAMPS = Command("set_lamps", 0x24, request=(("lamps", U8_LIST),))
COMMANDS = m.table(POLL, ENABLE_PROGRESSIVE, LOCK, UNLOCK, SET_LAMPS)
EVENTS: dict = {}  # polled: the board never speaks first


@dataclass(frozen=True)
class Wager:
    """What lies on one wagering area: chips and promotional tokens, in cents (5.1), and how many
    separate stacks they form (5.8 accepts one wager per area; 0 when the area is empty)."""

    chips: int = 0
    tokens: int = 0
    stacks: int | None = None  # None: one stack if anything lies there, else none

    def __post_init__(self) -> None:
        if self.stacks is None:
            object.__setattr__(self, "stacks", 1 if self.total else 0)

    @property
    def total(self) -> int:
        return self.chips + self.tokens


@dataclass(frozen=True)
class SpotWagers:
    spot: int  # 1 = the dealer's far left (docs/settlement.md "Spots")
    ante: Wager
    bet: Wager
    progressive: Wager
    accepting_progressive: bool

    def wager(self, area: Area) -> Wager:
        return getattr(self, area.value)


@dataclass(frozen=True)
class Reading:
    locked: bool
    spots: tuple[SpotWagers, ...]

    def spot(self, n: int) -> SpotWagers:
        return self.spots[n - 1]


@dataclass(frozen=True, kw_only=True)
class WagersChanged(DeviceEvent):
    reading: Reading


@dataclass(frozen=True, kw_only=True)
class WagerAfterLock(DeviceFault):
    """A wager in a closed area moved: the ante or progressive after "no more bets" (7.2.1), the
    bet after the deciding phase closed (8.6). ``areas`` are the closed areas that changed; the
    round judges whether the dealer did it (collecting a fold, 8.4) or it is past posting (5.6)."""

    spot: int
    areas: tuple[Area, ...]
    before: SpotWagers
    after: SpotWagers


def parse_reading(values: dict, spots: int) -> Reading:
    """Check a POLL/LOCK answer; nonsense raises :class:`DeviceDataError` naming the spot."""
    amounts, accepting, stacks = values["amounts"], values["accepting"], values["stacks"]
    if len(accepting) != spots or len(amounts) != spots * AMOUNTS_PER_SPOT \
            or len(stacks) != spots * STACKS_PER_SPOT:
        raise DeviceDataError(f"board reports {len(accepting)} spots, {len(amounts)} amounts and "
                              f"{len(stacks)} stack counts; this table has {spots} spots "
                              f"({spots * AMOUNTS_PER_SPOT} amounts, {spots * STACKS_PER_SPOT} stack counts)")
    out = []
    for i in range(spots):
        a = amounts[i * AMOUNTS_PER_SPOT:(i + 1) * AMOUNTS_PER_SPOT]
        if min(a) < 0:
            raise DeviceDataError(f"spot {i + 1}: negative amount {min(a)} cents")
        if accepting[i] not in (0, 1):
            raise DeviceDataError(f"spot {i + 1}: progressive acceptance flag {accepting[i]}")
        wagers = []
        for j, area in enumerate(Area):
            chips, tokens = a[2 * j], a[2 * j + 1]
            n = stacks[i * STACKS_PER_SPOT + j]
            _check_stacks(i + 1, area, chips + tokens, n)
            wagers.append(Wager(chips, tokens, n))
        ante, bet, progressive = wagers  # in Area's order
        out.append(SpotWagers(i + 1, ante, bet, progressive, bool(accepting[i])))
    if values["locked"] not in (0, 1):
        raise DeviceDataError(f"lock flag {values['locked']}")
    return Reading(bool(values["locked"]), tuple(out))


def _check_stacks(spot: int, area: Area, cents: int, stacks: int) -> None:
    """Chips lie in at least one stack, and stacks hold chips: anything else is the sensors'."""
    if stacks > MAX_STACKS:
        raise DeviceDataError(f"spot {spot}: {stacks} stacks on the {area} area (at most {MAX_STACKS} make sense)")
    if stacks and not cents:
        raise DeviceDataError(f"spot {spot}: {stacks} stacks but no amount on the {area} area")
    if cents and not stacks:
        raise DeviceDataError(f"spot {spot}: {cents} cents but no stack on the {area} area")


class BetSpotsDriver(Driver):
    KIND = m.DeviceKind.BETSPOTS
    EVENTS = EVENTS
    DEFAULT_NAME = "betspots"

    def __init__(self, *, spots: int = 7, poll_interval: float = 0.1, **kw) -> None:
        if not 1 <= spots <= MAX_SPOTS:
            raise ValueError(f"a bet-spot board serves 1 to {MAX_SPOTS} spots, not {spots}")
        super().__init__(**kw)
        self.spots = spots
        self.poll_interval = poll_interval
        self.last: Reading | None = None  # the last reading handed to the consumer
        self._closed: frozenset[Area] = frozenset()
        self._poller: asyncio.Task | None = None
        self._reading_lock = asyncio.Lock()  # one reading at a time, so changes are seen in order

    @property
    def locked_areas(self) -> frozenset[Area]:
        """The areas in which a change is a :class:`WagerAfterLock` fault."""
        return self._closed

    async def start(self) -> None:
        await super().start()
        self._poller = asyncio.get_running_loop().create_task(self._poll_loop(), name=f"{self.name}-poll")

    async def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        await super().stop()

    # -- commands
    async def poll(self) -> Reading:
        """Read the board now and report any change (also done every ``poll_interval``)."""
        async with self._reading_lock:
            return await self._report(await self.call(POLL))

    async def enable_progressive(self, spots: list[int]) -> None:
        """Accept a progressive wager on these spots only; each must hold an ante (11.1)."""
        self._check_spots(spots)
        reading = self.last or await self.poll()
        no_ante = [s for s in spots if reading.spot(s).ante.total == 0]
        if no_ante:
            raise ValueError(f"rule 11.1: no ante on spot {', '.join(map(str, no_ante))}, "
                             "so no progressive wager there")
        await self.call(ENABLE_PROGRESSIVE, spots=sorted(set(spots)))

    async def lock(self) -> Reading:
        """ "No more bets" (7.2.1): lock the board and close the ante and progressive areas; the
        bet area keeps its state (open until :meth:`close_bets`). Returns the wagers as locked."""
        async with self._reading_lock:
            reading = await self._report(await self.call(LOCK))
            self._closed |= NO_MORE_BETS
            return reading

    async def close_bets(self) -> Reading:
        """The deciding phase is over (8.6): close the bet area too. Only after :meth:`lock`.
        Returns the bets as they stood at the close (read now, so a bet placed a moment before
        is not taken for one placed after)."""
        if not NO_MORE_BETS <= self._closed:
            raise ValueError("the bet area closes after 'no more bets' (7.2.1, 8.6), not before")
        async with self._reading_lock:
            reading = await self._report(await self.call(POLL))
            self._closed |= {Area.BET}
            return reading

    async def open_for_settlement(self) -> None:
        """The dealer pays and collects (9.3, 9.4): chips move in every area by design. The board
        stays locked (no progressive wager is accepted)."""
        async with self._reading_lock:
            self._closed = frozenset()

    async def unlock(self) -> None:
        """A new round's betting: the board accepts again and every area is open."""
        async with self._reading_lock:
            await self.call(UNLOCK)
            self._closed = frozenset()

    async def set_lamps(self, lamps: dict[int, Lamp]) -> None:
        """Lamp per spot (11.2); spots not named are turned off."""
        self._check_spots(lamps)
        await self.call(SET_LAMPS, lamps=[int(lamps.get(s, Lamp.OFF)) for s in range(1, self.spots + 1)])

    def _check_spots(self, spots) -> None:
        bad = [s for s in spots if not (isinstance(s, int) and 1 <= s <= self.spots)]
        if bad:
            raise ValueError(f"no spot {bad[0]} at this table (spots 1-{self.spots})")

    # -- polling
    async def _poll_loop(self) -> None:
        while True:
            try:
                if self.state is LinkState.UP:
                    await self.poll()
            except LinkError as exc:
                log.debug("betspots.poll_failed", device=self.name, error=str(exc))
            await asyncio.sleep(self.poll_interval)

    async def _report(self, values: dict) -> Reading:
        try:
            reading = parse_reading(values, self.spots)
        except DeviceDataError as exc:
            fault = BadDeviceData(device=self.name, reason=str(exc), message_type=m.response_type(POLL.code),
                                  payload=repr(values).encode())
            await self._deliver(fault)
            raise LinkError(f"{self.name}: {exc}") from None
        previous, self.last = self.last, reading
        if previous is not None and reading != previous and self._closed:
            for before, after in zip(previous.spots, reading.spots):
                moved = tuple(a for a in Area if a in self._closed and before.wager(a) != after.wager(a))
                if moved:
                    await self._deliver(WagerAfterLock(
                        device=self.name, spot=after.spot, areas=moved, before=before, after=after,
                        reason=f"spot {after.spot}: {' and '.join(moved)} changed after "
                               f"{_closed_by(moved)}"))
        if previous is None or reading != previous:
            await self._deliver(WagersChanged(device=self.name, reading=reading))
        return reading

    async def _deliver(self, event: DeviceEvent) -> None:
        await self.consumer(event, _polled_ack)


def _closed_by(areas: tuple[Area, ...]) -> str:
    said = []
    if any(a in NO_MORE_BETS for a in areas):
        said.append('"no more bets" (7.2.1)')
    if Area.BET in areas:
        said.append("the deciding phase closed (8.6)")
    return " and ".join(said)


def _polled_ack() -> None:
    """A polled reading is the board's current state, asked for again at will: nothing to ack."""

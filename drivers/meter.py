"""The progressive meter (rules 2.3, 2.4.3, 14.13): the electronic jackpot display.

Commands: show amounts (one pool or several, in cents), show a message instead (blank, or
"progressive offline" while an inspector lets play continue without the pool, docs/settlement.md 14.13),
self-test, and read back what is shown. Events: a fault, and its clearing. A fault of the meter is
a malfunction of the equipment of rule 2.4.3: rule 14.13 applies (inspector notified; play
continues only with approval).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from tabled_drivers.base import DeviceDataError, DeviceEvent, DeviceFault, Driver
from tabled_drivers.link import messages as m
from tabled_drivers.link.messages import U8, U32_LIST, Command, EventSpec

MAX_POOLS = 8
MAX_CENTS = 2**32 - 1  # $42,949,672.95: the display's widest amount


class MeterMessage(IntEnum):
    AMOUNTS = 0  # showing amounts (what SHOWING reports after SHOW)
    BLANK = 1
    PROGRESSIVE_OFFLINE = 2


class MeterFaultCode(IntEnum):
    DISPLAY_SEGMENTS = 1
    POWER = 2
    OVERHEAT = 3
    MEMORY = 4


class SelfTest(IntEnum):
    PASSED = 0
    DISPLAY_SEGMENTS = 1
    MEMORY = 4


# -- the command table -------------------------------------------------------------------------
SHOW = Command("show", 0x20, request=(("amounts", U32_LIST),))
SHOW_MESSAGE = Command("show_message", 0x21, request=(("message", U8),))
SELF_TEST = Command("self_test", 0x22, response=(("result", U8),))
SHOWING = Command("showing", 0x23, response=(("message", U8), ("amounts", U32_LIST)))
COMMANDS = m.table(SHOW, SHOW_MESSAGE, SELF_TEST, SHOWING)

# -- the event table ---------------------------------------------------------------------------
FAULT = EventSpec("fault", 0x80, (("code", U8),))
FAULT_CLEARED = EventSpec("fault_cleared", 0x81, (("code", U8),))
EVENTS = m.table(FAULT, FAULT_CLEARED)


@dataclass(frozen=True, kw_only=True)
class MeterFault(DeviceFault):
    """Rule 14.13: notify an inspector; no new round without approval."""

    code: MeterFaultCode


@dataclass(frozen=True, kw_only=True)
class MeterFaultCleared(DeviceEvent):
    code: MeterFaultCode


@dataclass(frozen=True)
class Display:
    message: MeterMessage
    amounts: tuple[int, ...]


def _code(value: int) -> MeterFaultCode:
    try:
        return MeterFaultCode(value)
    except ValueError:
        raise DeviceDataError(f"unknown meter fault code {value}") from None


class MeterDriver(Driver):
    KIND = m.DeviceKind.METER
    EVENTS = EVENTS
    DEFAULT_NAME = "meter"

    async def show(self, *amounts: int) -> None:
        """Show one amount per pool, in cents (2.4.3)."""
        if not 1 <= len(amounts) <= MAX_POOLS:
            raise ValueError(f"the meter shows 1 to {MAX_POOLS} pools, not {len(amounts)}")
        for a in amounts:
            if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a <= MAX_CENTS:
                raise ValueError(f"a pool amount is whole cents from 0 to {MAX_CENTS}, not {a!r}")
        await self.call(SHOW, amounts=list(amounts))

    async def blank(self) -> None:
        await self.call(SHOW_MESSAGE, message=MeterMessage.BLANK)

    async def show_offline(self) -> None:
        """"Progressive offline": play approved by an inspector without the pool (14.13)."""
        await self.call(SHOW_MESSAGE, message=MeterMessage.PROGRESSIVE_OFFLINE)

    async def self_test(self) -> int:
        return (await self.call(SELF_TEST))["result"]

    async def showing(self) -> Display:
        r = await self.call(SHOWING)
        try:
            message = MeterMessage(r["message"])
        except ValueError:
            raise DeviceDataError(f"meter reports unknown display mode {r['message']}") from None
        return Display(message, tuple(r["amounts"]))

    def build_event(self, spec: EventSpec, v: dict) -> DeviceEvent:
        code = _code(v["code"])
        if spec is FAULT:
            return MeterFault(device=self.name, code=code,
                              reason=f"progressive meter fault: {code.name.lower().replace('_', ' ')} (14.13)")
        return MeterFaultCleared(device=self.name, code=code)

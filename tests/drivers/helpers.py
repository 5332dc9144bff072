"""Shared by the driver tests: fast timings, a recording consumer, a minimal test device."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from tabled_drivers.base import DeviceEvent, Driver
from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import DeviceLink, LinkTiming

FAST = LinkTiming(ack_timeout=0.02, retries=3, heartbeat=0.1, backoff_initial=0.01, backoff_max=0.08)


class Recorder:
    """A consumer that journals in memory and acknowledges, unless told to hold the acks."""

    def __init__(self, auto_ack: bool = True) -> None:
        self.events: list[DeviceEvent] = []
        self.acks: list = []
        self.auto_ack = auto_ack
        self._changed = asyncio.Event()

    async def __call__(self, event, ack) -> None:
        self.events.append(event)
        self.acks.append(ack)
        if self.auto_ack:
            ack()
        self._changed.set()

    def of(self, cls) -> list:
        return [e for e in self.events if isinstance(e, cls)]

    async def wait_for(self, predicate, timeout: float = 5.0) -> None:
        async def loop():
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()
        await asyncio.wait_for(loop(), timeout)


# A device with one command and one event, for testing the link on its own.
ECHO = m.Command("echo", 0x20, request=(("n", m.U32),), response=(("n", m.U32),))
COUNTED = m.EventSpec("counted", 0x80, (("n", m.U32),))


@dataclass(frozen=True, kw_only=True)
class Counted(DeviceEvent):
    n: int


class EchoDriver(Driver):
    KIND = m.DeviceKind.METER
    EVENTS = m.table(COUNTED)
    DEFAULT_NAME = "echo"

    def build_event(self, spec, values):
        return Counted(device=self.name, **values)

    async def echo(self, n: int) -> int:
        return (await self.call(ECHO, n=n))["n"]


class EchoDevice:
    """Executes ECHO, counting how often each n was executed."""

    def __init__(self, timing: LinkTiming = FAST, kind: int = m.DeviceKind.METER, boot_id: int = 1) -> None:
        self.executed: dict[int, int] = {}
        self.link = DeviceLink("echo-device", kind, boot_id, self.handle, timing)

    async def handle(self, code: int, payload: bytes):
        if code != ECHO.code:
            return m.Status.UNKNOWN_COMMAND, b""
        n = m.unpack(ECHO.request, payload)["n"]
        self.executed[n] = self.executed.get(n, 0) + 1
        return m.Status.OK, m.pack(ECHO.response, {"n": n})

    def emit(self, n: int) -> int:
        return self.link.send_event(COUNTED.code, m.pack(COUNTED.fields, {"n": n}))


async def connect(sim, driver_cls, rec: Recorder | None = None, **kw):
    """A driver of ``driver_cls`` plugged into in-process simulator ``sim``, link up."""
    from tabled_drivers.link.memory import memory_opener

    rec = rec or Recorder()
    driver = driver_cls(opener=memory_opener(sim.link), consumer=rec, timing=kw.pop("timing", FAST), **kw)
    await driver.start()
    await driver.wait_up(5)
    return driver, rec

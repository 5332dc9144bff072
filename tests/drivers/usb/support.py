"""Shared by the USB device tests: fast link timings, a journal-like consumer, and a bench with
one simulator plugged in and its driver connected."""

from __future__ import annotations

import asyncio
import contextlib

from tabled_drivers.base import DeviceEvent, LinkFailed, LinkUp, UsbDriver
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.sim.usb_backend import SimBackend, UsbDeviceSimulator

FAST = LinkTiming(ack_timeout=0.03, retries=3, heartbeat=0.2, backoff_initial=0.005,
                  backoff_max=0.04)


class Journal:
    """A consumer that records every event and acknowledges it, unless told to hold the acks."""

    def __init__(self, auto_ack: bool = True) -> None:
        self.events: list[DeviceEvent] = []
        self.acks: list = []
        self.auto_ack = auto_ack
        self._changed = asyncio.Event()

    async def __call__(self, event: DeviceEvent, ack) -> None:
        self.events.append(event)
        self.acks.append(ack)
        if self.auto_ack:
            ack()
        self._changed.set()

    def ack(self, event: DeviceEvent) -> None:
        """Say this event is durable now (for a journal that holds its acks)."""
        self.acks[next(i for i, e in enumerate(self.events) if e is event)]()

    def of(self, cls) -> list:
        return [e for e in self.events if isinstance(e, cls)]

    def device_events(self) -> list:
        return [e for e in self.events if not isinstance(e, (LinkUp, LinkFailed))]

    async def until(self, predicate, timeout: float = 5.0) -> None:
        async def wait() -> None:
            while not predicate(self):
                self._changed.clear()
                await self._changed.wait()
        await asyncio.wait_for(wait(), timeout)

    async def until_count(self, cls, n: int, timeout: float = 5.0) -> list:
        await self.until(lambda j: len(j.of(cls)) >= n, timeout)
        return self.of(cls)


@contextlib.asynccontextmanager
async def plugged_in(sim: UsbDeviceSimulator, driver_class: type[UsbDriver], journal: Journal | None = None,
                     **driver_kw):
    """``sim`` on a fresh simulated bus, a ``driver_class`` on the same bus with the link up;
    yields ``(sim, driver, journal)`` and stops both after."""
    backend = SimBackend()
    sim.plug_into(backend)
    journal = journal or Journal()
    driver = driver_class(consumer=journal, backend=backend, timing=FAST, **driver_kw)
    await driver.start()
    await driver.wait_up(5)
    try:
        yield sim, driver, journal
    finally:
        await driver.stop()
        sim.close()

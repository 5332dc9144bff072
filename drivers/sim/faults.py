"""A bad cable, on purpose: drop, duplicate, corrupt, split into single bytes, delay.

:class:`FaultyTransport` damages what is written through it; :class:`FaultyProtocol` damages what
is received. Either gives a link a noisy wire; both draw from a seeded random generator, so a
failing test repeats exactly. A fault applies to one write (one frame, as our links write them).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Faults:
    drop: float = 0.0  # probability a write vanishes
    duplicate: float = 0.0  # probability it arrives twice
    corrupt: float = 0.0  # probability one bit of it is flipped
    split: bool = False  # deliver one byte at a time
    delay: float = 0.0  # seconds every write is held back (order is kept)
    seed: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"dropped": 0, "duplicated": 0, "corrupted": 0})


class _Line:
    """Applies :class:`Faults` to each chunk and hands the result to ``deliver``."""

    def __init__(self, faults: Faults, deliver: Callable[[bytes], None]) -> None:
        self.faults = faults
        self.deliver = deliver
        self.rng = random.Random(faults.seed)
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None

    def push(self, data: bytes) -> None:
        f, rng = self.faults, self.rng
        if f.drop and rng.random() < f.drop:
            f.counts["dropped"] += 1
            return
        if f.corrupt and data and rng.random() < f.corrupt:
            b = bytearray(data)
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            data = bytes(b)
            f.counts["corrupted"] += 1
        copies = 1
        if f.duplicate and rng.random() < f.duplicate:
            copies = 2
            f.counts["duplicated"] += 1
        for _ in range(copies):
            if f.delay:
                self._later(data)
            else:
                self._out(data)

    def _out(self, data: bytes) -> None:
        if self.faults.split:
            for i in range(len(data)):
                self.deliver(data[i:i + 1])
        else:
            self.deliver(data)

    def _later(self, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._task = loop.create_task(self._drain())
        self._queue.put_nowait((loop.time() + self.faults.delay, data))

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        assert self._queue is not None
        while True:
            due, data = await self._queue.get()
            if (wait := due - loop.time()) > 0:
                await asyncio.sleep(wait)
            self._out(data)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()


class FaultyProtocol(asyncio.Protocol):
    """Wraps a receiving protocol: what reaches it has been through the faults."""

    def __init__(self, inner: asyncio.Protocol, faults: Faults) -> None:
        self.inner = inner
        self.line = _Line(faults, inner.data_received)

    def connection_made(self, transport) -> None:
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.line.push(data)

    def connection_lost(self, exc) -> None:
        self.line.close()
        self.inner.connection_lost(exc)


class FaultyTransport(asyncio.Transport):
    """Wraps a transport: what is written through it goes through the faults."""

    def __init__(self, inner: asyncio.Transport, faults: Faults) -> None:
        super().__init__()
        self.inner = inner
        self.line = _Line(faults, inner.write)

    def write(self, data) -> None:
        self.line.push(bytes(data))

    def close(self) -> None:
        self.line.close()
        self.inner.close()

    def is_closing(self) -> bool:
        return self.inner.is_closing()

    def get_extra_info(self, name, default=None):
        return self.inner.get_extra_info(name, default)


def faulty(faults: Faults) -> Callable[[asyncio.Protocol], asyncio.Protocol]:
    """For ``memory_opener(to_device=faulty(...), to_host=faulty(...))``."""
    return lambda protocol: FaultyProtocol(protocol, faults)

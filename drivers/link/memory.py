"""An in-memory transport pair: a host link and a device link wired together without a port.

Used by in-process simulators and fast tests. Each write arrives at the peer in a later loop
iteration, as it would from a real port, and closing either end is an unplug seen by both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tabled_drivers.link.client import Opener


class MemoryTransport(asyncio.Transport):
    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.Protocol) -> None:
        super().__init__()
        self._loop = loop
        self._protocol = protocol
        self._closing = False
        self.peer: MemoryTransport | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing or self.peer is None:
            return
        self._loop.call_soon(self.peer._receive, bytes(data))

    def _receive(self, data: bytes) -> None:
        if not self._closing:
            self._protocol.data_received(data)

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._loop.call_soon(self._protocol.connection_lost, None)
        if self.peer is not None:
            self.peer.close()

    abort = close

    def is_closing(self) -> bool:
        return self._closing

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._protocol

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._protocol = protocol  # type: ignore[assignment]

    def get_write_buffer_size(self) -> int:
        return 0


def memory_pair(a: asyncio.Protocol, b: asyncio.Protocol) -> tuple[MemoryTransport, MemoryTransport]:
    """Connect two protocols; both get ``connection_made`` on the next loop iteration."""
    loop = asyncio.get_running_loop()
    ta, tb = MemoryTransport(loop, a), MemoryTransport(loop, b)
    ta.peer, tb.peer = tb, ta
    loop.call_soon(a.connection_made, ta)
    loop.call_soon(b.connection_made, tb)
    return ta, tb


ProtocolWrapper = Callable[[asyncio.Protocol], asyncio.Protocol]


def memory_opener(device: asyncio.Protocol, *, to_device: ProtocolWrapper | None = None,
                  to_host: ProtocolWrapper | None = None) -> Opener:
    """An opener that plugs a fresh in-memory cable into ``device`` each time it is called.

    ``to_device`` / ``to_host`` may wrap the receiving protocol of that direction, e.g. with a
    fault injector from ``tabled_drivers.sim.faults``. The last cable's host end is ``opener.cable``, so a
    test can pull the plug with ``opener.cable.close()``.
    """

    async def open_(factory):
        host = factory()
        th, _ = memory_pair(to_host(host) if to_host else host, to_device(device) if to_device else device)
        open_.cable = th  # type: ignore[attr-defined]
        return th, host

    open_.cable = None  # type: ignore[attr-defined]
    return open_

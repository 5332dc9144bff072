"""Keeping a host link alive: open the port, HELLO, heartbeat, and reconnect with capped backoff.

:class:`LinkClient` owns one :class:`HostLink` for the life of a driver. It reports the link's
state changes and the device's events, in arrival order, through one async callback each, so a
driver can turn them into typed events for its consumer.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
from collections.abc import Awaitable, Callable
from enum import Enum

import structlog

from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import Frame
from tabled_drivers.link.endpoint import HostLink, LinkTiming
from tabled_drivers.link.errors import CommandRejected, LinkDownError, LinkError, PortBusyError, WrongDeviceError

log = structlog.get_logger("drivers.link")

Opener = Callable[[Callable[[], asyncio.Protocol]], Awaitable[tuple[asyncio.BaseTransport, asyncio.Protocol]]]


def serial_opener(path: str, baudrate: int = 115200, **serial_kwargs) -> Opener:
    """Open ``path`` (a tty, or a stable symlink to one) through pyserial-asyncio-fast, exclusively
    (pyserial's ``exclusive``: an advisory lock on the port that dies with the process), so two
    daemons never drive one device; a port already held raises :class:`PortBusyError`."""
    import serial_asyncio_fast

    serial_kwargs.setdefault("exclusive", True)

    async def open_(factory):
        try:
            return await serial_asyncio_fast.create_serial_connection(
                asyncio.get_running_loop(), factory, path, baudrate=baudrate, **serial_kwargs)
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK) and "exclusive" in str(exc):
                raise PortBusyError(path) from None
            raise

    open_.port = path  # type: ignore[attr-defined]
    return open_


def port_failures_logged(loop: asyncio.AbstractEventLoop) -> None:
    """pyserial-asyncio-fast tells the loop's exception handler of a port that fails under it (a
    write to a device unplugged, or whose simulator was killed), which prints a traceback; the link
    sees the loss all the same (its protocol's ``connection_lost``) and reconnects. Such a report
    becomes one log line; every other goes to the handler there was."""
    before = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc, transport = context.get("exception"), context.get("transport")
        if isinstance(exc, OSError) and type(transport).__module__.split(".")[0] == "serial_asyncio_fast":
            log.warning("link.port_failed", message=context.get("message"), error=str(exc),
                        port=getattr(getattr(transport, "serial", None), "port", None))
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)
    loop.set_exception_handler(handler)


class LinkState(Enum):
    STOPPED = "stopped"
    CONNECTING = "connecting"
    UP = "up"
    DOWN = "down"  # failed; reconnecting in the background


class LinkClient:
    """``on_state(up, reason, boot_id)`` and ``on_event(frame, ack)`` are awaited one at a time,
    in order, from a single delivery task."""

    def __init__(self, name: str, kind: int, opener: Opener, *,
                 on_event: Callable[[Frame, Callable[[], None]], Awaitable[None]],
                 on_state: Callable[[bool, str, int], Awaitable[None]],
                 timing: LinkTiming = LinkTiming()) -> None:
        self.name = name
        self.kind = kind
        self.opener = opener
        self.timing = timing
        self.state = LinkState.STOPPED
        self.boot_id: int | None = None
        self.failures = 0  # consecutive failed attempts since the link was last up
        self.link = HostLink(name, timing, self._frame_event)
        self._on_event = on_event
        self._on_state = on_state
        self._queue: asyncio.Queue = asyncio.Queue()
        self._tasks: list[asyncio.Task] = []
        self._stopping = asyncio.Event()
        self._transport: asyncio.BaseTransport | None = None
        self._up = asyncio.Event()
        self._reported_down = False
        self._first_open: asyncio.Future[Exception | None] | None = None

    @property
    def stats(self):
        return self.link.stats

    async def start(self) -> None:
        if self._tasks:
            return
        self._stopping.clear()
        self.state = LinkState.CONNECTING
        loop = asyncio.get_running_loop()
        self._first_open = loop.create_future()
        self._tasks = [loop.create_task(self._run(), name=f"{self.name}-link"),
                       loop.create_task(self._deliver(), name=f"{self.name}-deliver")]

    async def stop(self) -> None:
        self._stopping.set()
        if self._transport is not None:
            self._transport.close()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        self._tasks = []
        self.state = LinkState.STOPPED

    async def wait_up(self, timeout: float | None = None) -> None:
        async with asyncio.timeout(timeout):  # unlike wait_for on 3.11, never swallows a cancellation
            await self._up.wait()

    async def first_open(self) -> Exception | None:
        """How the first attempt to open the port went: None when it opened, else the error
        (the link goes on retrying either way). Only after :meth:`start`."""
        assert self._first_open is not None, "start() first"
        return await asyncio.shield(self._first_open)

    async def request(self, command: m.Command, **values) -> dict:
        """Run one command from a device's table; returns the decoded response fields."""
        if self.state is not LinkState.UP:
            raise LinkDownError(f"{self.name} is {self.state.value}: cannot {command.name}")
        status, body = await self.link.request(command.code, m.pack(command.request, values))
        if status != m.Status.OK:
            raise CommandRejected(self.name, command.name, status, body.decode("ascii", "replace"))
        try:
            return m.unpack(command.response, body)
        except m.PayloadError as exc:
            raise LinkError(f"{self.name}: malformed response to {command.name}: {exc}") from None

    # -- the connection loop
    async def _run(self) -> None:
        while not self._stopping.is_set():
            reason = await self._connect()
            if reason is None:
                self.failures = 0
                self._reported_down = False
                self.state = LinkState.UP
                self._up.set()
                log.info("link.up", link=self.name, boot_id=self.boot_id, protocol=self.link.protocol)
                self._queue.put_nowait(("state", True, "link up", self.boot_id))
                heartbeat = asyncio.get_running_loop().create_task(self._heartbeat())
                try:
                    reason = await self.link.wait_lost()
                finally:
                    heartbeat.cancel()
                self._up.clear()
                if self._stopping.is_set():
                    return
            self.state = LinkState.DOWN
            self.failures += 1
            delay = min(self.timing.backoff_initial * 2 ** (self.failures - 1), self.timing.backoff_max)
            if self.failures == 1:
                log.warning("link.failed", link=self.name, reason=reason, retry_in=delay)  # loud, once
            else:
                log.debug("link.still_down", link=self.name, reason=reason, attempt=self.failures, retry_in=delay)
            if not self._reported_down:
                self._reported_down = True
                self._queue.put_nowait(("state", False, reason, self.boot_id))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stopping.wait()

    async def _connect(self) -> str | None:
        """Open and greet the device; ``None`` when the link is up, else why not."""
        try:
            transport, _ = await self.opener(self.link.protocol_factory)
        except (OSError, ValueError) as exc:  # serial.SerialException is an OSError
            self._opened(exc)
            return f"cannot open port: {exc}"
        self._opened(None)
        self._transport = transport
        try:
            await self.link.wait_connected(self.timing.ack_timeout * (1 + self.timing.retries))
            status, body = await self.link.request(
                m.HELLO, m.pack(m.HELLO_COMMAND.request, {"protocol": m.PROTOCOL_VERSION, "mark": m.HELLO_MARK}))
            if status != m.Status.OK:
                raise WrongDeviceError(f"HELLO refused with status {status}")
            hello = m.unpack(m.HELLO_COMMAND.response, body)
            if hello["kind"] != self.kind or hello["protocol"] not in m.PROTOCOLS:
                raise WrongDeviceError(
                    f"port answers as device kind {hello['kind']} protocol {hello['protocol']}, "
                    f"expected kind {self.kind} protocol {' or '.join(map(str, m.PROTOCOLS))}")
        except (LinkError, m.PayloadError, TimeoutError) as exc:
            self.link.abort(str(exc) or type(exc).__name__)
            return f"handshake failed: {exc or type(exc).__name__}"
        if self.boot_id is not None and hello["boot_id"] != self.boot_id:
            self.link.new_device_session()
        self.boot_id = hello["boot_id"]  # type: ignore[assignment]
        return None

    def _opened(self, error: Exception | None) -> None:
        if self._first_open is not None and not self._first_open.done():
            self._first_open.set_result(error)

    async def _heartbeat(self) -> None:
        """PING when the device has been quiet for a heartbeat period; no answer fails the link."""
        loop = asyncio.get_running_loop()
        while True:
            idle = loop.time() - self.link.last_rx
            if idle < self.timing.heartbeat:
                await asyncio.sleep(self.timing.heartbeat - idle)
                continue
            try:
                await self.link.request(m.PING)
            except LinkDownError as exc:
                self.link.abort(f"heartbeat: {exc}")
                return

    # -- delivery, in order, one at a time
    def _frame_event(self, frame: Frame) -> None:
        self._queue.put_nowait(("event", frame))

    async def _deliver(self) -> None:
        while True:
            item = await self._queue.get()
            try:
                if item[0] == "state":
                    await self._on_state(item[1], item[2], item[3])
                else:
                    frame = item[1]
                    await self._on_event(frame, Ack(self.link, frame.seq))
            except Exception:  # the consumer's bug must not stop the link
                log.exception("link.consumer_failed", link=self.name)


class Ack:
    """The acknowledgement callback handed to a consumer: call it once the event is durable.

    ``seq`` is the link SEQ (1..255, wrapping) of the event frame it acknowledges, for a consumer
    that numbers a device's frames (e.g. to recognise a repeat after a crash)."""

    __slots__ = ("_link", "seq", "done")

    def __init__(self, link: HostLink, seq: int) -> None:
        self._link, self.seq, self.done = link, seq, False

    def __call__(self) -> None:
        if not self.done:
            self.done = True
            self._link.ack(self.seq)

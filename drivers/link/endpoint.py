"""The two ends of a link, as asyncio protocols over any transport.

:class:`HostLink` is the daemon's end: numbered requests with futures registered before the write
and removed in ``finally``, bounded retransmission, duplicate suppression of device events, and
ACKs sent only when the event's consumer says it is durable.

:class:`DeviceLink` is the device's end, used by every simulator: it answers requests (replaying the
cached response to a retransmitted request instead of executing it twice; a command whose handler
fails is answered DEVICE_FAULT, and that answer is cached too) and sends events one at a
time, keeping each until it is acknowledged and sending it again after the host comes back.

HELLO agrees on the protocol, hence the frames' check: the host asks for the newest it speaks, the
device answers the lower of that and its own newest (a device from before CRC-32 answers 1), and
both ends take the agreed check from the next frame on (HELLO and its answer always carry CRC-16).

Both ends survive any bytes: damaged frames are counted, logged with their bytes at debug level
and NAK'd; unknown types are NAK'd; nothing raises out of ``data_received``.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import structlog

from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import Decoder, Frame, Garbage, NeedMore, encode
from tabled_drivers.link.errors import LinkDownError, NoAnswerError

log = structlog.get_logger("drivers.link")

DEVICE_FAULT_REASON_MAX = 200  # bytes of a failed command's reason sent back (a payload holds 240)
DAMAGE_REASONS = frozenset({"bad crc", "bad escape", "truncated", "oversized"})


@dataclass(frozen=True)
class LinkTiming:
    """Every timer of the link, in seconds. Tests pass small values; nothing else sleeps."""

    ack_timeout: float = 0.25  # wait this long for a response or ACK before sending again
    retries: int = 3  # retransmissions after the first send, then the link has failed
    heartbeat: float = 1.0  # PING when nothing has been heard for this long
    backoff_initial: float = 0.1  # first reconnect delay, doubled each failure...
    backoff_max: float = 5.0  # ...up to this


@dataclass
class LinkStats:
    frames_rx: int = 0
    frames_tx: int = 0
    garbage: collections.Counter = field(default_factory=collections.Counter)  # by reason
    garbage_bytes: int = 0
    retransmits: int = 0
    duplicates: int = 0
    stray: int = 0  # responses or ACKs for nothing outstanding (late repeats)
    naks_rx: int = 0
    naks_tx: int = 0
    unknown_type: int = 0


def _seq_counter():
    # SEQ 0 is reserved for "unknown" (a NAK of a damaged frame), so count 1..255 and wrap.
    return itertools.cycle(range(1, 256))


class _FrameProtocol(asyncio.Protocol):
    """Shared plumbing: decoding, counting and logging garbage, writing frames."""

    def __init__(self, name: str, timing: LinkTiming) -> None:
        self.name = name
        self.timing = timing
        self.stats = LinkStats()
        self.transport: asyncio.BaseTransport | None = None
        self._decoder = Decoder()

    @property
    def protocol(self) -> int:
        """The protocol this end speaks now (its frames' check): 1 until a HELLO agreed on another."""
        return self._decoder.protocol

    def speak(self, protocol: int) -> None:
        """From the next frame on, in both directions, the frames carry ``protocol``'s check."""
        self._decoder.protocol = protocol

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self._decoder = Decoder()  # a new connection starts with protocol 1 until its HELLO

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def data_received(self, data: bytes) -> None:
        decoder = self._decoder
        decoder.feed(data)
        # one frame at a time: a HELLO handled here may change the check of the frames after it
        while not isinstance(item := decoder.next(), NeedMore):
            if isinstance(item, Garbage):
                self._on_garbage(item)
            else:
                self.stats.frames_rx += 1
                try:
                    self.frame_received(item)
                except Exception:  # a bug in a handler must not kill the reader
                    log.exception("link.handler_failed", link=self.name, frame=repr(item))

    def frame_received(self, frame: Frame) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _on_garbage(self, g: Garbage) -> None:
        self.stats.garbage[g.reason] += 1
        self.stats.garbage_bytes += len(g.data)
        log.debug("link.garbage", link=self.name, reason=g.reason, bytes=g.data.hex(" "))
        if g.reason in DAMAGE_REASONS:
            self.send(0, m.NAK, bytes((m.NakReason.DAMAGED,)))
            self.stats.naks_tx += 1

    def _unknown(self, frame: Frame) -> None:
        self.stats.unknown_type += 1
        log.debug("link.unknown_type", link=self.name, type=f"{frame.type:#04x}", seq=frame.seq,
                  payload=frame.payload.hex(" "))
        self.send(frame.seq, m.NAK, bytes((m.NakReason.UNKNOWN_TYPE,)))
        self.stats.naks_tx += 1

    def send(self, seq: int, type_: int, payload: bytes = b"") -> bool:
        return self.write(encode(seq, type_, payload, self.protocol))

    def write(self, data: bytes) -> bool:
        t = self.transport
        if t is None or t.is_closing():
            return False
        t.write(data)  # type: ignore[attr-defined]
        self.stats.frames_tx += 1
        return True


@dataclass
class _Pending:
    code: int
    data: bytes
    future: asyncio.Future
    deadline: float  # loop time by which an answer is due, else send again
    attempts: int = 0


class HostLink(_FrameProtocol):
    """The daemon's end of one device link. One instance serves every reconnection.

    ``on_event(frame)`` is called for each new (not duplicate) device event; the caller must later
    call :meth:`ack` with the frame's SEQ, once the event is durable.
    """

    DEDUP_WINDOW = 64  # events are sent one at a time, so this is far more than enough
    MAX_OUTSTANDING = 32  # commands in flight at once; more wait their turn (flow control)

    def __init__(self, name: str, timing: LinkTiming, on_event: Callable[[Frame], None],
                 clock: Callable[[], float] | None = None) -> None:
        super().__init__(name, timing)
        self.on_event = on_event
        self.clock = clock or (lambda: asyncio.get_running_loop().time())
        self.last_rx = 0.0
        self._seq = _seq_counter()
        self._pending: dict[int, _Pending] = {}
        self._acked: collections.OrderedDict[int, None] = collections.OrderedDict()
        self._delivering: set[int] = set()
        self._connected = asyncio.Event()
        self._window = asyncio.Semaphore(self.MAX_OUTSTANDING)
        self._lost: asyncio.Future[str] | None = None
        self._timer: asyncio.TimerHandle | None = None  # the earliest deadline of any request

    # -- connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.last_rx = self.clock()
        self._lost = asyncio.get_running_loop().create_future()
        self._connected.set()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._connected.clear()
        reason = f"port closed: {exc}" if exc else "port closed"
        self._fail_pending(LinkDownError(f"{self.name}: {reason}"))
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(reason)

    async def wait_connected(self, timeout: float) -> None:
        async with asyncio.timeout(timeout):  # unlike wait_for on 3.11, never swallows a cancellation
            await self._connected.wait()

    async def wait_lost(self) -> str:
        """Until the connection ends (or :meth:`abort` is called): returns the reason."""
        assert self._lost is not None
        return await asyncio.shield(self._lost)

    def abort(self, reason: str) -> None:
        """Give up on this connection (no answers): detach from it, fail requests, close the port."""
        transport, self.transport = self.transport, None
        self._connected.clear()
        self._fail_pending(LinkDownError(f"{self.name}: {reason}"))
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(reason)
        if transport is not None:
            transport.close()

    def protocol_factory(self) -> asyncio.Protocol:
        """A fresh protocol per connection, forwarding to this link while it is the current one,
        so a late ``connection_lost`` from an old port cannot touch the new one."""
        return _Connection(self)

    def _fail_pending(self, exc: Exception) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for p in self._pending.values():
            if not p.future.done():
                p.future.set_exception(exc)
                p.future.exception()  # retrieved: nobody may be awaiting any more

    # -- device sessions
    def new_device_session(self) -> None:
        """The device rebooted (a new boot id): its event SEQs start over, forget old ones."""
        self._acked.clear()
        self._delivering.clear()

    # -- requests
    async def request(self, code: int, payload: bytes = b"") -> tuple[int, bytes]:
        """Send a command and return ``(status, response body)``; retransmits on silence.

        Raises :class:`LinkDownError` when not connected or the port goes, and
        :class:`NoAnswerError` when every retry went unanswered.
        """
        async with self._window:
            return await self._request(code, payload)

    async def _request(self, code: int, payload: bytes) -> tuple[int, bytes]:
        if self.transport is None or self.transport.is_closing():
            raise LinkDownError(f"{self.name}: not connected")
        seq = next(self._seq)
        while seq in self._pending:
            seq = next(self._seq)
        loop = asyncio.get_running_loop()
        pending = _Pending(code, encode(seq, code, payload, self.protocol), loop.create_future(),
                           loop.time() + self.timing.ack_timeout)
        self._pending[seq] = pending  # registered before the write: no response can be missed
        try:
            self.write(pending.data)
            # One timer for the link, not one per request: this is the hot path of every command.
            if self._timer is None:
                self._timer = loop.call_at(pending.deadline, self._expired)
            return await pending.future
        finally:
            self._pending.pop(seq, None)

    def _expired(self) -> None:
        """A deadline has come: each overdue request is sent again, or fails after its last retry.
        The timer is then set for the next deadline of a request still in flight, if any."""
        self._timer = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        next_deadline = None
        for seq, pending in self._pending.items():
            if pending.future.done():
                continue
            if pending.deadline <= now:
                if pending.attempts >= self.timing.retries:
                    pending.future.set_exception(NoAnswerError(
                        f"{self.name}: no answer to command {pending.code:#04x} after {pending.attempts + 1} tries"))
                    continue
                pending.attempts += 1
                self.stats.retransmits += 1
                log.debug("link.retransmit", link=self.name, seq=seq, attempt=pending.attempts)
                self.write(pending.data)
                pending.deadline = now + self.timing.ack_timeout
            if next_deadline is None or pending.deadline < next_deadline:
                next_deadline = pending.deadline
        if next_deadline is not None:
            self._timer = loop.call_at(next_deadline, self._expired)

    # -- events
    def ack(self, seq: int) -> None:
        """The event with this SEQ is durable: tell the device. Idempotent."""
        self._delivering.discard(seq)
        self._acked[seq] = None
        self._acked.move_to_end(seq)
        while len(self._acked) > self.DEDUP_WINDOW:
            self._acked.popitem(last=False)
        self.send(seq, m.ACK)

    # -- incoming
    def frame_received(self, frame: Frame) -> None:
        self.last_rx = self.clock()
        t = frame.type
        if m.is_response(t):
            p = self._pending.get(frame.seq)
            if p is None or m.response_type(p.code) != t or p.future.done() or not frame.payload:
                self.stats.stray += 1
                log.debug("link.stray_response", link=self.name, seq=frame.seq, type=f"{t:#04x}")
                return
            if p.code == m.HELLO:
                self._agreed(frame.payload)
            p.future.set_result((frame.payload[0], frame.payload[1:]))
        elif m.is_event(t):
            if frame.seq in self._acked:  # our ACK was lost: the device is repeating itself
                self.stats.duplicates += 1
                self.send(frame.seq, m.ACK)
            elif frame.seq in self._delivering:  # still with the consumer
                self.stats.duplicates += 1
            else:
                self._delivering.add(frame.seq)
                self.on_event(frame)
        elif t == m.NAK:
            # Requests are resent on their own timeout: resending every pending request on each
            # NAK would let a noisy line burn through all their retries at once.
            self.stats.naks_rx += 1
            log.debug("link.nak", link=self.name, seq=frame.seq, payload=frame.payload.hex(" "))
        elif t == m.ACK:
            self.stats.stray += 1  # the device never needs our commands ACKed: responses do that
        else:
            self._unknown(frame)


    def _agreed(self, payload: bytes) -> None:
        """The device's answer to HELLO names the protocol both ends speak from the next frame on;
        a protocol this end does not speak is left to the client to refuse."""
        if len(payload) == 1 + m.HELLO_RESPONSE_SIZE and payload[0] == m.Status.OK \
                and payload[1] in m.PROTOCOLS:
            self.speak(payload[1])


class _Connection(asyncio.Protocol):
    def __init__(self, link: HostLink) -> None:
        self.link = link
        self.transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.link.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.link.transport is self.transport:
            self.link.data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.link.transport is self.transport:
            self.link.connection_lost(exc)


Handler = Callable[[int, bytes], Awaitable[tuple[int, bytes]]]


class DeviceLink(_FrameProtocol):
    """A device's end (every simulator uses it). ``handler(code, payload) -> (status, body)``
    executes one command; :meth:`send_event` queues an event for reliable delivery."""

    # Answers kept for recognising retransmitted commands. The host has at most
    # HostLink.MAX_OUTSTANDING commands in flight, far fewer than this, and SEQs cycle over 255.
    RESPONSE_CACHE = 128

    def __init__(self, name: str, kind: int, boot_id: int, handler: Handler,
                 timing: LinkTiming = LinkTiming(), protocol: int = m.PROTOCOL_VERSION) -> None:
        super().__init__(name, timing)
        self.kind = kind
        self.highest = protocol  # the newest protocol this device speaks (1: a device from before CRC-32)
        self.boot_id = boot_id
        self.handler = handler
        self.mute = False  # a silent device: reads nothing, answers nothing
        self._seq = _seq_counter()
        # seq -> (type, request payload, encoded response)
        self._responses: collections.OrderedDict[int, tuple[int, bytes, bytes]] = collections.OrderedDict()
        self._executing: set[int] = set()
        self._command_lock = asyncio.Lock()
        self._events: collections.deque[tuple[int, int, bytes]] = collections.deque()  # (seq, type, payload)
        self._ack_waiter: asyncio.Future[bool] | None = None  # the event in flight: ACKed or not
        self._host_heard = asyncio.Event()
        self._wake = asyncio.Event()
        self._sender: asyncio.Task | None = None
        self._tasks: set[asyncio.Task] = set()

    @property
    def unacknowledged(self) -> int:
        return len(self._events)

    @property
    def commands_waiting(self) -> int:
        """Commands that had to wait and go on in a task of their own; none are left once the
        link is closed and their cancellations have landed."""
        return len(self._tasks)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_events())

    def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
        for t in self._tasks:
            t.cancel()

    # -- events out, one at a time, each kept until ACKed
    def send_event(self, code: int, payload: bytes = b"") -> int:
        seq = next(self._seq)
        self._events.append((seq, code, payload))  # encoded when sent: a HELLO may change the check
        self._wake.set()
        return seq

    async def _send_events(self) -> None:
        while True:
            if not self._events:
                self._wake.clear()
                await self._wake.wait()
                continue
            seq, code, payload = self._events[0]
            loop = asyncio.get_running_loop()
            for _ in range(1 + self.timing.retries):
                # A future and a timer handle per attempt (wait_for would add a task and more turns)
                waiter = self._ack_waiter = loop.create_future()
                if not self.mute:
                    self.send(seq, code, payload)
                timer = loop.call_later(self.timing.ack_timeout, _resolve, waiter, False)
                try:
                    acked = await waiter
                finally:
                    timer.cancel()
                    self._ack_waiter = None
                if acked:
                    break
                self.stats.retransmits += 1
            else:
                # Nobody is listening: keep the event and go quiet until the host speaks again.
                self._host_heard.clear()
                await self._host_heard.wait()
                continue
            if self._events and self._events[0][0] == seq:
                self._events.popleft()

    # -- incoming
    def data_received(self, data: bytes) -> None:
        if not self.mute:
            super().data_received(data)

    def frame_received(self, frame: Frame) -> None:
        self._host_heard.set()
        t = frame.type
        if t == m.ACK:
            if self._events and self._events[0][0] == frame.seq and self._ack_waiter is not None:
                _resolve(self._ack_waiter, True)
            else:
                self.stats.stray += 1
        elif t == m.NAK:
            self.stats.naks_rx += 1
            if self._events and not self.mute:
                self.send(*self._events[0])  # a damaged frame may have been our event
        elif m.is_command(t):
            if t == m.HELLO:
                self._responses.clear()  # a new host session: its SEQs start afresh
                self._executing.clear()
                self._wake.set()
            cached = self._responses.get(frame.seq)
            if cached is not None and cached[0] == t and cached[1] == frame.payload:
                self.stats.duplicates += 1  # a retransmitted command: answer again, do not redo
                self.write(cached[2])
            elif frame.seq in self._executing:
                self.stats.duplicates += 1
            else:
                self._executing.add(frame.seq)
                self._start(self._execute(frame))
        else:
            self._unknown(frame)

    def _start(self, command: Coroutine[Any, Any, None]) -> None:
        """Run a command now, within this call: most are answered without waiting, so without a
        task or another turn of the loop. One that must wait (a command before it still running,
        a slow handler) goes on in a task from where it stopped."""
        try:
            waiting_on = command.send(None)
        except StopIteration:
            return
        task = asyncio.ensure_future(_Resumed(command, waiting_on))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _execute(self, frame: Frame) -> None:
        status: int  # a Status, or a handler's own code
        body: bytes
        try:
            async with self._command_lock:  # a device does one thing at a time
                agreed = None
                if frame.type == m.HELLO:
                    agreed = m.agree(frame.payload, self.highest)
                    status, body = m.Status.OK, m.pack(m.HELLO_COMMAND.response, {
                        "protocol": agreed, "kind": self.kind, "boot_id": self.boot_id})
                elif frame.type == m.PING:
                    status, body = m.Status.OK, b""
                else:
                    status, body = await self._run_handler(frame)
            data = encode(frame.seq, m.response_type(frame.type), bytes((status,)) + body, self.protocol)
            self._responses.pop(frame.seq, None)  # an answer from a past SEQ cycle, if any
            self._responses[frame.seq] = (frame.type, frame.payload, data)
            while len(self._responses) > self.RESPONSE_CACHE:
                self._responses.popitem(last=False)
            if not self.mute:
                self.write(data)
            if agreed is not None:
                self.speak(agreed)  # the answer went with CRC-16; what follows carries the agreed check
        finally:
            self._executing.discard(frame.seq)


    async def _run_handler(self, frame: Frame) -> tuple[int, bytes]:
        """The command's answer; a handler that fails is answered DEVICE_FAULT, cached like any
        answer, so a retransmission is told the same and the half-done command is not run again."""
        try:
            return await self.handler(frame.type, frame.payload)
        except Exception as exc:
            log.error("link.device_fault", link=self.name, type=f"{frame.type:#04x}", seq=frame.seq,
                      payload=frame.payload.hex(" "), error=f"{type(exc).__name__}: {exc}")
            reason = f"{type(exc).__name__}: {exc}".encode("ascii", "replace")[:DEVICE_FAULT_REASON_MAX]
            return m.Status.DEVICE_FAULT, reason


class _Resumed:
    """The rest of a coroutine that was started by hand and had to wait: awaiting this drives it on
    from where it stopped, exactly as a task started at once would (Python 3.12 builds this in as
    eager tasks; we run on 3.11). Whatever the awaiting task is sent or thrown (a result, a
    cancellation) goes to the coroutine."""

    __slots__ = ("coro", "waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self.coro, self.waiting_on = coro, waiting_on

    def __await__(self):
        coro, step = self.coro, self.waiting_on
        while True:
            try:
                sent = yield step
            except BaseException as exc:  # passed on, not handled
                try:
                    step = coro.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    step = coro.send(sent)
                except StopIteration as done:
                    return done.value


def _resolve(waiter: asyncio.Future, value: object) -> None:
    if not waiter.done():
        waiter.set_result(value)

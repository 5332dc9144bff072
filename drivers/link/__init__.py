"""The device link layer: frames, reliable delivery, heartbeats and reconnection over any asyncio
transport. Every frame is documented byte by byte in docs/protocols.md.

API summary (for anyone writing a driver or a transport)
========================================================

Frames (:mod:`tabled_drivers.link.codec`, :mod:`tabled_drivers.link.crc`)
    ``encode(seq, type, payload, protocol=1) -> bytes``; ``Decoder(protocol=1).decode(data) ->
    [Frame | Garbage]``, or ``feed(data)`` then ``next()`` -> ``Frame | Garbage | NEED_MORE`` (the
    three-way check). ``Frame(seq, type, payload)``. The check: ``crc16(data)`` (CRC-16/CCITT-FALSE)
    under protocol 1, ``crc32(data)`` (CRC-32) under protocol 2; HELLO agrees on the protocol and
    always carries CRC-16 itself. The decoder never raises.

Message types and schemas (:mod:`tabled_drivers.link.messages`)
    ``ACK``/``NAK`` (link), commands 0x10-0x3F (``HELLO`` 0x10, ``PING`` 0x11 for every device;
    device tables start at 0x20), responses = command | 0x40 starting with a ``Status`` byte,
    events 0x80-0xBF. ``DeviceKind`` (SHUFFLER 1, SHOE 2, BETSPOTS 3, METER 4, PANEL 5, PLAYER_CARDS 6).
    Declarative tables: ``Command(name, code, request=((field, U8), ...), response=(...))``,
    ``EventSpec(name, code, fields)``, ``table(*rows) -> {code: row}``; ``pack(fields, dict)``,
    ``unpack(fields, payload) -> dict`` (raises ``PayloadError``). Kinds: U8 U16 U32 I32 U8_LIST
    U32_LIST I32_LIST (lists carry a count byte).

The two ends (:mod:`tabled_drivers.link.endpoint`), both ``asyncio.Protocol``
    ``HostLink`` (daemon side): ``await request(code, payload) -> (status, body)`` with futures
    keyed by SEQ registered before the write, ``LinkTiming.retries`` retransmissions, then
    ``NoAnswerError``; events go to ``on_event(frame)`` once each (duplicates suppressed by SEQ)
    and are ACKed only by ``ack(seq)``. ``DeviceLink`` (device/simulator side):
    ``DeviceLink(name, kind, boot_id, handler, timing, protocol=2)`` (its newest protocol) where
    ``await handler(code, payload) -> (status, body)``; ``send_event(code, payload) -> seq`` keeps
    each event until ACKed (resent on timeout, on NAK and after the host says HELLO again); a
    retransmitted command gets the cached response, it is not executed twice; ``mute = True`` makes it a silent device.
    ``LinkTiming(ack_timeout, retries, heartbeat, backoff_initial, backoff_max)``: all timers.

Staying connected (:mod:`tabled_drivers.link.client`)
    ``LinkClient(name, kind, opener, on_event=, on_state=, timing=)``: ``start()``, ``stop()``,
    ``wait_up()``, ``await request(Command, **fields) -> dict`` (raises ``LinkDownError`` at once
    while down, ``CommandRejected`` on a non-OK status). Opens the port, says HELLO (checks the
    device kind), PINGs when the device is quiet, and after a lost port or a silent device
    reopens with capped exponential backoff: the first failure logs a warning, repeats log at
    debug. An *opener* is ``async (protocol_factory) -> (transport, protocol)``:
    ``serial_opener(path)`` (pyserial-asyncio-fast; give it a stable path such as a udev symlink,
    it is reopened by path), ``memory.memory_opener(device_link)`` (in-process), or your own
    (USB): anything that calls the factory once per connection and gives the protocol
    ``connection_made``/``data_received``/``connection_lost``.
    Each event reaches ``on_event(frame, ack)`` with an ``Ack``: call ``ack()`` once the event is
    durable (idempotent; ``ack.done`` says whether it was called). ``ack.seq`` is the event
    frame's link SEQ (1..255, wrapping; a device repeating an unacknowledged event repeats its SEQ,
    and a new ``boot_id`` starts the count over).

Drivers (:mod:`tabled_drivers.base`)
    ``Driver(consumer=, port= | opener=, name=, timing=)``; ``start()``, ``stop()``,
    ``wait_up()``, ``state``, ``stats``; subclasses set ``KIND``, ``EVENTS`` and ``build_event``,
    and their async command methods call ``await self.call(COMMAND, **fields)``. The consumer is
    ``async consumer(event, ack)``: call ``ack()`` once the event is durable. Events are frozen
    dataclasses; ``LinkUp``, ``LinkFailed`` (a ``DeviceFault``) and ``BadDeviceData`` are common.

Errors (:mod:`tabled_drivers.link.errors`)
    ``LinkError`` > ``LinkDownError`` > ``NoAnswerError``; ``WrongDeviceError``; ``CommandRejected``.
"""

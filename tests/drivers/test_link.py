"""Reliable delivery over an in-memory cable: retries, exactly-once under loss and duplication,
durable acknowledgement, heartbeats, unplug/replug, wrong device, backoff and its logging."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs

from tabled_drivers.base import BadDeviceData, LinkFailed, LinkUp
from tabled_drivers.link import messages as m
from tabled_drivers.link.client import LinkState
from tabled_drivers.link.codec import encode
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.errors import CommandRejected, LinkDownError, NoAnswerError
from tabled_drivers.link.memory import memory_opener
from tabled_drivers.sim.faults import Faults, faulty
from tests.drivers.helpers import ECHO, FAST, Counted, EchoDevice, EchoDriver, Recorder


async def _started(device, rec, **kw):
    opener = kw.pop("opener", None) or memory_opener(device.link)
    driver = EchoDriver(opener=opener, consumer=rec, timing=kw.pop("timing", FAST), **kw)
    await driver.start()
    await driver.wait_up(5)
    return driver, opener


async def test_command_roundtrip_and_link_up_event():
    dev, rec = EchoDevice(boot_id=77), Recorder()
    driver, _ = await _started(dev, rec)
    assert await driver.echo(123456) == 123456
    assert rec.events == [LinkUp(device="echo", boot_id=77)]
    assert dev.executed == {123456: 1}
    await driver.stop()


async def test_unknown_command_is_a_typed_rejection():
    dev, rec = EchoDevice(), Recorder()
    driver, _ = await _started(dev, rec)
    with pytest.raises(CommandRejected, match="UNKNOWN_COMMAND"):
        await driver.call(m.Command("nonsense", 0x3F))
    await driver.stop()


async def test_events_exactly_once_under_loss_duplication_and_corruption():
    """Both directions drop 20%, duplicate 20% and corrupt 5% of frames: every command runs
    exactly once and every event reaches the consumer exactly once, in order."""
    timing = LinkTiming(ack_timeout=0.01, retries=12, heartbeat=0.5, backoff_initial=0.01, backoff_max=0.05)
    dev, rec = EchoDevice(timing), Recorder()
    noisy = dict(drop=0.2, duplicate=0.2, corrupt=0.05)
    to_dev, to_host = Faults(seed=1, **noisy), Faults(seed=2, **noisy)
    opener = memory_opener(dev.link, to_device=faulty(to_dev), to_host=faulty(to_host))
    driver, _ = await _started(dev, rec, opener=opener, timing=timing)
    for n in range(150):
        dev.emit(n)
    results = await asyncio.gather(*(driver.echo(n) for n in range(100)))
    assert results == list(range(100))
    await rec.wait_for(lambda r: len(r.of(Counted)) == 150, timeout=20)
    await asyncio.sleep(0.1)  # let late duplicates arrive: none may be delivered
    assert [e.n for e in rec.of(Counted)] == list(range(150))
    assert dev.executed == {n: 1 for n in range(100)}
    assert dev.link.unacknowledged == 0
    assert min(to_dev.counts.values()) > 0 and min(to_host.counts.values()) > 0  # faults happened
    assert driver.stats.duplicates > 0 and driver.stats.retransmits > 0
    await driver.stop()


async def test_event_is_acknowledged_only_when_the_consumer_says_durable():
    dev, rec = EchoDevice(), Recorder(auto_ack=False)
    driver, _ = await _started(dev, rec)
    dev.emit(5)
    await rec.wait_for(lambda r: r.of(Counted))
    await asyncio.sleep(FAST.ack_timeout * 6)  # the device repeats; the consumer is not asked twice
    assert len(rec.of(Counted)) == 1
    assert dev.link.unacknowledged == 1
    rec.acks[-1]()  # journaled: now acknowledge
    await asyncio.sleep(FAST.ack_timeout * 3)
    assert dev.link.unacknowledged == 0
    await driver.stop()


async def test_ack_names_the_event_frames_seq():
    """``ack.seq`` is the SEQ the device sent the event under (the consumer numbers frames by it)."""
    dev, rec = EchoDevice(), Recorder()
    driver, _ = await _started(dev, rec)
    sent = [dev.emit(n) for n in range(3)]
    await rec.wait_for(lambda r: len(r.of(Counted)) == 3)
    acks = [a for e, a in zip(rec.events, rec.acks) if isinstance(e, Counted)]
    assert [a.seq for a in acks] == sent == [1, 2, 3]
    assert all(a.done for a in acks)
    await driver.stop()


async def test_unacknowledged_event_is_delivered_again_after_the_daemon_restarts():
    """The daemon dies before journaling: a new driver (no memory) gets the event again."""
    dev = EchoDevice()
    first = Recorder(auto_ack=False)
    driver, opener = await _started(dev, first)
    dev.emit(42)
    await first.wait_for(lambda r: r.of(Counted))
    await driver.stop()  # killed before ack()
    opener.cable.close()
    second = Recorder()
    driver2, _ = await _started(dev, second)
    await second.wait_for(lambda r: r.of(Counted))
    assert [e.n for e in second.of(Counted)] == [42]
    await asyncio.sleep(FAST.ack_timeout * 3)
    assert dev.link.unacknowledged == 0
    await driver2.stop()


async def test_silent_device_fails_the_link_then_recovers():
    dev, rec = EchoDevice(), Recorder()
    driver, _ = await _started(dev, rec)
    dev.link.mute = True
    with capture_logs() as logs:
        with pytest.raises(LinkDownError):  # NoAnswerError, or LinkDownError if the heartbeat failed first
            await driver.echo(1)
        await rec.wait_for(lambda r: r.of(LinkFailed))
        assert driver.state is LinkState.DOWN
        with pytest.raises(LinkDownError, match="cannot echo"):
            await driver.echo(2)  # at once, no waiting while down
        await asyncio.sleep(FAST.backoff_max * 4)  # several quiet reconnect attempts
        dev.link.mute = False
        await rec.wait_for(lambda r: len(r.of(LinkUp)) == 2)
    assert len(rec.of(LinkFailed)) == 1  # reported once per outage
    failures = [entry for entry in logs if entry["event"] in ("link.failed", "link.still_down")]
    assert failures[0]["log_level"] == "warning" and failures[0]["event"] == "link.failed"
    assert len(failures) >= 3 and all(f["log_level"] == "debug" for f in failures[1:])
    assert await driver.echo(3) == 3
    await driver.stop()


async def test_no_answer_error_after_bounded_retries():
    dev, rec = EchoDevice(), Recorder()
    timing = LinkTiming(ack_timeout=0.02, retries=2, heartbeat=60, backoff_initial=0.01, backoff_max=0.05)
    driver, _ = await _started(dev, rec, timing=timing)
    dev.link.mute = True
    with pytest.raises(NoAnswerError, match="after 3 tries"):
        await driver.echo(1)
    assert driver.stats.retransmits == 2
    await driver.stop()


async def test_unplug_and_replug_mid_conversation():
    dev, rec = EchoDevice(), Recorder()
    driver, opener = await _started(dev, rec)
    dev.emit(1)
    await rec.wait_for(lambda r: r.of(Counted))
    pending = asyncio.ensure_future(driver.echo(99))
    opener.cable.close()  # pulled while the command is in flight
    with pytest.raises(LinkDownError):
        await pending
    dev.emit(2)  # the device keeps this until the link is back
    await rec.wait_for(lambda r: len(r.of(LinkUp)) == 2)
    await rec.wait_for(lambda r: len(r.of(Counted)) == 2)
    assert [type(e).__name__ for e in rec.events] == ["LinkUp", "Counted", "LinkFailed", "LinkUp", "Counted"]
    assert await driver.echo(7) == 7
    await driver.stop()


async def test_wrong_device_on_the_port_is_a_link_fault():
    dev, rec = EchoDevice(kind=m.DeviceKind.SHUFFLER), Recorder()
    driver = EchoDriver(opener=memory_opener(dev.link), consumer=rec, timing=FAST)
    await driver.start()
    await rec.wait_for(lambda r: r.of(LinkFailed))
    assert "kind 1" in rec.of(LinkFailed)[0].reason
    assert driver.state is not LinkState.UP
    await driver.stop()


async def test_garbage_and_unknown_frames_are_counted_naked_and_survived():
    dev, rec = EchoDevice(), Recorder()
    driver, opener = await _started(dev, rec)
    host = driver.client.link
    with capture_logs() as logs:
        host.data_received(b"\x01\x02noise")  # no start marker
        host.data_received(encode(3, 0x80, b"\x00\x00\x00\x01", host.protocol)[:-1] + b"\x00")  # bad CRC
        host.data_received(encode(4, 0xC5, b"?", host.protocol))  # a type nobody sends
        host.data_received(encode(5, 0x80, b"\x00\x00\x00\x09", host.protocol))  # still gets through
    await rec.wait_for(lambda r: r.of(Counted))
    assert [e.n for e in rec.of(Counted)] == [9]
    assert driver.stats.garbage["no start marker"] == 1 and driver.stats.garbage["bad crc"] == 1
    assert driver.stats.unknown_type == 1 and driver.stats.naks_tx == 2
    garbage_logs = [entry for entry in logs if entry["event"] == "link.garbage"]
    assert garbage_logs[0]["log_level"] == "debug" and garbage_logs[0]["bytes"] == "01 02 6e 6f 69 73 65"
    await driver.stop()


async def test_nonsense_event_becomes_bad_device_data():
    dev, rec = EchoDevice(), Recorder()
    driver, _ = await _started(dev, rec)
    dev.link.send_event(0x80, b"\x01")  # too short for its schema
    dev.link.send_event(0x9F, b"")  # an event type this device does not have
    await rec.wait_for(lambda r: len(r.of(BadDeviceData)) == 2)
    bad = rec.of(BadDeviceData)
    assert bad[0].message_type == 0x80 and "too short" in bad[0].reason
    assert "unknown event type 0x9f" in bad[1].reason
    await asyncio.sleep(FAST.ack_timeout * 2)
    assert dev.link.unacknowledged == 0  # acknowledged once journaled, like any event
    await driver.stop()


async def test_reconnect_backoff_is_capped_and_logged_quietly_after_the_first():
    attempts: list[float] = []

    async def missing_port(factory):
        attempts.append(asyncio.get_running_loop().time())
        raise FileNotFoundError(2, "No such file or directory", "/dev/tabled/meter")

    rec = Recorder()
    driver = EchoDriver(opener=missing_port, consumer=rec, timing=FAST)
    with capture_logs() as logs:
        await driver.start()
        while len(attempts) < 8:
            await asyncio.sleep(0.01)
        await driver.stop()
    delays = [e["retry_in"] for e in logs if e["event"] in ("link.failed", "link.still_down")]
    assert delays[:6] == [0.01, 0.02, 0.04, 0.08, 0.08, 0.08]  # doubling, capped at backoff_max
    gaps = [b - a for a, b in zip(attempts, attempts[1:])]
    assert all(g >= d - 0.002 for g, d in zip(gaps, delays))  # and really waited
    levels = [(e["event"], e["log_level"]) for e in logs if e["event"].startswith("link.")]
    assert levels[0] == ("link.failed", "warning")
    assert set(levels[1:]) == {("link.still_down", "debug")}
    assert len(rec.of(LinkFailed)) == 1 and "/dev/tabled/meter" in rec.of(LinkFailed)[0].reason


async def test_driver_needs_exactly_one_port():
    with pytest.raises(ValueError, match="exactly one"):
        EchoDriver(consumer=Recorder())


class SlowEchoDevice(EchoDevice):
    """Echo 1 waits at a gate before answering; every other number is answered at once."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.trace: list[tuple[str, int]] = []

    async def handle(self, code, payload):
        n = m.unpack(ECHO.request, payload)["n"]
        self.trace.append(("start", n))
        try:
            if n == 1:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.trace.append(("cancelled", n))
            raise
        self.trace.append(("end", n))
        return await super().handle(code, payload)


async def _until(predicate, timeout: float = 2.0) -> None:
    async def loop():
        while not predicate():
            await asyncio.sleep(0)
    await asyncio.wait_for(loop(), timeout)


async def test_a_command_that_must_wait_goes_on_later_and_the_device_does_one_thing_at_a_time():
    """Commands start at once when they can; one that waits resumes from where it stopped, and the
    command behind it starts only after it (one at a time, in order)."""
    dev, rec = SlowEchoDevice(), Recorder()
    timing = LinkTiming(ack_timeout=0.5, retries=3, heartbeat=5, backoff_initial=0.01, backoff_max=0.05)
    driver, _ = await _started(dev, rec, timing=timing)
    assert await driver.echo(7) == 7  # answered without waiting
    both = asyncio.gather(driver.echo(1), driver.echo(2))
    await _until(lambda: ("start", 1) in dev.trace)
    for _ in range(10):
        await asyncio.sleep(0)
    assert ("start", 2) not in dev.trace  # waits its turn behind echo 1
    dev.gate.set()
    assert await both == [1, 2]
    assert dev.trace == [("start", 7), ("end", 7), ("start", 1), ("end", 1), ("start", 2), ("end", 2)]
    assert dev.executed == {7: 1, 1: 1, 2: 1}
    await driver.stop()


async def test_closing_a_device_cancels_a_waiting_command_inside_its_handler():
    dev, rec = SlowEchoDevice(), Recorder()
    timing = LinkTiming(ack_timeout=0.5, retries=0, heartbeat=5, backoff_initial=0.01, backoff_max=0.05)
    driver, _ = await _started(dev, rec, timing=timing)
    pending = asyncio.ensure_future(driver.echo(1))
    await _until(lambda: ("start", 1) in dev.trace)
    dev.link.close()
    await _until(lambda: ("cancelled", 1) in dev.trace)  # the cancellation reached the handler
    assert ("end", 1) not in dev.trace and dev.link.commands_waiting == 0
    with pytest.raises(NoAnswerError):
        await pending
    await driver.stop()

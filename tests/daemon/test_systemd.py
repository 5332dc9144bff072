"""sd_notify over a real AF_UNIX datagram socket; the watchdog is fed only by a healthy loop."""

from __future__ import annotations

import asyncio
import os
import socket
import tempfile
import threading
import time

import pytest

from tabled.daemon.systemd import Notifier, feed_watchdog, watchdog_period


@pytest.fixture
def notify_socket():
    """A datagram socket standing in for systemd's; yields (address, receive())."""
    directory = tempfile.mkdtemp(prefix="sdn", dir="/tmp")  # short: AF_UNIX paths are <= 107 bytes
    address = os.path.join(directory, "notify")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(address)
    server.setblocking(False)

    def receive() -> list[str]:
        got = []
        while True:
            try:
                got.append(server.recv(4096).decode())
            except BlockingIOError:
                return got

    yield address, receive
    server.close()
    os.unlink(address)
    os.rmdir(directory)


def test_ready_status_watchdog_stopping_reach_the_socket(notify_socket):
    address, receive = notify_socket
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": address})
    assert notifier.enabled
    assert notifier.status("recovering: checking the journal from record 4201")
    assert notifier.ready("table T01 open")
    assert notifier.watchdog()
    assert notifier.extend_timeout(2.5)
    assert notifier.stopping()
    notifier.close()
    assert receive() == [
        "STATUS=recovering: checking the journal from record 4201",
        "READY=1\nSTATUS=table T01 open",
        "WATCHDOG=1",
        "EXTEND_TIMEOUT_USEC=2500000",
        "STOPPING=1",
    ]


def test_abstract_namespace_socket():
    name = f"tabled-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind("\0" + name)
    try:
        notifier = Notifier(f"@{name}")
        assert notifier.ready()
        assert server.recv(100) == b"READY=1"
        notifier.close()
    finally:
        server.close()


def test_outside_systemd_nothing_is_sent():
    notifier = Notifier.from_environment({})
    assert not notifier.enabled and not notifier.ready() and not notifier.watchdog()


def test_a_vanished_socket_is_logged_not_raised(tmp_path):
    notifier = Notifier(str(tmp_path / "gone"))
    assert notifier.watchdog() is False and notifier.watchdog() is False
    notifier.close()


def test_a_newline_cannot_forge_another_field(notify_socket):
    address, receive = notify_socket
    with pytest.raises(ValueError, match="one line"):
        Notifier(address).status("fine\nREADY=1")
    assert receive() == []


def test_watchdog_period_is_half_of_watchdogsec():
    assert watchdog_period({"WATCHDOG_USEC": "10000000"}) == 5.0
    assert watchdog_period({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}) == 5.0
    assert watchdog_period({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_period({}) is None
    assert watchdog_period({"WATCHDOG_USEC": "soon"}) is None


class SteppedTime:
    """A clock and a sleep for the watchdog task: each sleep lasts ``period + lags.pop(0)``."""

    def __init__(self, lags: list[float]) -> None:
        self.now = 0.0
        self.lags = lags

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if not self.lags:
            raise asyncio.CancelledError
        self.now += seconds + self.lags.pop(0)


def run_feeder(notifier, lags, healthy=lambda: True):
    steps = SteppedTime(lags)

    async def main():
        with pytest.raises(asyncio.CancelledError):
            await feed_watchdog(notifier, 5.0, clock=steps.clock, sleep=steps.sleep, healthy=healthy)
    asyncio.run(main())


def test_watchdog_is_withheld_while_the_loop_lags(notify_socket):
    address, receive = notify_socket
    notifier = Notifier(address)
    # on time, on time, blocked 3 s, blocked 60 s, a little late (<= 1.25 s), on time
    run_feeder(notifier, [0.0, 0.01, 3.0, 60.0, 1.0, 0.0])
    assert receive() == ["WATCHDOG=1"] * 4  # the two late wake-ups sent nothing


def test_watchdog_is_withheld_while_the_table_is_unhealthy(notify_socket):
    address, receive = notify_socket
    answers = iter([True, False, False, True])
    run_feeder(Notifier(address), [0.0] * 4, healthy=lambda: next(answers))
    assert receive() == ["WATCHDOG=1"] * 2


def test_a_really_blocked_loop_does_not_feed_the_watchdog(notify_socket):
    # Bounded real time: a 20 ms period, then the loop is blocked for 200 ms by a stuck call.
    address, receive = notify_socket

    async def main():
        task = asyncio.create_task(feed_watchdog(Notifier(address), 0.02))
        while not receive():               # healthy: pings arrive
            await asyncio.sleep(0.005)
        time.sleep(0.2)                    # the stuck call: nothing runs on the loop
        await asyncio.sleep(0)             # the task wakes, 180 ms late
        await asyncio.sleep(0)
        late = receive()
        while not receive():               # the loop is healthy again: pings resume
            await asyncio.sleep(0.005)
        task.cancel()
        return late

    assert asyncio.run(asyncio.wait_for(main(), 5)) == []


def test_a_notify_socket_nobody_reads_never_blocks(notify_socket):
    """systemd not reading its socket (its queue full) costs a status line, never the event loop."""
    address, _ = notify_socket
    notifier = Notifier.from_environment({"NOTIFY_SOCKET": address})
    sent = []

    def send_many() -> None:
        for _ in range(5_000):  # far more than the socket's queue holds
            sent.append(notifier.status("x" * 200))
    worker = threading.Thread(target=send_many, daemon=True)  # a blocked send must fail the test, not hang it
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), f"sd_notify blocked after {len(sent)} datagrams"
    notifier.close()
    assert 0 < sum(sent) < 5_000  # the queue filled; the rest were dropped, not waited for

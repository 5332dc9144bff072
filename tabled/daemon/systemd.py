"""Talking to systemd (Type=notify): READY, STATUS, WATCHDOG, STOPPING over $NOTIFY_SOCKET.

The protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named in
``$NOTIFY_SOCKET`` (a leading ``@`` means Linux's abstract namespace). Outside systemd the variable is
unset and every call does nothing, so the daemon runs the same from a terminal.

The watchdog is fed only while the event loop is healthy: :func:`feed_watchdog` is an asyncio task
that wakes every half ``WatchdogSec`` and pings only when it woke on time (its lateness, the loop's
lag, is small) and the caller's ``healthy()`` agrees. A loop blocked by a stuck call never runs the
task, or runs it late, so systemd stops getting pings and restarts the service.

    notifier = Notifier.from_environment()
    notifier.status("recovering: checking the journal")
    ...
    notifier.ready("table T01 open")
    asyncio.create_task(feed_watchdog(notifier, watchdog_period() or 0, healthy=table.is_healthy))
    ...
    notifier.stopping()
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Awaitable, Callable

import structlog

log = structlog.get_logger(__name__)


class Notifier:
    """Sends sd_notify datagrams; a no-op when there is no socket to send to."""

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._sock: socket.socket | None = None
        self._warned = False
        if address:
            if address.startswith("@"):
                address = "\0" + address[1:]
            self._target = address
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Notifier:
        env = os.environ if environ is None else environ
        return cls(env.get("NOTIFY_SOCKET") or None)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def notify(self, **fields: str | int) -> bool:
        """Send ``KEY=value`` lines (keys upper-cased); True when a datagram went out."""
        if self._sock is None:
            return False
        lines = []
        for key, value in fields.items():
            text = str(value)
            if "\n" in text:  # one field per line: a newline would forge another field
                raise ValueError(f"sd_notify {key}: value must be one line, got {text!r}")
            lines.append(f"{key.upper()}={text}")
        try:
            # never waits: a systemd that does not read its socket must not hold up the table
            self._sock.sendto("\n".join(lines).encode(), socket.MSG_DONTWAIT, self._target)
        except OSError as exc:
            if not self._warned:  # once: a missing socket must not flood the log
                log.warning("systemd.notify_failed", socket=self.address, error=str(exc))
                self._warned = True
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.notify(ready=1, **({"status": status} if status else {}))

    def status(self, text: str) -> bool:
        return self.notify(status=text)

    def watchdog(self) -> bool:
        return self.notify(watchdog=1)

    def extend_timeout(self, seconds: float) -> bool:
        """Ask for more start/stop time (a long journal check) -- EXTEND_TIMEOUT_USEC."""
        return self.notify(extend_timeout_usec=int(seconds * 1_000_000))

    def stopping(self, status: str | None = None) -> bool:
        return self.notify(stopping=1, **({"status": status} if status else {}))

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_period(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between pings (half of WatchdogSec), or None when systemd wants none for us."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC")
    if not usec:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None  # the watchdog is for another process (we are a child)
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 2_000_000 if value > 0 else None


async def feed_watchdog(notifier: Notifier, period: float, *, max_lag: float | None = None,
                        healthy: Callable[[], bool] = lambda: True,
                        clock: Callable[[], float] | None = None,
                        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
    """Ping WATCHDOG=1 every ``period`` seconds while the loop keeps time and ``healthy()`` holds.

    ``max_lag`` (default: a quarter of the period) is how late the wake-up may be; a later one
    means the loop was blocked, so that ping is withheld. Runs until cancelled.
    """
    if period <= 0:
        return
    max_lag = period / 4 if max_lag is None else max_lag
    clock = clock or asyncio.get_running_loop().time
    withheld = False
    while True:
        due = clock() + period
        await sleep(period)
        lag = clock() - due
        if lag <= max_lag and healthy():
            notifier.watchdog()
            if withheld:
                log.info("systemd.watchdog_resumed")
                withheld = False
        elif not withheld:
            log.warning("systemd.watchdog_withheld", lag_ms=int(lag * 1000))
            withheld = True


__all__ = ["Notifier", "watchdog_period", "feed_watchdog"]

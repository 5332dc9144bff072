"""The table's clock measured at start and every ``[clock] check_every_s``: against the central
PostgreSQL's clock (``SELECT clock_timestamp()``, the table's clock read either side of the answer
and the midpoint taken, the best of :data:`SAMPLES` round trips), and the system's NTP discipline
read from the kernel (adjtimex, read only). Each measurement is the journal input
``clock.measured``, which the fold judges (tabled/table/clock.py).

Without a central database the offset is the kernel's own estimate of the NTP discipline's offset,
when the kernel says it is synchronised; with neither, none is measured and the input says why
(no successful measurement for 24 h is an error condition).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from tabled.daemon.config import ClockConfig

log = structlog.get_logger("tabled.daemon.clock")

KIND = "clock.measured"
#: round trips to the central database per measurement: the shortest one's midpoint is taken
SAMPLES = 3
#: a measurement that takes longer is abandoned: the input says why
TIMEOUT_S = 10.0
#: the kernel's clock status bits (linux/timex.h)
STA_UNSYNC = 0x0040
STA_NANO = 0x2000
TIME_ERROR = 5

Connect = Callable[[], Awaitable[Any]]


class _Timex(ctypes.Structure):
    """struct timex (linux/timex.h, glibc's layout)."""

    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long), ("status", ctypes.c_int),
                ("constant", ctypes.c_long), ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("time_sec", ctypes.c_long), ("time_usec", ctypes.c_long), ("tick", ctypes.c_long),
                ("ppsfreq", ctypes.c_long), ("jitter", ctypes.c_long), ("shift", ctypes.c_int),
                ("stabil", ctypes.c_long), ("jitcnt", ctypes.c_long), ("calcnt", ctypes.c_long),
                ("errcnt", ctypes.c_long), ("stbcnt", ctypes.c_long), ("tai", ctypes.c_int),
                ("padding", ctypes.c_int * 11)]


def ntp_state() -> dict[str, Any]:
    """The kernel's NTP discipline, read without changing it: synchronised (yes | no | unknown: not
    Linux, or it cannot be read), its offset estimate and maximum error (ms)."""
    if not sys.platform.startswith("linux"):
        return {"synchronized": "unknown", "why": f"no adjtimex on {sys.platform}"}
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        timex = _Timex()  # modes 0: read only, no privilege needed
        state = libc.adjtimex(ctypes.byref(timex))
    except (OSError, AttributeError) as exc:
        return {"synchronized": "unknown", "why": f"adjtimex: {exc}"}
    if state < 0:
        return {"synchronized": "unknown", "why": f"adjtimex: errno {ctypes.get_errno()}"}
    synchronized = not (timex.status & STA_UNSYNC) and state != TIME_ERROR
    per_ms = 1_000_000 if timex.status & STA_NANO else 1000
    return {"synchronized": "yes" if synchronized else "no", "offset_ms": round(timex.offset / per_ms),
            "max_error_ms": round(timex.maxerror / 1000)}


async def central_offset(connect: Connect, now: Callable[[], float] = time.time) -> tuple[int, int]:
    """The table's clock minus the central database's (ms; positive: the table is ahead) and the
    round trip it was measured over (ms), from the shortest of :data:`SAMPLES` round trips."""
    conn = await connect()
    try:
        best: tuple[float, float] | None = None
        for _ in range(SAMPLES):
            before = now()
            cursor = await conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
            row = await cursor.fetchone()
            after = now()
            trip, offset = after - before, (before + after) / 2 - float(row[0])
            if best is None or trip < best[0]:
                best = (trip, offset)
    finally:
        with contextlib.suppress(Exception):
            await conn.close()
    assert best is not None
    return round(best[1] * 1000), round(best[0] * 1000)


class ClockCheck:
    """Measures and submits: ``connect`` opens a connection to the central database (None: there is
    none), ``submit(kind, payload)`` is the table's intake; ``now`` the clock measured, ``ntp`` the
    NTP state's reader (both injectable)."""

    def __init__(self, cfg: ClockConfig, connect: Connect | None, submit: Callable[[str, dict[str, Any]], None], *,
                 now: Callable[[], float] = time.time, ntp: Callable[[], dict[str, Any]] = ntp_state) -> None:
        self.cfg, self.connect, self.submit, self.now, self.ntp = cfg, connect, submit, now, ntp

    async def measure(self) -> dict[str, Any]:
        """One measurement: the ``clock.measured`` payload."""
        ntp = await asyncio.to_thread(self.ntp)
        payload: dict[str, Any] = {"bound_ms": self.cfg.max_offset_ms, "ntp": ntp, "offset_ms": None, "against": None}
        why = "no central database configured"
        if self.connect is not None:
            try:
                async with asyncio.timeout(TIMEOUT_S):
                    offset, trip = await central_offset(self.connect, self.now)
                return {**payload, "offset_ms": offset, "against": "central", "round_trip_ms": trip}
            except Exception as exc:  # whatever stops the reading (the psycopg extra may be absent) is said
                why = f"the central database's clock could not be read: {type(exc).__name__}: {exc}".rstrip(": ")
        if ntp.get("synchronized") == "yes" and isinstance(ntp.get("offset_ms"), int):
            return {**payload, "offset_ms": ntp["offset_ms"], "against": "ntp", "note": why}
        return {**payload, "error": f"{why}; NTP synchronised: {ntp.get('synchronized', 'unknown')}"}

    async def run(self) -> None:
        """At start, then every ``check_every_s``."""
        while True:
            payload = await self.measure()
            self.submit(KIND, payload)
            if payload["offset_ms"] is None:  # journaled; 24 h of it is the fold's error condition
                log.info("clock.unmeasured", error=payload.get("error"))
            await asyncio.sleep(self.cfg.check_every_s)


def central_connect(dsn: str, credential: str) -> Connect:
    """Opens a connection to ``dsn`` with the password of systemd's ``credential`` (or libpq's own)."""
    import psycopg

    from tabled.host.dsn import credential_password
    password = credential_password(credential)
    extra: dict[str, Any] = {"password": password} if password else {}

    async def connect() -> Any:
        return await psycopg.AsyncConnection.connect(dsn, connect_timeout=int(TIMEOUT_S), autocommit=True, **extra)
    return connect


__all__ = ["ClockCheck", "KIND", "ntp_state", "central_offset", "central_connect", "SAMPLES"]

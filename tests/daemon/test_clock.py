"""The clock measured (tabled/daemon/clock.py) against a real PostgreSQL server the tests start
themselves, with the table's clock injected: the midpoint of the round trip, the best of a few;
without a central database, the kernel's NTP state; neither, an input that says why. The [clock]
section of the config (docs/configuration.md)."""

from __future__ import annotations

import asyncio
import socket
import textwrap
import time

import pytest

from tabled.daemon.clock import KIND, ClockCheck, central_connect, central_offset, ntp_state
from tabled.daemon.config import ClockConfig, ConfigError, load_config

from tests.daemon.configs import MINIMAL_TABLE


def connect_to(dsn: str):
    return central_connect(dsn, "no-such-credential")


async def test_the_offset_against_the_central_clock_is_the_midpoint_of_the_round_trip(pg_admin_dsn):
    ahead = 5.0  # the table's clock, injected: five seconds ahead of the server's (the same machine's)
    offset, trip = await central_offset(connect_to(pg_admin_dsn), lambda: time.time() + ahead)
    assert abs(offset - 5000) <= trip / 2 + 20  # the server's clock is read somewhere within the trip
    same, trip = await central_offset(connect_to(pg_admin_dsn))
    assert abs(same) <= trip / 2 + 20


async def test_a_measurement_says_what_it_measured_against_and_its_bound(pg_admin_dsn):
    check = ClockCheck(ClockConfig(max_offset_ms=250), connect_to(pg_admin_dsn), lambda k, p: None,
                       now=lambda: time.time() - 2.0, ntp=lambda: {"synchronized": "no"})
    payload = await check.measure()
    assert payload["against"] == "central" and payload["bound_ms"] == 250
    assert abs(payload["offset_ms"] + 2000) <= payload["round_trip_ms"] / 2 + 20
    assert payload["ntp"] == {"synchronized": "no"}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_an_unreachable_central_database_falls_back_to_ntp_or_says_why():
    dsn = f"postgresql://tabled@127.0.0.1:{closed_port()}/central"
    synced = ClockCheck(ClockConfig(), connect_to(dsn), lambda k, p: None,
                        ntp=lambda: {"synchronized": "yes", "offset_ms": 7, "max_error_ms": 20})
    payload = await synced.measure()
    assert (payload["offset_ms"], payload["against"]) == (7, "ntp")
    assert "the central database's clock could not be read: OperationalError" in payload["note"]
    unsynced = ClockCheck(ClockConfig(), connect_to(dsn), lambda k, p: None, ntp=lambda: {"synchronized": "unknown"})
    payload = await unsynced.measure()
    assert payload["offset_ms"] is None and payload["against"] is None
    assert payload["error"].endswith("; NTP synchronised: unknown")
    none = await ClockCheck(ClockConfig(), None, lambda k, p: None, ntp=lambda: {"synchronized": "no"}).measure()
    assert none["error"] == "no central database configured; NTP synchronised: no"


async def test_it_measures_at_start_and_then_at_its_interval():
    seen: asyncio.Queue = asyncio.Queue()
    check = ClockCheck(ClockConfig(check_every_s=3600), None, lambda k, p: seen.put_nowait((k, p)),
                       ntp=lambda: {"synchronized": "yes", "offset_ms": 0})
    task = asyncio.create_task(check.run())
    try:
        async with asyncio.timeout(30):  # bounds a hang only
            kind, payload = await seen.get()
        assert kind == KIND and payload["against"] == "ntp"
        await asyncio.sleep(0)
        assert seen.empty()  # the next one an hour later
    finally:
        task.cancel()


def test_the_kernels_ntp_state_is_read_or_said_unknown():
    state = ntp_state()
    assert state["synchronized"] in ("yes", "no", "unknown")
    if state["synchronized"] != "unknown":
        assert isinstance(state["offset_ms"], int) and isinstance(state["max_error_ms"], int)


def test_the_clock_section_of_the_config(tmp_path):
    path = tmp_path / "tabled.toml"
    path.write_text(textwrap.dedent(MINIMAL_TABLE) + "\n[clock]\ncheck_every_s = 600\nmax_offset_ms = 500\n")
    assert load_config(path).clock == ClockConfig(600, 500, None)
    path.write_text(textwrap.dedent(MINIMAL_TABLE) + "\n[clock]\nmax_offset_ms = 0\n")
    with pytest.raises(ConfigError, match=r"clock\.max_offset_ms"):
        load_config(path)
    path.write_text(textwrap.dedent(MINIMAL_TABLE) + "\n[clock]\ndsn = 'postgresql://t:secret@db.example/c'\n")
    with pytest.raises(ConfigError, match=r"clock\.dsn"):
        load_config(path)

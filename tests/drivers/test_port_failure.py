"""A serial port that fails under the link (the device unplugged, its simulator killed): the link
sees the loss, and the report pyserial-asyncio-fast makes to the loop is one log line, not a
traceback on the daemon's stderr (the operator's log stays readable; 14.13 is the link's to tell)."""

from __future__ import annotations

import asyncio
import logging
import os
import pty

import serial_asyncio_fast
from structlog.testing import capture_logs

from tabled_drivers.link.client import port_failures_logged


async def test_a_port_that_fails_under_the_link_is_one_log_line_and_the_link_sees_the_loss(capfd):
    loop = asyncio.get_running_loop()
    port_failures_logged(loop)
    master, slave = pty.openpty()
    lost: asyncio.Future = loop.create_future()

    class Link(asyncio.Protocol):
        def connection_lost(self, exc: Exception | None) -> None:
            if not lost.done():
                lost.set_result(exc)

    with capture_logs() as logs:
        transport, _ = await serial_asyncio_fast.create_serial_connection(loop, Link, os.ttyname(slave))
        os.close(slave)
        os.close(master)                                    # the device is gone
        transport.write(b"\x7e" * 64)                       # the link writes on: the port fails under it
        cause = await asyncio.wait_for(lost, 30)            # bounds a hang only
    assert isinstance(cause, OSError)                       # the link is told of the loss
    failed = [e for e in logs if e["event"] == "link.port_failed"]
    assert failed and failed[0]["log_level"] == "warning" and "Input/output error" in failed[0]["error"]
    assert "Traceback" not in capfd.readouterr().err


async def test_any_other_report_goes_to_the_handler_there_was(caplog):
    loop = asyncio.get_running_loop()
    port_failures_logged(loop)
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        loop.call_exception_handler({"message": "a task failed", "exception": RuntimeError("not a port")})
    assert [r.getMessage() for r in caplog.records] == ["a task failed"]

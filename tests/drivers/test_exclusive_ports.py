"""Serial ports are opened exclusively: a second driver (or a second daemon) on a port already in
use is refused with one line naming the port; the lock dies with the process that held it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import serial

from tabled_drivers.link.errors import PortBusyError
from tabled_drivers.meter import MeterDriver
from tests.drivers.helpers import FAST, Recorder

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pty_pair():
    master, slave = os.openpty()
    path = os.ttyname(slave)
    yield path
    for fd in (master, slave):
        os.close(fd)


async def test_a_second_driver_on_a_port_in_use_is_refused_naming_the_port(pty_pair):
    first = MeterDriver(port=pty_pair, consumer=Recorder(), timing=FAST)
    second = MeterDriver(port=pty_pair, consumer=Recorder(), timing=FAST)
    await first.start()
    try:
        assert await first.client.first_open() is None
        await second.start()
        busy = await second.client.first_open()
        assert isinstance(busy, PortBusyError) and busy.port == pty_pair
        assert str(busy) == (f"serial port {pty_pair} is in use by another program (each port is opened "
                             "exclusively): is another tabled running on these devices?")
        await second.stop()
    finally:
        await first.stop()
    await asyncio.sleep(0.05)  # the transport closes the port on the loop's next turns
    third = MeterDriver(port=pty_pair, consumer=Recorder(), timing=FAST)  # the first let go of it
    await third.start()
    try:
        assert await third.client.first_open() is None
    finally:
        await third.stop()


async def test_the_lock_dies_with_the_process_that_held_the_port(pty_pair):
    holder = subprocess.Popen([sys.executable, "-c", "import serial, sys; s = serial.Serial(sys.argv[1], "
                               "exclusive=True); print('held', flush=True); sys.stdin.read()", pty_pair],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        driver = MeterDriver(port=pty_pair, consumer=Recorder(), timing=FAST)
        await driver.start()
        assert isinstance(await driver.client.first_open(), PortBusyError)
        await driver.stop()
        holder.send_signal(signal.SIGKILL)  # kill -9: no clean-up of its own
        holder.wait(timeout=10)
        driver = MeterDriver(port=pty_pair, consumer=Recorder(), timing=FAST)
        await driver.start()
        assert await driver.client.first_open() is None
        await driver.stop()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        holder.stdin.close()
        holder.stdout.close()


def test_a_second_daemon_on_the_same_ports_is_refused_with_one_line(tmp_path):
    ptys = {name: os.openpty() for name in ("shuffler", "betspots", "meter")}
    held = serial.Serial(os.ttyname(ptys["betspots"][1]), exclusive=True)  # the first daemon's port
    try:
        text = (ROOT / "config" / "hardware.toml").read_text().replace("/var/lib/tabled/", f"{tmp_path}/")
        for name, (_, slave) in ptys.items():
            text = text.replace(f'"/dev/tabled-{name}"', f'"{os.ttyname(slave)}"')
        # run from this checkout: no release manifest to check the installed software against
        text = text.replace('manifest = "/opt/tabled/manifest.json"', "development = true")
        text = "\n".join(line for line in text.splitlines() if not line.startswith("release_key"))
        config = tmp_path / "tabled.toml"
        config.write_text(text)
        tabled = Path(sys.executable).with_name("tabled")
        env = {k: v for k, v in os.environ.items() if k not in ("INVOCATION_ID", "JOURNAL_STREAM", "NOTIFY_SOCKET")}
        r = subprocess.run([str(tabled), "run", "--config", str(config)], capture_output=True, text=True,
                           timeout=60, env=env)
    finally:
        held.close()
        for master, slave in ptys.values():
            os.close(master)
            os.close(slave)
    board = held.port
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if "in use by another program" in ln]
    assert len(lines) == 1 and lines[0].endswith(
        f"error: serial port {board} is in use by another program (each port is opened exclusively): "
        "is another tabled running on these devices?"), r.stderr

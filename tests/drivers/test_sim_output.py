"""A simulator that writes a lot never stalls: its port path is the one line on stdout, and its log
(here a line per damaged frame of line noise) goes to stderr, so a parent that reads that one
line and nothing more can never leave it blocked on a full pipe."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabled_drivers.meter import MeterDriver
from tabled.sim.table import SimProcess
from tests.drivers.helpers import Recorder
from tests.drivers.test_serial_e2e import PTY

NOISE_FRAMES = 3000  # each a damaged frame the simulator logs: far more than a 64 KiB pipe holds
PIPE_SIZE = 64 * 1024


def _noise(link: str) -> None:
    """Line noise into the device's port: short frames each cut by the next start marker."""
    fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        data = b"\x7e\x00\x01" * NOISE_FRAMES + b"\x7e"
        deadline = time.monotonic() + 20
        while data:
            try:
                data = data[os.write(fd, data[:512]):]
            except BlockingIOError:  # the device is not reading: give it a moment
                assert time.monotonic() < deadline, "the simulator stopped reading its port"
                time.sleep(0.01)
            try:
                os.read(fd, 65536)  # its NAKs
            except BlockingIOError:
                pass
    finally:
        os.close(fd)


async def _answers(link: str) -> None:
    driver = MeterDriver(port=link, consumer=Recorder(), timing=PTY)
    await driver.start()
    try:
        await driver.wait_up(10)
        await driver.show(123_456)
    finally:
        await driver.stop()


async def test_a_table_simulator_that_logs_a_lot_keeps_answering(tmp_path):
    """The simulated table's child process (the simulator runner) behind the daemon's pipe."""
    sim = SimProcess("meter", tmp_path, seed=1)
    await sim.start()
    try:
        await asyncio.to_thread(_noise, sim.link)
        await _answers(sim.link)
        assert sim.running
    finally:
        await sim.stop()
    assert Path(f"{sim.link}.log").stat().st_size > PIPE_SIZE  # it did write more than a pipe holds


@pytest.mark.parametrize("command", [[sys.executable, "-m", "tabled_drivers.sim"],
                                     [os.path.join(os.path.dirname(sys.executable), "tabled"), "sim"]],
                         ids=["python -m tabled_drivers.sim", "tabled sim"])
async def test_a_standalone_simulator_whose_stdout_is_read_once_keeps_answering(tmp_path, command):
    link = str(tmp_path / "meter")
    with open(tmp_path / "meter.log", "wb") as log:
        proc = subprocess.Popen([*command, "meter", "--link", link], stdout=subprocess.PIPE, stderr=log)
    try:
        assert (await asyncio.to_thread(proc.stdout.readline)).decode().strip() == link
        await asyncio.to_thread(_noise, link)
        await _answers(link)
        assert proc.poll() is None
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 10)
        proc.stdout.close()
    assert (tmp_path / "meter.log").stat().st_size > PIPE_SIZE

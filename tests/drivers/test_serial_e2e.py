"""Each serial device end to end: the driver opens a real pty whose other end is the simulator
running as its own process (``python -m tabled_drivers.sim``). Killing that process is an unplug."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest

from tabled_drivers.base import LinkFailed, LinkUp
from tabled_drivers.betspots import BetSpotsDriver, Wager, WagerAfterLock, WagersChanged
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.link.errors import LinkDownError
from tabled_drivers.meter import Display, MeterDriver, MeterFault, MeterFaultCode, MeterMessage
from tabled_drivers.shuffler import (DeckColour, HandDelivered, ShuffleComplete, ShufflerDriver, ShufflerJam,
                                     ShuffleStarted)
from tabled.game.cards import parse_cards
from tests.drivers.helpers import Recorder

PTY = LinkTiming(ack_timeout=0.1, retries=3, heartbeat=0.3, backoff_initial=0.02, backoff_max=0.2)


class SimProcess:
    """``python -m tabled_drivers.sim DEVICE --link PATH``, started and killed like a cable."""

    def __init__(self, device: str, link: str, *args: str) -> None:
        self.argv = [sys.executable, "-m", "tabled_drivers.sim", device, "--link", link, *args]
        self.link = link
        self.proc: subprocess.Popen | None = None

    async def start(self) -> SimProcess:
        # A plain Popen (not an asyncio subprocess): nothing of it is bound to the test's loop.
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, text=True)
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), 20)
        assert line.strip() == self.link
        assert os.path.realpath(self.link).startswith("/dev/pts/")
        return self

    async def kill(self) -> None:
        """Pull the cable: SIGKILL, no goodbye."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait)


@pytest.fixture
def sims(tmp_path):
    started: list[SimProcess] = []

    async def start(device, *args):
        sim = SimProcess(device, str(tmp_path / device), *args)
        started.append(sim)
        return await sim.start()

    yield start
    for s in started:
        if s.proc:
            if s.proc.poll() is None:
                s.proc.kill()
            s.proc.wait()
            s.proc.stdout.close()


def script(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


@pytest.mark.slow
async def test_shuffler_over_a_pty_with_unplug_and_replug_mid_shuffle(sims, tmp_path):
    toml = script(tmp_path, "shuffler.toml", """
seed = 11
shuffle_seconds = 0.0
hands = [["As", "Ks", "Qs", "Js", "Ts"]]
[[shuffles]]
jam_at = 23
""")
    sim = await sims("shuffler", "--script", toml)
    rec = Recorder()
    driver = ShufflerDriver(port=sim.link, consumer=rec, timing=PTY)
    await driver.start()
    await driver.wait_up(10)
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(ShufflerJam))
    assert rec.of(ShufflerJam)[0].at_card == 23
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    await driver.deliver_hand(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(HandDelivered))
    assert rec.of(HandDelivered)[0].cards == parse_cards("As Ks Qs Js Ts")

    # Unplug in the middle of a shuffle: the device is mid-cycle when its process dies.
    await sim.kill()
    sim = await sims("shuffler", "--script", script(tmp_path, "slow.toml", "shuffle_seconds = 30.0\n"))
    await rec.wait_for(lambda r: len(r.of(LinkUp)) == 2, timeout=10)
    await driver.shuffle(DeckColour.BLUE)
    await rec.wait_for(lambda r: len(r.of(ShuffleStarted)) == 3)
    await sim.kill()
    await rec.wait_for(lambda r: len(r.of(LinkFailed)) == 2, timeout=10)  # this kill's, not the first's
    with pytest.raises(LinkDownError):
        await driver.status()
    await sims("shuffler")  # replugged: a new pty behind the same stable path
    await rec.wait_for(lambda r: len(r.of(LinkUp)) == 3, timeout=10)
    assert len({e.boot_id for e in rec.of(LinkUp)}) == 3  # three device power-ups
    await driver.shuffle(DeckColour.BLUE)  # the interrupted shuffle is simply done again (15.1)
    await rec.wait_for(lambda r: len(r.of(ShuffleComplete)) == 2)
    assert len(rec.of(LinkFailed)) == 2
    await driver.stop()


async def test_unacknowledged_hand_survives_a_daemon_restart_over_a_pty(sims):
    """The daemon dies before its journal has the hand: the device sends it again to the next one."""
    sim = await sims("shuffler", "--seed", "4")
    first = Recorder(auto_ack=False)
    driver = ShufflerDriver(port=sim.link, consumer=first, timing=PTY)
    await driver.start()
    await driver.wait_up(10)
    await driver.shuffle(DeckColour.RED)
    await first.wait_for(lambda r: r.of(ShuffleStarted))
    first.acks[-1]()
    await first.wait_for(lambda r: r.of(ShuffleComplete))
    first.acks[-1]()
    await driver.deliver_hand(DeckColour.RED)
    await first.wait_for(lambda r: r.of(HandDelivered))
    hand = first.of(HandDelivered)[0]
    await driver.stop()  # dies without acknowledging the hand

    second = Recorder()
    driver = ShufflerDriver(port=sim.link, consumer=second, timing=PTY)
    await driver.start()
    await second.wait_for(lambda r: r.of(HandDelivered), timeout=10)
    assert second.of(HandDelivered) == [hand]  # the same hand, once
    await asyncio.sleep(PTY.ack_timeout * 3)
    assert len(second.of(HandDelivered)) == 1
    await driver.stop()


async def test_betspots_over_a_pty(sims, tmp_path):
    toml = script(tmp_path, "board.toml", """
spots = 7
[[place]]
spot = 2
ante = 1000
ante_tokens = 500
[[after_lock]]
spot = 3
progressive = 100
""")
    sim = await sims("betspots", "--script", toml)
    rec = Recorder()
    driver = BetSpotsDriver(port=sim.link, consumer=rec, timing=PTY, poll_interval=0.02)
    await driver.start()
    await rec.wait_for(lambda r: r.of(WagersChanged), timeout=10)
    assert rec.of(WagersChanged)[0].reading.spot(2).ante == Wager(1000, 500)
    await driver.enable_progressive([2])
    locked = await driver.lock()
    assert locked.locked and locked.spot(2).accepting_progressive
    await rec.wait_for(lambda r: r.of(WagerAfterLock))
    assert rec.of(WagerAfterLock)[0].spot == 3
    await driver.stop()


async def test_meter_over_a_pty_with_a_fault_and_then_silence(sims, tmp_path):
    js = script(tmp_path, "meter.json", json.dumps(
        {"fault_after_commands": 2, "fault": "display_segments", "silent_after_commands": 3}))
    sim = await sims("meter", "--script", js)
    rec = Recorder()
    driver = MeterDriver(port=sim.link, consumer=rec, timing=PTY)
    await driver.start()
    await driver.wait_up(10)
    await driver.show(2_500_000, 31_000_00)
    assert await driver.showing() == Display(MeterMessage.AMOUNTS, (2_500_000, 3_100_000))
    await rec.wait_for(lambda r: r.of(MeterFault))
    assert rec.of(MeterFault)[0].code is MeterFaultCode.DISPLAY_SEGMENTS
    await driver.blank()  # third command: answered, then the meter stops answering
    await rec.wait_for(lambda r: r.of(LinkFailed), timeout=10)
    with pytest.raises(LinkDownError):
        await driver.show(1)
    await driver.stop()


def test_tabled_sim_prints_the_port_and_refuses_a_bad_script(tmp_path):
    tabled = os.path.join(os.path.dirname(sys.executable), "tabled")
    bad = script(tmp_path, "bad.toml", "fault = 'smoke'\n")
    r = subprocess.run([tabled, "sim", "meter", "--script", bad], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "tabled sim: error:" in r.stderr and "unknown value 'smoke'" in r.stderr
    r = subprocess.run([tabled, "sim", "meter", "--script", str(tmp_path / "none.toml")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "cannot read script" in r.stderr
    p = subprocess.Popen([tabled, "sim", "shuffler"], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().startswith("/dev/pts/")
    finally:
        p.terminate()
        assert p.wait(timeout=10) == 0


async def test_a_device_speaking_only_protocol_1_works_over_a_pty_and_its_replacement_speaks_crc32(sims, tmp_path):
    """The meter from before CRC-32 (``--protocol 1``) answers HELLO with 1: the link runs on CRC-16.
    Plugged out and a new meter in its place: the next HELLO agrees on protocol 2."""
    old = await sims("meter", "--protocol", "1")
    rec = Recorder()
    driver = MeterDriver(port=old.link, consumer=rec, timing=PTY)
    await driver.start()
    await driver.wait_up(10)
    assert driver.client.link.protocol == 1
    await driver.show(123_456)
    assert (await driver.showing()).amounts == (123_456,)
    await old.kill()
    await rec.wait_for(lambda r: r.of(LinkFailed), timeout=10)
    new = await sims("meter")
    assert new.link == old.link
    await rec.wait_for(lambda r: len(r.of(LinkUp)) == 2, timeout=10)
    assert driver.client.link.protocol == 2
    await driver.show(654_321)
    assert (await driver.showing()).amounts == (654_321,)
    await driver.stop()

"""The fault-injecting wire itself, and the link over its harsher settings (single bytes, delay)."""

from __future__ import annotations

import asyncio

from tabled_drivers.link.memory import memory_opener
from tabled_drivers.sim.faults import Faults, FaultyProtocol, FaultyTransport, faulty
from tests.drivers.helpers import Counted, EchoDevice, EchoDriver, FAST, Recorder


class Collect:
    def __init__(self):
        self.chunks = []

    def data_received(self, data):
        self.chunks.append(data)

    def write(self, data):
        self.chunks.append(bytes(data))


def test_split_delivers_single_bytes_and_counts_nothing_else():
    sink = Collect()
    FaultyProtocol(sink, Faults(split=True)).data_received(b"abc")
    assert sink.chunks == [b"a", b"b", b"c"]


def test_drop_duplicate_corrupt_are_seeded_and_counted():
    faults = Faults(drop=0.3, duplicate=0.3, corrupt=0.3, seed=9)
    sink = Collect()
    line = FaultyTransport(sink, faults)
    frames = [bytes([i]) * 8 for i in range(200)]
    for f in frames:
        line.write(f)
    c = faults.counts
    assert 30 < c["dropped"] < 90 and 20 < c["duplicated"] < 80 and 20 < c["corrupted"] < 80
    assert len(sink.chunks) == 200 - c["dropped"] + c["duplicated"]
    damaged = [ch for ch in sink.chunks if ch not in frames]
    assert c["corrupted"] <= len(damaged) <= 2 * c["corrupted"]  # a corrupted write may also be duplicated
    again = Faults(drop=0.3, duplicate=0.3, corrupt=0.3, seed=9)
    sink2 = Collect()
    line2 = FaultyTransport(sink2, again)
    for f in frames:
        line2.write(f)
    assert sink2.chunks == sink.chunks  # same seed, same damage


async def test_delay_keeps_order():
    sink = Collect()
    proto = FaultyProtocol(sink, Faults(delay=0.01))
    for i in range(20):
        proto.data_received(bytes([i]))
    assert sink.chunks == []
    await asyncio.sleep(0.05)
    assert sink.chunks == [bytes([i]) for i in range(20)]
    proto.line.close()


async def test_link_one_byte_at_a_time_and_delayed_both_ways():
    dev, rec = EchoDevice(), Recorder()
    opener = memory_opener(dev.link, to_device=faulty(Faults(split=True, delay=0.002)),
                           to_host=faulty(Faults(split=True, delay=0.002)))
    driver = EchoDriver(opener=opener, consumer=rec, timing=FAST)
    await driver.start()
    await driver.wait_up(5)
    for n in range(10):
        dev.emit(n)
    assert [await driver.echo(n) for n in range(10)] == list(range(10))
    await rec.wait_for(lambda r: len(r.of(Counted)) == 10)
    assert [e.n for e in rec.of(Counted)] == list(range(10))
    assert driver.stats.garbage_bytes == 0
    await driver.stop()

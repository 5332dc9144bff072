"""Link-layer speed: frames per second through the codec, and the request-to-acknowledgement round
trip over ptys with five devices talking at once, beside the time the same bytes take on a
115,200-baud wire (10 bits per byte). A pty ignores the baud rate, so the measured time is the
software's own. Prints figures; asserts nothing.

    .venv/bin/python benchmarks/bench_link.py [--requests 2000] [--pace-ms 5]

First the software alone: both ends of one link in this process over the in-memory transport (no
port, no second process, so no scheduler in the figure), microseconds of host plus device work
per command round trip and per event delivered and acknowledged.

Five simulators run as their own processes (``python -m tabled_drivers.sim``), as on the table: the
shuffler, the bet-spot board, the meter, and two more meters standing in for the USB shoe and
panel (the USB devices do not use a pty). The host side is one asyncio loop, like the daemon.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time

import structlog

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabled_drivers import betspots, meter, shuffler
from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import Decoder, encode

BAUD = 115_200
BITS_PER_BYTE = 10  # start + 8 data + stop


def wire_ms(nbytes: int) -> float:
    return nbytes * BITS_PER_BYTE / BAUD * 1000


def bench_codec(n: int = 200_000) -> None:
    payload = bytes(range(18))  # a 24-byte frame on the wire: 1 + 3 + 18 + 2
    frame = encode(1, 0x80, payload)
    t = time.perf_counter()
    for i in range(n):
        encode(i & 0xFF, 0x80, payload)
    enc = n / (time.perf_counter() - t)

    stream = frame * n
    d = Decoder()
    t = time.perf_counter()
    got = 0
    for i in range(0, len(stream), 1024):  # the size a serial read hands over
        got += len(d.decode(stream[i:i + 1024]))
    dec = got / (time.perf_counter() - t)

    d = Decoder()
    m_ = n // 4
    t = time.perf_counter()
    for _ in range(m_):
        d.decode(frame)
    one = m_ / (time.perf_counter() - t)
    print(f"codec ({len(frame)}-byte frames): encode {enc:,.0f} frames/s; decode {dec:,.0f} frames/s "
          f"from 1 KiB reads, {one:,.0f} frames/s one frame per read")


async def software_alone(n: int) -> tuple[float, float]:
    """Microseconds per command round trip and per event round trip, both ends in this loop."""
    from tabled_drivers.link.memory import memory_opener
    from tabled_drivers.sim.meter import MeterSim

    delivered = asyncio.Event()

    async def consumer(event, ack):
        ack()
        delivered.set()

    sim = MeterSim()
    driver = meter.MeterDriver(opener=memory_opener(sim.link), consumer=consumer)
    await driver.start()
    await driver.wait_up(5)
    for _ in range(200):  # warm up
        await driver.call(meter.SHOWING)
    t = time.perf_counter()
    for _ in range(n):
        await driver.call(meter.SHOWING)
    command_us = (time.perf_counter() - t) / n * 1e6
    t = time.perf_counter()
    for _ in range(n):
        delivered.clear()
        sim.fault(meter.MeterFaultCode.POWER)
        await delivered.wait()
    while sim.link.unacknowledged:
        await asyncio.sleep(0)
    event_us = (time.perf_counter() - t) / n * 1e6
    await driver.stop()
    sim.close()
    return command_us, event_us


def bench_software_alone(n: int, repeats: int = 5) -> None:
    best = [min(x) for x in zip(*(asyncio.run(software_alone(n)) for _ in range(repeats)))]
    print(f"software alone (meter, in-process, best of {repeats} x {n:,}): command round trip "
          f"{best[0]:.1f} us, event delivered and acknowledged {best[1]:.1f} us")


DEVICES = [  # (simulator, label, driver class, command measured, its response as the sim answers)
    ("shuffler", "shuffler", shuffler.ShufflerDriver, shuffler.STATUS,
     {"ready": [], "cards_left": [], "door_open": 0, "recognition": 1}),
    ("betspots", "bet-spot board", betspots.BetSpotsDriver, betspots.POLL,
     {"locked": 0, "accepting": [0] * 7, "amounts": [0] * 42, "stacks": [0] * 21}),
    ("meter", "meter", meter.MeterDriver, meter.SHOWING, {"message": 1, "amounts": []}),
    ("meter", "meter (stand-in: shoe)", meter.MeterDriver, meter.SHOWING, {"message": 1, "amounts": []}),
    ("meter", "meter (stand-in: panel)", meter.MeterDriver, meter.SHOWING, {"message": 1, "amounts": []}),
]


def frame_bytes(command: m.Command, response: dict) -> int:
    request = encode(1, command.code, m.pack(command.request, {}))
    answer = encode(1, m.response_type(command.code), b"\x00" + m.pack(command.response, response))
    return len(request) + len(answer)


ECHO = r"""
import os, sys, tty
m, s = os.openpty()
tty.setraw(s)
print(os.ttyname(s), flush=True)
while True:
    os.write(m, os.read(m, 4096))
"""


async def echo_talker(path: str):
    """A bare echo over a pty (no protocol, no Python on the device side beyond read/write)."""
    import serial_asyncio_fast

    got: asyncio.Queue = asyncio.Queue()

    class Sink(asyncio.Protocol):
        def data_received(self, data):
            got.put_nowait(len(data))

    transport, _ = await serial_asyncio_fast.create_serial_connection(
        asyncio.get_running_loop(), Sink, path, baudrate=BAUD)
    frame = encode(1, 0x80, bytes(18))

    async def once():
        transport.write(frame)
        n = 0
        while n < len(frame):
            n += await got.get()

    return transport, once


async def measure(talkers: dict, requests: int, pace: float) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in talkers}

    async def talk(name, once):
        lat = samples[name]
        for _ in range(requests):
            t = time.perf_counter()
            await once()
            lat.append((time.perf_counter() - t) * 1000)
            if pace:
                await asyncio.sleep(pace)

    await asyncio.gather(*(talk(n, o) for n, o in talkers.items()))
    return samples


def pct(lat: list[float], q: float) -> float:
    lat = sorted(lat)
    return lat[max(0, int(len(lat) * q) - 1)]


async def bench_round_trip(requests: int, pace_ms: float, devices: list) -> None:
    tmp = tempfile.mkdtemp(prefix="bench-link-")
    procs, drivers, echoes = [], [], []

    async def consumer(event, ack):
        ack()

    def spawn(argv):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        procs.append(p)
        return p

    try:
        talkers, sizes = {}, {}
        for i, (sim, label, cls, command, response) in enumerate(devices):
            link = os.path.join(tmp, f"dev{i}")
            p = spawn([sys.executable, "-m", "tabled_drivers.sim", sim, "--link", link])
            await asyncio.to_thread(p.stdout.readline)
            kw = {"poll_interval": 3600} if cls is betspots.BetSpotsDriver else {}
            d = cls(port=link, consumer=consumer, name=label, **kw)
            await d.start()
            drivers.append(d)
            talkers[label] = (lambda d=d, c=command: d.call(c))
            sizes[label] = frame_bytes(command, response)
        for d in drivers:
            await d.wait_up(10)
        echo_talkers = {}
        for i in range(len(devices)):
            p = spawn([sys.executable, "-c", ECHO])
            path = (await asyncio.to_thread(p.stdout.readline)).strip()
            transport, once = await echo_talker(path)
            echoes.append(transport)
            echo_talkers[f"bare echo {i + 1}"] = once

        for mode, pace in (("paced", pace_ms / 1000), ("flat out", 0.0)):
            samples = await measure(talkers, requests, pace)
            baseline = await measure(echo_talkers, requests, pace)
            print(f"\nround trip, request -> response (its acknowledgement), {len(devices)} device(s) at once, {mode}"
                  + (f" (each device every {pace_ms:g} ms)" if pace else " (back to back)")
                  + f", {requests} requests each:")
            print(f"  {'device':26} {'bytes':>5} {'wire ms':>8} {'p50 ms':>8} {'p99 ms':>8} {'p99/wire':>9}")
            for label, lat in samples.items():
                w = wire_ms(sizes[label])
                print(f"  {label:26} {sizes[label]:5d} {w:8.3f} {statistics.median(lat):8.3f} "
                      f"{pct(lat, 0.99):8.3f} {pct(lat, 0.99) / w:8.1%}")
            every = [x for lat in samples.values() for x in lat]
            base = [x for lat in baseline.values() for x in lat]
            print(f"  {'all':26} {'':5} {'':8} {statistics.median(every):8.3f} {pct(every, 0.99):8.3f}")
            print(f"  {f'bare pty echo, {len(devices)} at once':26} {50:5d} {wire_ms(50):8.3f} "
                  f"{statistics.median(base):8.3f} {pct(base, 0.99):8.3f} {pct(base, 0.99) / wire_ms(50):8.1%}"
                  "   (25 bytes out, 25 back)")
    finally:
        for d in drivers:
            await d.stop()
        for t in echoes:
            t.close()
        for p in procs:
            p.terminate()
            p.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per device per mode")
    parser.add_argument("--pace-ms", type=float, default=5.0, help="gap between one device's requests, paced mode")
    parser.add_argument("--codec-frames", type=int, default=200_000)
    parser.add_argument("--software-rounds", type=int, default=20_000,
                        help="round trips per repeat for the in-process software figure")
    parser.add_argument("--devices", type=int, default=5, choices=range(1, 6),
                        help="how many of the five talkers (the issue's figure is all five)")
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    bench_codec(args.codec_frames)
    bench_software_alone(args.software_rounds)
    asyncio.run(bench_round_trip(args.requests, args.pace_ms, DEVICES[:args.devices]))
    print(f"\nwire time = bytes x {BITS_PER_BYTE} bits / {BAUD:,} baud; target: software p99 <= 10% of it")
    return 0


if __name__ == "__main__":
    sys.exit(main())

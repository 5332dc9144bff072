"""Phantom frames from line noise: a campaign (measured, not asserted), under each protocol.

Two kinds of garbage (``--kind``). A *noise* stream is ``--length`` bytes of line noise (2048 by
default): each byte is the start marker 0x7E with probability ``--sof`` (1/128 by default: with the
uniform bytes, three times as many markers as uniform noise has), else uniformly random. A
*damaged* stream is the line's own traffic hit by noise: 16 real frames of the device (its commands
and events with plausible fields, under the protocol measured), each hit with probability 1/2 by 1
to 4 bytes overwritten at random; a frame that arrives changed and is acted on is a phantom.
Each stream is read by both ends of one device's link (the devices in turn): the receiving end's
decoder under the protocol measured (1: CRC-16, 2: CRC-32, HELLO and its answer always CRC-16), then
the semantic checks the receiving end makes before acting:

* a **phantom event** reaches the host: a frame that passes the check, whose TYPE is one of the
  device's events and whose payload the driver turns into a typed event (``Driver.decode_event``
  does not answer ``BadDeviceData``: the daemon would journal it and act on it);
* a **phantom command** would be executed by the device: a frame that passes the check, whose TYPE
  is HELLO, PING or one of the device's commands and whose payload unpacks exactly into the
  command's request (the simulators' ``CommandDispatch`` runs such a command; a device may still
  refuse it for its state, so this counts an upper bound).

It prints the candidate frames (a start marker the decoder took as a frame's beginning), how many
were long enough for their check to be judged, how many passed it, and the phantoms. Noise passes
a check too rarely to count phantoms directly at CRC-32, so it also prints the arithmetic: every
judged candidate is also taken *as if* its check had passed (its LEN, SEQ, TYPE and payload are as
random as those of one that passes) and put through the semantic checks; with ``S`` of them passing
those, the expected phantoms are ``S × 2^-16`` under CRC-16 and ``S × 2^-32`` under CRC-32.

    .venv/bin/python benchmarks/phantom_frames.py [--kind noise|damaged] [--streams 200000]
        [--protocol 1|2|both] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import logging
import sys
import time
from pathlib import Path

import numpy as np
import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tabled_drivers import betspots, meter, panel, shoe, shuffler
from tabled_drivers.base import BadDeviceData
from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import (HEADER, HELLO_MARK, SOF, TRAILER, Decoder, Frame, Garbage, NeedMore, check_of,
                                       encode, unstuff)

logging.disable(logging.CRITICAL)  # the drivers log each nonsense frame they decode: millions here
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
FRAMES_PER_STREAM = 16  # damaged streams: real frames sent, each hit by noise with probability 1/2
BATCH = 10_000  # streams generated at once
LIMIT = 10**9   # streams: a count above this is refused (it would not end)


def _unused_opener(_factory):  # the drivers only decode here: nothing is opened
    raise AssertionError("not opened")


DRIVERS = [cls(consumer=None, opener=_unused_opener) for cls in (  # type: ignore[arg-type]
    shuffler.ShufflerDriver, betspots.BetSpotsDriver, meter.MeterDriver, shoe.ShoeDriver, panel.PanelDriver)]
COMMANDS = [{m.HELLO: m.HELLO_COMMAND, m.PING: m.PING_COMMAND, **module.COMMANDS}
            for module in (shuffler, betspots, meter, shoe, panel)]


def _traffic(driver, commands: dict[int, m.Command]) -> list[tuple[int, bytes]]:
    """Real frames of a device: each event the driver takes and each command request (PING among
    them; HELLO is sent once a connection), with small plausible fields (1, or a list of one 1),
    and the shuffling device's hand as it deals it."""
    frames = []
    for spec in driver.EVENTS.values():
        payload = m.pack(spec.fields, {name: [1] if kind.is_list else 1 for name, kind in spec.fields})
        if not isinstance(driver.decode_event(Frame(1, spec.code, payload)), BadDeviceData):
            frames.append((spec.code, payload))
    for command in commands.values():
        if command.code == m.HELLO:
            continue  # once a connection, not traffic
        frames.append((command.code, m.pack(command.request, {
            name: [1] if kind.is_list else 1 for name, kind in command.request})))
    if isinstance(driver, shuffler.ShufflerDriver):
        frames.append((shuffler.HAND_DELIVERED.code, m.pack(shuffler.HAND_DELIVERED.fields, {
            "deck": 2, "hand_number": 1, "cards": [51, 47, 43, 39, 35], "bottom": 4})))
    return frames


TRAFFIC = [_traffic(d, c) for d, c in zip(DRIVERS, COMMANDS, strict=True)]


def damaged(rng: np.random.Generator, device: int, protocol: int) -> tuple[bytes, set[tuple[int, int, bytes]]]:
    """A stream of the device's real frames, about half of them hit by noise, and the frames as sent."""
    sent, out = set(), bytearray()
    traffic = TRAFFIC[device]
    for _ in range(FRAMES_PER_STREAM):
        code, payload = traffic[int(rng.integers(len(traffic)))]
        seq = int(rng.integers(1, 256))
        sent.add((seq, code, payload))
        wire = bytearray(encode(seq, code, payload, protocol))
        if rng.random() < 0.5:
            for _ in range(int(rng.integers(1, 5))):
                wire[int(rng.integers(1, len(wire)))] = int(rng.integers(256))
        out += wire
    return bytes(out), sent


def noise(rng: np.random.Generator, streams: int, length: int, sof: float) -> np.ndarray:
    data = rng.integers(0, 256, size=(streams, length), dtype=np.uint8)
    data[rng.random((streams, length)) < sof] = SOF
    return data


def executed(commands: dict[int, m.Command], frame: Frame) -> bool:
    command = commands.get(frame.type)
    if command is None:
        return False
    try:
        m.unpack(command.request, frame.payload)
    except m.PayloadError:
        return False
    return True


def streams_of(kind: str, rng: np.random.Generator, protocol: int, streams: int, length: int, sof: float):
    """(device, bytes, the frames sent) for each stream in turn."""
    done = 0
    while done < streams:
        if kind == "damaged":
            device = done % len(DRIVERS)
            yield (device, *damaged(rng, device, protocol))
            done += 1
            continue
        for row in noise(rng, min(BATCH, streams - done), length, sof):
            yield done % len(DRIVERS), row.tobytes(), set()
            done += 1


def campaign(kind: str, protocol: int, streams: int, length: int, sof: float, seed: int) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    counts: collections.Counter[str] = collections.Counter()
    for device, data, sent in streams_of(kind, rng, protocol, streams, length, sof):
        decoder = Decoder(protocol)
        decoder.feed(data)
        while not isinstance(item := decoder.next(), NeedMore):
            if isinstance(item, Garbage):
                if item.reason != "no start marker":
                    counts["candidates"] += 1
                    counts[item.reason] += 1
                if item.reason == "bad crc":  # as if its check had passed
                    raw = unstuff(item.data[1:])
                    frame = Frame(raw[1], raw[2], raw[HEADER:HEADER + raw[0]])
                    if (frame.seq, frame.type, frame.payload) not in sent:
                        semantic(counts, device, frame, if_passed(protocol, frame))
                continue
            counts["candidates"] += 1
            if (item.seq, item.type, item.payload) in sent:
                counts["arrived as sent"] += 1
                continue
            counts["passed the check"] += 1
            semantic(counts, device, item, "")
            semantic(counts, device, item, if_passed(protocol, item))
    return dict(counts)


def if_passed(protocol: int, frame: Frame) -> str:
    """The count a frame taken as if its check had passed goes to: by the check it carries (under
    protocol 2, HELLO and its answer still carry CRC-16, and a HELLO must carry the mark and ask for
    protocol 1 or 2, else the decoder drops it however its check came out: counted apart, as never
    acted on)."""
    if check_of(protocol, len(frame.payload), frame.type) != TRAILER:
        return "if passed 32 "
    if protocol != 1 and frame.type == m.HELLO and (frame.payload[0] not in m.PROTOCOLS
                                                    or frame.payload[1:] != HELLO_MARK):
        return "dropped as a HELLO without the mark or a protocol: "
    return "if passed 16 "


def semantic(counts: collections.Counter[str], device: int, frame: Frame, prefix: str) -> None:
    """Count ``frame`` as a phantom event or command when the receiving end would act on it."""
    if m.is_event(frame.type) and not isinstance(DRIVERS[device].decode_event(frame), BadDeviceData):
        counts[prefix + "phantom events"] += 1
    if m.is_command(frame.type) and executed(COMMANDS[device], frame):
        counts[prefix + "phantom commands"] += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", choices=("noise", "damaged"), default="noise", help="what the garbage is")
    ap.add_argument("--streams", type=int, default=200_000, help=f"garbage streams per protocol (1 to {LIMIT:,})")
    ap.add_argument("--length", type=int, default=2048, help="bytes per stream (1 to 65536)")
    ap.add_argument("--sof", type=float, default=1 / 128, help="probability of a start marker per byte (0 to 1)")
    ap.add_argument("--protocol", choices=("1", "2", "both"), default="both")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not 1 <= args.streams <= LIMIT:
        ap.error(f"--streams {args.streams}: 1 to {LIMIT:,}")
    if not 1 <= args.length <= 65536:
        ap.error(f"--length {args.length}: 1 to 65536")
    if not 0 <= args.sof <= 1:
        ap.error(f"--sof {args.sof}: a probability, 0 to 1")
    protocols = (1, 2) if args.protocol == "both" else (int(args.protocol),)
    if args.kind == "noise":
        print(f"{args.streams:,} noise streams of {args.length} bytes, start marker probability {args.sof:.4f}, "
              f"seed {args.seed}")
    else:
        print(f"{args.streams:,} damaged streams of {FRAMES_PER_STREAM} real frames, seed {args.seed}")
    for protocol in protocols:
        started = time.perf_counter()
        c = campaign(args.kind, protocol, args.streams, args.length, args.sof, args.seed)
        judged = c.get("passed the check", 0) + c.get("bad crc", 0)  # changed, long enough to be checked
        bits = 16 if protocol == 1 else 32
        events = {b: c.get(f"if passed {b} phantom events", 0) for b in (16, 32)}
        commands = {b: c.get(f"if passed {b} phantom commands", 0) for b in (16, 32)}
        per_stream = {b: 1 / (args.streams * 2 ** b) for b in (16, 32)}
        print(f"protocol {protocol} (CRC-{bits}): {c.get('candidates', 0):,} candidate frames, "
              f"{judged:,} long enough to be checked, {c.get('passed the check', 0):,} passed "
              f"(expected {judged / 2 ** bits:.4g}); phantom events {c.get('phantom events', 0):,}, "
              f"phantom commands {c.get('phantom commands', 0):,}; {time.perf_counter() - started:.0f} s")
        print(f"  as if every judged candidate had passed: events acted on {events[16]:,} under CRC-16 and "
              f"{events[32]:,} under CRC-32, commands executed {commands[16]:,} and {commands[32]:,}; expected "
              f"phantoms per 10^7 streams: events {sum(events[b] * per_stream[b] for b in events) * 1e7:.3g}, "
              f"commands {sum(commands[b] * per_stream[b] for b in commands) * 1e7:.3g}")


if __name__ == "__main__":
    main()

"""Run one simulator on its own pty, as its own process: ``python -m tabled_drivers.sim <device>`` or
``tabled sim <device>``. Prints the port path (the stable symlink when ``--link`` is given) on
stdout, flushed, then serves until killed. Killing it is a real unplug for the driver."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.sim.base import ScriptError, load_script


def simulators() -> dict:
    from tabled_drivers.sim.betspots import BetSpotsSim
    from tabled_drivers.sim.meter import MeterSim
    from tabled_drivers.sim.shuffler import ShufflerSim

    return {"shuffler": ShufflerSim, "betspots": BetSpotsSim, "meter": MeterSim}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("device", choices=sorted(simulators()), help="which serial device to simulate")
    parser.add_argument("--script", metavar="FILE", help="TOML or JSON script of what the device will do")
    parser.add_argument("--link", metavar="PATH",
                        help="also publish the port as this stable symlink (like a udev name), "
                             "replaced atomically by the next simulator started with the same PATH")
    parser.add_argument("--seed", type=int, default=None, help="random seed (shuffles, boot id)")


def build(args: argparse.Namespace, timing: LinkTiming = LinkTiming()):
    """The simulator object, or ScriptError (a ValueError) naming what is wrong with the script."""
    return simulators()[args.device](load_script(args.script), timing=timing, seed=args.seed)


async def serve(sim, link: str | None, out=sys.stdout) -> None:
    from tabled_drivers.sim.pty import PtyPort

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the path is printed: a caller may stop us at once
        loop.add_signal_handler(sig, stop.set)
    port = PtyPort(sim.link, link)
    print(port.path, file=out, flush=True)
    try:
        await stop.wait()
    finally:
        sim.close()
        port.close()


def run(args: argparse.Namespace) -> int:
    sim = build(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(sim, args.link))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabled_drivers.sim", description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (ScriptError, OSError) as exc:
        print(f"drivers.sim: error: {exc}", file=sys.stderr)
        return 2

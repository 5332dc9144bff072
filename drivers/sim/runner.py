"""Run one simulator on its own pty, as its own process: ``python -m tabled_drivers.sim <device>`` or
``tabled sim <device>``. Prints the port path (the stable symlink when ``--link`` is given) on
stdout, flushed, then serves until killed. Killing it is a real unplug for the driver.

The shoe and the panel are USB devices; run on their own they serve the same link on a pty, for a
driver configured with that ``port`` (docs/protocols-usb.md). When stdin is a terminal, its keys
are the panel's buttons and key switch, or the dealer's hands on the shoe (drivers/sim/keys.py):
a trainee or a demo runs a table by hand.

The simulated table (tabled/sim/table.py) runs each serial device this way too, with
``--control SOCKET`` (the socket through which its people act on the device, drivers/sim/control.py)
and ``--exit-with-parent`` (the device goes when the process that started it goes, however it goes).

The port path is the only thing ever written to stdout: everything after it (the simulator's log)
goes to stderr, so a caller that reads the first line of a pipe and nothing more can never stall
the device by letting the pipe fill."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys

from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import LinkTiming
from tabled_drivers.sim.base import ScriptError, load_script


USB = ("shoe", "panel")


def simulators() -> dict:
    """The serial simulators (each takes a script)."""
    from tabled_drivers.sim.betspots import BetSpotsSim
    from tabled_drivers.sim.meter import MeterSim
    from tabled_drivers.sim.shuffler import ShufflerSim

    return {"shuffler": ShufflerSim, "betspots": BetSpotsSim, "meter": MeterSim}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("device", choices=sorted([*simulators(), *USB]),
                        help="which device to simulate (shoe and panel: keys from this terminal)")
    parser.add_argument("--script", metavar="FILE", help="TOML or JSON script of what the device will do")
    parser.add_argument("--link", metavar="PATH",
                        help="also publish the port as this stable symlink (like a udev name), "
                             "replaced atomically by the next simulator started with the same PATH; "
                             "a file, a device or another symlink already at PATH is refused, never replaced")
    parser.add_argument("--seed", type=int, default=None, help="random seed (shuffles, boot id)")
    parser.add_argument("--control", metavar="SOCKET",
                        help="serve a control socket here: people's actions on the device (chips put on a spot, "
                             "a jam for the next shuffle, a meter gone quiet); serial devices only")
    parser.add_argument("--protocol", type=int, choices=m.PROTOCOLS, default=m.PROTOCOL_VERSION,
                        help="the newest link protocol the device speaks: 2 (CRC-32, default) or 1 (CRC-16, "
                             "a device from before CRC-32)")
    parser.add_argument("--exit-with-parent", action="store_true",
                        help="stop when stdin closes (the process that started this one is gone)")


def build(args: argparse.Namespace, timing: LinkTiming = LinkTiming()):
    """The simulator object, or ScriptError (a ValueError) naming what is wrong with the script."""
    if args.device in USB:
        if args.script:
            raise ScriptError(f"the {args.device} simulator takes no script: its keys are this terminal's")
        import random

        from tabled_drivers.sim.panel import PanelSimulator
        from tabled_drivers.sim.shoe import ShoeSimulator
        boot_id = random.Random(args.seed).getrandbits(32)
        sim = (ShoeSimulator if args.device == "shoe" else PanelSimulator)(boot_id=boot_id, timing=timing)
    else:
        sim = simulators()[args.device](load_script(args.script), timing=timing, seed=args.seed)
    sim.link.highest = getattr(args, "protocol", m.PROTOCOL_VERSION)
    return sim


def _keys(sim, seed: int | None):
    from tabled_drivers.sim.keys import PanelKeys, ShoeKeys
    from tabled_drivers.sim.shoe import ShoeSimulator

    if isinstance(sim, ShoeSimulator):
        keys = ShoeKeys(sim, seed)
        keys.load_deck()
        return keys
    return PanelKeys(sim)


async def serve(sim, link: str | None, out=sys.stdout, seed: int | None = None, *, device: str | None = None,
                control: str | None = None, exit_with_parent: bool = False) -> None:
    """Serve ``sim`` on a pty until SIGTERM or SIGINT (or, with ``exit_with_parent``, stdin's end);
    with ``control``, also its control socket there (``device`` names which ops it has), ready
    before the port path is printed."""
    from tabled_drivers.sim.control import ControlServer, control_ops
    from tabled_drivers.sim.keys import TerminalKeys
    from tabled_drivers.sim.pty import PtyPort

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the path is printed: a caller may stop us at once
        loop.add_signal_handler(sig, stop.set)
    if exit_with_parent:
        _exit_with_parent(loop, stop)
    server = await ControlServer(control, control_ops(device or "", sim)).start() if control else None
    port = PtyPort(sim.link, link)
    print(port.path, file=out, flush=True)
    if out is sys.stdout:
        stdout_to_stderr()
    keys = None
    from tabled_drivers.sim.usb_backend import UsbDeviceSimulator
    if isinstance(sim, UsbDeviceSimulator) and not exit_with_parent:  # stdin is the parent's pipe, not keys
        keys = TerminalKeys(_keys(sim, seed), fd=sys.stdin.fileno(), out=sys.stderr)
        keys.start()  # only when stdin is a terminal
    try:
        await stop.wait()
    finally:
        if keys is not None:
            keys.stop()
        if server is not None:
            await server.close()
        sim.close()
        port.close()


def _exit_with_parent(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Stop when the parent's end of our stdin closes: the process that started us is gone (even
    by kill -9), and a simulated device must not outlive its table."""
    fd = sys.stdin.fileno()

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)
            stop.set()
    loop.add_reader(fd, readable)


def stdout_to_stderr() -> None:
    """From here on the process's stdout is its stderr (the port path has been said): a pipe
    that only its first line is read from would otherwise fill with log lines and block us."""
    sys.stdout.flush()
    with contextlib.suppress(OSError, ValueError):  # no stderr to go to: keep what we have
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())


def run(args: argparse.Namespace) -> int:
    if args.control and args.device in USB:
        raise ScriptError(f"the {args.device} simulator has no control socket: its keys are this terminal's")
    if args.link:
        from tabled_drivers.sim.pty import check_link
        try:
            check_link(args.link)  # before anything starts: a file or a device there is never replaced
        except ValueError as exc:
            raise ScriptError(str(exc)) from None
    sim = build(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(sim, args.link, seed=args.seed, device=args.device, control=args.control,
                          exit_with_parent=args.exit_with_parent))
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

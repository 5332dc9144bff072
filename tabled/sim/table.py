"""The simulated table's devices: each serial device its own process on a pty, the
USB devices behind the simulated pyusb backend.

* The shuffler, bet-spot board and meter simulators each run in a child process, the simulator
  runner of drivers/sim (``python -m tabled_drivers.sim <device> --link PATH --control SOCKET``):
  the device on a pty published at a stable symlink (as udev names real devices), plus a small
  control socket (drivers/sim/control.py) through which the simulated players and tests act on the
  device as people would (chips put on a spot, a jam scripted for the next shuffle, a meter that
  goes quiet). Killing the process is a real unplug; starting another on the same PATH is the
  replug (a new power-up).
* The card shoe and the button panel are :class:`tabled_drivers.sim.shoe.ShoeSimulator` and
  :class:`tabled_drivers.sim.panel.PanelSimulator` plugged into one :class:`SimBackend`, in this process:
  the daemon's drivers reach them through the real ``usb.core`` code.

:class:`SimulatedTable` starts and stops all five and unplugs / replugs any of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tabled_drivers.sim.control import FELT_AREAS
from tabled.table.names import SERIAL_DEVICES

START_TIMEOUT = 20.0  # seconds for a child to print its port (a cold Python start is ~0.3 s)
POWER_UP_STRIDE = 100_003  # seeds of successive power-ups never meet (SimProcess adds 1000 per replug)


#: control operations that are chips put down or taken up: physical, so they happen even while the
#: board is unplugged, and a new board sees them (SimProcess.start)
FELT_OPS = ("set", "place", "clear")


class SimControlError(RuntimeError):
    """A control request the simulator refused, or a simulator that is not running."""


# -- the parent's side ---------------------------------------------------------------------------------

class SimControl:
    """The control socket of one simulator process: ``await control.call("place", spot=1, ante=500)``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.felt: dict[str, dict[str, int]] = {}  # chips on the felt (bet-spot board): physical, they
        # stay where they are when the board's power goes, and its sensors see them again after
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._lock: asyncio.Lock | None = None

    async def call(self, op: str, **args: Any) -> Any:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            try:
                if self._reader is None or self._writer is None:  # both or neither (close)
                    self._reader, self._writer = await asyncio.open_unix_connection(self.path)
                self._writer.write(json.dumps({"op": op, **args}).encode() + b"\n")
                await self._writer.drain()
                line = await self._reader.readline()
            except OSError as exc:
                self.close()
                line, down = b"", f": {exc}"
            else:
                down = ""
            if not line:
                self.close()
                if op in FELT_OPS:  # chips go on the felt whether or not the board is powered
                    self._lay(op, args)
                    return None
                raise SimControlError(f"simulator at {self.path} is not running{down}")
        answer = json.loads(line)
        if not answer["ok"]:
            raise SimControlError(f"{op}: {answer['error']}")
        if op in FELT_OPS:
            self._lay(op, args)
        return answer["result"]

    def _lay(self, op: str, args: dict[str, Any]) -> None:
        """Keep the chips on the felt as the people put them (the board's sensors see them next)."""
        if op == "set":
            for spot, amounts in args["spots"].items():
                self.felt.setdefault(str(spot), {}).update(amounts)
        elif op == "place":
            self.felt.setdefault(str(args["spot"]), {}).update({k: v for k, v in args.items() if k != "spot"})
        elif op == "clear":
            self.felt[str(args["spot"])] = dict.fromkeys(FELT_AREAS, 0)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None


class SimProcess:
    """One serial simulator in its own process; ``kill()`` is pulling its cable."""

    def __init__(self, device: str, state_dir: Path, seed: int, script: str | None = None) -> None:
        self.device = device
        self.link = str(state_dir / device)
        self.control_path = str(state_dir / f"{device}.ctl")
        self.seed = seed
        self.script = script
        self.generation = 0
        self.proc: subprocess.Popen | None = None
        self.control = SimControl(self.control_path)

    async def start(self) -> None:
        # A new power-up: a new seed, hence a new boot id (the driver sees a different device session)
        seed = self.seed + 1000 * self.generation
        self.generation += 1
        argv = [sys.executable, "-m", "tabled_drivers.sim", self.device, "--link", self.link,
                "--control", self.control_path, "--seed", str(seed), "--exit-with-parent"]
        if self.script:
            argv += ["--script", self.script]
        # The child writes its port path on stdout, then turns its stdout into stderr: its log goes
        # to its own file, never into the pipe this process reads one line from.
        with open(f"{self.link}.log", "ab") as errors:  # a device's own troubles are not the daemon's output
            # ^C goes to the daemon only (own session); stdin is a pipe the child watches: when this
            # process dies, however it dies, the pipe closes and the device goes with it
            self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.PIPE, stderr=errors,
                                         text=True, start_new_session=True)
        child_out = self.proc.stdout
        assert child_out is not None  # stdout=PIPE
        try:
            async with asyncio.timeout(START_TIMEOUT):  # unlike wait_for on 3.11, never swallows a cancellation
                line = await asyncio.to_thread(child_out.readline)
        except BaseException:  # too slow, or the daemon is stopping: the thread reading waits on the child
            await self.kill()
            raise
        if line.strip() != self.link:
            self.proc.kill()
            self.proc.wait()
            raise SimControlError(f"{self.device} simulator did not start (said {line.strip()!r}; "
                                  f"its log ends: {self._log_tail()!r})")
        child_out.close()  # nothing more comes: the child's stdout is its log file now
        self.control.close()
        if self.control.felt:  # a new board over the same chips
            await self.control.call("set", spots=self.control.felt)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _log_tail(self) -> str:
        """The last line the simulator wrote to its log (why it stopped), or ""."""
        try:
            with open(f"{self.link}.log", "rb") as log:
                lines = log.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1] if lines else ""

    async def kill(self) -> None:
        """SIGKILL: no goodbye, exactly an unplugged cable (or a power cut of the device)."""
        self.control.close()
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            await asyncio.to_thread(self.proc.wait)
            self._close_pipes()

    def _close_pipes(self) -> None:
        if self.proc is None:  # a stop and a failed start may both clean up
            return
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        self.proc = None

    async def stop(self) -> None:
        self.control.close()
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    async with asyncio.timeout(5):
                        await asyncio.to_thread(self.proc.wait)
                except TimeoutError:
                    self.proc.kill()
                    await asyncio.to_thread(self.proc.wait)
            self._close_pipes()


class SimulatedTable:
    """All five simulated devices and the player card reader. ``ports`` names what the daemon's
    drivers open."""

    def __init__(self, state_dir: str | Path, *, seed: int = 1, spots: int = 7,
                 scripts: dict[str, str] | None = None, timing: Any = None, power_up: int = 0) -> None:
        """``power_up``: which power-up of the table this is (0 the first). Each power-up gives every
        device a new boot id, as real devices have, so the daemon never takes a new session's
        frames for repeats of the last one's."""
        from tabled_drivers.sim.panel import PanelSimulator
        from tabled_drivers.sim.playercards import PlayerCardSimulator
        from tabled_drivers.sim.shoe import ShoeSimulator
        from tabled_drivers.sim.usb_backend import SimBackend

        self.state_dir = Path(state_dir)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        scripts = dict(scripts or {})
        if spots != 7 and "betspots" not in scripts:  # the board has as many spots as the table
            board = self.state_dir / "betspots.toml"
            board.write_text(f"spots = {spots}\n")
            scripts["betspots"] = str(board)
        base = seed + POWER_UP_STRIDE * power_up
        self.serial = {d: SimProcess(d, self.state_dir, base + i, scripts.get(d)) for i, d in enumerate(SERIAL_DEVICES)}
        self.backend = SimBackend()
        kw = {"timing": timing} if timing is not None else {}
        self.shoe = ShoeSimulator(boot_id=(base * 7 + 1) & 0xFFFFFFFF, **kw)
        self.panel = PanelSimulator(boot_id=(base * 7 + 2) & 0xFFFFFFFF, **kw)
        self.cards = PlayerCardSimulator(boot_id=(base * 7 + 3) & 0xFFFFFFFF, **kw)  # read with ratings on
        self.started = False

    @property
    def ports(self) -> dict[str, str]:
        return {d: p.link for d, p in self.serial.items()}

    def control(self, device: str) -> SimControl:
        return self.serial[device].control

    async def start(self) -> SimulatedTable:
        try:
            await asyncio.gather(*(p.start() for p in self.serial.values()))
        except BaseException:  # one did not start, or the daemon is stopping: none is left behind
            await self.close()
            raise
        self.shoe.plug_into(self.backend)
        self.panel.plug_into(self.backend)
        self.cards.plug_into(self.backend)
        self.started = True
        return self

    async def lay_felt(self, felt: Any) -> None:
        """Put the table back as it stood (a :class:`tabled.sim.players.Felt`): the chips on every spot
        of the board and the decks shuffled in the shuffling device. For a restart: the daemon's
        drivers must find the devices as the journal left them, so call this before they connect."""
        if felt.board:
            await self.control("betspots").call("set", spots={str(n): a for n, a in felt.board.items()})
        if felt.decks:
            await self.control("shuffler").call("load_decks", decks=felt.decks)

    async def unplug(self, device: str) -> None:
        if device in self.serial:
            await self.serial[device].kill()
        else:
            getattr(self, device).unplug()

    async def replug(self, device: str) -> None:
        if device in self.serial:
            await self.serial[device].start()
        else:
            getattr(self, device).replug()

    async def close(self) -> None:
        await asyncio.gather(*(p.stop() for p in self.serial.values()), return_exceptions=True)
        for usb_sim in (self.shoe, self.panel, self.cards):
            with contextlib.suppress(Exception):
                usb_sim.close()
        self.started = False

    async def __aenter__(self) -> SimulatedTable:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


# -- a person as the dealer -------------------------------------------------------------------------------

async def dealt_by_hand(sims: SimulatedTable, floor: Any, out: Any = None, stdin_fd: int | None = None) -> None:
    """``[simulation] dealer = "manual"``: the simulated players put their chips down and decide as
    usual, and every panel button and the key switch are a person's, on this terminal's keys
    (the map is in drivers/sim/keys.py and is shown at the start; ``?`` shows it again). Keys are
    read only when stdin is a terminal; otherwise the table waits for presses that never come,
    and says so once. Runs until cancelled."""
    from tabled_drivers.sim.keys import PanelKeys, TerminalKeys

    out = out or sys.stdout
    keys = TerminalKeys(PanelKeys(sims.panel), fd=sys.stdin.fileno() if stdin_fd is None else stdin_fd, out=out)
    if not keys.start():
        print("manual dealer: stdin is not a terminal, so no key can press the panel's buttons", file=out,
              flush=True)
    floor.press = _a_person_presses  # the floor's own presses are the dealer's: a person's now
    # with a staff list the person at the keys acts as the simulated staff: the floor signs in the
    # dealer before the first round, and the supervisor and the inspector here, for the keys' S and I
    for role in ("supervisor", "inspector"):
        floor.sign_in(role)
    sims.panel.turn_key("dealer")
    try:
        await floor.play(None, stall_s=None)  # a person takes the time they take
    finally:
        keys.stop()


def _a_person_presses(*_args: Any, **_kw: Any) -> None:
    """The simulated floor leaves every panel button to the person at the keys."""


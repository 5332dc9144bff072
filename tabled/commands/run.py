"""``tabled run``: run the table.

Every device is a real driver (tabled/daemon/devices.py). With ``[simulation] enabled`` the devices are
the simulators (tabled/sim/table.py: the serial ones each in its own process on a pty, the USB ones
behind the simulated pyusb backend) and simulated players and a dealer act through them
(tabled/sim/players.py); otherwise the drivers open the ports and USB devices named in ``[devices]``.

Output: in a terminal, a banner (table, profile, limits, config, journal, pool), readable lines as
rounds happen (state, hands, settlement, what the meter shows) on stdout and, on stderr, only the
log's warnings that have no such line (each thing is shown once), and a summary on exit. Otherwise
(systemd, a pipe) the log is the output, one record per event on stdout, each with its round id,
spot and rule: JSON lines (``[log] format = "auto"`` or ``"json"``) or plain ``key=value`` lines
(``"console"``); ``--quiet`` keeps one record per round and the warnings.

Nothing the reader of stdout or stderr does can hold up the table (tabled/host/output.py), and SIGTERM or
SIGINT stops it within seconds: the round in play stays in the journal, and the next start resumes it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import errno
import os
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

import structlog

from tabled.commands._arguments import UserError, whole_number
from tabled.daemon.config import MISTAKES, Config, check_may_start, find_config, load_config

if TYPE_CHECKING:
    from tabled_drivers.link.endpoint import LinkTiming

    from tabled.daemon.assemble import Opened
    from tabled.daemon.controller import Table
    from tabled.daemon.devices import TableDevices
    from tabled.sim.players import DeviceFloor
    from tabled.sim.table import SimulatedTable
    from tabled.table.core import TableCore

NAME = "run"
HELP = "run the table the config describes (a simulated table only if the config says so)"
DEVICES_UP_TIMEOUT = 20.0
STOP_WAIT_S = 2.0       # on a stop, how long the floor's loop and the table's consumer get to finish
SHIP_ON_STOP_S = 10.0   # on a stop, how long the shipper gets to send the journal's last records (TimeoutStopSec=30)

log = structlog.get_logger("tabled.run")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="TOML config file (default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")
    parser.add_argument("--rounds", type=whole_number(0), default=None,
                        help="stop after this many rounds (default: config)")
    parser.add_argument("--quiet", action="store_true", help="print only one line per round")
    parser.add_argument("--pace-ms", type=whole_number(0), default=None, metavar="MS",
                        help="simulation: the simulated people wait MS ms after each action "
                             "(default: [simulation] pace_ms; 0: full speed)")


def own_signing_key(cfg: Config, journal_path: Path, environ: dict[str, str] | None = None) -> Config:
    """A simulated table seals its journal as a real one does: when neither the config nor systemd's
    credential names a key, it makes its own beside the journal on first start (private, mode 0600;
    the public half beside it for ``tabled audit verify``: tabled/journal/seals.py:make_local_key)."""
    from tabled.daemon.assemble import CannotStart
    from tabled.journal.seals import CREDENTIAL, local_key_files, make_local_key
    environ = dict(os.environ) if environ is None else environ
    credentials = environ.get("CREDENTIALS_DIRECTORY")
    if (not cfg.simulation.enabled or cfg.journal.signing_key is not None
            or (credentials and (Path(credentials) / CREDENTIAL).exists())):
        return cfg
    if not local_key_files(journal_path)[0].exists() and journal_path.is_file() and journal_path.stat().st_size:
        # a simulated journal begun without a key (a recorded session, an older tabled) plays on
        # unsealed: a key cannot vouch for records it did not seal; a new journal is sealed from its first
        log.warning("journal.unsealed_simulation", journal=str(journal_path),
                    hint="move the journal aside to start a sealed one")
        return cfg
    try:
        key = make_local_key(journal_path)
    except OSError as exc:
        raise CannotStart(f"{journal_path.parent}: the simulated table's signing key cannot be made there "
                          f"({exc.strerror or exc})") from None
    return dataclasses.replace(cfg, journal=dataclasses.replace(cfg.journal, signing_key=key))


class Hooks(Protocol):
    """What drives play in place of the simulated floor (a test's scenario, a benchmark)."""

    async def started(self, *, table: Table, devices: TableDevices, sims: SimulatedTable | None,
                      floor: DeviceFloor | None) -> None:
        """The table, its devices, the simulators and the floor, before play starts."""

    def play(self) -> Awaitable[None]:
        """Play; the daemon stops when this returns."""


@dataclass(frozen=True)
class Seams:
    """What a test or a benchmark puts in place of the daemon's own: its clock, link timers and
    files, simulators that outlive one daemon (a restart), and what drives play."""

    clock: Callable[[], float] = time.time  # the journal's clock
    timing: LinkTiming | None = None         # the device links' timers (None: the drivers' own)
    poll_interval: float = 0.05              # seconds between the drivers' polls
    pool_retry: float = 1.0                  # seconds between attempts to reach a pool that is down (14.13)
    journal_path: Path | None = None         # None: the config's
    state_dir: Path | None = None            # the simulators' files (None: a temporary folder)
    sims: SimulatedTable | None = None       # simulators started by the caller, else started here
    hooks: Hooks | None = None               # plays in place of the floor
    watch_tree: Path | None = None           # the continual check reads this folder's files, not the installed
    verify_every_s: float | None = None      # the continual check's interval (None: the config's)


async def run_table(cfg: Config, rounds: int, *, out: TextIO | None = None, quiet: bool = False, human: bool = True,
                    stop: asyncio.Event | None = None, pace_s: float = 0.0,
                    on_playing: Callable[[], None] | None = None, seams: Seams = Seams()) -> Table:
    """Open (or recover) the table, start its devices and play ``rounds`` rounds (0: until ``stop``).

    The composition root: the daemon's parts (tabled/daemon/assemble.py), its devices (the
    config's, or with ``[simulation] enabled`` the simulators, tabled/sim/table.py) and what plays
    (the simulated floor, a person dealing on this terminal's keys, or ``seams.hooks``).
    ``pace_s``: the simulated people's pause after each action. ``on_playing``: called once the
    table is up and play starts (until then a stop cancels the start). After a restart in
    simulation, the simulators start afresh and the felt is put back as the journal left it
    (tabled.sim.players.felt_as_journaled)."""
    from tabled_drivers.link.client import port_failures_logged
    from tabled_drivers.link.endpoint import LinkTiming

    from tabled.daemon import report
    from tabled.daemon.assemble import configured_drivers, open_table
    from tabled.daemon.devices import TableDevices, build_drivers
    from tabled.daemon.staff import roster_input
    from tabled.daemon.systemd import Notifier, feed_watchdog, watchdog_period
    from tabled.daemon.web import start_screen  # loaded before the table starts: a stop never waits on it

    out = sys.stdout if out is None else out
    port_failures_logged(asyncio.get_running_loop())  # a device lost is the link's to tell (14.13)
    notifier = Notifier.from_environment()
    notifier.status("checking the journal")
    journal_path = seams.journal_path or cfg.journal.path
    cfg = own_signing_key(cfg, journal_path)
    central = shipping_waits = None
    if cfg.journal.ship_to:  # its password is found before anything is opened, or the table does not start
        from tabled.daemon.shipping import Shipper, ShippingError, connector
        try:
            central = connector(cfg.journal.ship_to)
        except ShippingError as exc:
            if not cfg.journal.ship_may_wait:
                raise
            shipping_waits = f"{exc}; the journal is shipped from the start that has it (journal.ship_may_wait)"
            log.warning("shipping.waiting", reason=shipping_waits)
    opened = await open_table(cfg, journal_path, clock=seams.clock, pool_retry=seams.pool_retry, central=central)
    table, core = opened.table, opened.table.core
    table.shipping_waits = shipping_waits
    session = report.Session()
    sims, timing = seams.sims, seams.timing or LinkTiming()
    tmp = devices = consumer = watchdog = meter = shipping = shipper = screen = verifying = watch = timing_task = None
    screen_line: str | None = None
    try:
        if central is not None:  # the journal shipped to the central server, beside play
            shipper = Shipper(journal_path, cfg.table.id, central)
            table.on_commit = shipper.wake
            shipping = asyncio.create_task(shipper.run(), name="journal-shipping")
        table.listeners.append(session)
        watch = _protection_watch(cfg, table, core)
        if watch is not None:
            table.listeners.append(watch)
        table.listeners.append(report.RoundPrinter(out, quiet) if human else report.RoundLogger())
        report.announce(cfg, core, journal_path, opened.replayed, out, human)
        screen, screen_line = await _start_screen(start_screen, cfg, table, human)
        if screen is not None:  # the inspector's answers on the pit page, journaled on the table's loop
            from tabled.daemon.answers import InspectorAnswers
            loop = asyncio.get_running_loop()

            def journal(kind: str, payload: dict[str, Any]) -> None:
                loop.call_soon_threadsafe(table.submit, kind, payload)
            screen.answers = InspectorAnswers(cfg.staff, journal)
        if cfg.simulation.enabled:
            if sims is None:
                notifier.status("starting the simulated devices")
                state_dir = seams.state_dir
                if state_dir is None:
                    tmp = tempfile.TemporaryDirectory(prefix="tabled-sim-")
                    state_dir = Path(tmp.name)
                sims = await _simulators(cfg, state_dir, timing, opened)
            ports, backend = sims.ports, sims.backend
            make = lambda consumer_for: build_drivers(  # noqa: E731
                consumer_for, spots=cfg.table.spots, ports=ports, usb_backend=backend, timing=timing,
                poll_interval=seams.poll_interval, cards=cfg.ratings.enabled)
        else:
            make = configured_drivers(cfg, timing=timing, poll_interval=seams.poll_interval)
        roster = roster_input(cfg.staff, core.staff.listed)
        if roster is not None:  # who may sign in at the panel, folded before any frame of this start
            table.submit("staff.roster", roster)
        if cfg.ratings.enabled or core.players.on:  # player cards read from here, or no longer
            table.submit("player.tracking", cfg.ratings.tracking())
        devices = TableDevices(table, make, cfg.staff)
        table.commands = devices.command
        consumer = asyncio.create_task(table.run(), name="table")
        dog = _watchdog(cfg, table, seams)
        await dog.begin()  # the files the table starts with, before any round
        table.listeners.append(dog.after)  # a door closed: the files checked again at once
        verifying = asyncio.create_task(dog.run(), name="verification")
        timing_task = asyncio.create_task(_clock_check(cfg, table, seams).run(), name="clock-check")
        await devices.start()
        if sims is not None:
            notifier.status("waiting for the devices")
            await devices.wait_up(DEVICES_UP_TIMEOUT)
        await devices.resume(opened.missing)  # nothing went to a device before the journal checked out
        # the meter follows the primary pool's readings from here; a pool that cannot be reached
        # leaves the 14.13 fault journaled instead (no round until an inspector approves)
        await table.feed.meter_shown(seams.pool_retry + 5)
        if human:
            print(report.pool_line(cfg, core), file=out)
            if screen_line:
                print(screen_line, file=out)
            out.flush()
            if not quiet:
                meter = asyncio.create_task(report.MeterWatch(devices, core, out).run(), name="meter-watch")
        period = watchdog_period()
        if period:
            running = consumer
            watchdog = asyncio.create_task(feed_watchdog(notifier, period, healthy=lambda: not running.done()))
        notifier.ready(f"table {cfg.table.id} running")
        table.listeners.append(report.Status(notifier, core))
        play = await _play(cfg, rounds, table, devices, sims, seams.hooks, out=out, stop=stop, pace_s=pace_s)
        if on_playing is not None:
            on_playing()
        await until_done(play, consumer, stop)
        if not (stop and stop.is_set()):
            await until_done(table.idle.wait(), consumer, stop)
    finally:
        notifier.stopping("stopping")
        for task in (watchdog, meter, verifying, timing_task):
            if task is not None:
                task.cancel()
        if screen is not None:
            await screen.stop()
        if watch is not None:
            watch.close()
        if devices is not None:
            await devices.stop()
        if consumer is not None:
            if not consumer.done():  # the clean stop's mark: a start that does not find it says so (restart.py)
                table.submit("table.stopped", {"rounds_finished": core.rounds_finished})
            table.stop()  # what is queued is journaled first; what was not acknowledged a device sends again
            done, _ = await asyncio.wait({consumer}, timeout=STOP_WAIT_S)
            if not done:
                consumer.cancel()
            elif not consumer.cancelled() and consumer.exception() is not None:
                log.error("table.consumer_failed", error=repr(consumer.exception()), round_id=core.round_id)
        if shipping is not None:  # what the stop journaled goes to the central copy too, bounded
            await _ship_before_stopping(shipper, shipping, out, human)
        if sims is not None and seams.sims is None:
            await sims.close()
        if tmp is not None:
            tmp.cleanup()
        await opened.close()
        report.summary(out, human, core, session)
    return table


def _watchdog(cfg: Config, table: Table, seams: Seams) -> Any:
    """The software and the journal checked again while the table plays (tabled/daemon/watchdog.py)."""
    from tabled.journal.seals import find_signing_key
    from tabled.daemon.watchdog import Scope, Watchdog
    key = find_signing_key(cfg.journal.signing_key)
    public = key.private.public_key().public_bytes_raw() if key is not None else None
    configs = tuple(p for p in (cfg.source, cfg.staff.file if cfg.staff else None) if p is not None)
    every = seams.verify_every_s if seams.verify_every_s is not None else cfg.software.verify_every_s
    return Watchdog(Scope(cfg.software, seams.watch_tree, configs), table.submit, every,
                    journal=(seams.journal_path or cfg.journal.path, public))


def _clock_check(cfg: Config, table: Table, seams: Seams) -> Any:
    """The journal's clock measured against the central database's (tabled/daemon/clock.py): the
    config's [clock] dsn or the shipping's central server, with the central journal's password,
    else the primary linked pool's, with the pool's."""
    from tabled.daemon.clock import ClockCheck, central_connect
    from tabled.daemon.shipping import PASSWORD_CREDENTIAL as CENTRAL_CREDENTIAL
    dsn, credential = cfg.clock.dsn or cfg.journal.ship_to, CENTRAL_CREDENTIAL
    if dsn is None and cfg.primary_pool.dsn is not None:
        from tabled.pool.postgresql import PASSWORD_CREDENTIAL as POOL_CREDENTIAL
        dsn, credential = cfg.primary_pool.dsn, POOL_CREDENTIAL
    connect = central_connect(dsn, credential) if dsn is not None else None
    return ClockCheck(cfg.clock, connect, table.submit, now=seams.clock)


async def _ship_before_stopping(shipper: Any, shipping: asyncio.Task[None], out: TextIO, human: bool) -> None:
    """Give the shipper :data:`SHIP_ON_STOP_S` to send every record the journal holds, then stop
    it; records it could not send (the server away) are said, with why: the next start sends them."""
    left = 0
    if not shipping.done():
        left = await shipper.finish(SHIP_ON_STOP_S)
    shipping.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await shipping
    if not left:
        return
    why = (shipper.diverged.reason if shipper.diverged is not None else shipper.error
           or f"not sent within {SHIP_ON_STOP_S:g} s")
    log.warning("shipping.left_behind", records=left, shipped_to=shipper.shipped, reason=why)
    if human:
        print(f"  journal {left} records not on the central copy (it has records to {shipper.shipped}): {why}; "
              "the next start sends them", file=out)


async def _start_screen(start_screen: Callable, cfg: Config, table: Table, human: bool) -> tuple[Any, str | None]:
    """The dealer's screen (tabled/daemon/web.py), served while the table runs, and the banner's
    line for it (its address). A screen that cannot be served stops the start (CannotStart, exit
    2), naming who holds its port: a table the config gives a screen does not play without it
    (``[screen] enabled = false`` is a table without one)."""
    try:
        screen = await start_screen(cfg.screen, table)
    except ValueError as exc:  # its TLS certificate and key, or plain HTTP off this PC
        from tabled.daemon.assemble import CannotStart
        raise CannotStart(str(exc)) from None
    except OSError as exc:
        from tabled.daemon.assemble import CannotStart
        from tabled.web.listen import holder_of
        held = ""
        if exc.errno == errno.EADDRINUSE:
            held = f" (held by {await asyncio.to_thread(holder_of, cfg.screen.host, cfg.screen.port)})"
        raise CannotStart(f"{exc}{held}; give this table another [screen] listen, or enabled = false "
                          "for a table without a screen") from None
    if screen is None:
        return None, None
    pit = f"{screen.url}pit"
    if not human:
        log.info("screen.serving", url=screen.url, pit=pit)
    return screen, f"  screen  {screen.url}\n  pit     {pit}"


async def _simulators(cfg: Config, state_dir: Path, timing: LinkTiming, opened: Opened) -> SimulatedTable:
    """A new power-up of the simulated table (new boot ids); after a restart the felt is put back
    as the journal left it before any driver looks at it."""
    from tabled.sim.players import felt_as_journaled
    from tabled.sim.table import SimulatedTable
    sim = cfg.simulation
    sims = await SimulatedTable(state_dir, seed=sim.seed, spots=cfg.table.spots, timing=timing,
                                power_up=opened.found).start()
    try:
        await sims.lay_felt(felt_as_journaled(opened.table.core, sim.seed))
    except BaseException:
        await sims.close()
        raise
    return sims


def _protection_watch(cfg: Config, table: Table, core: TableCore) -> Any:
    """Game protection weighing each settled round's decisions (tabled/daemon/protection.py), when
    NumPy (the math extra) is installed and ``[protection] live`` is on; else `tabled report
    protection` weighs the journal when asked."""
    if not cfg.protection.live:
        return None
    try:
        from tabled.daemon.protection import ProtectionWatch
        from tabled.math.paytable import Paytable
    except ImportError:
        return None
    return ProtectionWatch(Paytable.from_profile(core.profile), table.submit, asyncio.get_running_loop(),
                           lambda: core.now)


async def _play(cfg: Config, rounds: int, table: Table, devices: TableDevices, sims: SimulatedTable | None,
                hooks: Hooks | None, *, out: TextIO, stop: asyncio.Event | None, pace_s: float) -> Awaitable[object]:
    """What plays: ``hooks``, else on a simulated table the floor's people (``[simulation] dealer =
    "auto"``) or a person dealing on this terminal's keys (``"manual"``), else the people at a real
    table (the daemon only waits)."""
    from tabled.sim.personas import Persona
    from tabled.sim.players import DeviceFloor, Player
    sim = cfg.simulation
    floor = None
    if sims is not None:
        players = [Player(p.spot, p.ante_cents, p.progressive, p.strategy, Persona(p.persona, p.sees, p.group),
                          p.card)
                   for p in sim.players]
        floor = DeviceFloor(table, sims, devices, players, seed=sim.seed)
        floor.paying.rates = {k: getattr(sim.mistakes, k) for k in MISTAKES}
    if hooks is not None:
        await hooks.started(table=table, devices=devices, sims=sims, floor=floor)
        return hooks.play()
    if floor is not None and sim.dealer == "auto":
        floor.inspector = sim.inspector
        pause = sim.round_pause_ms / 1000 if not rounds else 0.0
        return floor.play(rounds or None, pause_s=pause, pace_s=pace_s, stop=stop)
    if sims is not None and floor is not None and sim.dealer == "manual":
        from tabled.sim.table import dealt_by_hand
        return dealt_by_hand(sims, floor, out)
    return asyncio.Event().wait()


async def until_done(coro: Awaitable[object], consumer: asyncio.Task[None], stop: asyncio.Event | None = None) -> None:
    """Run ``coro`` until it ends or ``stop`` is set; if the table's consumer dies first, raise
    its error instead of waiting. However it ends, ``coro`` is cancelled and given
    :data:`STOP_WAIT_S` to finish: a stop never waits on it for longer."""
    work = asyncio.ensure_future(coro)
    stopped = asyncio.ensure_future((stop or asyncio.Event()).wait())
    try:
        done, _ = await asyncio.wait({work, consumer, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if work in done:
            work.result()
        elif consumer in done:
            consumer.result()
    finally:
        stopped.cancel()
        if not work.done():
            work.cancel()
            await asyncio.wait({work}, timeout=STOP_WAIT_S)


def run(args: argparse.Namespace) -> int:
    from tabled.daemon.report import terminal
    from tabled.host.log import configure_logging, dealer_line
    from tabled.host.output import install
    cfg = load_config(find_config(args.config))
    check_may_start(cfg)
    rounds = args.rounds if args.rounds is not None else cfg.simulation.rounds
    pace_ms = args.pace_ms if args.pace_ms is not None else cfg.simulation.pace_ms
    # from here on a reader that is slow, stalled or gone cannot hold up the table
    # the non-blocking streams stand in for sys.stdout and sys.stderr (io.TextIOBase, which typing's
    # nominal TextIO does not include)
    stdout, stderr = cast(tuple[TextIO, TextIO], install())
    human = cfg.log.format != "json" and terminal(stdout)
    if human:
        # the round printer is the output; the log adds only warnings, on stderr, and only those
        # the printer does not show already (each thing once: the dealer's lines are printed,
        # except with --quiet, where the log is where a warning shows)
        configure_logging("console" if cfg.log.format == "auto" else cfg.log.format, "warning", stream=stderr,
                          shown_elsewhere=None if args.quiet else dealer_line)
    else:
        # journald (or whatever reads the pipe) keeps these lines; "auto" is JSON off a terminal
        fmt = configure_logging(cfg.log.format, cfg.log.level, stream=stdout,
                                keep_only=QUIET_RECORDS if args.quiet else None)
        if fmt == "json":
            install(notice=_json_notice)

    async def main() -> None:
        stop = asyncio.Event()
        playing = False
        task = asyncio.current_task()
        assert task is not None  # main runs as asyncio.run's task
        loop = asyncio.get_running_loop()

        def on_playing() -> None:
            nonlocal playing
            playing = True

        def on_signal() -> None:
            # while the table starts (devices, journal, pool) a stop cancels the start; in play it
            # ends play after the input in hand is journaled; a second signal cancels at once
            if stop.is_set() or not playing:
                task.cancel()
            stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        try:
            await run_table(cfg, rounds, out=stdout, quiet=args.quiet, stop=stop, human=human,
                            pace_s=pace_ms / 1000, on_playing=on_playing)
        except asyncio.CancelledError:
            if not stop.is_set():
                raise

    from tabled.sim.players import Stalled
    try:
        asyncio.run(main())
    except Stalled as exc:
        raise UserError(f"the simulated table stopped: {exc}") from None
    except KeyboardInterrupt:
        return 130
    if getattr(args, "own_process", False):
        # the journal, the pools and the devices are closed: everything is durable. The
        # interpreter's own teardown (freeing every module) takes seconds on a busy table PC and
        # nothing depends on it, while a stop must end within seconds; so the output gets its
        # second and the process ends here
        from tabled.host.output import EXIT_DRAIN_S, drain
        drain(EXIT_DRAIN_S)
        os._exit(0)
    return 0


#: with ``--quiet`` off a terminal: the records kept below warning level (one per round, start, stop)
QUIET_RECORDS = frozenset({"round.settled", "table.started", "table.stopped", "journal.recovered"})


def _json_notice(lines: int) -> str:
    import json
    from datetime import UTC, datetime
    return json.dumps({"event": "output.dropped", "lines": lines, "round_id": None, "level": "warning",
                       "timestamp": datetime.now(UTC).isoformat(),
                       "detail": "the output was not read in time; the journal holds every event"}) + "\n"

"""``tabled run``: run the table.

Every device is a real driver (tabled/devices.py). With ``[simulation] enabled`` the devices are
the simulators (tabled/simtable.py: the serial ones each in its own process on a pty, the USB ones
behind the simulated pyusb backend) and simulated players and a dealer act through them
(tabled/players.py); otherwise the drivers open the ports and USB devices named in ``[devices]``.

Output: in a terminal, readable lines as rounds happen (state, hands, settlement, pool) on stdout
and, on stderr, only the log's warnings that have no such line (each thing is shown once). Otherwise (systemd, a pipe) the structlog JSON lines on
stdout are the output, one record per event, each with its round id, spot and rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

import structlog

from tabled.config import Config, load_config
from tabled.core import TableCore
from tabled.effects import Command, Effect, Note, Say
from tabled.game.settlement import money
from tabled.journal import Journal
from tabled.rules.limits import Limits
from tabled.table import Table

NAME = "run"
HELP = "run the table (default config: the embedded simulated table)"
DEVICES_UP_TIMEOUT = 20.0

log = structlog.get_logger("tabled.run")


def add_arguments(parser) -> None:
    parser.add_argument("--config", help="TOML config file (default: the embedded simulated table)")
    parser.add_argument("--rounds", type=int, default=None, help="stop after this many rounds (default: config)")
    parser.add_argument("--quiet", action="store_true", help="print only one line per round")
    parser.add_argument("--pace-ms", type=int, default=0, metavar="MS",
                        help="simulation: the simulated people wait MS ms after each action (default 0: full speed)")


def make_core(cfg: Config, snapshot: dict[str, Any] | None) -> TableCore:
    t = cfg.table
    if snapshot is not None:
        return TableCore.from_snapshot(snapshot, t.spots, t.profile)
    limits = Limits(t.minimum_cents, t.maximum_cents, t.unit_cents, t.progressive_wager_cents)
    return TableCore(t.id, t.spots, limits, t.profile, t.card_source)


async def open_pools(cfg: Config) -> tuple[Any, list[Any]]:
    """The primary pool (awards, meter) and every other pool the table feeds (11.5), local or
    linked. A linked pool that cannot be reached at start does not stop the daemon (unplayable
    rather than wrong): the table starts under the 14.13 fault and the pool connects when it can.
    A pool that answers but cannot be used (a schema newer than this tabled, a bad entry) is
    configuration: a one-line error, and the daemon does not start."""
    import tabled.pool
    from tabled.cli import UserError
    opened: list[Any] = []
    try:
        for entry in [cfg.primary_pool] + [p for p in cfg.pools if not p.primary]:
            pool = await tabled.pool.open_pool(entry, cfg.table.id, wait_for_link=True)
            opened.append(pool)
            if not getattr(pool, "ready", True):
                log.warning("pool.unreachable_at_start", pool=entry.name, rule="14.13",
                            detail="the table starts under the 14.13 fault; the pool connects when it can")
    except tabled.pool.PoolError as exc:
        for pool in opened:
            await pool.close()
        raise UserError(f"cannot open the progressive pool: {exc}") from None
    return opened[0], opened[1:]


class RoundPrinter:
    """Shows rounds as they happen in a terminal: state, hands, settlement, pool."""

    def __init__(self, out: TextIO, quiet: bool = False):
        self.out, self.quiet = out, quiet
        self.last_meter: int | None = None

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note) and e.kind == "round.settled" and self.quiet:
                d = e.payload
                dealer = " ".join(d["dealer"]["cards"]) if d.get("dealer") else "-"
                pool = d.get("progressive", {}).get("pool_after_cents")
                print(f"{e.round_id}: dealer {dealer}  net {money(d['net_cents'])}"
                      + (f"  pool {money(pool)}" if pool is not None else ""), file=self.out)
            if self.quiet:
                continue
            if isinstance(e, Note) and e.kind == "round.dealt":
                hands = "  ".join(f"{k}:{v}" for k, v in e.payload["spots"].items())
                print(f"{e.round_id} dealt  {hands}  dealer up {' '.join(e.payload['dealer_up'])}", file=self.out)
            elif isinstance(e, Say) and (e.level != "info" or e.rule in ("9.1", "9.2") or "spot" in e.text[:5]
                                         or "progressive" in e.text or "round" in e.text[:6]):
                tag = f" [{e.rule}]" if e.rule else ""
                print(f"  {e.text}{tag}", file=self.out)
            elif isinstance(e, Command) and e.device == "meter" and e.args.get("cents") != self.last_meter:
                self.last_meter = e.args.get("cents")
                if self.last_meter is not None:
                    print(f"  meter: pool {money(self.last_meter)}", file=self.out)
        self.out.flush()


class RoundLogger:
    """The same rounds as structured records (for journald): the table's notes, one record each.
    The dealer's lines are logged by the table itself (tabled/table.py)."""

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note):
                log.info(e.kind, round_id=e.round_id, **{k: v for k, v in e.payload.items() if k != "round_id"})


def terminal(out: TextIO) -> bool:
    from tabled.log import under_systemd
    return getattr(out, "isatty", lambda: False)() and not under_systemd()


async def run_table(cfg: Config, rounds: int, out: TextIO = sys.stdout, quiet: bool = False,
                    journal_path: Path | None = None, clock=time.time, *, state_dir: Path | None = None,
                    timing: Any = None, poll_interval: float = 0.05, stop: asyncio.Event | None = None,
                    human: bool = True, notifier: Any = None, hooks: Any = None, sims: Any = None,
                    pool_retry: float = 1.0, pace_s: float = 0.0) -> Table:
    """Open (or recover) the table, start its devices and play ``rounds`` rounds (0: until ``stop``).

    ``hooks`` (tests, benchmarks) is called with the running table, devices, simulators and floor
    before play starts; its ``play(...)`` may replace the floor's loop. ``sims``: simulators
    started by the caller (they outlive this daemon: a restart test), else started here.
    ``pool_retry``: seconds between attempts to reach a pool that is down (14.13). ``pace_s``: the
    simulated people's pause after each action. After a restart in simulation, the simulators start
    afresh and the felt is put back as the journal left it (tabled.players.felt_as_journaled)."""
    from tabled_drivers.link.endpoint import LinkTiming
    from tabled.devices import TableDevices, build_drivers
    from tabled.players import DeviceFloor, Player, felt_as_journaled
    from tabled.systemd import Notifier, feed_watchdog, watchdog_period

    notifier = notifier or Notifier.from_environment()
    notifier.status("checking the journal")
    journal = Journal.open(journal_path or cfg.journal.path, clock=clock)  # verified from the last checkpoint
    try:
        pool, others = await open_pools(cfg)
    except BaseException:
        journal.close()
        raise
    core, missing, replayed = Table.replay(journal, lambda snap: make_core(cfg, snap))
    table = Table(core, journal, pool, checkpoint_every=cfg.journal.checkpoint_every_rounds, clock=clock,
                  pools=others, retry_interval=pool_retry)
    table.listeners.append(RoundPrinter(out, quiet) if human else RoundLogger())
    if replayed:
        msg = (f"recovered: {replayed} journal records replayed; round {core.round_id or '-'} "
               f"{core.round.phase if core.round else ''}")
        print(msg, file=out) if human else log.info("journal.recovered", records=replayed, round_id=core.round_id,
                                                      phase=core.round.phase if core.round else None)
    sim = cfg.simulation
    own_sims = sims is None
    tmp = None
    devices = None
    consumer = None
    watchdog = None
    timing = timing or LinkTiming()
    try:
        if sim.enabled:
            from tabled.simtable import SimulatedTable
            if sims is not None:
                pass
            elif state_dir is None:
                tmp = tempfile.TemporaryDirectory(prefix="tabled-sim-")
                state_dir = Path(tmp.name)
            if sims is None:
                notifier.status("starting the simulated devices")
                # a new power-up of the simulated table (new boot ids); after a restart the felt is
                # put back as the journal left it before any driver looks at it (issue 4)
                sims = await SimulatedTable(state_dir, seed=sim.seed, spots=cfg.table.spots, timing=timing,
                                            power_up=journal.count()).start()
                await sims.lay_felt(felt_as_journaled(core, sim.seed))
            make = lambda consumer_for: build_drivers(  # noqa: E731
                consumer_for, spots=cfg.table.spots, ports=sims.ports, usb_backend=sims.backend,
                timing=timing, poll_interval=poll_interval)
        else:
            from tabled_drivers.link.usb import UsbAddress
            d = cfg.devices
            make = lambda consumer_for: build_drivers(  # noqa: E731
                consumer_for, spots=cfg.table.spots, timing=timing, poll_interval=poll_interval,
                ports={n: getattr(d, n).port for n in ("shuffler", "betspots", "meter")},
                baudrates={n: getattr(d, n).baudrate for n in ("shuffler", "betspots", "meter")},
                usb_addresses={n: UsbAddress(getattr(d, n).vendor_id, getattr(d, n).product_id, getattr(d, n).serial)
                               for n in ("shoe", "panel")})
        devices = TableDevices(table, make)
        table.commands = devices.command
        consumer = asyncio.create_task(table.run(), name="table")
        await devices.start()
        if sims is not None:
            notifier.status("waiting for the devices")
            await devices.wait_up(DEVICES_UP_TIMEOUT)
        await devices.resume(missing)  # nothing went to a device before the journal checked out
        # the meter follows the primary pool's readings from here; a pool that cannot be reached
        # leaves the 14.13 fault journaled instead (no round until an inspector approves)
        await table.meter_shown(pool_retry + 5)
        period = watchdog_period()
        if period:
            watchdog = asyncio.create_task(feed_watchdog(notifier, period, healthy=lambda: not consumer.done()))
        notifier.ready(f"table {cfg.table.id} running")
        status = _Status(notifier, table)
        table.listeners.append(status)
        floor = None
        if sims is not None:
            players = [Player(p.spot, p.ante_cents, p.progressive, p.strategy) for p in sim.players]
            floor = DeviceFloor(table, sims, devices, players, seed=sim.seed)
        if hooks is not None:
            await hooks.started(table=table, devices=devices, sims=sims, floor=floor)
        if hooks is not None and hasattr(hooks, "play"):
            await _until_done(hooks.play(), consumer, stop)
        elif floor is not None and sim.dealer == "auto":
            pause = sim.round_pause_ms / 1000 if not rounds else 0.0
            await _until_done(floor.play(rounds or None, pause_s=pause, pace_s=pace_s), consumer, stop)
        else:
            await _until_done(asyncio.Event().wait(), consumer, stop)
        await table.idle.wait()
    finally:
        notifier.stopping("stopping")
        if watchdog is not None:
            watchdog.cancel()
        if devices is not None:
            await devices.stop()
        if consumer is not None:
            table.stop()
            try:
                await asyncio.wait_for(consumer, 5)
            except Exception:
                consumer.cancel()
        if sims is not None and own_sims:
            await sims.close()
        if tmp is not None:
            tmp.cleanup()
        for p in (pool, *others):
            await p.close()
        journal.close()
    return table


async def _until_done(coro, consumer: asyncio.Task, stop: asyncio.Event | None = None) -> None:
    """Run ``coro`` until it ends or ``stop`` is set; if the table's consumer dies first, raise
    its error instead of waiting."""
    work = asyncio.ensure_future(coro)
    stopped = asyncio.ensure_future((stop or asyncio.Event()).wait())
    try:
        done, _ = await asyncio.wait({work, consumer, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if work not in done:
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await work
        if consumer in done:
            consumer.result()
        return
    work.result()


class _Status:
    """sd_notify STATUS: the round in play and the pool, when they change."""

    def __init__(self, notifier: Any, table: Table):
        self.notifier, self.table, self.last = notifier, table, ""

    def __call__(self, effects: list[Effect]) -> None:
        c = self.table.core
        text = (f"{c.rounds_finished} rounds; round {c.round_id} {c.round.phase}" if c.round
                else f"{c.rounds_finished} rounds; no round in play")
        if c.faults:
            text += f"; fault: {', '.join(sorted(c.faults))}"
        if text != self.last:
            self.last = text
            self.notifier.status(text)


def run(args) -> int:
    cfg = load_config(args.config)
    rounds = args.rounds if args.rounds is not None else cfg.simulation.rounds
    if rounds < 0:
        from tabled.cli import UserError
        raise UserError(f"--rounds must be 0 or more, got {rounds}")
    if args.pace_ms < 0:
        from tabled.cli import UserError
        raise UserError(f"--pace-ms must be 0 or more, got {args.pace_ms}")
    from tabled.log import configure_logging, dealer_line
    human = cfg.log.format != "json" and terminal(sys.stdout)
    if human:
        # the round printer is the output; the log adds only warnings, on stderr, and only those
        # the printer does not show already (each thing once: the dealer's lines are printed,
        # except with --quiet, where the log is where a warning shows)
        configure_logging("console" if cfg.log.format == "auto" else cfg.log.format, "warning", stream=sys.stderr,
                          shown_elsewhere=None if args.quiet else dealer_line)
    else:
        configure_logging("json", cfg.log.level, stream=sys.stdout)  # journald keeps these lines

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await run_table(cfg, rounds, quiet=args.quiet, stop=stop, human=human, pace_s=args.pace_ms / 1000)

    from tabled.players import Stalled
    try:
        asyncio.run(main())
    except Stalled as exc:
        from tabled.cli import UserError
        raise UserError(f"the simulated table stopped: {exc}") from None
    except KeyboardInterrupt:
        return 130
    return 0

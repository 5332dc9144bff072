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

import asyncio
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import structlog

from tabled.commands._arguments import UserError, whole_number
from tabled.daemon.config import Config, check_may_start, find_config, load_config
from tabled.table.core import TableCore
from tabled.table.effects import Effect, Note, Say
from tabled.game.settlement import money
from tabled.daemon.journal import Journal
from tabled.game.limits import Limits
from tabled.daemon.controller import Table

NAME = "run"
HELP = "run the table the config describes (a simulated table only if the config says so)"
DEVICES_UP_TIMEOUT = 20.0
STOP_WAIT_S = 2.0       # on a stop, how long the floor's loop and the table's consumer get to finish
METER_READ_S = 0.5      # in a terminal, how often the meter is asked what it shows

log = structlog.get_logger("tabled.run")


def add_arguments(parser) -> None:
    parser.add_argument("--config", metavar="FILE",
                        help="TOML config file (default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")
    parser.add_argument("--rounds", type=whole_number(0), default=None,
                        help="stop after this many rounds (default: config)")
    parser.add_argument("--quiet", action="store_true", help="print only one line per round")
    parser.add_argument("--pace-ms", type=whole_number(0), default=None, metavar="MS",
                        help="simulation: the simulated people wait MS ms after each action "
                             "(default: [simulation] pace_ms; 0: full speed)")


def make_core(cfg: Config, snapshot: dict[str, Any] | None) -> TableCore:
    t = cfg.table
    if snapshot is not None:
        core = TableCore.from_snapshot(snapshot, t.spots, t.profile)
    else:
        limits = Limits(t.minimum_cents, t.maximum_cents, t.unit_cents, t.progressive_wager_cents)
        core = TableCore(t.id, t.spots, limits, t.profile, t.card_source)
    core.pool_count = len(cfg.pools)  # the replay must know every pool an operation is owed to (11.5)
    return core


async def open_pools(cfg: Config) -> tuple[Any, list[Any]]:
    """The primary pool (awards, meter) and every other pool the table feeds (11.5), local or
    linked. A linked pool that cannot be reached at start does not stop the daemon (unplayable
    rather than wrong): the table starts under the 14.13 fault and the pool connects when it can.
    A pool that answers but cannot be used (a schema newer than this tabled, a bad entry) is
    configuration: a one-line error, and the daemon does not start."""
    import tabled.pool
    from tabled.commands._arguments import UserError
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


async def check_pools(table_id: str, journal: Journal, pools: list[Any]) -> None:
    """Each pool that answers binds this table id to this journal and holds no round of the table
    the journal does not have (tabled/pool/rounds.py); a refusal stops the start with one line for
    an inspector. A pool out of reach is asked when it answers (tabled/daemon/controller.py)."""
    from tabled.pool import PoolError, PoolUnavailable
    from tabled.pool.rounds import check_table
    for pool in pools:
        if not getattr(pool, "ready", True):
            continue
        try:
            await check_table(pool, table_id, journal)
        except PoolUnavailable:
            continue
        except PoolError as exc:
            raise UserError(f"cannot start the table: {exc}") from None


class RoundPrinter:
    """Shows rounds as they happen in a terminal: state, hands, the dealer's lines, settlement.
    What the meter shows comes from the meter itself (:class:`MeterWatch`)."""

    def __init__(self, out: TextIO, quiet: bool = False):
        self.out, self.quiet = out, quiet

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
        self.out.flush()


class MeterWatch:
    """In a terminal: what the progressive meter shows (2.4.3), read back from the meter itself,
    printed when it changes; or that the meter is down. Never what was sent to it: a meter that
    did not take a command must not look as if it had."""

    def __init__(self, devices: Any, core: Any, out: TextIO, interval: float = METER_READ_S):
        self.devices, self.core, self.out, self.interval = devices, core, out, interval
        self.last: str | None = None

    async def reading(self) -> str:
        from tabled_drivers.meter import MeterMessage
        fault = self.core.faults.get("meter")
        if fault is not None:
            return f"meter: out of order ({fault}) (14.13)"
        if "meter" not in self.devices.up:
            return "meter: down (no link)"
        try:
            async with asyncio.timeout(1.0):
                shown = await self.devices.drivers["meter"].showing()
        except (Exception, TimeoutError) as exc:  # a link that fails while asked: the meter is down
            return f"meter: down ({exc or type(exc).__name__})"
        if shown.message is MeterMessage.PROGRESSIVE_OFFLINE:
            return "meter shows PROGRESSIVE OFFLINE (14.13)"
        if shown.message is MeterMessage.BLANK or not shown.amounts:
            return "meter: blank"
        return "meter shows " + ", ".join(money(a) for a in shown.amounts)

    async def show(self) -> None:
        line = await self.reading()
        if line != self.last:
            self.last = line
            print(f"  {line}", file=self.out)
            self.out.flush()

    async def run(self) -> None:
        while True:
            await self.show()
            await asyncio.sleep(self.interval)


class RoundLogger:
    """The same rounds as structured records (for journald): the table's notes, one record each.
    The dealer's lines are logged by the table itself (tabled/daemon/controller.py)."""

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note):
                log.info(e.kind, round_id=e.round_id, **{k: v for k, v in e.payload.items() if k != "round_id"})


class Session:
    """This run's tally, for the summary on exit: rounds finished and the house's net win (what it
    collected less what it paid, progressive awards included)."""

    def __init__(self) -> None:
        self.rounds = 0
        self.house_net_cents = 0

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note) and e.kind == "round.settled":
                self.house_net_cents += e.payload.get("house_collects_cents", 0) - e.payload.get("house_pays_cents", 0)
            elif isinstance(e, Note) and e.kind == "round.finished":
                self.rounds += 1


def terminal(out: TextIO) -> bool:
    from tabled.host.log import under_systemd
    return getattr(out, "isatty", lambda: False)() and not under_systemd()


def banner(cfg: Config, core: TableCore, journal_path: Path) -> list[str]:
    """The start banner: which table this is, by which rules and limits, from which files."""
    t, lim = cfg.table, core.limits
    return [f"tabled: table {t.id}, profile {t.profile.name}, {t.spots} spots, card source {t.card_source}",
            f"  limits  {money(lim.minimum_cents)} to {money(lim.maximum_cents)} in units of {money(lim.unit_cents)}"
            f" (6.1); progressive wager {money(lim.progressive_wager_cents)} (11.3)",
            f"  config  {cfg.source if cfg.source is not None else '(the embedded simulated table)'}",
            f"  journal {journal_path}"]


def pool_line(cfg: Config, core: TableCore) -> str:
    """The banner's last line, once the pool has answered (or not)."""
    pool = cfg.primary_pool
    where = f" {pool.path}" if pool.path is not None else ""
    shown = money(core.pool_cents) if core.pool_cents is not None else "cannot be reached (14.13)"
    return f"  pool    {pool.name} ({pool.backend}{where}): {shown}"


def open_faults(core: TableCore) -> list[str]:
    """Faults the journal holds open (they survive a restart, 14.13), in the dealer's words."""
    approval = "play approved by an inspector, progressive offline" if core.approved \
        else "notify an inspector: no new round without approval"
    return [f"open fault: {equipment}: {reason} ({approval}) [14.13]"
            for equipment, reason in sorted(core.faults.items())]


async def run_table(cfg: Config, rounds: int, out: TextIO | None = None, quiet: bool = False,
                    journal_path: Path | None = None, clock=time.time, *, state_dir: Path | None = None,
                    timing: Any = None, poll_interval: float = 0.05, stop: asyncio.Event | None = None,
                    human: bool = True, notifier: Any = None, hooks: Any = None, sims: Any = None,
                    pool_retry: float = 1.0, pace_s: float = 0.0,
                    on_playing: Callable[[], None] | None = None) -> Table:
    """Open (or recover) the table, start its devices and play ``rounds`` rounds (0: until ``stop``).

    ``hooks`` (tests, benchmarks) is called with the running table, devices, simulators and floor
    before play starts; its ``play(...)`` may replace the floor's loop. ``sims``: simulators
    started by the caller (they outlive this daemon: a restart test), else started here.
    ``pool_retry``: seconds between attempts to reach a pool that is down (14.13). ``pace_s``: the
    simulated people's pause after each action. ``on_playing``: called once the table is up and
    play starts (until then a stop cancels the start). After a restart in simulation, the
    simulators start afresh and the felt is put back as the journal left it
    (tabled.sim.players.felt_as_journaled)."""
    from tabled_drivers.link.endpoint import LinkTiming
    from tabled.daemon.devices import TableDevices, build_drivers
    from tabled.sim.players import DeviceFloor, Player, felt_as_journaled
    from tabled.daemon.systemd import Notifier, feed_watchdog, watchdog_period
    from tabled.daemon.web import start_screen  # loaded before the table starts: a stop never waits on it

    out = sys.stdout if out is None else out
    notifier = notifier or Notifier.from_environment()
    notifier.status("checking the journal")
    journal_path = journal_path or cfg.journal.path
    # one controller per journal (a second one is refused, naming the first); verified from the last checkpoint
    journal = Journal.open(journal_path, clock=clock, exclusive=True)
    try:
        pool, others = await open_pools(cfg)
    except BaseException:
        journal.close()
        raise
    try:
        await check_pools(cfg.table.id, journal, [pool, *others])
    except BaseException:
        for p in (pool, *others):
            await p.close()
        journal.close()
        raise
    core, missing, replayed = Table.replay(journal, lambda snap: make_core(cfg, snap))
    table = Table(core, journal, pool, checkpoint_every=cfg.journal.checkpoint_every_rounds, clock=clock,
                  pools=others, retry_interval=pool_retry)
    session = Session()
    table.listeners.append(session)
    table.listeners.append(RoundPrinter(out, quiet) if human else RoundLogger())
    t = cfg.table
    if human:
        print("\n".join(banner(cfg, core, journal_path)), file=out)
    else:
        log.info("table.started", table_id=t.id, profile=t.profile.name, spots=t.spots,
                 minimum_cents=core.limits.minimum_cents, maximum_cents=core.limits.maximum_cents,
                 unit_cents=core.limits.unit_cents, progressive_wager_cents=core.limits.progressive_wager_cents,
                 config=str(cfg.source) if cfg.source is not None else None, journal=str(journal_path),
                 pool=cfg.primary_pool.name, pool_backend=cfg.primary_pool.backend)
    if replayed:
        msg = (f"recovered: {replayed} journal records replayed; round {core.round_id or '-'} "
               f"{core.round.phase if core.round else ''}")
        print(msg, file=out) if human else log.info("journal.recovered", records=replayed, round_id=core.round_id,
                                                      phase=core.round.phase if core.round else None)
    if human:
        for line in open_faults(core):
            print(line, file=out)
    else:
        for equipment, reason in sorted(core.faults.items()):
            log.warning("fault.open", equipment=equipment, reason=reason, approved=core.approved, rule="14.13")
    if human:
        out.flush()
    sim = cfg.simulation
    own_sims = sims is None
    tmp = None
    devices = None
    consumer = None
    watchdog = None
    meter = None
    screen, screen_line = None, None
    timing = timing or LinkTiming()
    try:
        screen, screen_line = await _start_screen(start_screen, cfg, table, human)
        if sim.enabled:
            from tabled.sim.table import SimulatedTable
            if sims is not None:
                pass
            elif state_dir is None:
                tmp = tempfile.TemporaryDirectory(prefix="tabled-sim-")
                state_dir = Path(tmp.name)
            if sims is None:
                notifier.status("starting the simulated devices")
                # a new power-up of the simulated table (new boot ids); after a restart the felt is
                # put back as the journal left it before any driver looks at it
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
                ports={n: getattr(d, n).port for n in ("shuffler", "betspots", "meter", "shoe", "panel")
                       if getattr(d, n).port},
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
        if human:
            print(pool_line(cfg, core), file=out)
            if screen_line:
                print(screen_line, file=out)
            out.flush()
            if not quiet:
                meter = asyncio.create_task(MeterWatch(devices, core, out).run(), name="meter-watch")
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
        if on_playing is not None:
            on_playing()
        if hooks is not None and hasattr(hooks, "play"):
            await _until_done(hooks.play(), consumer, stop)
        elif floor is not None and sim.dealer == "auto":
            pause = sim.round_pause_ms / 1000 if not rounds else 0.0
            await _until_done(floor.play(rounds or None, pause_s=pause, pace_s=pace_s, stop=stop), consumer, stop)
        elif floor is not None and sim.dealer == "manual":  # a person deals, on this terminal's keys
            from tabled.sim.table import dealt_by_hand
            await _until_done(dealt_by_hand(sims, floor, out), consumer, stop)
        else:
            await _until_done(asyncio.Event().wait(), consumer, stop)
        if not (stop and stop.is_set()):
            await _until_done(table.idle.wait(), consumer, stop)
    finally:
        notifier.stopping("stopping")
        for task in (watchdog, meter):
            if task is not None:
                task.cancel()
        if screen is not None:
            await screen.stop()
        if devices is not None:
            await devices.stop()
        if consumer is not None:
            table.stop()  # what is queued is journaled first; what was not acknowledged a device sends again
            done, _ = await asyncio.wait({consumer}, timeout=STOP_WAIT_S)
            if not done:
                consumer.cancel()
            elif not consumer.cancelled() and consumer.exception() is not None:
                log.error("table.consumer_failed", error=repr(consumer.exception()), round_id=core.round_id)
        if sims is not None and own_sims:
            await sims.close()
        if tmp is not None:
            tmp.cleanup()
        for p in (pool, *others):
            await p.close()
        journal.close()
        _summary(out, human, core, session)
    return table


async def _start_screen(start_screen: Callable, cfg: Config, table: Table, human: bool) -> tuple[Any, str | None]:
    """The dealer's screen (tabled/daemon/web.py), served while the table runs, and the banner's
    line for it (its address). An address that cannot be listened on is told, and the table runs
    without the screen: the journal and the devices do not depend on it."""
    try:
        screen = await start_screen(cfg.screen, table)
    except OSError as exc:
        if not human:
            log.warning("screen.not_served", error=str(exc))
        return None, f"  screen  not served: {exc}"
    if screen is None:
        return None, None
    if not human:
        log.info("screen.serving", url=screen.url)
    return screen, f"  screen  {screen.url}"


def _summary(out: TextIO, human: bool, core: TableCore, session: Session) -> None:
    """On exit: the rounds this run finished, the house's net win over them, the pool, and where
    the round in play stands in the journal (the next start resumes it)."""
    r = core.round
    if human:
        pool = money(core.pool_cents) if core.pool_cents is not None else "unknown"
        print(f"stopped: {session.rounds} rounds this run, house net win {money(session.house_net_cents)}, "
              f"pool {pool}" + (f"; round {r.round_id} {r.phase}: resumes on the next start" if r else ""),
              file=out)
        out.flush()
    else:
        log.info("table.stopped", rounds=session.rounds, house_net_cents=session.house_net_cents,
                 pool_cents=core.pool_cents, round_id=r.round_id if r else None, phase=r.phase if r else None)


async def _until_done(coro, consumer: asyncio.Task, stop: asyncio.Event | None = None) -> None:
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
    from tabled.host.log import configure_logging, dealer_line
    from tabled.host.output import install
    cfg = load_config(find_config(args.config))
    check_may_start(cfg)
    rounds = args.rounds if args.rounds is not None else cfg.simulation.rounds
    pace_ms = args.pace_ms if args.pace_ms is not None else cfg.simulation.pace_ms
    # from here on a reader that is slow, stalled or gone cannot hold up the table
    stdout, stderr = install()
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

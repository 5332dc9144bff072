"""``tabled run``: run the table. With ``[simulation] enabled`` the players, the dealer and the card
devices are simulated in-process (tabled/players.py) and every round is printed as it happens."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from tabled.config import Config, load_config
from tabled.core import TableCore
from tabled.effects import Command, Effect, Note, Say
from tabled.game.settlement import money
from tabled.journal import Journal
from tabled.players import Player, SimulatedFloor
from tabled.rules.limits import Limits
from tabled.table import Table

NAME = "run"
HELP = "run the table (default config: the embedded simulated table)"


def add_arguments(parser) -> None:
    parser.add_argument("--config", help="TOML config file (default: the embedded simulated table)")
    parser.add_argument("--rounds", type=int, default=None, help="stop after this many rounds (default: config)")
    parser.add_argument("--quiet", action="store_true", help="print only one line per round")


def make_core(cfg: Config, snapshot: dict[str, Any] | None) -> TableCore:
    t = cfg.table
    if snapshot is not None:
        return TableCore.from_snapshot(snapshot, t.spots, t.profile)
    limits = Limits(t.minimum_cents, t.maximum_cents, t.unit_cents, t.progressive_wager_cents)
    return TableCore(t.id, t.spots, limits, t.profile, t.card_source)


async def open_pool(cfg: Config):
    from tabled.pool.local import LocalPool
    from tabled.pool.settings import PoolSettings
    p = cfg.primary_pool
    if p.backend != "local":
        from tabled.cli import UserError
        raise UserError(f"pool {p.name}: backend {p.backend!r} is not wired into 'tabled run' yet")
    return await LocalPool.open(p.path, p.name, cfg.table.id, PoolSettings(p.contribution_bp, p.reset_cents))


class RoundPrinter:
    """Shows rounds as they happen: state, hands, settlement, pool."""

    def __init__(self, out: TextIO, quiet: bool = False):
        self.out, self.quiet = out, quiet

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note) and e.kind == "round.settled" and self.quiet:
                d = e.payload
                print(f"{e.round_id}: dealer {' '.join(d['dealer']['cards'])}  net {money(d['net_cents'])}"
                      f"  pool {money(d['progressive']['pool_after_cents'])}", file=self.out)
            if self.quiet:
                continue
            if isinstance(e, Note) and e.kind == "round.dealt":
                hands = "  ".join(f"{k}:{v}" for k, v in e.payload["spots"].items())
                print(f"{e.round_id} dealt  {hands}  dealer up {' '.join(e.payload['dealer_up'])}", file=self.out)
            elif isinstance(e, Say) and (e.level != "info" or e.rule in ("9.1", "9.2") or "spot" in e.text[:5]
                                         or "progressive" in e.text or "round" in e.text[:6]):
                tag = f" [{e.rule}]" if e.rule else ""
                print(f"  {e.text}{tag}", file=self.out)
            elif isinstance(e, Command) and e.device == "meter":
                print(f"  meter: pool {money(e.args['cents'])}", file=self.out)


async def run_table(cfg: Config, rounds: int, out: TextIO = sys.stdout, quiet: bool = False,
                    journal_path: Path | None = None, clock=time.time) -> Table:
    """Open (or recover) the table and play ``rounds`` rounds with the simulated floor."""
    journal = Journal.open(journal_path or cfg.journal.path, clock=clock)
    pool = await open_pool(cfg)
    core, missing, replayed = Table.replay(journal, lambda snap: make_core(cfg, snap))
    table = Table(core, journal, pool, checkpoint_every=cfg.journal.checkpoint_every_rounds, clock=clock)
    table.listeners.append(RoundPrinter(out, quiet))
    if replayed:
        print(f"recovered: {replayed} journal records replayed; round {core.round_id or '-'} "
              f"{core.round.phase if core.round else ''}", file=out)
    await table.resume(missing)
    sim = cfg.simulation
    players = [Player(p.spot, p.ante_cents, p.progressive, p.strategy) for p in sim.players]
    floor = SimulatedFloor(table, players, seed=sim.seed, card_source=core.card_source)
    consumer = asyncio.create_task(table.run())
    try:
        table.submit("pool.balance", {"balance_cents": await pool.balance()})
        if not core.is_open:
            table.submit("panel", {"action": "open_table", "key": "supervisor"})
        target = core.rounds_finished + rounds if rounds else None
        while target is None or core.rounds_finished < target:
            await table.idle.wait()
            if consumer.done():
                consumer.result()
            if not floor.step():
                if sim.round_pause_ms and not rounds:
                    await asyncio.sleep(sim.round_pause_ms / 1000)
                if not floor.step():
                    raise RuntimeError(f"the table is waiting for something the simulation cannot do: "
                                       f"round {core.round_id} {core.round.phase if core.round else '-'}")
            await asyncio.sleep(0)
        await table.idle.wait()
    finally:
        table.stop()
        try:
            await asyncio.wait_for(consumer, 5)
        except Exception:
            consumer.cancel()
        await pool.close()
        journal.close()
    return table


def run(args) -> int:
    cfg = load_config(args.config)
    if not cfg.simulation.enabled:
        from tabled.cli import UserError
        raise UserError("real devices are not wired into 'tabled run' yet: set [simulation] enabled = true")
    rounds = args.rounds if args.rounds is not None else cfg.simulation.rounds
    from tabled.log import configure_logging
    # the round printer shows the table on stdout; the structured log goes to stderr
    # (journald keeps it under systemd); in a terminal only warnings, so the two do not repeat
    level = cfg.log.level if not sys.stderr.isatty() else "warning"
    configure_logging(cfg.log.format, level, stream=sys.stderr)
    try:
        asyncio.run(run_table(cfg, rounds, quiet=args.quiet))
    except KeyboardInterrupt:
        return 130
    return 0

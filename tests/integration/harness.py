"""A whole table in the test's process over real ports: the daemon's drivers, the serial
simulators each in their own process on a pty, the USB simulators behind the simulated backend,
and the simulated floor acting through them (tabled/commands/run.py run_table with its seams)."""

from __future__ import annotations

import asyncio
import dataclasses
import io
from pathlib import Path
from typing import Any

from tabled_drivers.link.endpoint import LinkTiming
from tabled.commands.run import Seams, run_table
from tabled.daemon.config import load_config
from tabled.table.effects import Say
from tabled.journal.store import Journal
from tabled.sim.table import SimulatedTable

# Fast link timers: a silent device is noticed in about half a second, a replug in a few tens of ms.
# bounds on a hang, never a speed claim: a wait that runs past them is stuck, not slow
HANG_BOUND_S = 60.0
ROUND_BOUND_S = 5.0
FAST = LinkTiming(ack_timeout=0.1, retries=2, heartbeat=0.2, backoff_initial=0.02, backoff_max=0.2)
POLL = 0.02


def config(tmp: Path, *, card_source: str = "shuffler", players: list[dict] | None = None, seed: int = 1):
    cfg = load_config(None)
    table = dataclasses.replace(cfg.table, card_source=card_source)
    pools = tuple(dataclasses.replace(p, path=tmp / "pool.db") for p in cfg.pools)
    journal = dataclasses.replace(cfg.journal, path=tmp / "journal.db")
    sim = cfg.simulation
    if players is not None:
        from tabled.daemon.config import PlayerConfig
        sim = dataclasses.replace(sim, players=tuple(PlayerConfig(**p) for p in players))
    sim = dataclasses.replace(sim, seed=seed)
    screen = dataclasses.replace(cfg.screen, port=0)  # any free port: never one a table on this machine holds
    return dataclasses.replace(cfg, table=table, pools=pools, journal=journal, simulation=sim, screen=screen)


class Run:
    """What a scenario gets: the running table, its devices, the simulators and the floor."""

    table: Any
    devices: Any
    sims: SimulatedTable
    floor: Any

    def __init__(self, scenario) -> None:
        self.scenario = scenario
        self.says: list[tuple[str | None, Say]] = []

    async def started(self, *, table, devices, sims, floor) -> None:
        self.table, self.devices, self.sims, self.floor = table, devices, sims, floor
        table.display = lambda say, rid: self.says.append((rid, say))

    async def play(self) -> None:
        await self.scenario(self)

    # -- helpers for scenarios ---------------------------------------------------------------------------

    @property
    def core(self):
        return self.table.core

    def said(self, rule: str | None = None, text: str = "", level: str | None = None) -> list[Say]:
        return [s for _, s in self.says if (rule is None or s.rule == rule) and text in s.text
                and (level is None or s.level == level)]

    async def until(self, cond, *, act: bool = True, timeout: float = HANG_BOUND_S) -> None:
        """Let the floor act (or only wait, act=False) until ``cond()`` holds.

        ``timeout`` only bounds a hang: it is generous, so a loaded machine never fails a test."""
        hit = asyncio.Event()

        def watch(_effects) -> None:  # catches a state that lasts only between two inputs
            if cond():
                hit.set()

        async def loop():
            while True:
                await self.table.idle.wait()
                if hit.is_set() or cond():
                    return
                self.floor.changed.clear()
                acted = await self.floor.step() if act else False
                if not acted:
                    try:
                        await asyncio.wait_for(self.floor.changed.wait(), 0.05)
                    except TimeoutError:
                        pass
        self.table.listeners.append(watch)
        try:
            await asyncio.wait_for(loop(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out waiting; {self.floor.describe()}") from None
        finally:
            self.table.listeners.remove(watch)

    async def rounds(self, n: int, **kw) -> None:
        target = self.core.rounds_finished + n
        kw.setdefault("timeout", HANG_BOUND_S + ROUND_BOUND_S * n)  # the bound scales with the work
        await self.until(lambda: self.core.rounds_finished >= target, **kw)

    async def phase(self, phase: str, **kw) -> None:
        await self.until(lambda: self.core.round is not None and self.core.round.phase == phase, **kw)


async def play(tmp: Path, scenario, *, sims: SimulatedTable | None = None, **cfg_kw) -> Run:
    run = Run(scenario)
    cfg = config(tmp, **cfg_kw)
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(timing=FAST, poll_interval=POLL, state_dir=tmp / "dev", sims=sims, hooks=run))
    return run


class Discard(io.TextIOBase):
    """The round printer's terminal: read nothing back (the journal is the record)."""

    def write(self, text: str) -> int:
        return len(text)


def journal_records(tmp: Path, kind: str | None = None) -> list:
    with Journal.open(tmp / "journal.db", readonly=True) as j:
        return [r for r in j.records_after(0) if kind is None or r.kind == kind]


async def sign_in_paced(run: Run, tmp: Path, badge: int, pin: str) -> None:
    """One sign-in at the panel, keyed a second after any sign-in before it (the simulated floor's
    too) and journaled before it returns: well within the sign-ins the panel has checked a second
    (more are refused unchecked)."""
    def keyed() -> int:
        return sum(r.kind == "staff.sign_in" and r.payload.get("badge") == badge for r in journal_records(tmp))
    await asyncio.sleep(1.1)
    before = keyed()
    run.sims.panel.sign_in(badge, pin)
    await run.until(lambda: keyed() > before, act=False)

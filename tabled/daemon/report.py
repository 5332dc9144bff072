"""What the daemon tells the person or the service manager watching it: in a terminal, readable lines
as rounds happen (state, hands, the dealer's lines, settlement, what the meter shows) and a banner
and summary; off a terminal, the log (one record per note); sd_notify STATUS for systemd.

Each thing is shown once: the dealer's lines are logged by the table (tabled/daemon/controller.py)
and printed here only in a terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TextIO

import structlog

from tabled.host.log import under_systemd

from tabled.daemon.config import Config
from tabled.game.settlement import money
from tabled.table.core import TableCore
from tabled.table.effects import Effect, Note, Say
from tabled.table.players import masked_fields

METER_READ_S = 0.5      # in a terminal, how often the meter is asked what it shows

log = structlog.get_logger("tabled.run")


class RoundPrinter:
    """Shows rounds as they happen in a terminal: state, hands, the dealer's lines, settlement.
    What the meter shows comes from the meter itself (:class:`MeterWatch`)."""

    def __init__(self, out: TextIO, quiet: bool = False):
        self.out, self.quiet = out, quiet

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note) and e.kind == "round.settled" and self.quiet:
                d: dict[str, Any] = dict(e.payload)  # the log reads the settlement's JSON as written
                dealer = " ".join(d["dealer"]["cards"]) if d.get("dealer") else "-"
                pool = d.get("progressive", {}).get("pool_after_cents")
                house = d.get("house_collects_cents", 0) - d.get("house_pays_cents", 0)
                print(f"{e.round_id}: dealer {dealer}  house net win {money(house)}"
                      + (f"  pool {money(pool)}" if pool is not None else ""), file=self.out)
            if self.quiet:
                continue
            if isinstance(e, Note) and e.kind == "round.dealt":
                dealt: dict[str, Any] = dict(e.payload)
                hands = "  ".join(f"{k}:{v}" for k, v in dealt["spots"].items())
                print(f"{e.round_id} dealt  {hands}  dealer up {' '.join(dealt['dealer_up'])}", file=self.out)
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
        fault = self.core.equipment.faults.get("meter")
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


def loggable(note: Note) -> dict[str, Any]:
    """A note's fields as the log carries them. Nothing hidden on the felt before the reveal (8.6)
    goes to the log: at the deal, the dealer's up card and the spots dealt to, not the dealer's
    hole cards nor the players' hands (face down; 8.4 collects a folded one unseen). The journal
    keeps every card, the log shows them from ``round.settled``: there, each spot's cards, status
    and net, the dealer's hand and the money of the round; each wager's detail is in the journal
    (``tabled recall``) and, at debug level, in ``round.settled.detail``. A player's card number
    is masked (tabled/table/players.py): the journal keeps it, the log does not."""
    fields: dict[str, Any] = {k: v for k, v in masked_fields(note.kind, note.payload).items() if k != "round_id"}
    if note.kind == "round.dealt":
        return {"dealer_up": fields.get("dealer_up"), "spots_dealt": sorted(int(s) for s in fields.get("spots", {}))}
    if note.kind == "round.settled":
        progressive = fields.get("progressive") or {}
        dealer = fields.get("dealer") or {}
        return {"profile": fields.get("profile"), "void": fields.get("void"),
                "dealer": {"cards": " ".join(dealer.get("cards", [])), "hand": dealer.get("hand"),
                           "qualifies": dealer.get("qualifies")},
                "spots": [{"spot": s.get("spot"), "status": s.get("status"), "cards": " ".join(s.get("cards", [])),
                           "net_cents": s.get("net_cents")} for s in fields.get("spots", [])],
                "awards": progressive.get("awards", []), "pool_after_cents": progressive.get("pool_after_cents"),
                "house_collects_cents": fields.get("house_collects_cents"),
                "house_pays_cents": fields.get("house_pays_cents")}
    if note.kind == "payments.due":  # every area of every spot: the log names those to settle
        return {"to_settle": [f"spot {a.get('spot')} {a.get('area')}: {a.get('state')}" for a in fields.get("areas", [])
                              if a.get("state") != "done"]}
    return fields


class RoundLogger:
    """The same rounds as structured records (for journald): the table's notes, one record each
    (:func:`loggable`), and at debug level a settlement's every wager. The dealer's lines are
    logged by the table itself (tabled/daemon/controller.py)."""

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note):
                log.info(e.kind, round_id=e.round_id, **loggable(e))
                if e.kind == "round.settled":
                    log.debug("round.settled.detail", round_id=e.round_id, spots=e.payload.get("spots"))


class Session:
    """This run's tally, for the summary on exit: rounds finished and the house's net win (what it
    collected less what it paid, progressive awards included)."""

    def __init__(self) -> None:
        self.rounds = 0
        self.house_net_cents = 0

    def __call__(self, effects: list[Effect]) -> None:
        for e in effects:
            if isinstance(e, Note) and e.kind == "round.settled":
                settled: dict[str, Any] = dict(e.payload)
                self.house_net_cents += settled.get("house_collects_cents", 0) - settled.get("house_pays_cents", 0)
            elif isinstance(e, Note) and e.kind == "round.finished":
                self.rounds += 1


def terminal(out: TextIO) -> bool:
    return getattr(out, "isatty", lambda: False)() and not under_systemd()


def banner(cfg: Config, core: TableCore, journal_path: Path) -> list[str]:
    """The start banner: which table this is, by which rules and limits, from which files."""
    t, lim = cfg.table, core.hours.limits
    return [f"tabled: table {t.id}, profile {t.profile.name}, {t.spots} spots, card source {t.card_source}",
            f"  limits  {money(lim.minimum_cents)} to {money(lim.maximum_cents)} in units of {money(lim.unit_cents)}"
            f" (6.1); progressive wager {money(lim.progressive_wager_cents)} (11.3)",
            f"  config  {cfg.source if cfg.source is not None else '(the embedded simulated table)'}",
            f"  journal {journal_path}"]


#: the primary pool's name among the table's equipment faults (tabled/daemon/poolfeed.py)
POOL_EQUIPMENT = "pool"


def pool_line(cfg: Config, core: TableCore) -> str:
    """The banner's last line, once the pool has answered (or not): the meter, or what is wrong as
    the 14.13 fault says it (a pool database without tabled's schema is the administrator's to
    migrate, not a lost link)."""
    pool = cfg.primary_pool
    where = f" {pool.path}" if pool.path is not None else ""
    if core.pool.cents is not None:
        shown = money(core.pool.cents)
    else:
        reason = core.equipment.faults.get(POOL_EQUIPMENT)
        shown = f"not available (14.13): {reason}" if reason else "cannot be reached (14.13)"
    return f"  pool    {pool.name} ({pool.backend}{where}): {shown}"


def open_faults(core: TableCore) -> list[str]:
    """Faults the journal holds open (they survive a restart, 14.13), in the dealer's words."""
    approval = "play approved by an inspector, progressive offline" if core.equipment.approved \
        else "notify an inspector: no new round without approval"
    return [f"open fault: {equipment}: {reason} ({approval}) [14.13]"
            for equipment, reason in sorted(core.equipment.faults.items())]


def rounds(n: int) -> str:
    """"1 round", "2 rounds"."""
    return f"{n} round" + ("" if n == 1 else "s")


def summary(out: TextIO, human: bool, core: TableCore, session: Session) -> None:
    """On exit: the rounds this run finished, the house's net win over them, the pool, and where
    the round in play stands in the journal (the next start resumes it)."""
    r = core.round
    if human:
        pool = money(core.pool.cents) if core.pool.cents is not None else "unknown"
        print(f"stopped: {rounds(session.rounds)} this run, house net win {money(session.house_net_cents)}, "
              f"pool {pool}" + (f"; round {r.round_id} {r.phase}: resumes on the next start" if r else ""),
              file=out)
        out.flush()
    else:
        log.info("table.stopped", rounds=session.rounds, house_net_cents=session.house_net_cents,
                 pool_cents=core.pool.cents, round_id=r.round_id if r else None, phase=r.phase if r else None)


class Status:
    """sd_notify STATUS: the round in play and the pool, when they change."""

    def __init__(self, notifier: Any, core: TableCore):
        self.notifier, self.core, self.last = notifier, core, ""

    def __call__(self, effects: list[Effect]) -> None:
        c = self.core
        text = (f"{rounds(c.rounds_finished)}; round {c.round_id} {c.round.phase}" if c.round
                else f"{rounds(c.rounds_finished)}; no round in play")
        if c.equipment.faults:
            text += f"; fault: {', '.join(sorted(c.equipment.faults))}"
        if text != self.last:
            self.last = text
            self.notifier.status(text)


def announce(cfg: Config, core: TableCore, journal_path: Path, replayed: int, out: TextIO, human: bool) -> None:
    """At the start: the banner (or the ``table.started`` record), what the journal's replay
    recovered, and the faults it holds open (14.13)."""
    t, limits = cfg.table, core.hours.limits
    if human:
        print("\n".join(banner(cfg, core, journal_path)), file=out)
    else:
        log.info("table.started", table_id=t.id, profile=t.profile.name, spots=t.spots,
                 minimum_cents=limits.minimum_cents, maximum_cents=limits.maximum_cents,
                 unit_cents=limits.unit_cents, progressive_wager_cents=limits.progressive_wager_cents,
                 config=str(cfg.source) if cfg.source is not None else None, journal=str(journal_path),
                 pool=cfg.primary_pool.name, pool_backend=cfg.primary_pool.backend)
    if replayed:
        phase = core.round.phase if core.round else None
        if human:
            print(f"recovered: {replayed} journal records replayed; round {core.round_id or '-'} {phase or ''}",
                  file=out)
        else:
            log.info("journal.recovered", records=replayed, round_id=core.round_id, phase=phase)
    if human:
        for line in open_faults(core):
            print(line, file=out)
        out.flush()
    else:
        for equipment, reason in sorted(core.equipment.faults.items()):
            log.warning("fault.open", equipment=equipment, reason=reason, approved=core.equipment.approved,
                        rule="14.13")

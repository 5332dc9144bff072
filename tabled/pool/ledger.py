"""The pool ledger: the rules of docs/settlement.md written once, run by both backends.

A backend supplies transactions (:class:`Tx`): SQLite for the local pool, PostgreSQL for a linked
pool. Everything that changes money happens here, inside one transaction that first locks the pool's
row, so changes from every table are applied one at a time and each gets the next ledger number:

* a contribution or reversal is keyed by (table, round, spot): a repeat finds the key and changes
  nothing (11.6; docs/settlement.md "Progressive contributions");
* a round's awards are keyed by (table, round): read the locked pool, run
  :func:`award_progressive`, write every award and the reset, all in the one transaction; a repeat
  returns the recorded result, never a second payment (12.1 - 12.4);
* a round id is not unique on its own (a journal restored from a backup, two tables with one id, a
  rewound round counter play the same ids again), so each row also keeps the round's key, the hash
  of the journal record that opened the round: a "repeat" whose key differs is another round, and
  is refused (:class:`RoundKeyMismatch`), never answered with the recorded result. Rows without a
  key (written before keys existed) are answered as before;
* the balance goes down only on an award, a reversal, a reset funded from a reserve or a recorded
  correction (docs/settlement.md); every change is a ledger row with the balance after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from tabled.game.cards import card_text
from tabled.game.progressive import (ProgressiveError, ProgressiveHit, ProgressiveResult,
                                     ProgressiveSchedule, award_progressive)
from tabled.game import seats
from .base import Contribution, MeterReading, PoolError, PoolStatus, VerifyReport
from .records import HitRecord, LedgerEntry, ReconcileReport, result_from_json, result_to_json
from .settings import PoolSettings, SettingsVersion, check_pool_name

Clock = Callable[[], datetime]

#: how each ledger kind moves the balance: +1 only up, -1 only down, 0 either way (a correction)
KINDS = {
    "open": +1, "reset": +1, "contribution": +1, "overflow_in": +1,
    "reversal": -1, "award": -1, "fund_reset": -1, "correction": 0, "settings": 0,
}
MAX_ID = 64


def utc_now() -> datetime:
    return datetime.now(UTC)


class RoundKeyMismatch(PoolError):
    """The pool holds this (table, round) from another round: another journal, or the same journal
    after its round counter went back. Nothing was applied; people must look (rule 14.13)."""

    def __init__(self, what: str, stored: str, given: str) -> None:
        super().__init__(f"{what}: the pool holds another round with this id (round key {stored[:12]}, this"
                         f" round's {given[:12]}): a journal restored from a backup, two tables with one id or"
                         f" a rewound round counter; refused, nothing applied")


def _same_round(what: str, stored: str | None, given: str | None) -> None:
    """A repeat is the same round only if both keys agree; a row without a key predates keys."""
    if stored is not None and given is not None and stored != given:
        raise RoundKeyMismatch(what, stored, given)


def _check_key(round_key: object) -> str | None:
    return None if round_key is None else _check_id("round key", round_key)


async def _counted(tx: Tx, sql: str, params: Sequence[Any]) -> tuple:
    """The row of a query of counts and sums, which always has one."""
    row = await tx.one(sql, params)
    if row is None:
        raise PoolError(f"the database answered no row to a count: {sql}")
    return row


class Retry(Exception):
    """The database asks for the transaction to be run again (serialisation failure, deadlock)."""


class Tx(Protocol):
    """One database transaction. SQL uses ``%s`` placeholders in both dialects."""

    async def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None: ...
    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]: ...
    async def run(self, sql: str, params: Sequence[Any] = ()) -> None: ...
    async def lock_pool(self, name: str) -> tuple | None:
        """The pool's row, locked against every other writer until the transaction ends."""
    async def lock_pool_then(self, name: str, sql: str, params: Sequence[Any]) -> tuple[tuple | None, list[tuple]]:
        """:meth:`lock_pool`, then a read that sees every change committed before the lock."""
    def notify(self, reading: MeterReading) -> None:
        """Publish a meter reading when (and only if) the transaction commits."""


_POOL_COLUMNS = "name, balance_cents, epoch, settings_version, ledger_seq, hit_seq"


@dataclass
class _Pool:
    """A locked pool row, changed in memory during the transaction and written back at its end."""

    name: str
    balance: int
    epoch: int
    settings_version: int
    ledger_seq: int
    hit_seq: int
    last_kind: str = ""
    dirty: bool = False
    last_table: str | None = None   # whose operation last moved it (the meter reading says so)
    last_round: str | None = None
    awarded: int = 0                # awarded in this transaction (12.1): the meter reading says so


def _check_id(what: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID:
        raise PoolError(f"{what} must be a non-empty text of at most {MAX_ID} characters, got {value!r}")
    return value


def _check_spot(spot: object) -> int:
    problem = seats.spot_problem(spot)  # a spot of a table: 2.2.1
    if problem:
        raise PoolError(f"spot: {problem}")
    return spot  # type: ignore[return-value]


def _check_text(what: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PoolError(f"{what} must be given (who and why are recorded with every change)")
    return value.strip()


def _hand_text(hand: object) -> str | None:
    if hand is None:
        return None
    if isinstance(hand, str):
        return hand
    try:
        return " ".join(card_text(c) for c in hand)  # type: ignore[attr-defined]  # not iterable: TypeError, below
    except (TypeError, ValueError) as exc:
        raise PoolError(f"a hand must be card text or card numbers, got {hand!r}") from exc


class LedgerPool:
    """A progressive pool kept in a ledger. Subclasses provide :meth:`_transaction` and :meth:`close`."""

    dialect = ""
    retries = 8
    #: how the pool's row is written back (balance, epoch, settings version, ledger seq, hit seq, name)
    _save_sql = ("UPDATE pools SET balance_cents = %s, epoch = %s, settings_version = %s, ledger_seq = %s,"
                 " hit_seq = %s WHERE name = %s")

    def __init__(self, name: str, table_id: str, settings: PoolSettings | None = None, *,
                 clock: Clock = utc_now, who: str = "config") -> None:
        self.name = check_pool_name(name)
        self.table_id = _check_id("table id", table_id)
        self._initial_settings = settings
        self._initial_who = who
        #: what the settings given at opening (the config's) ask for that the pool's latest version
        #: does not hold: a change of a pool's settings needs two people (``tabled pool propose``)
        self.config_differs: str | None = None
        self._clock = clock
        self._settings_cache: dict[tuple[str, int], PoolSettings] = {}

    # ---- to be provided by a backend -------------------------------------------------------------
    def _transaction(self) -> contextlib.AbstractAsyncContextManager[Tx]:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    # ---- plumbing --------------------------------------------------------------------------------
    def _now(self) -> str:
        return self._clock().astimezone(UTC).isoformat(timespec="microseconds")

    async def _run(self, work: Callable[[Tx], Any]) -> Any:
        for _ in range(self.retries):
            try:
                async with self._transaction() as tx:
                    return await work(tx)
            except Retry:
                await asyncio.sleep(0)
        raise PoolError(f"pool {self.name}: the database kept refusing the transaction; try again")

    async def _lock_row(self, tx: Tx, name: str) -> _Pool:
        row = await tx.lock_pool(name)
        if row is None:
            raise PoolError(f"there is no pool named {name!r} in this database")
        return _Pool(*row)

    async def _settings(self, tx: Tx, pool: str, version: int) -> PoolSettings:
        key = (pool, version)
        if key not in self._settings_cache:  # a version never changes once recorded
            row = await tx.one("SELECT contribution_bp, reset_cents, limit_cents, overflow_to, reset_from, schedule"
                               " FROM pool_settings WHERE pool = %s AND version = %s", (pool, version))
            if row is None:
                raise PoolError(f"pool {pool}: settings version {version} is missing")
            self._settings_cache[key] = PoolSettings.from_row(*row)
        return self._settings_cache[key]

    async def _latest_version(self, tx: Tx, pool: str) -> int:
        row = await tx.one("SELECT MAX(version) FROM pool_settings WHERE pool = %s", (pool,))
        return int(row[0] or 0) if row else 0

    async def _append(self, tx: Tx, p: _Pool, kind: str, delta: int, reason: str, *,
                      table_id: str | None = None, round_id: str | None = None, spot: int | None = None,
                      who: str | None = None) -> int:
        balance = p.balance + delta
        if balance < 0:
            raise PoolError(f"pool {p.name}: {kind} of {delta} cents would leave {balance} cents")
        p.ledger_seq += 1
        p.balance = balance
        p.last_kind = kind
        p.last_table, p.last_round = table_id, round_id
        p.dirty = True
        await tx.run("INSERT INTO ledger (pool, seq, kind, delta_cents, balance_after_cents, epoch, table_id,"
                     " round_id, spot, reason, who, at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                     (p.name, p.ledger_seq, kind, delta, balance, p.epoch, table_id, round_id, spot,
                      reason, who, self._now()))
        return p.ledger_seq

    async def _save(self, tx: Tx, *pools: _Pool) -> None:
        for p in pools:
            if not p.dirty:
                continue
            await tx.run(self._save_sql, (p.balance, p.epoch, p.settings_version, p.ledger_seq, p.hit_seq, p.name))
            tx.notify(MeterReading(p.name, p.balance, p.ledger_seq, p.last_kind, self._now(), p.last_table,
                                   p.last_round, p.awarded))

    # ---- opening ---------------------------------------------------------------------------------
    async def _open_pool(self) -> None:
        """Create the pool at its reset value when the database has none by this name. An existing
        pool keeps its recorded settings: a change is proposed by one person and approved by another
        (N.J.A.C. 13:69D-1.52), never taken from a table's config, so one that differs is only told
        (``config_differs``)."""
        async def work(tx: Tx) -> None:
            settings = self._initial_settings
            if settings is None:  # only reading: no lock (an auditor may not take one)
                found = await tx.one("SELECT 1 FROM pools WHERE name = %s", (self.name,))
                if found is None:
                    raise PoolError(f"there is no pool named {self.name!r} in this database, and no settings"
                                    " to create it with")
                return
            if await tx.lock_pool(self.name) is None:
                if settings is None:
                    raise PoolError(f"there is no pool named {self.name!r} in this database, and no settings"
                                    " to create it with")
                await self._create(tx, self.name, settings, self._initial_who)
            else:
                self.config_differs = await self._differs(tx, settings)
        await self._run(work)

    async def _create(self, tx: Tx, name: str, settings: PoolSettings, who: str) -> None:
        now = self._now()
        await tx.run("INSERT INTO pools (name, balance_cents, epoch, settings_version, ledger_seq, hit_seq,"
                     " created_at) VALUES (%s, 0, 0, 1, 0, 0, %s) ON CONFLICT (name) DO NOTHING", (name, now))
        p = await self._lock_row(tx, name)
        if p.ledger_seq:  # another table created it a moment ago
            return
        await self._insert_settings(tx, name, 1, settings, who, "pool opened")
        await self._append(tx, p, "open", settings.reset_cents, "pool opened at its reset value", who=who)
        await self._save(tx, p)

    async def _differs(self, tx: Tx, given: PoolSettings) -> str | None:
        """The rate and reset value a config gives (all a ``[[pools]]`` entry sets) against the
        pool's latest settings version, in words; None when they agree."""
        latest = await self._latest_version(tx, self.name)
        held = await self._settings(tx, self.name, latest)
        said = [f"{what} {getattr(given, what)} (version {latest}: {getattr(held, what)})"
                for what in ("contribution_bp", "reset_cents") if getattr(given, what) != getattr(held, what)]
        return "; ".join(said) or None

    async def _insert_settings(self, tx: Tx, pool: str, version: int, s: PoolSettings, who: str, why: str) -> None:
        await tx.run("INSERT INTO pool_settings (pool, version, contribution_bp, reset_cents, limit_cents,"
                     " overflow_to, reset_from, schedule, who, why, proposed_at)"
                     " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                     (pool, version, s.contribution_bp, s.reset_cents, s.limit_cents, s.overflow_to,
                      s.reset_from, s.schedule_json(), who, why, self._now()))

    async def _propose(self, tx: Tx, settings: PoolSettings, who: str, why: str) -> int:
        p = await self._lock_row(tx, self.name)
        latest = await self._latest_version(tx, self.name)
        if await self._settings(tx, self.name, latest) == settings:
            return latest  # nothing new: the same settings again are not a change
        await self._insert_settings(tx, self.name, latest + 1, settings, who, why)
        await self._append(tx, p, "settings", 0, f"settings version {latest + 1} recorded by {who} ({why});"
                           " it takes effect after the current jackpot is won", who=who)
        await self._save(tx, p)
        return latest + 1

    # ---- the interface ---------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Opened on its store; a backend whose store may be out of reach at opening says otherwise."""
        return True

    async def balance(self) -> int:
        async def work(tx: Tx) -> int:
            row = await tx.one("SELECT balance_cents FROM pools WHERE name = %s", (self.name,))
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            return int(row[0])
        return await self._run(work)

    async def contribute(self, table_id: str, round_id: str, spot: int, wager_cents: int, *,
                         round_key: str | None = None) -> Contribution:
        """7.2.1 "no more bets": rate x wager (rounded down) to the pool, the rest retained (11.6).
        Keyed by (table, round, spot): a repeat changes nothing and returns the recorded split; a
        repeat with another ``round_key`` is another round and raises :class:`RoundKeyMismatch`."""
        (c,) = await self.contribute_round(table_id, round_id, {spot: wager_cents}, round_key=round_key)
        return c

    async def contribute_round(self, table_id: str, round_id: str, wagers: Mapping[int, int], *,
                               round_key: str | None = None) -> list[Contribution]:
        """Every accepted progressive wager of a round ({spot: wager}), locked at the same moment
        (7.2.1), in one transaction: all of them or none. Each is keyed as :meth:`contribute`."""
        _check_id("table id", table_id), _check_id("round id", round_id), _check_key(round_key)
        for spot, wager_cents in wagers.items():
            _check_spot(spot)
            if not isinstance(wager_cents, int) or isinstance(wager_cents, bool) or wager_cents <= 0:
                raise PoolError(f"a progressive wager must be whole cents > 0, got {wager_cents!r} on spot {spot}")
        if not wagers:
            return []

        async def work(tx: Tx) -> list[Contribution]:
            row, rows = await tx.lock_pool_then(
                self.name, "SELECT spot, wager_cents, pool_cents, retained_cents, overflow_cents, round_key"
                " FROM contributions WHERE pool = %s AND table_id = %s AND round_id = %s",
                (self.name, table_id, round_id))
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            p = _Pool(*row)
            touched: dict[str, _Pool] = {p.name: p}
            done = {int(r[0]): r[1:5] for r in rows}
            keys = {int(r[0]): r[5] for r in rows}
            out = []
            for spot, wager_cents in sorted(wagers.items()):
                if spot in done:
                    _same_round(f"table {table_id} round {round_id} spot {spot}", keys[spot], round_key)
                    if int(done[spot][0]) != wager_cents:
                        raise PoolError(f"table {table_id} round {round_id} spot {spot}: already contributed on a"
                                        f" wager of {done[spot][0]} cents, not {wager_cents}")
                    out.append(Contribution(table_id, round_id, spot, *(int(v) for v in done[spot])))
                else:
                    out.append(await self._contribute(tx, p, touched, table_id, round_id, spot, wager_cents,
                                                      round_key))
            await self._save(tx, *touched.values())
            return out
        return await self._run(work)

    async def _contribute(self, tx: Tx, p: _Pool, touched: dict[str, _Pool], table_id: str, round_id: str,
                          spot: int, wager_cents: int, round_key: str | None) -> Contribution:
        s = await self._settings(tx, self.name, p.settings_version)
        share = s.split(wager_cents)
        to_pool = share if s.limit_cents is None else max(0, min(share, s.limit_cents - p.balance))
        overflow = share - to_pool
        retained = wager_cents - share
        if overflow and s.overflow_to:
            if s.overflow_to not in touched:
                touched[s.overflow_to] = await self._lock_row(tx, s.overflow_to)
            await self._append(tx, touched[s.overflow_to], "overflow_in", overflow,
                               f"overflow from pool {self.name} above its limit",
                               table_id=table_id, round_id=round_id, spot=spot)
        else:
            retained, overflow = retained + overflow, 0  # no overflow pool: the operator keeps it
        seq = await self._append(tx, p, "contribution", to_pool, "progressive wager (11.6)",
                                 table_id=table_id, round_id=round_id, spot=spot)
        await tx.run("INSERT INTO contributions (pool, table_id, round_id, spot, wager_cents, pool_cents,"
                     " retained_cents, overflow_cents, ledger_seq, at, round_key)"
                     " VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                     (self.name, table_id, round_id, spot, wager_cents, to_pool, retained, overflow, seq,
                      self._now(), round_key))
        return Contribution(table_id, round_id, spot, wager_cents, to_pool, retained, overflow)

    async def reverse(self, table_id: str, round_id: str, spot: int, reason: str, *,
                      round_key: str | None = None) -> int:
        """Take back a contribution: void round (14.4, 15.2.1, 16.5) or returned wager (14.12).
        Returns the cents taken out of the pool (and its overflow pool); 0 if none or already done.
        A contribution of another round with this id (another ``round_key``) is never taken back."""
        _check_id("table id", table_id), _check_id("round id", round_id), _check_spot(spot), _check_key(round_key)
        reason = _check_text("reason", reason)

        async def work(tx: Tx) -> int:
            p = await self._lock_row(tx, self.name)
            key = (self.name, table_id, round_id, spot)
            c = await tx.one("SELECT pool_cents, overflow_cents, round_key FROM contributions WHERE pool = %s AND"
                             " table_id = %s AND round_id = %s AND spot = %s", key)
            if c is not None:
                _same_round(f"table {table_id} round {round_id} spot {spot}", c[2], round_key)
            if c is None or await tx.one("SELECT 1 FROM reversals WHERE pool = %s AND table_id = %s AND"
                                         " round_id = %s AND spot = %s", key):
                return 0
            # a jackpot won since the contribution may have left less than it: never below zero
            cents = min(int(c[0]), p.balance)
            seq = await self._append(tx, p, "reversal", -cents, reason, table_id=table_id, round_id=round_id, spot=spot)
            touched, total = [p], cents
            if int(c[1]):
                target_name = await self._overflow_target(tx, table_id, round_id, spot)
                if target_name:
                    target = await self._lock_row(tx, target_name)
                    back = min(int(c[1]), target.balance)
                    await self._append(tx, target, "reversal", -back, f"{reason} (overflow from {self.name})",
                                       table_id=table_id, round_id=round_id, spot=spot)
                    touched.append(target)
                    total += back
            await tx.run("INSERT INTO reversals (pool, table_id, round_id, spot, cents, reason, ledger_seq, at,"
                         " round_key) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                         (*key, cents, reason, seq, self._now(), round_key))
            await self._save(tx, *touched)
            return total
        return await self._run(work)

    async def _overflow_target(self, tx: Tx, table_id: str, round_id: str, spot: int) -> str | None:
        # the pool the overflow went to then (the settings may have changed since)
        row = await tx.one("SELECT pool FROM ledger WHERE kind = 'overflow_in' AND table_id = %s AND"
                           " round_id = %s AND spot = %s AND reason = %s",
                           (table_id, round_id, spot, f"overflow from pool {self.name} above its limit"))
        return row[0] if row else None

    async def apply_awards(self, table_id: str, round_id: str, hits: Sequence[ProgressiveHit],
                           schedule: ProgressiveSchedule, *, hands: Mapping[int, object] | None = None,
                           held_since: datetime | None = None, round_key: str | None = None) -> ProgressiveResult:
        """All of a round's awards in one transaction (12.1 - 12.4), from the pool as it stands now,
        locked: never from an earlier reading, so a hit held during a link loss (14.13) is paid from
        the pool as the pool records it. A repeat returns the recorded result and pays nothing; a
        round with this id but another ``round_key`` raises :class:`RoundKeyMismatch`."""
        _check_id("table id", table_id), _check_id("round id", round_id), _check_key(round_key)
        hits = list(hits)
        hands = dict(hands or {})
        for h in hits:
            if not isinstance(h, ProgressiveHit):
                raise PoolError(f"a hit must be a ProgressiveHit, got {h!r}")
            _check_spot(h.spot)
        held = None if held_since is None else held_since.astimezone(UTC).isoformat(timespec="microseconds")

        async def work(tx: Tx) -> ProgressiveResult:
            p = await self._lock_row(tx, self.name)
            done = await tx.one("SELECT result, round_key FROM award_rounds WHERE pool = %s AND table_id = %s AND"
                                " round_id = %s", (self.name, table_id, round_id))
            if done is not None:
                _same_round(f"table {table_id} round {round_id} awards", done[1], round_key)
                return result_from_json(done[0])
            current = await self._settings(tx, self.name, p.settings_version)
            latest = await self._latest_version(tx, self.name)
            after_win = await self._settings(tx, self.name, latest)  # the next jackpot's terms
            try:
                result = award_progressive(p.balance, hits, current.schedule_for(schedule, after_win.reset_cents))
            except ProgressiveError as exc:
                raise PoolError(f"table {table_id} round {round_id}: {exc}") from exc
            if not result.awards:
                return result
            touched = [p]
            ids = dict(table_id=table_id, round_id=round_id)
            for a in result.awards:  # in the order of payment (12.2, 12.4)
                before = p.balance
                if a.from_pool_cents:
                    await self._append(tx, p, "award", -a.from_pool_cents,
                                       f"{a.category.label} on spot {a.spot} ({a.rule})", spot=a.spot, **ids)
                p.hit_seq += 1
                p.awarded += a.amount_cents
                p.dirty = True
                await tx.run("INSERT INTO hits (pool, hit_seq, table_id, round_id, spot, category, hand,"
                             " amount_cents, from_pool_cents, topup_cents, pool_before_cents, pool_after_cents,"
                             " rule, held_since, at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                             (self.name, p.hit_seq, table_id, round_id, a.spot, a.category.name,
                              _hand_text(hands.get(a.spot)), a.amount_cents, a.from_pool_cents,
                              a.operator_topup_cents, before, p.balance, a.rule, held, self._now()))
            if result.reset:
                touched += await self._reset(tx, p, current, latest, result, ids)
            if p.balance != result.pool_after_cents:  # cannot happen unless the arithmetic changed
                raise PoolError(f"pool {self.name}: ledger {p.balance} != award result {result.pool_after_cents}")
            await tx.run("INSERT INTO award_rounds (pool, table_id, round_id, result, held_since, at, round_key)"
                         " VALUES (%s,%s,%s,%s,%s,%s,%s)",
                         (self.name, table_id, round_id, result_to_json(result), held, self._now(), round_key))
            await self._save(tx, *touched)
            return result
        return await self._run(work)

    async def _reset(self, tx: Tx, p: _Pool, current: PoolSettings, latest: int,
                     result: ProgressiveResult, ids: dict) -> list[_Pool]:
        """The jackpot was won: fund the reset (a reserve while it has enough, else the operator),
        start a new epoch, and let a pending settings version take effect."""
        touched, source = [], "the operator"
        funding = result.reset_funding_cents
        if current.reset_from and funding:
            reserve = await self._lock_row(tx, current.reset_from)
            if reserve.balance >= funding:
                await self._append(tx, reserve, "fund_reset", -funding, f"funds the reset of pool {self.name}", **ids)
                touched.append(reserve)
                source = f"reserve pool {reserve.name}"
        p.epoch += 1
        await self._append(tx, p, "reset", funding, f"jackpot won: reset value funded by {source}", **ids)
        if latest > p.settings_version:
            p.settings_version = latest
            await self._append(tx, p, "settings", 0, f"settings version {latest} takes effect", **ids)
        return touched

    async def correct(self, delta_cents: int, reason: str, who: str) -> int:
        """A correction of the meter by a named person, with the reason (docs/settlement.md)."""
        if not isinstance(delta_cents, int) or isinstance(delta_cents, bool) or delta_cents == 0:
            raise PoolError(f"a correction must be a non-zero whole number of cents, got {delta_cents!r}")
        reason, who = _check_text("reason", reason), _check_text("who", who)

        async def work(tx: Tx) -> int:
            p = await self._lock_row(tx, self.name)
            await self._append(tx, p, "correction", delta_cents, reason, who=who)
            await self._save(tx, p)
            return p.balance
        return await self._run(work)

    async def propose_settings(self, settings: PoolSettings, who: str, why: str) -> int:
        """Record a new settings version; it takes effect when the current jackpot is won. Returns
        the version number (the latest one, unchanged, when the settings are the same)."""
        if not isinstance(settings, PoolSettings):
            raise PoolError(f"settings must be PoolSettings, got {settings!r}")
        who, why = _check_text("who", who), _check_text("why", why)
        return await self._run(lambda tx: self._propose(tx, settings, who, why))

    # ---- which journal a table's rounds come from ------------------------------------------------
    async def register_table(self, table_id: str, journal_id: str) -> None:
        """Bind ``table_id`` to the journal it plays from (its first record's hash) in this pool, the
        first time the table reaches the pool; afterwards a table with that id and another journal
        is refused: two tables configured with one id would play the same round ids, and each
        would take the other's rounds for repeats. Raises PoolError naming both journals."""
        _check_id("table id", table_id), _check_id("journal id", journal_id)

        async def work(tx: Tx) -> None:
            await tx.run("INSERT INTO table_journals (pool, table_id, journal_id, at) VALUES (%s,%s,%s,%s)"
                         " ON CONFLICT (pool, table_id) DO NOTHING", (self.name, table_id, journal_id, self._now()))
            row = await tx.one("SELECT journal_id, at FROM table_journals WHERE pool = %s AND table_id = %s",
                               (self.name, table_id))
            if row is not None and row[0] != journal_id:
                raise PoolError(f"pool {self.name}: table {table_id} already plays here with another journal (first"
                                f" record {row[0][:12]}, since {row[1]}), not this one ({journal_id[:12]}): two tables"
                                f" configured with one [table] id, or a new journal for an old id; each table needs"
                                f" its own id")
        await self._run(work)

    async def last_round(self, table_id: str) -> tuple[str, str | None] | None:
        """The round id and round key of this table's latest contribution here (None: none yet)."""
        _check_id("table id", table_id)

        async def work(tx: Tx) -> tuple[str, str | None] | None:
            row = await tx.one("SELECT round_id, round_key FROM contributions WHERE pool = %s AND table_id = %s"
                               " ORDER BY ledger_seq DESC LIMIT 1", (self.name, table_id))
            return (row[0], row[1]) if row else None
        return await self._run(work)

    # ---- reading ---------------------------------------------------------------------------------
    async def settings_history(self) -> list[SettingsVersion]:
        async def work(tx: Tx) -> list[SettingsVersion]:
            p = await self._lock_row(tx, self.name)
            rows = await tx.all("SELECT version, contribution_bp, reset_cents, limit_cents, overflow_to, reset_from,"
                                " schedule, who, why, proposed_at FROM pool_settings WHERE pool = %s"
                                " ORDER BY version", (self.name,))
            return [SettingsVersion(self.name, int(r[0]), PoolSettings.from_row(*r[1:7]), r[7], r[8], r[9],
                                    active=int(r[0]) == p.settings_version, pending=int(r[0]) > p.settings_version)
                    for r in rows]
        return await self._run(work)

    async def status(self) -> PoolStatus:
        async def work(tx: Tx) -> PoolStatus:
            row = await tx.one(f"SELECT {_POOL_COLUMNS} FROM pools WHERE name = %s", (self.name,))
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            p = _Pool(*row)
            s = await self._settings(tx, self.name, p.settings_version)
            latest = await self._latest_version(tx, self.name)
            count = await _counted(tx, "SELECT COUNT(*) FROM ledger WHERE pool = %s AND epoch = %s"
                                       " AND kind = 'contribution'", (self.name, p.epoch))
            last = await tx.one("SELECT reason, at FROM ledger WHERE pool = %s AND seq = %s", (self.name, p.ledger_seq))
            return PoolStatus(self.name, p.balance, s.reset_cents, int(count[0]), last[0] if last else "",
                              epoch=p.epoch, settings_version=p.settings_version,
                              pending_settings_version=latest if latest > p.settings_version else None,
                              hits=p.hit_seq, ledger_seq=p.ledger_seq, last_change_at=last[1] if last else "")
        return await self._run(work)

    async def meter(self) -> MeterReading:
        async def work(tx: Tx) -> MeterReading:
            row = await tx.one("SELECT l.balance_after_cents, l.seq, l.kind, l.at FROM pools p JOIN ledger l"
                               " ON l.pool = p.name AND l.seq = p.ledger_seq WHERE p.name = %s", (self.name,))
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            return MeterReading(self.name, int(row[0]), int(row[1]), row[2], row[3])
        return await self._run(work)

    async def history(self, limit: int = 25) -> list[HitRecord]:
        """The last hits paid from this pool, newest first."""
        async def work(tx: Tx) -> list[HitRecord]:
            rows = await tx.all("SELECT pool, hit_seq, table_id, round_id, spot, category, hand, amount_cents,"
                                " from_pool_cents, topup_cents, pool_before_cents, pool_after_cents, rule,"
                                " held_since, at FROM hits WHERE pool = %s ORDER BY hit_seq DESC LIMIT %s",
                                (self.name, int(limit)))
            return [HitRecord(*r) for r in rows]
        return await self._run(work)

    async def ledger(self, limit: int = 50, *, since_seq: int = 0) -> list[LedgerEntry]:
        """Ledger rows after ``since_seq``, the last ``limit`` of them, oldest first."""
        async def work(tx: Tx) -> list[LedgerEntry]:
            rows = await tx.all("SELECT pool, seq, kind, delta_cents, balance_after_cents, epoch, table_id, round_id,"
                                " spot, reason, who, at FROM ledger WHERE pool = %s AND seq > %s"
                                " ORDER BY seq DESC LIMIT %s", (self.name, since_seq, int(limit)))
            return [LedgerEntry(*r) for r in reversed(rows)]
        return await self._run(work)

    async def verify(self, public_keys: Mapping[str, Any] | None = None) -> VerifyReport:
        """docs/settlement.md: pool = reset value at the last reset + contributions - reversals - awards from the
        pool +/- corrections since that reset; and every ledger row follows from the one before.
        ``public_keys``: for a pool whose rows are sealed (tabled/pool/local.py); a linked pool's are not."""
        async def work(tx: Tx) -> VerifyReport:
            row = await tx.one(f"SELECT {_POOL_COLUMNS} FROM pools WHERE name = %s", (self.name,))
            if row is None:
                raise PoolError(f"there is no pool named {self.name!r} in this database")
            p = _Pool(*row)
            rows = await tx.all("SELECT seq, kind, delta_cents, balance_after_cents FROM ledger WHERE pool = %s"
                                " ORDER BY seq", (self.name,))
            problems: list[str] = []
            running, expected = 0, 0
            for i, (seq, kind, delta, after) in enumerate(rows, start=1):
                seq, delta, after = int(seq), int(delta), int(after)
                if seq != i:
                    problems.append(f"ledger row {i} is numbered {seq}: a row is missing")
                if kind not in KINDS:
                    problems.append(f"ledger row {seq}: unknown kind {kind!r}")
                elif KINDS[kind] and delta * KINDS[kind] < 0:
                    problems.append(f"ledger row {seq}: a {kind} cannot move the pool by {delta}")
                running += delta
                if after != running:
                    problems.append(f"ledger row {seq}: balance after is {after}, the rows before add up to {running}")
                    running = after
                expected = after if kind in ("open", "reset") else expected + delta
            if not rows or rows[0][1] != "open":
                problems.append("the ledger does not begin with the pool's opening")
            if len(rows) != p.ledger_seq:
                problems.append(f"the pool counts {p.ledger_seq} ledger rows, the ledger has {len(rows)}")
            if expected != p.balance:
                problems.append(f"the meter shows {p.balance} cents, the ledger since the last reset gives {expected}")
            problems += await self._check_keyed_rows(tx, p)
            return VerifyReport(not problems, p.balance, expected, tuple(problems))
        return await self._run(work)

    async def _check_keyed_rows(self, tx: Tx, p: _Pool) -> list[str]:
        """Each contribution, reversal and award agrees with its ledger row, and nothing is counted twice."""
        problems = []
        for table, kind, amount in (("contributions", "contribution", "c.pool_cents"),
                                    ("reversals", "reversal", "-c.cents")):
            bad = await _counted(tx, f"SELECT COUNT(*) FROM {table} c LEFT JOIN ledger l ON l.pool = c.pool AND"
                                     f" l.seq = c.ledger_seq WHERE c.pool = %s AND (l.seq IS NULL OR l.kind <> %s OR"
                                     f" l.delta_cents <> {amount} OR l.table_id <> c.table_id"
                                     f" OR l.round_id <> c.round_id OR l.spot <> c.spot)", (self.name, kind))
            if int(bad[0]):
                problems.append(f"{bad[0]} {table} do not match their ledger rows")
            counts = await _counted(tx, f"SELECT (SELECT COUNT(*) FROM {table} WHERE pool = %s),"
                                        f" (SELECT COUNT(*) FROM ledger WHERE pool = %s AND kind = %s)",
                                        (self.name, self.name, kind))
            if kind == "contribution" and int(counts[0]) != int(counts[1]):
                problems.append(f"{counts[0]} contributions but {counts[1]} contribution rows in the ledger")
        hits = await _counted(tx, "SELECT COUNT(*), COALESCE(MIN(hit_seq), 0), COALESCE(MAX(hit_seq), 0),"
                                  " COALESCE(SUM(from_pool_cents), 0) FROM hits WHERE pool = %s", (self.name,))
        n, lo, hi, paid = (int(v) for v in hits)
        if n != p.hit_seq or (n and (lo, hi) != (1, n)):
            problems.append(f"hits are not numbered 1..{p.hit_seq} without gaps ({n} hits, {lo}..{hi})")
        awarded = await _counted(tx, "SELECT COALESCE(-SUM(delta_cents), 0) FROM ledger WHERE pool = %s"
                                     " AND kind = 'award'", (self.name,))
        if int(awarded[0]) != paid:
            problems.append(f"hits paid {paid} cents from the pool, the ledger's awards {awarded[0]}")
        return problems

    async def reconcile(self, journal: Iterable[Contribution | Mapping[str, Any]], *,
                        reversed_keys: Iterable[tuple[str, int]] = (), table_id: str | None = None,
                        round_keys: Mapping[str, Sequence[str]] | None = None,
                        owed: Iterable[tuple[str, int, int]] = (),
                        owed_reversals: Iterable[tuple[str, int]] = (),
                        answers: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> ReconcileReport:
        """Compare one table's journal with this pool's ledger, key by key, and name every difference.

        ``journal``: the contributions whose answer the journal records (``pool.contributed``);
        ``reversed_keys``: the (round, spot) keys it records as reversed here; ``round_keys``: each
        round id's round keys in the journal, oldest first (a pool row whose key is not among them
        belongs to another round with that id); ``owed`` / ``owed_reversals``: what the journal's
        state still owes this pool, (round, spot, wager) and (round, spot) -- operations taken but
        not answered, sent again when the pool answers or at the next start. An owed operation the
        pool already has is in flight (its answer was not journaled before a stop): the next start
        records it, without a second contribution.

        ``answers``: the pool's answers the journal holds, as (journal kind, payload): every amount
        and balance in them is compared to the cent with what the pool now holds for that
        operation (:meth:`_compare_answers`)."""
        table = _check_id("table id", table_id or self.table_id)
        mine: dict[tuple[str, int], int | None] = {}  # None: the journal gave no wager
        for item in journal:
            get = item.get if isinstance(item, Mapping) else lambda k, _i=item: getattr(_i, k, None)
            if (get("table_id") or table) != table:
                continue
            key = (_check_id("round id", get("round_id")), _check_spot(get("spot")))
            mine[key] = get("wager_cents")
        answers = list(answers)
        voided = {(r, s) for r, s in reversed_keys}
        to_reverse = {(r, s) for r, s in owed_reversals}
        owing = {(r, s): w for r, s, w in owed}

        async def work(tx: Tx) -> tuple[list[tuple], list[str]]:
            rows = await tx.all("SELECT c.round_id, c.spot, c.wager_cents, r.cents, c.round_key FROM contributions c"
                                " LEFT JOIN reversals r ON r.pool = c.pool AND r.table_id = c.table_id AND"
                                " r.round_id = c.round_id AND r.spot = c.spot WHERE c.pool = %s AND c.table_id = %s",
                                (self.name, table))
            return rows, await self._compare_answers(tx, table, answers)
        rows, answer_diffs = await self._run(work)
        pool = {(r[0], int(r[1])): (int(r[2]), r[3] is not None) for r in rows}
        foreign_keys = set()
        if round_keys is not None:
            foreign_keys = {(r[0], int(r[1])) for r in rows
                            if r[4] is not None and r[4] not in round_keys.get(r[0], ())}

        def current(key: tuple[str, int]) -> bool:
            """The pool's row is this journal's latest round with that id (or predates round keys)."""
            if round_keys is None or key not in pool:
                return key in pool
            kept = next(r[4] for r in rows if (r[0], int(r[1])) == key)
            latest = round_keys.get(key[0])
            return kept is None or kept == (latest[-1] if latest else None)
        in_flight = tuple(sorted(k for k in owing if k not in mine and current(k)))
        owed_now = tuple(sorted((k[0], k[1], owing[k]) for k in owing if k not in mine and not current(k)))
        missing = tuple(sorted(k for k in mine if k not in pool))
        extra = tuple(sorted(k for k in pool if k not in mine and k not in owing and k not in foreign_keys))
        diffs = []
        for key in sorted(foreign_keys):
            diffs.append(f"round {key[0]} spot {key[1]}: the pool's contribution is from another round with this id"
                         " (its round key is not this journal's): a restored journal, two tables with one id or"
                         " a rewound round counter")
        for key in sorted(set(mine) & set(pool)):
            wager, was_reversed = pool[key]
            if mine[key] != wager:
                diffs.append(f"round {key[0]} spot {key[1]}: journal wager {mine[key]} cents, pool {wager} cents")
            if was_reversed != (key in voided) and not (was_reversed and key in to_reverse):
                diffs.append(f"round {key[0]} spot {key[1]}: " + ("reversed in the pool, not in the journal"
                                                                  if was_reversed else
                                                                  "reversed in the journal, not in the pool"))
        owed_back = tuple(sorted(k for k in to_reverse if k in pool and not pool[k][1]))
        diffs += answer_diffs
        ok = not (missing or extra or diffs or owed_now or owed_back)
        return ReconcileReport(ok, table, len(mine), missing, extra, tuple(diffs), owed_now, owed_back, in_flight)

    async def compare_answers(self, table_id: str, answers: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """Each amount and balance the pool answered ``table_id``, as its journal holds them (journal
        kind, payload), against what the pool now holds for that operation (:meth:`_compare_answers`)."""
        table = _check_id("table id", table_id)
        return await self._run(lambda tx: self._compare_answers(tx, table, list(answers)))

    async def _compare_answers(self, tx: Tx, table: str, answers: list[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """Each balance the pool answered, as the journal holds it, against the ledger as it is now:

        * ``pool.meter`` (seq, balance_cents): ledger row ``seq`` has that balance after it;
        * ``pool.contributed`` with ``pool_cents`` / ``retained_cents``: the contribution's split;
        * ``pool.contributed`` / ``pool.reversed`` with ``balance_cents`` (read just after the
          operation): the balance after the operation's ledger row, or after a row that followed it
          before this table's next operation (another table's, a correction);
        * ``pool.awards``: the result the pool recorded for the round, award by award, and the pool
          before and after each hit, to the cent.
        """
        rounds = sorted({str(p.get("round_id")) for _, p in answers if p.get("round_id") is not None})
        seqs = [int(p["seq"]) for kind, p in answers if kind == "pool.meter" and isinstance(p.get("seq"), int)]
        if rounds:  # the ledger from the first row these answers name: not the whole history at every start
            row = await tx.one(f"SELECT MIN(seq) FROM ledger WHERE pool = %s AND table_id = %s AND round_id IN"
                               f" ({', '.join(['%s'] * len(rounds))})", (self.name, table, *rounds))
            if row is not None and row[0] is not None:
                seqs.append(int(row[0]))
        ledger = {int(r[0]): r[1:] for r in await tx.all(
            "SELECT seq, kind, balance_after_cents, table_id, round_id, spot FROM ledger WHERE pool = %s"
            " AND seq >= %s", (self.name, min(seqs, default=0)))}
        order = sorted(ledger)
        position = {q: i for i, q in enumerate(order)}
        first_row: dict[tuple, int] = {}
        for q in order:
            first_row.setdefault((ledger[q][0], ledger[q][2], ledger[q][3], ledger[q][4]), q)
        diffs: list[str] = []

        def after_operation(kind: str, round_id: object, spot: object) -> set[int] | None:
            """The balances the pool could have reported just after that operation (None: no such row)."""
            first = first_row.get((kind, table, round_id, spot))
            if first is None:
                return None
            seen = set()
            for q in order[position[first]:]:
                k, balance, t, r, _ = ledger[q]
                if t == table and (r != round_id or k != kind) and q != first:
                    break
                seen.add(int(balance))
            return seen

        for kind, p in answers:
            where = f"round {p.get('round_id')}" + (f" spot {p.get('spot')}" if p.get("spot") is not None else "")
            if kind == "pool.meter":
                row = ledger.get(p.get("seq"))  # type: ignore[arg-type]
                if row is None:
                    diffs.append(f"the meter read {p.get('balance_cents')} cents at ledger row {p.get('seq')}:"
                                 " the ledger has no such row")
                elif int(row[1]) != p.get("balance_cents"):
                    diffs.append(f"the meter read {p.get('balance_cents')} cents at ledger row {p.get('seq')}, the"
                                 f" ledger now holds {row[1]} cents there")
            if kind == "pool.contributed":
                diffs += await self._compare_split(tx, table, p)
            if kind in ("pool.contributed", "pool.reversed") and p.get("balance_cents") is not None:
                op = "contribution" if kind == "pool.contributed" else "reversal"
                seen = after_operation(op, p.get("round_id"), p.get("spot"))
                if seen is not None and p.get("balance_cents") not in seen:
                    diffs.append(f"{where}: the pool answered a balance of {p.get('balance_cents')} cents after the"
                                 f" {op}, its ledger now holds {' or '.join(str(b) for b in sorted(seen))} cents")
            elif kind == "pool.awards":
                diffs += await self._compare_awards(tx, table, str(p.get("round_id")), p.get("result") or {})
        return diffs

    async def _compare_split(self, tx: Tx, table: str, p: Mapping[str, Any]) -> list[str]:
        """A contribution's split (11.6) as the pool answered it, against the pool's row now."""
        row = await tx.one("SELECT pool_cents, retained_cents FROM contributions WHERE pool = %s AND table_id = %s"
                           " AND round_id = %s AND spot = %s", (self.name, table, p.get("round_id"), p.get("spot")))
        if row is None:
            return []  # named by the comparison of keys (reconcile: "in the journal, not in the pool")
        return [f"round {p.get('round_id')} spot {p.get('spot')}: the pool answered {told} cents {what}, its ledger"
                f" now holds {kept} cents"
                for what, told, kept in (("to the pool", p.get("pool_cents"), int(row[0])),
                                         ("retained", p.get("retained_cents"), int(row[1])))
                if told is not None and told != kept]

    async def _compare_awards(self, tx: Tx, table: str, round_id: str, told: Mapping[str, Any]) -> list[str]:
        """A round's award result as the journal holds it, against the pool's record of it and its hits."""
        where = f"round {round_id} awards"
        row = await tx.one("SELECT result FROM award_rounds WHERE pool = %s AND table_id = %s AND round_id = %s",
                           (self.name, table, round_id))
        if row is None:
            return [f"{where}: in the journal, not in the pool"]
        kept = result_from_json(row[0])
        diffs = [f"{where}: the pool answered {name.replace('_', ' ')} {told.get(name)}, it now records {value}"
                 for name, value in (("pool_before_cents", kept.pool_before_cents),
                                     ("pool_after_cents", kept.pool_after_cents),
                                     ("reset_funding_cents", kept.reset_funding_cents))
                 if told.get(name) is not None and told.get(name) != value]
        hits = {int(h[0]): h[1:] for h in await tx.all(
            "SELECT spot, amount_cents, from_pool_cents, topup_cents, pool_before_cents, pool_after_cents FROM hits"
            " WHERE pool = %s AND table_id = %s AND round_id = %s", (self.name, table, round_id))}
        before = told.get("pool_before_cents")
        for a in told.get("awards") or []:
            spot, paid = a.get("spot"), (a.get("amount_cents"), a.get("from_pool_cents"), a.get("operator_topup_cents"))
            hit = hits.get(spot)
            if hit is None:
                diffs.append(f"{where}: spot {spot}: in the journal, not among the pool's hits")
                continue
            if paid != tuple(int(v) for v in hit[:3]):
                diffs.append(f"{where}: spot {spot}: the pool answered {paid[0]} cents ({paid[1]} from the pool,"
                             f" {paid[2]} by the operator), its hits now record {hit[0]} ({hit[1]}, {hit[2]})")
            if isinstance(before, int) and isinstance(paid[1], int):
                if (int(hit[3]), int(hit[4])) != (before, before - paid[1]):
                    diffs.append(f"{where}: spot {spot}: paid from a pool of {before} cents leaving {before - paid[1]},"
                                 f" the pool's hit now records {hit[3]} -> {hit[4]}")
                before -= paid[1]
        return diffs

    # ---- the meter -------------------------------------------------------------------------------
    def subscribe_meter(self) -> AsyncIterator[MeterReading]:
        """Meter readings: the current one first, then every change, oldest first, never one older
        than the last yielded. Raises PoolUnavailable when the pool can no longer be followed."""
        raise NotImplementedError


"""The progressive pool interface (rules 2.3, 11.5, 11.6, 12; docs/settlement.md).

One interface, two backends: ``local`` (SQLite on the table PC, the embedded default) and
``postgresql`` (a pool linked across tables). The daemon only ever talks to this interface.

Every operation is idempotent under its key, so a retry after a crash or a dropped connection
never counts twice and a committed round never loses one:

* a contribution and its reversal are keyed by (table, round, spot);
* a round's awards are keyed by (table, round) and applied in one transaction: read the pool,
  compute all awards with :func:`tabled.game.progressive.award_progressive`, update or reset;
* each carries the round's key (tabled/pool/rounds.py): a "repeat" with another round's key is
  another round with the same id, and is refused rather than answered.

The pool goes down only on an award, a reversal or a recorded correction (docs/settlement.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from tabled.game.progressive import ProgressiveHit, ProgressiveResult, ProgressiveSchedule


class PoolError(Exception):
    """The pool refused an operation (bad input, or a key reused with different amounts)."""


class PoolUnavailable(PoolError):
    """The pool recorder cannot be reached (rule 14.13: the equipment of 2.3 has failed)."""


@dataclass(frozen=True)
class Contribution:
    table_id: str
    round_id: str
    spot: int
    wager_cents: int     # the progressive wager (11.3)
    pool_cents: int      # rate x wager, rounded down (11.6)
    retained_cents: int  # the operator's retained share: wager - pool_cents (11.6)
    overflow_cents: int = 0  # the part of rate x wager above the pool's limit, sent to its overflow pool


@dataclass(frozen=True)
class PoolStatus:
    name: str
    balance_cents: int
    reset_cents: int
    contributions_since_reset: int
    last_change_reason: str
    epoch: int = 0                              # how many times the jackpot was won
    settings_version: int = 1                   # the settings the current jackpot is played under
    pending_settings_version: int | None = None  # recorded, takes effect after the jackpot is won
    hits: int = 0                               # hits paid from this pool so far (the last hit number)
    ledger_seq: int = 0                         # the last ledger row
    last_change_at: str = ""


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    balance_cents: int
    expected_cents: int   # reset value + contributions - reversals - awards from pool +/- corrections
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # what was not checked, or how (no failure)


@dataclass(frozen=True)
class MeterReading:
    """What every linked table's meter display shows (2.4.3). ``seq`` orders readings: a reader drops
    any reading older than the one it already shows. ``table_id`` and ``round_id``: the table and
    round whose operation moved the pool (None for a correction, a settings change or the first
    reading); ``award_cents``: what that operation awarded (12.1) to that table, 0 for any other
    change, so every linked table can show another table's hit as it happens."""

    pool: str
    balance_cents: int
    seq: int
    kind: str
    at: str
    table_id: str | None = None
    round_id: str | None = None
    award_cents: int = 0


@runtime_checkable
class ProgressivePool(Protocol):
    """What a table asks of a pool it feeds (11.5): both backends (tabled/pool/local.py and
    tabled/pool/postgresql.py, through tabled/pool/ledger.py) give exactly this."""

    name: str

    @property
    def ready(self) -> bool:
        """The pool has reached its store once; until then every call may raise PoolUnavailable (14.13)."""

    async def balance(self) -> int:
        """The pool in cents, as the meter shows it (2.4.3)."""

    async def contribute(self, table_id: str, round_id: str, spot: int, wager_cents: int, *,
                         round_key: str | None = None) -> Contribution:
        """At "no more bets" (7.2.1): add rate x wager to the pool, keyed by (table, round, spot)."""

    async def contribute_round(self, table_id: str, round_id: str, wagers: Mapping[int, int], *,
                               round_key: str | None = None) -> list[Contribution]:
        """Every progressive wager of a round ({spot: wager}) in one transaction, each keyed as
        :meth:`contribute` (7.2.1: locked at the same moment)."""

    async def reverse(self, table_id: str, round_id: str, spot: int, reason: str, *,
                      round_key: str | None = None) -> int:
        """Undo that contribution (void round 14.4/15.2.1/16.5, returned wager 14.12).
        Returns the cents taken back out; 0 when there was nothing (or it was already reversed)."""

    async def apply_awards(self, table_id: str, round_id: str, hits: Sequence[ProgressiveHit],
                           schedule: ProgressiveSchedule, *, hands: Mapping[int, object] | None = None,
                           held_since: datetime | None = None, round_key: str | None = None) -> ProgressiveResult:
        """All of a round's awards in one transaction; a repeat returns the recorded result.
        ``held_since``: when the hit was held while the pool could not be reached (14.13)."""

    async def register_table(self, table_id: str, journal_id: str) -> None:
        """Bind the table id to its journal; another journal with the id is refused (PoolError)."""

    async def last_round(self, table_id: str) -> tuple[str, str | None] | None:
        """The table's last round in the pool and its round key (None: no round yet)."""

    def subscribe_meter(self) -> AsyncIterator[MeterReading]:
        """Meter readings: the current one first, then every change, oldest first; raises
        PoolUnavailable when the pool can no longer be followed."""

    async def correct(self, delta_cents: int, reason: str, who: str) -> int:
        """A recorded correction by a named person; returns the new balance."""

    async def verify(self, public_keys: Mapping[str, Any] | None = None) -> VerifyReport:
        """The ledger identity of docs/settlement.md, checked from the records; a local pool's rows
        against their chain and seals (``public_keys``: key id -> the journal's public key)."""

    async def compare_answers(self, table_id: str, answers: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
        """Each amount and balance the pool answered the table, as its journal holds them
        (journal kind, payload), against what the pool now holds for that operation: one line per
        difference (docs/linked-pools.md, "Operations")."""

    async def close(self) -> None: ...

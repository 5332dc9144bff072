"""The journal's records gathered by round, and the table's other happenings in time order.

Every round is known by its ``round.started`` note (its start time: a round belongs to the period
in which it started) and settled by its ``round.settled`` note (a round voided while it settled by
the void one that follows, :func:`tabled.game.settlement.supersedes`), read as journaled
(:func:`tabled.game.settlement.settlement_as_dict`): the figures are the journal's own amounts,
checked to be whole cents and to add up to the round's totals. Pool records carry the round they
belong to in their payload (a reversal is written during the next round), and are filed under it.
A settlement that cannot be read is kept as a problem, named in the report, never skipped
silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from tabled.game.cards import CardError, card_text, parse_card, parse_cards
from tabled.game.round_facts import SpotStatus
from tabled.game.settlement import supersedes

#: the happenings the integrity section reads, in time order: the fold's notes
EVENT_KINDS = frozenset({
    "panel.approved", "panel.refused", "fault.raised", "fault.cleared", "shuffle.fault", "shuffle.alarm",
    "progressive.award_held", "progressive.award_released", "device.out_of_play", "device.cleared",
    "payments.checked", "payments.refused", "payments.override", "payments.removed_early",
    "clock.offset", "clock.fault", "software.install", "power.restored",
})


#: every kind of record a report reads (tabled.journal.store reads no other): notes only
REPORT_KINDS = EVENT_KINDS | {"round.started", "round.dealt", "round.settled", "round.void", "round.finished",
                              "progressive.contributed", "progressive.reversed", "config.in_force"}


def placed(r: JournalRecord) -> tuple[int, int]:
    """(record, time in µs) where a record belongs: its own, or for a note written late (when a
    journal of an earlier version was first read by this one), the input it concludes from."""
    late = r.payload.get("late")
    if isinstance(late, Mapping) and isinstance(late.get("record"), int) and isinstance(late.get("time_us"), int):
        return late["record"], late["time_us"]
    return r.seq, r.time_us


class SettlementError(ValueError):
    """A ``round.settled`` payload that is not a settlement as tabled journals it."""


def _cents(d: Mapping[str, Any], key: str) -> int:
    value = d[key]
    if type(value) is not int:  # bool is an int, and not cents
        raise SettlementError(f"{key} is {value!r}, not whole cents")
    return value


#: card text -> card (tabled.game.cards), for the many cards of a day's settlements
CARDS = {card_text(c): c for c in range(52)}


def _cards(texts: Any) -> tuple[int, ...]:
    try:
        cards = tuple(CARDS[t] for t in texts)
    except (KeyError, TypeError):
        return parse_cards(texts)  # names what is wrong, or is right after all
    if len(set(cards)) != len(cards):
        return parse_cards(texts)
    return cards


class WagerLine(NamedTuple):
    """One wager of a spot as the settlement journals it (tabled.game.settlement.WagerSettlement)."""

    outcome: str
    placed_cents: int           # chips and tokens
    token_cents: int
    winnings_cents: int
    collected_cents: int
    returned_cents: int
    tokens_forfeited_cents: int
    net_cents: int

    @property
    def chips_cents(self) -> int:
        return self.placed_cents - self.token_cents

    @classmethod
    def read(cls, d: Mapping[str, Any]) -> WagerLine:
        if not isinstance(d.get("outcome"), str):
            raise SettlementError(f"outcome is {d.get('outcome')!r}")
        try:
            line = cls(d["outcome"], d["placed_cents"], d["token_cents"], d["winnings_cents"], d["collected_cents"],
                       d["returned_cents"], d["tokens_forfeited_cents"], d["net_cents"])
        except KeyError:
            line = None
        # a day has tens of thousands of wagers: every amount checked at once, named one by one when one is wrong
        if line is None or any(type(v) is not int for v in line[1:]):  # bool is an int, and not cents
            return cls(d["outcome"], *(_cents(d, key) for key in cls._fields[1:]))
        return line


class SpotLine(NamedTuple):
    spot: int
    status: SpotStatus
    cards: tuple[int, ...]
    ante: WagerLine
    bet: WagerLine
    progressive: WagerLine
    award_cents: int
    total_cents: int

    @property
    def wagers(self) -> tuple[WagerLine, WagerLine, WagerLine]:
        return (self.ante, self.bet, self.progressive)


@dataclass(frozen=True)
class Award:
    spot: int
    category: str
    amount_cents: int
    from_pool_cents: int
    operator_topup_cents: int


@dataclass(frozen=True)
class SettledRound:
    profile: str
    void: str | None
    spots: tuple[SpotLine, ...]
    awards: tuple[Award, ...]
    pool_before_cents: int
    net_cents: int
    pool_after_cents: int | None = None     # None: a journal from before settlements gave it
    reset_funding_cents: int = 0            # the operator's funding of the pool's reset (12.1)


def _award(d: Mapping[str, Any]) -> Award:
    return Award(d["spot"], str(d["category"]), _cents(d, "amount_cents"), _cents(d, "from_pool_cents"),
                 _cents(d, "operator_topup_cents"))


def read_settlement(data: Mapping[str, Any]) -> SettledRound:
    """A journaled ``round.settled`` payload; :class:`SettlementError` when it is not one, or when
    its parts do not add up to its totals."""
    try:
        spots = []
        for d in data["spots"]:
            wagers = [WagerLine.read(d[w]) for w in ("ante", "bet", "progressive")]
            award = _award(d["progressive_award"]) if d["progressive_award"] else None
            spot = SpotLine(d["spot"], SpotStatus(d["status"]), _cards(d["cards"]), wagers[0], wagers[1], wagers[2],
                            award.amount_cents if award else 0, _cents(d, "total_cents"))
            if sum(w.net_cents for w in wagers) + spot.award_cents != spot.total_cents:
                raise SettlementError(f"spot {spot.spot}: its wagers and award do not add up to its total")
            spots.append(spot)
        progressive = data["progressive"]
        settled = SettledRound(str(data["profile"]), data["void"], tuple(spots),
                               tuple(_award(a) for a in progressive["awards"]),
                               _cents(progressive, "pool_before_cents"), _cents(data, "net_cents"),
                               _cents(progressive, "pool_after_cents") if "pool_after_cents" in progressive else None,
                               _cents(progressive, "reset_funding_cents") if "reset_funding_cents" in progressive
                               else 0)
        collected = _cents(data, "house_collects_cents")
    except SettlementError:
        raise
    except (KeyError, TypeError, ValueError, CardError) as exc:
        raise SettlementError(f"not a settlement as tabled journals it ({type(exc).__name__}: {exc})") from None
    if sum(s.total_cents for s in settled.spots) != settled.net_cents:
        raise SettlementError("the spots do not add up to the round's net")
    if sum(w.collected_cents for s in settled.spots for w in s.wagers) != collected:
        raise SettlementError("the wagers collected do not add up to what the house collects")
    if sorted(a.amount_cents for a in settled.awards) != sorted(s.award_cents for s in settled.spots if s.award_cents):
        raise SettlementError("the progressive awards are not those of the spots")
    return settled


class JournalRecord(Protocol):
    """What a report reads of a journal record (tabled.journal.store.Record)."""

    @property
    def seq(self) -> int: ...
    @property
    def time_us(self) -> int: ...
    @property
    def round_id(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...


@dataclass
class PlayedRound:
    round_id: str
    started_us: int
    finished_us: int | None = None
    settlement: SettledRound | None = None
    void: Mapping[str, Any] | None = None         # the round.void note
    up_card: int | None = None                    # the dealer's one card face up (round.dealt)
    progressive_offline: bool = False             # 14.13: played with the progressive locked
    contributions: list[Mapping[str, Any]] = field(default_factory=list)
    reversals: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def ended_us(self) -> int:
        return self.finished_us if self.finished_us is not None else self.started_us


@dataclass(frozen=True)
class Event:
    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: Mapping[str, Any]


@dataclass(frozen=True)
class Problem:
    """A record the report cannot use: in the report of its round's period, or of its own time."""

    time_us: int
    round_id: str | None        # a round that has started in the records read, else None
    text: str


@dataclass(frozen=True)
class ConfigStart:
    """A start of the daemon and the configuration it ran with (``config.started``, written by
    tabled/daemon/config_record.py before the start's first round)."""

    seq: int
    time_us: int
    sha256: str
    source: str
    first: bool                                 # the journal's first configuration: nothing to compare
    changes: tuple[Mapping[str, Any], ...]      # {key, before, after} since the configuration before it


@dataclass
class Gathered:
    rounds: dict[str, PlayedRound] = field(default_factory=dict)   # in the order they started
    events: list[Event] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    configs: list[ConfigStart] = field(default_factory=list)       # in time order


def _up_card(payload: Mapping[str, Any]) -> int | None:
    up = payload.get("dealer_up")
    if isinstance(up, list) and len(up) == 1:
        try:
            return parse_card(up[0])
        except CardError:
            return None
    return None  # two cards face up (7.4.2, 14.5): the exact counts are for one


def gather(records: Iterable[JournalRecord]) -> Gathered:
    out = Gathered()
    rounds = out.rounds
    for r in records:
        kind, p = r.kind, r.payload
        if kind == "round.started" and r.round_id is not None:
            rounds.setdefault(r.round_id, PlayedRound(r.round_id, r.time_us,
                                                      progressive_offline=bool(p.get("progressive_offline"))))
            continue
        if kind in EVENT_KINDS:
            out.events.append(Event(*placed(r), r.round_id, kind, p))
            continue
        if kind == "config.in_force":
            changes = p.get("changes")
            out.configs.append(ConfigStart(
                *placed(r), str(p.get("sha256", "?")), str(p.get("source", "?")), p.get("first") is True,
                tuple(c for c in changes if isinstance(c, dict) and "key" in c) if isinstance(changes, list) else ()))
            continue
        if kind in ("progressive.contributed", "progressive.reversed"):
            rid = p.get("round_id") or r.round_id
            played = rounds.get(rid) if isinstance(rid, str) else None
            if played is None:
                out.problems.append(Problem(placed(r)[1], None, f"record {r.seq}: {kind} for round {rid!r}, which "
                                                                 "has no round.started in the records read"))
                continue
            (played.contributions if kind == "progressive.contributed" else played.reversals).append(p)
            continue
        if r.round_id is None or kind not in ("round.dealt", "round.settled", "round.void", "round.finished"):
            continue
        played = rounds.get(r.round_id)
        if played is None:  # a round begun before the records read: it belongs to an earlier period
            continue
        if kind == "round.dealt":
            played.up_card = _up_card(p)
        elif kind == "round.void":
            played.void = p
        elif kind == "round.finished":
            played.finished_us = r.time_us
        elif played.settlement is not None and not supersedes(p, {"void": played.settlement.void}):
            out.problems.append(Problem(r.time_us, r.round_id, f"record {r.seq}: round {r.round_id} settled a "
                                                               "second time (ignored; run `tabled audit verify`)"))
        else:
            try:
                played.settlement = read_settlement(p)
            except SettlementError as exc:
                out.problems.append(Problem(r.time_us, r.round_id, f"record {r.seq}: round {r.round_id}: the "
                                                                   f"settlement cannot be read: {exc}"))
    out.events.sort(key=lambda e: (e.time_us, e.seq))  # notes written late go where they belong
    out.configs.sort(key=lambda c: (c.time_us, c.seq))
    return out

"""The journal's records gathered by round, and the table's other happenings in time order.

Every round is known by its ``round.started`` note (its start time: a round belongs to the period
in which it started) and settled by its ``round.settled`` note, read back into the
:class:`~tabled.game.settlement.Settlement` the fold computed. Pool records carry the round they
belong to in their payload (a reversal is written during the next round), and are filed under it.
A settlement that cannot be read back is kept as a problem, named in the report, never skipped
silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tabled.game.cards import CardError, parse_card
from tabled.game.round_facts import RoundError
from tabled.game.settlement import Settlement, settlement_from_dict

#: the happenings the integrity section reads, in time order
EVENT_KINDS = frozenset({
    "panel", "panel.approved", "panel.refused", "fault.raised", "fault.cleared", "equipment.fault",
    "equipment.ok", "shuffler.fault", "progressive.award_held", "progressive.award_released",
})


class JournalRecord(Protocol):
    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: dict[str, Any]


@dataclass
class PlayedRound:
    round_id: str
    started_us: int
    finished_us: int | None = None
    settlement: Settlement | None = None
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


@dataclass
class Gathered:
    rounds: dict[str, PlayedRound] = field(default_factory=dict)   # in the order they started
    events: list[Event] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    first_us: int | None = None
    last_us: int | None = None


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
        if out.first_us is None:
            out.first_us = r.time_us
        out.last_us = r.time_us
        kind, p = r.kind, r.payload
        if kind == "round.started" and r.round_id is not None:
            rounds.setdefault(r.round_id, PlayedRound(r.round_id, r.time_us,
                                                      progressive_offline=bool(p.get("progressive_offline"))))
            continue
        if kind in EVENT_KINDS:
            out.events.append(Event(r.seq, r.time_us, r.round_id, kind, p))
            continue
        if kind in ("pool.contributed", "pool.reversed"):
            rid = p.get("round_id") or r.round_id
            played = rounds.get(rid) if isinstance(rid, str) else None
            if played is None:
                out.problems.append(f"record {r.seq}: {kind} for round {rid!r}, which has no round.started "
                                    "in the records read")
                continue
            (played.contributions if kind == "pool.contributed" else played.reversals).append(p)
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
        elif played.settlement is not None:
            out.problems.append(f"record {r.seq}: round {r.round_id} settled a second time (ignored; "
                                "run `tabled audit verify`)")
        else:
            try:
                played.settlement = settlement_from_dict(p)
            except RoundError as exc:
                out.problems.append(f"record {r.seq}: round {r.round_id}: the settlement cannot be read: {exc}")
    return out

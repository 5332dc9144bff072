"""Integrity of a period: voids and irregularities by rule, faults and how long they stood, the
panel's key actions and refusals by key, the table's closures (16.8), and the 14.13 periods (an
equipment fault stops play until an inspector approves play with the progressive offline).

Every record read is a note of the fold (tabled/table/notes.py): an action under any key is its
``panel.approved`` (the key, the person with a staff list, the action and its fields), whether
the panel journaled a press or an action; a refusal its ``panel.refused``; a shuffling device's
own fault its ``shuffle.fault``.

Happenings count in the period in which they happened; a fault raised before the period and still
standing counts from the period's start, one cleared after it up to the period's end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tabled.game import keys
from tabled.game.round_facts import SpotStatus

from .mispays import Mispays, mispays
from .periods import Period
from .rounds import Event, PlayedRound

#: spot outcomes that are irregularities, and their rule
SPOT_RULES = {SpotStatus.VOID: "14.7", SpotStatus.ABSENT: "14.12", SpotStatus.DEAD: "NZ 14.1"}
#: panel actions that are irregularities (their rule from tabled/game/keys.py)
IRREGULAR_ACTIONS = ("misdeal", "exposed_card", "hand_without_ante", "invalidate_round", "void_player",
                     "dead_hand", "resolve_past_posting", "count_cards", "use_card_source")
#: the fault name of a shuffling device out of play until an inspector clears it (15.2)
DEVICE_OUT = "shuffler out of play"


@dataclass
class FaultSpell:
    equipment: str
    rule: str
    reason: str
    raised_us: int | None           # None: standing before the records read
    cleared_us: int | None          # None: still standing at the end of the records read
    minutes: float                  # within the period


@dataclass
class Stop:
    """A 14.13 period: from the first fault raised to the last one cleared."""

    start_us: int
    end_us: int | None
    approvals: int = 0              # inspector's approve_play
    rounds_offline: int = 0         # rounds played with the progressive offline


@dataclass
class Closure:
    """The table closed (16.8): announced, closed from ``closes_us`` (the notice's end; the round
    under way then finishes first) until a supervisor opened it again."""

    announced_us: int
    closes_us: int
    opened_us: int | None           # None: still closed at the end of the records read
    minutes: float = 0.0            # closed within the period


@dataclass
class ClockOffsets:
    """The clock's measured offsets in the period (tabled/table/clock.py) and its error conditions."""

    measured: int = 0
    least_ms: int | None = None
    most_ms: int | None = None
    beyond: int = 0                                         # measurements beyond their bound
    against: set[str] = field(default_factory=set)
    conditions: list[str] = field(default_factory=list)     # each error condition's reason as it began

    def take(self, p: Mapping[str, Any]) -> None:
        offset = p.get("offset_ms")
        if not isinstance(offset, int):
            return
        self.measured += 1
        self.least_ms = offset if self.least_ms is None else min(self.least_ms, offset)
        self.most_ms = offset if self.most_ms is None else max(self.most_ms, offset)
        self.beyond += not p.get("ok", True)
        self.against.add(str(p.get("against", "?")))


@dataclass
class Integrity:
    void_rounds: dict[str, int] = field(default_factory=dict)       # rule -> rounds
    irregularities: dict[str, int] = field(default_factory=dict)    # "rule what" -> count
    faults: list[FaultSpell] = field(default_factory=list)
    keys: dict[str, dict[str, int]] = field(default_factory=dict)   # key -> action -> times
    refusals: dict[str, dict[str, int]] = field(default_factory=dict)  # key -> "action (rule)" -> times
    # with a staff list (docs/staff.md): "key name (badge N)" -> action -> times, carried out and refused
    people: dict[str, dict[str, int]] = field(default_factory=dict)
    people_refused: dict[str, dict[str, int]] = field(default_factory=dict)
    stops: list[Stop] = field(default_factory=list)
    closures: list[Closure] = field(default_factory=list)
    mispays: Mispays = field(default_factory=Mispays)  # the board's check of the payments (9.3, 9.4)
    clock: ClockOffsets = field(default_factory=ClockOffsets)  # Mississippi 8-4.5
    installs: list[dict[str, Any]] = field(default_factory=list)   # 25 CFR 547.12: each install or upgrade
    restarts: list[dict[str, Any]] = field(default_factory=list)   # each start after an unclean stop

    @property
    def fault_minutes(self) -> float:
        return sum(f.minutes for f in self.faults)


def _person(p: Mapping[str, Any]) -> str | None:
    """The person a key action or refusal names, as the reports show them; None without a staff list."""
    if "person" not in p:
        return None
    return f"{p.get('key', '?')} {p.get('name') or '?'} (badge {p['person']})"


def _count(table: dict[str, int], key: str) -> None:
    table[key] = table.get(key, 0) + 1


def _overlap_minutes(start: int | None, end: int | None, period: Period) -> float:
    a = max(start if start is not None else period.start_us, period.start_us)
    b = min(end if end is not None else period.end_us, period.end_us)
    return max(b - a, 0) / 60_000_000


def integrity(period: Period, events: Iterable[Event], rounds: list[PlayedRound]) -> Integrity:
    """``events``: the happenings up to the period's end, in time order (those before its start
    tell which faults were standing); ``rounds``: the rounds that started in the period."""
    events = list(events)
    out = Integrity(mispays=mispays(period, events))
    for r in rounds:
        if r.void is not None:
            _count(out.void_rounds, str(r.void.get("rule", "?")))
            _count(out.irregularities, f"{r.void.get('rule', '?')} round void: {r.void.get('why', '?')}")
        if r.settlement is None:
            continue
        for spot in r.settlement.spots:
            rule = SPOT_RULES.get(spot.status)
            if rule and r.settlement.void is None:
                _count(out.irregularities, f"{rule} hand {spot.status.value}")
    standing: dict[str, FaultSpell] = {}
    device_out: FaultSpell | None = None  # 15.2: not a 14.13 stop; play may go on with the shoe
    stop: Stop | None = None
    closure: Closure | None = None
    for e in events:
        inside = period.holds(e.time_us)
        p = e.payload
        if e.kind == "fault.raised":
            equipment = str(p.get("equipment", "?"))
            if equipment not in standing:
                standing[equipment] = FaultSpell(equipment, str(p.get("rule", "?")), str(p.get("reason", "")),
                                                 e.time_us, None, 0.0)
            if stop is None:
                stop = Stop(e.time_us, None)
        elif e.kind == "fault.cleared":
            equipment = str(p.get("equipment", "?"))
            spell = standing.pop(equipment, None) or FaultSpell(equipment, "14.13", "raised before the records read",
                                                                None, None, 0.0)
            spell.cleared_us = e.time_us
            _close(out, spell, period)
            if not standing and stop is not None:
                stop.end_us = e.time_us
                _keep_stop(out, stop, period)
                stop = None
        elif e.kind == "device.out_of_play" and device_out is None:
            device_out = FaultSpell(DEVICE_OUT, str(p.get("rule", "15.2")), str(p.get("reason", "")), e.time_us,
                                    None, 0.0)
        elif e.kind == "device.cleared":
            spell = device_out or FaultSpell(DEVICE_OUT, "15.2", "raised before the records read", None, None, 0.0)
            spell.cleared_us, device_out = e.time_us, None
            _close(out, spell, period)
        elif e.kind == "progressive.award_held" and inside:
            # 14.13, 9.5: the pool could not be reached when the round was decided
            for _ in p.get("spots") or [None]:
                _count(out.irregularities, "14.13 progressive award held")
        elif e.kind == "software.install" and inside:
            out.installs.append({k: p.get(k) for k in ("what", "result", "version", "started", "ended", "by",
                                                        "manifest_sha256")})
        elif e.kind == "power.restored" and inside:
            out.restarts.append({"at_us": e.time_us, "last_seq": p.get("last_seq"), "down_s": p.get("down_s")})
        elif e.kind == "clock.offset" and inside:
            out.clock.take(p)
        elif e.kind == "clock.fault" and inside and p.get("standing"):
            out.clock.conditions.append(str(p.get("reason", "?")))
        elif e.kind == "shuffle.fault" and inside:
            _count(out.irregularities, f"{p.get('rule', '15.1')} shuffling device fault: {p.get('fault', '?')}")
        elif e.kind == "shuffle.alarm" and inside:
            # the shuffle watch: the order left too much of the deck's previous order (15.1); again
            # and again of late, the device out of play (15.2)
            what = "deck reshuffled" if p.get("rule") == "15.1" else "device out of play"
            _count(out.irregularities, f"{p.get('rule', '?')} shuffle alarm, not intermixing: {what}")
        elif e.kind == "panel.approved":
            action = str(p.get("action", "?"))
            if action in ("open_table", "announce_closure"):
                closure = _closing(out, closure, action, p, e.time_us, period)
            if not inside:
                continue
            _count(out.keys.setdefault(str(p.get("key", "?")), {}), action)
            if person := _person(p):
                _count(out.people.setdefault(person, {}), action)
            _action_done(out, action, stop)
        elif e.kind == "panel.refused" and inside:
            if person := _person(p):
                _count(out.people_refused.setdefault(person, {}), f"{p.get('action', '?')} ({p.get('rule', '?')})")
            key = str(p.get("key", "?"))
            out.refusals.setdefault(key, {})
            _count(out.refusals[key], f"{p.get('action', '?')} ({p.get('rule', '?')})")
    for spell in [*standing.values(), *([device_out] if device_out else [])]:
        _close(out, spell, period)
    if stop is not None:
        _keep_stop(out, stop, period)
    if closure is not None:
        _keep_closure(out, closure, period)
    for s in out.stops:
        s.rounds_offline = sum(1 for r in rounds if r.progressive_offline
                               and s.start_us <= r.started_us < (s.end_us if s.end_us is not None else period.end_us))
    return out


def _action_done(out: Integrity, action: str, stop: Stop | None) -> None:
    """An action the table took under a key: an irregularity, or an inspector's approval (14.13)."""
    if action in IRREGULAR_ACTIONS:
        _count(out.irregularities, f"{keys.ACTIONS[action][1]} {action.replace('_', ' ')}")
    if action == "approve_play" and stop is not None:
        stop.approvals += 1


def _closing(out: Integrity, closure: Closure | None, action: str, p: Mapping[str, Any], time_us: int,
             period: Period) -> Closure | None:
    """16.8: a closure announced (effective after its notice, ``minutes`` from now or at ``at_ms``),
    or the table opened again (the end of the closure, once it has taken effect)."""
    if action == "announce_closure":
        minutes, at_ms = p.get("minutes"), p.get("at_ms")
        if type(minutes) is int:  # a bool is not minutes
            closes = time_us + minutes * 60_000_000
        elif type(at_ms) is int:
            closes = at_ms * 1000
        else:
            return closure
        if closure is not None and closure.opened_us is None and closure.closes_us <= time_us:
            return closure  # already closed: a closure announced while closed changes nothing
        return Closure(time_us, closes, None)
    if closure is not None and closure.closes_us <= time_us:
        closure.opened_us = time_us
        _keep_closure(out, closure, period)
        return None
    return closure  # opened while still open (the table refuses it): the closure still comes


def _keep_closure(out: Integrity, closure: Closure, period: Period) -> None:
    closure.minutes = _overlap_minutes(closure.closes_us, closure.opened_us, period)
    if closure.minutes > 0 or period.holds(closure.announced_us):
        out.closures.append(closure)


def _close(out: Integrity, spell: FaultSpell, period: Period) -> None:
    spell.minutes = _overlap_minutes(spell.raised_us, spell.cleared_us, period)
    if spell.minutes > 0 or (spell.raised_us is not None and period.holds(spell.raised_us)):
        out.faults.append(spell)


def _keep_stop(out: Integrity, stop: Stop, period: Period) -> None:
    if _overlap_minutes(stop.start_us, stop.end_us, period) > 0 or period.holds(stop.start_us):
        out.stops.append(stop)

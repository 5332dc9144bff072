"""Game protection over a period, from the journal: does any spot's play follow cards it should not
have seen? (tabled.math.protection; docs/mathematics.md, "Game protection".)

Each settled round gives, for every spot that decided (8.1: bet, 8.5, or fold, 8.3), the cards it
held, the dealer's up card (``round.dealt``), the dealer's hole cards in the order dealt and the
hands of the other spots (``round.settled``). Who sat where is read from the fold's player notes
(``player.seated``: a player card, or play without one, took a spot; ``player.rating`` not
interim: that session ended): a player identified with a card is weighed as one player across
spots and sessions, anyone else as their spot. Every player's decisions are weighed in round
order; an alert names the spot and the player (the card masked), the hypothesis the decisions
follow, the rounds that carry the evidence (their cards, the decision, the time from the table's
clock with its measured offset, and the journal records to show on the recorded video) and the
chance an honest player's evidence ever reached what this one did. An alert is evidence for
people: it changes nothing at the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from tabled.game.cards import CardError, card_text, parse_card, parse_cards
from tabled.math import protection
from tabled.math.paytable import Paytable
from tabled.table.players import masked

from .rounds import JournalRecord

#: the journal records the report reads: the fold's notes of each round, who sits where, the clock
KINDS = ("round.started", "round.dealt", "round.settled", "round.finished", "player.seated", "player.rating",
         "clock.offset")
#: the spots' statuses that are a decision: bet or fold (8.1)
DECIDED = {"played": True, "folded": False}


@dataclass
class Decided:
    """One spot's decision in one round, with what the journal says of it."""

    round_id: str
    time_us: int
    spot: int
    bet: bool
    cards: tuple[int, ...]
    up: int
    holes: tuple[int, ...]
    others: tuple[tuple[int, tuple[int, ...]], ...]  # (offset, hand) of every other spot dealt a hand
    seqs: tuple[int, ...]   # the round's journal records
    card: str | None = None  # the player card seated at the spot, when one was
    clock: Mapping[str, Any] | None = None  # the table clock's last ``clock.offset`` before the round


class Seating:
    """Who sits at which spot, from the fold's notes as they come: ``player.seated`` (a session,
    with its card or anonymous, took a spot) and ``player.rating`` when not interim (the session
    ended, its spot is free)."""

    KINDS = ("player.seated", "player.rating")

    def __init__(self) -> None:
        self.at: dict[int, tuple[str, str | None]] = {}  # spot -> (session, card)

    def take(self, kind: str, payload: Mapping[str, Any]) -> None:
        session = payload.get("session")
        if kind == "player.rating" and payload.get("interim"):
            return
        if kind in self.KINDS:
            self.at = {s: v for s, v in self.at.items() if v[0] != session}
        spot, card = payload.get("spot"), payload.get("card")
        if kind == "player.seated" and isinstance(spot, int) and isinstance(session, str):
            self.at[spot] = (session, card if isinstance(card, str) else None)

    def cards(self) -> dict[int, str]:
        """The player card at each spot that holds one."""
        return {s: card for s, (_, card) in self.at.items() if card is not None}


@dataclass
class SpotEvidence:
    """One player's evidence: a player card's across the spots it sat at, or a spot's."""

    spot: int                  # the spot of its last decision
    evidence: protection.Evidence
    decided: dict[int, Decided] = field(default_factory=dict)  # by the player's decision number
    card: str | None = None
    spots: set[int] = field(default_factory=set)

    @property
    def alert(self) -> bool:
        return self.evidence.alert_round is not None

    @property
    def who(self) -> str:
        """The player as pages and reports name it: the card masked, with its spots; or the spot."""
        if self.card is None:
            return f"spot {self.spot}"
        return f"player {masked(self.card)} (spot{'s' if len(self.spots) > 1 else ''} " \
               f"{', '.join(map(str, sorted(self.spots)))})"


def subject(d: Decided) -> str:
    """Whose evidence a decision adds to: the player card's, or the spot's."""
    return f"card {d.card}" if d.card is not None else f"spot {d.spot}"


def decisions_of(records: Iterable[JournalRecord], start_us: int | None = None,
                 end_us: int | None = None) -> tuple[list[Decided], list[str]]:
    """Every decided spot of the rounds started in [start_us, end_us), in round order, and the
    rounds that could not be read (named, never skipped silently)."""
    rounds: dict[str, dict[str, Any]] = {}
    seating = Seating()
    clock: Mapping[str, Any] | None = None
    for r in records:
        if r.kind not in KINDS:
            continue
        if r.kind in Seating.KINDS:
            seating.take(r.kind, r.payload)
        elif r.kind == "clock.offset":
            clock = r.payload
        rid = r.round_id
        if rid is None:
            continue
        if r.kind == "round.started":
            if (start_us is None or r.time_us >= start_us) and (end_us is None or r.time_us < end_us):
                rounds[rid] = {"time_us": r.time_us, "seqs": [r.seq], "clock": clock}
            continue
        if rid not in rounds:
            continue
        if r.kind in ("round.dealt", "round.settled", "round.finished"):
            rounds[rid]["seqs"].append(r.seq)
            rounds[rid][r.kind] = r.payload
        if r.kind == "round.settled":
            rounds[rid]["cards"] = seating.cards()
    out: list[Decided] = []
    problems: list[str] = []
    for rid, got in rounds.items():
        if "round.settled" not in got or "round.dealt" not in got:
            continue
        try:
            out += round_decisions(rid, got)
        except (KeyError, TypeError, ValueError, CardError) as exc:
            problems.append(f"round {rid}: its cards cannot be read ({exc})")
    return out, problems


def round_decisions(rid: str, got: Mapping[str, Any]) -> list[Decided]:
    """The decided spots of one round: ``got`` holds its ``round.dealt`` and ``round.settled``
    payloads, its start time (``time_us``), its journal records (``seqs``) and the player cards
    seated when it settled (``cards``: spot -> card, optional) and the table clock's last measured
    offset before it (``clock``: a ``clock.offset`` payload, optional)."""
    settled, dealt = got["round.settled"], got["round.dealt"]
    if settled.get("void"):
        return []
    up_cards = dealt.get("dealer_up")
    if not isinstance(up_cards, list) or len(up_cards) != 1:
        return []  # two cards face up (7.4.2, 14.5): no decision was taken on one up card
    up = parse_card(up_cards[0])
    dealer = parse_cards(settled["dealer"]["cards"])
    if len(dealer) != 5 or up not in dealer:
        return []
    holes = tuple(c for c in dealer if c != up)
    hands = {int(s["spot"]): (str(s["status"]), parse_cards(s["cards"])) for s in settled["spots"]}
    seated = got.get("cards") or {}
    out = []
    for spot, (status, cards) in hands.items():
        if status not in DECIDED or len(cards) != 5:
            continue
        others = tuple((n - spot, other) for n, (_, other) in sorted(hands.items())
                       if n != spot and abs(n - spot) <= protection.MAX_OFFSET and len(other) == 5)
        out.append(Decided(rid, int(got["time_us"]), spot, DECIDED[status], cards, up, holes, others,
                           tuple(got["seqs"]), seated.get(spot), got.get("clock")))
    return out


def facts_of(decided: list[Decided], paytable: Paytable, rng: np.random.Generator) -> list[protection.Decision]:
    """Each decision weighed (tabled.math.protection), vectorised a few hundred at a time."""
    facts: list[protection.Decision] = []
    for start in range(0, len(decided), 200):
        part = decided[start:start + 200]
        seats = protection.no_seats(len(part))
        for row, d in enumerate(part):
            for offset, hand in d.others:
                seats[row, protection.seat(offset)] = hand
        facts += protection.decisions(np.array([d.cards for d in part]), np.array([d.up for d in part]),
                                      np.array([d.holes for d in part]), seats, paytable, rng)
    return facts


def add(players: dict[str, SpotEvidence], d: Decided, fact: protection.Decision) -> SpotEvidence:
    """Count one decision in its player's evidence (a card's, else the spot's)."""
    se = players.setdefault(subject(d), SpotEvidence(d.spot, protection.Evidence(), card=d.card))
    se.spot = d.spot
    se.spots.add(d.spot)
    number = se.evidence.rounds + 1
    se.decided[number] = d
    se.evidence.add(d.bet, fact, number)
    return se


def weigh(decided: list[Decided], paytable: Paytable, seed: int = 0) -> dict[str, SpotEvidence]:
    """Every player's evidence over the decisions, in order: the spots' first, then the cards'.
    ``seed``: the other spots' draws (the evidence is exact for any seed; the seed makes a report
    repeatable)."""
    players: dict[str, SpotEvidence] = {}
    for d, fact in zip(decided, facts_of(decided, paytable, np.random.default_rng(seed)), strict=True):
        add(players, d, fact)
    return dict(sorted(players.items(), key=lambda kv: (kv[1].card is not None, kv[1].card or "", kv[1].spot)))


def _when(time_us: int) -> str:
    return datetime.fromtimestamp(time_us / 1e6, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def clock_text(clock: Mapping[str, Any] | None) -> str:
    """The table clock's measured offset as the pack gives it beside a round's time (a
    ``clock.offset`` note's payload), or that it was not measured."""
    if clock is None:
        return "offset not measured"
    try:
        offset, against, bound, ok = (clock["offset_ms"], clock["against"], clock["bound_ms"], clock["ok"])
    except KeyError as exc:
        return f"offset unreadable (no {exc.args[0]})"
    if not (isinstance(offset, int) and isinstance(bound, int) and isinstance(ok, bool) and isinstance(against, str)):
        return f"offset unreadable ({dict(clock)!r})"
    return (f"table clock {offset:+d} ms against {against} (within {bound} ms)"
            + ("" if ok else ", outside what the table allows"))


def pack(se: SpotEvidence, hypothesis: str | None = None, most: int = 20) -> list[dict[str, Any]]:
    """The surveillance pack: the rounds that carry the most evidence for the hypothesis, with the
    cards, the decision, the table's time with the clock's measured offset, and the journal
    records of each round."""
    h = hypothesis or se.evidence.leading
    carriers = sorted((c for c in se.evidence.carriers if c[1] == h), key=lambda c: -c[2])[:most]
    out = []
    for number, _, weight in sorted(carriers):
        d = se.decided[number]
        clock = dict(d.clock) if d.clock is not None else None
        out.append({"round_id": d.round_id, "time": _when(d.time_us), "time_us": d.time_us,
                    "clock": clock_text(clock), "clock_offset": clock, "spot": d.spot,
                    "player": masked(d.card) if d.card else None,
                    "decision": "bet" if d.bet else "fold", "cards": [card_text(c) for c in d.cards],
                    "up": card_text(d.up), "holes": [card_text(c) for c in d.holes],
                    "others": {str(d.spot + k): [card_text(c) for c in hand] for k, hand in d.others},
                    "ln_factor_milli": round(1000 * weight), "records": list(d.seqs)})
    return out


def summary(se: SpotEvidence) -> dict[str, Any]:
    ev = se.evidence
    h = ev.leading
    return {"spot": se.spot, "player": masked(se.card) if se.card else None, "spots": sorted(se.spots),
            "who": se.who, "decisions": ev.rounds, "evidence": ev.evidence, "peak": ev.peak,
            "honest_probability": ev.honest_probability, "alert": se.alert, "alert_round": ev.alert_round,
            "hypothesis": h, "hypothesis_text": protection.HYPOTHESES[h],
            "follows": protection.follows(h, se.spot if len(se.spots) == 1 else None),
            "gain_antes": {k: round(v, 3) for k, v in ev.gain.items()},
            # the evidence a player following each hypothesis on every round would have built (ln)
            "power_ln": {k: round(v, 2) for k, v in ev.power.items()}}


def text(spots: dict[str, SpotEvidence], name: str, problems: list[str]) -> str:
    lines = [f"protection: {name}",
             f"alert when the evidence reaches {1 / protection.ALERT_ALPHA:,.0f} (an honest player reaches it "
             f"with probability at most {protection.ALERT_ALPHA:g}, Ville's inequality)"]
    if not spots:
        lines.append("no decisions in the period")
    for se in spots.values():
        s = summary(se)
        flag = "ALERT" if s["alert"] else "no alert"
        lines.append(f"{se.who}: {s['decisions']} decisions; evidence {s['evidence']:.3g} (peak {s['peak']:.3g}, "
                     f"honest probability <= {s['honest_probability']:.2g}); {flag}; leading: "
                     f"{s['follows']}; gain over the honest optimum "
                     f"{s['gain_antes'].get(s['hypothesis'], 0.0):+.2f} antes")
        power = ", ".join(f"{h} {v / protection.alert_ln(h):.1f}x" for h, v in s["power_ln"].items())
        lines.append(f"  power: a player following every hypothesis on every round would have reached "
                     f"(in ln, as a multiple of the alert's): {power}")
        if s["alert"]:
            lines.append(f"  alert at decision {s['alert_round']}: the decisions follow {s['follows']}; "
                         f"surveillance pack:")
            for row in pack(se):
                lines.append(f"    {row['time']} ({row['clock']}) {row['round_id']} spot {row['spot']} records "
                             f"{row['records'][0]}-{row['records'][-1]}: "
                             f"{' '.join(row['cards'])} vs up {row['up']} (hole {' '.join(row['holes'])}): "
                             f"{row['decision']} (ln factor {row['ln_factor_milli'] / 1000:.3f})")
    lines += [f"problem: {p}" for p in problems]
    return "\n".join(lines)

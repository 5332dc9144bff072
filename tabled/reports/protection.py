"""Game protection over a period, from the journal: does any spot's play follow cards it should not
have seen? (tabled.math.protection; docs/mathematics.md, "Game protection".)

Each settled round gives, for every spot that decided (8.1: bet, 8.5, or fold, 8.3), the cards it
held, the dealer's up card (``round.dealt``), the dealer's hole cards in the order dealt and the
hands of the spots within two seats (``round.settled``). Every spot's decisions are weighed in
round order; an alert names the spot, the hypothesis its decisions follow, the rounds that carry
the evidence (their cards, the decision, the time and the journal records to show on the recorded
video) and the chance an honest player's evidence ever reached what this one did. An alert is
evidence for people: it changes nothing at the table.
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

from .rounds import JournalRecord

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
    neighbours: tuple[int, ...]
    seqs: tuple[int, ...]   # the round's journal records


@dataclass
class SpotEvidence:
    spot: int
    evidence: protection.Evidence
    decided: dict[int, Decided] = field(default_factory=dict)  # by the spot's decision number

    @property
    def alert(self) -> bool:
        return self.evidence.alert_round is not None


def decisions_of(records: Iterable[JournalRecord], start_us: int | None = None,
                 end_us: int | None = None) -> tuple[list[Decided], list[str]]:
    """Every decided spot of the rounds started in [start_us, end_us), in round order, and the
    rounds that could not be read (named, never skipped silently)."""
    rounds: dict[str, dict[str, Any]] = {}
    for r in records:
        rid = r.round_id
        if rid is None:
            continue
        if r.kind == "round.started":
            if (start_us is None or r.time_us >= start_us) and (end_us is None or r.time_us < end_us):
                rounds[rid] = {"time_us": r.time_us, "seqs": [r.seq]}
            continue
        if rid not in rounds:
            continue
        if r.kind in ("round.dealt", "round.settled", "round.finished"):
            rounds[rid]["seqs"].append(r.seq)
            rounds[rid][r.kind] = r.payload
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
    payloads, its start time (``time_us``) and its journal records (``seqs``)."""
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
    out = []
    for spot, (status, cards) in hands.items():
        if status not in DECIDED or len(cards) != 5:
            continue
        near = tuple(c for n, (_, other) in sorted(hands.items())
                     if n != spot and abs(n - spot) <= protection.NEIGHBOUR_REACH and len(other) == 5
                     for c in other)
        out.append(Decided(rid, int(got["time_us"]), spot, DECIDED[status], cards, up, holes, near,
                           tuple(got["seqs"])))
    return out


def weigh(decided: list[Decided], paytable: Paytable, seed: int = 0) -> dict[int, SpotEvidence]:
    """Every spot's evidence over the decisions, in order. ``seed``: the neighbours' draws (the
    evidence is exact for any seed; the seed makes a report repeatable)."""
    rng = np.random.default_rng(seed)
    spots: dict[int, SpotEvidence] = {}
    # one batch per number of neighbours' cards (the weighing is vectorised over equal shapes)
    facts: list[protection.Decision | None] = [None] * len(decided)
    by_size: dict[int, list[int]] = {}
    for i, d in enumerate(decided):
        by_size.setdefault(len(d.neighbours), []).append(i)
    for size, idx in by_size.items():
        for start in range(0, len(idx), 200):
            part = idx[start:start + 200]
            nb = np.array([decided[i].neighbours for i in part], dtype=np.int64) if size else None
            got = protection.decisions(np.array([decided[i].cards for i in part]),
                                       np.array([decided[i].up for i in part]),
                                       np.array([decided[i].holes for i in part]), nb, paytable, rng)
            for i, weighed in zip(part, got, strict=True):
                facts[i] = weighed
    for d, fact in zip(decided, facts, strict=True):
        assert fact is not None
        se = spots.setdefault(d.spot, SpotEvidence(d.spot, protection.Evidence()))
        number = se.evidence.rounds + 1
        se.decided[number] = d
        se.evidence.add(d.bet, fact, number)
    return dict(sorted(spots.items()))


def _when(time_us: int) -> str:
    return datetime.fromtimestamp(time_us / 1e6, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"


def pack(se: SpotEvidence, hypothesis: str | None = None, most: int = 20) -> list[dict[str, Any]]:
    """The surveillance pack: the rounds that carry the most evidence for the hypothesis, with the
    cards, the decision, the table's time and the journal records of each round."""
    h = hypothesis or se.evidence.leading
    carriers = sorted((c for c in se.evidence.carriers if c[1] == h), key=lambda c: -c[2])[:most]
    out = []
    for number, _, weight in sorted(carriers):
        d = se.decided[number]
        out.append({"round_id": d.round_id, "time": _when(d.time_us), "time_us": d.time_us, "spot": d.spot,
                    "decision": "bet" if d.bet else "fold", "cards": [card_text(c) for c in d.cards],
                    "up": card_text(d.up), "holes": [card_text(c) for c in d.holes],
                    "neighbours": [card_text(c) for c in d.neighbours], "ln_factor_milli": round(1000 * weight),
                    "records": list(d.seqs)})
    return out


def summary(se: SpotEvidence) -> dict[str, Any]:
    ev = se.evidence
    h = ev.leading
    return {"spot": se.spot, "decisions": ev.rounds, "evidence": ev.evidence, "peak": ev.peak,
            "honest_probability": ev.honest_probability, "alert": se.alert, "alert_round": ev.alert_round,
            "hypothesis": h, "hypothesis_text": protection.HYPOTHESES[h],
            "gain_antes": {k: round(v, 3) for k, v in ev.gain.items()},
            # the evidence a player following each hypothesis on every round would have built (ln)
            "power_ln": {k: round(v, 2) for k, v in ev.power.items()}}


def text(spots: dict[int, SpotEvidence], name: str, problems: list[str]) -> str:
    alert_ln = float(np.log(len(protection.HYPOTHESES) * len(protection.EPSILONS) / protection.ALERT_ALPHA))
    lines = [f"protection: {name}",
             f"alert when the evidence reaches {1 / protection.ALERT_ALPHA:,.0f} (an honest player reaches it "
             f"with probability at most {protection.ALERT_ALPHA:g}, Ville's inequality)"]
    if not spots:
        lines.append("no decisions in the period")
    for se in spots.values():
        s = summary(se)
        flag = "ALERT" if s["alert"] else "no alert"
        lines.append(f"spot {se.spot}: {s['decisions']} decisions; evidence {s['evidence']:.3g} (peak {s['peak']:.3g}, "
                     f"honest probability <= {s['honest_probability']:.2g}); {flag}; leading: "
                     f"{s['hypothesis_text']}; gain over the honest optimum "
                     f"{s['gain_antes'].get(s['hypothesis'], 0.0):+.2f} antes")
        power = ", ".join(f"{h} {v / alert_ln:.1f}x" for h, v in s["power_ln"].items())
        lines.append(f"  power: a player following every hypothesis on every round would have reached "
                     f"(in ln, as a multiple of the alert's): {power}")
        if s["alert"]:
            lines.append(f"  alert at decision {s['alert_round']}: the decisions follow {s['hypothesis_text']}; "
                         f"surveillance pack:")
            for row in pack(se):
                lines.append(f"    {row['time']} {row['round_id']} records {row['records'][0]}-{row['records'][-1]}: "
                             f"{' '.join(row['cards'])} vs up {row['up']} (hole {' '.join(row['holes'])}): "
                             f"{row['decision']} (ln factor {row['ln_factor_milli'] / 1000:.3f})")
    lines += [f"problem: {p}" for p in problems]
    return "\n".join(lines)

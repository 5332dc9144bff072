"""The shuffling device's randomness over a period, from the journal: every shuffle whose order the
device read, with the table's verdict on it (``shuffle.read``: tabled/game/shuffle_watch.py), and
the alarms the table raised (``shuffle.alarm``, 15.1 / 15.2). Notes only: the report takes the
table's judgement as the journal holds it.

Per deck of each device (the table's first, then each one brought in under 15.2.2, judged from its
own shuffles on; new cards, 3.6, start their deck's comparison again, as at the table): the
shuffles judged, the mean rising sequences and pairs kept (a random shuffle of 52
gives about 26.5 and 51/52), the smallest tail probability seen, the alarms, and whether every card
was equally likely at every position over the period's shuffles (the chi-square over the
card-by-position counts against its simulated null, :mod:`tabled.reports.positions`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tabled.game.shuffle_watch import DECK, check_order

from .positions import MIN_SHUFFLES, PositionsTest, positions_test
from .rounds import JournalRecord, placed

#: the records the shuffle report reads
KINDS = ("panel.approved", "shuffle.alarm", "shuffle.read")


@dataclass
class DeckShuffles:
    deck: str
    device: int = 1                 # the table's first shuffling device, then each one brought in (15.2.2)
    judged: int = 0
    rising_total: int = 0
    kept_total: int = 0
    least_p: float = 1.0
    alarms: list[dict[str, Any]] = field(default_factory=list)
    orders: list[list[int]] = field(default_factory=list, repr=False)

    @property
    def positions(self) -> PositionsTest | None:
        """Every card equally likely at every position over the period, or None under MIN_SHUFFLES
        shuffles read."""
        return positions_test(self.orders)

    @property
    def label(self) -> str:
        return self.deck if self.device == 1 else f"{self.deck} (device {self.device})"

    @property
    def mean_rising(self) -> float | None:
        return self.rising_total / self.judged if self.judged else None

    @property
    def mean_kept(self) -> float | None:
        return self.kept_total / self.judged if self.judged else None


def shuffles(records: Iterable[JournalRecord], start_us: int | None = None,
             end_us: int | None = None) -> dict[str, DeckShuffles]:
    """Each deck's shuffles as the table judged them, with its alarms, in journal order; with a span
    [start_us, end_us), only the shuffles and alarms in it."""
    def inside(time_us: int) -> bool:
        return (start_us is None or time_us >= start_us) and (end_us is None or time_us < end_us)

    decks: dict[str, DeckShuffles] = {}
    device, judged_before = 1, False

    def of(deck: str) -> DeckShuffles:
        return decks.setdefault(deck if device == 1 else f"{deck} (device {device})", DeckShuffles(deck, device))

    for seq, time_us, kind, p in sorted(((*placed(r), r.kind, r.payload) for r in records if r.kind in KINDS),
                                        key=lambda x: x[0]):
        if kind == "panel.approved":
            # another device (15.2.2) is reported from its own shuffles on, under its own name
            if p.get("action") == "use_card_source" and judged_before:
                device, judged_before = device + 1, False
            continue
        if not inside(time_us):
            continue
        if kind == "shuffle.alarm":
            of(str(p.get("deck"))).alarms.append({"seq": seq, "time_us": time_us, "rule": p.get("rule"),
                                                  "why": p.get("why")})
            continue
        deck, cards, judged = str(p.get("deck")), p.get("cards"), p.get("judged")
        judged_before = True
        if isinstance(cards, list) and not check_order(list(range(DECK)), cards):
            of(deck).orders.append(list(cards))
        if isinstance(judged, dict):
            found = of(deck)
            found.judged += 1
            found.rising_total += int(judged["rising"])
            found.kept_total += int(judged["kept"])
            found.least_p = min(found.least_p, float(judged["p_rising"]), float(judged["p_kept"]),
                                float(judged["p_window"]))
    return dict(sorted(decks.items(), key=lambda item: (item[1].device, item[1].deck)))


def shuffles_text(decks: dict[str, DeckShuffles]) -> str:
    if not decks:
        return "no shuffle whose order the device read (a device without card recognition reports none)"
    lines = ["deck  shuffles judged  mean rising sequences  mean pairs kept  least tail probability  alarms"
             "  positions (chi-square, P)"]
    for d in decks.values():
        rising = f"{d.mean_rising:.2f}" if d.mean_rising is not None else "-"
        kept = f"{d.mean_kept:.2f}" if d.mean_kept is not None else "-"
        pos = d.positions
        shown = pos.describe() if pos else f"under {MIN_SHUFFLES} shuffles"
        lines.append(f"{d.label:4}  {d.judged:15}  {rising:>21}  {kept:>15}  {d.least_p:22.2e}  {len(d.alarms):6}"
                     f"  {shown}")
    for d in decks.values():
        for a in d.alarms:
            lines.append(f"  deck {d.label}: alarm at record {a['seq']} ({a['rule']}): {a['why']}")
    lines.append("a random shuffle of 52 cards: 26.5 rising sequences and 0.98 pairs kept on average; "
                 "the table alarms at a tail probability below 2.5e-7 (docs/mathematics.md)")
    return "\n".join(lines)


def shuffles_data(decks: dict[str, DeckShuffles]) -> list[dict[str, Any]]:
    out = []
    for d in decks.values():
        pos = d.positions
        out.append({"deck": d.deck, "device": d.device, "judged": d.judged, "mean_rising_sequences": d.mean_rising,
                    "mean_pairs_kept": d.mean_kept, "least_tail_probability": d.least_p, "alarms": d.alarms,
                    "positions": None if pos is None else {
                        "shuffles": pos.shuffles, "chi_square": pos.chi_square, "degrees": pos.degrees,
                        "simulated_as_large": pos.as_large, "replicates": pos.replicates,
                        "p_value": pos.p_value}})
    return out


__all__ = ["DeckShuffles", "shuffles", "shuffles_text", "shuffles_data", "KINDS"]

"""The shuffling device's randomness over a period, from the journal: every shuffle whose order the
device read (``shuffler.shuffled`` with its cards), judged again as the table judged it
(tabled/game/shuffle_watch.py), and the alarms the table raised (``shuffle.alarm``, 15.1 / 15.2).

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

from tabled.game.shuffle_watch import DECK, ShuffleWatch, check_order

from .positions import MIN_SHUFFLES, PositionsTest, positions_test
from .rounds import JournalRecord


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
    """Each deck's shuffles judged again in journal order, with the table's alarms; with a span
    [start_us, end_us), only the shuffles and alarms in it (the order before it is still each
    deck's first reference, and the watch's window runs on from before it, as the table's did)."""
    def inside(time_us: int) -> bool:
        return (start_us is None or time_us >= start_us) and (end_us is None or time_us < end_us)

    decks: dict[str, DeckShuffles] = {}
    last: dict[str, list[int]] = {}
    watches: dict[str, ShuffleWatch] = {}
    device = 1

    def of(deck: str) -> DeckShuffles:
        return decks.setdefault(deck if device == 1 else f"{deck} (device {device})", DeckShuffles(deck, device))

    for r in records:
        p = r.payload
        if r.kind in ("panel", "panel.approved") and p.get("action") in ("new_cards", "use_card_source",
                                                                          "clear_device"):
            # as the table does: new cards (3.6) have no order to compare with; another device
            # (15.2.2) is judged from its own shuffles on, under its own name; the device an
            # inspector cleared (15.2) keeps its name and starts again on new cards
            if p["action"] == "new_cards":
                last.pop(str(p.get("deck")), None)
                watches.pop(str(p.get("deck")), None)
            elif p["action"] == "clear_device":
                last.clear()
                watches.clear()
            elif last or watches:
                last.clear()
                watches.clear()
                device += 1
            continue
        if r.kind == "shuffle.alarm":
            if not inside(r.time_us):
                watches.pop(str(p.get("deck")), None)
                continue
            found = of(str(p.get("deck")))
            found.alarms.append({"seq": r.seq, "time_us": r.time_us, "rule": p.get("rule"), "why": p.get("why")})
            watches.pop(str(p.get("deck")), None)  # the table starts the deck's window again
            continue
        if r.kind != "shuffler.shuffled" or not isinstance(p.get("cards"), list):
            continue
        deck, cards, counted = str(p.get("deck")), p["cards"], inside(r.time_us)
        if counted and not check_order(list(range(DECK)), cards):
            of(deck).orders.append(list(cards))
        before = last.get(deck)
        if before is None or check_order(before, cards):
            last[deck] = list(cards)
            continue
        verdict = watches.setdefault(deck, ShuffleWatch()).judge(before, cards)
        if not counted:
            last[deck] = list(cards)
            continue
        found = of(deck)
        found.judged += 1
        found.rising_total += verdict.rising
        found.kept_total += verdict.kept
        found.least_p = min(found.least_p, verdict.p_rising, verdict.p_kept, verdict.p_window)
        last[deck] = list(cards)
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


__all__ = ["DeckShuffles", "shuffles", "shuffles_text", "shuffles_data"]

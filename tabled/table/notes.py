"""What the fold concludes, written down as notes when it concludes it.

The slip, the reports, the pit and the floor read these notes and never an input: what an input
meant is decided once, here in the fold, and journaled with the input's batch (tabled/table/kinds.py
lists every note). Each function returns the note of one judgement, or none when there is nothing
to write down.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tabled.game.shuffle_watch import Verdict
from tabled.table.effects import Json, Note

if TYPE_CHECKING:
    from tabled.table.round import Round

#: a fault on the dealer's screen (tabled/views/screen.py) raised by a device, and its rule
DEVICE_FAULTS = {"shuffler": "15.2", "door": "15.2", "shoe_off": "7.3", "unread": "7.3"}
#: what of a start's configuration its note keeps (the settings themselves stay in the input)
CONFIG_FIELDS = ("sha256", "source", "first", "changes")


def award_paid(r: Round, spot: int, key: str | None, person: Mapping[str, Any]) -> Note:
    """9.5: ``spot``'s progressive award confirmed paid, under ``key`` (and by the person signed in
    to it), with the award as the pool determined it (12.1)."""
    awards = (r.awards or {}).get("awards") or []
    award: Mapping[str, Any] = next((a for a in awards if a.get("spot") == spot), {})
    return Note("progressive.award_paid", {
        "spot": spot, "category": award.get("category"), "amount_cents": award.get("amount_cents"),
        "from_pool_cents": award.get("from_pool_cents"), "operator_topup_cents": award.get("operator_topup_cents"),
        "key": key, **person, "rule": "9.5"}, r.round_id)


def awarded(round_id: str, pool: Any, result: Mapping[str, Any]) -> Note:
    """The round's progressive awards as the pool determined them (9.6, 12.1 - 12.4)."""
    return Note("progressive.awarded", {"pool": pool, "result": dict(result)}, round_id)


def pool_answer(kind: str, payload: Mapping[str, Any], round_id: str | None) -> Note:
    """A contribution the pool took or gave back (11.5); the round it belongs to is in the payload
    (a reversal comes during the next round), the note is the round's in play, as its input was."""
    note = "progressive.contributed" if kind == "pool.contributed" else "progressive.reversed"
    return Note(note, dict(payload), round_id)


def shuffle_read(deck: str, cards: list[Any], verdict: Verdict | None, round_id: str | None) -> Note:
    """A shuffle whose order the device read, and the table's verdict on it (15.1; none for a deck's
    first known order or an order that is not 52 distinct cards)."""
    # probabilities as exact text: the journal holds no floats
    judged: dict[str, Json] | None = None if verdict is None else {
        "rising": verdict.rising, "kept": verdict.kept, "p_rising": repr(verdict.p_rising),
        "p_kept": repr(verdict.p_kept), "p_window": repr(verdict.p_window), "alarm": verdict.alarm}
    return Note("shuffle.read", {"deck": deck, "cards": list(cards), "judged": judged}, round_id)


def shuffle_fault(fault: Any, deck: Any, rule: str, round_id: str | None) -> Note:
    """The shuffling device reported a fault of its own (15.1: the cards are reshuffled; 15.2: it
    can no longer operate as intended)."""
    return Note("shuffle.fault", {"fault": fault, "deck": deck, "rule": rule}, round_id)


def deck_judged(deck: str, verified: bool, count: int | None, distinct: int | None, round_id: str | None) -> Note:
    """3.4, 3.7: a deck's cards judged: 52 distinct cards, or not."""
    return Note("deck.judged", {"deck": deck, "verified": verified, "cards": count, "distinct": distinct,
                                "rule": "3.4" if verified else "3.7"}, round_id)


def device_fault(fault: str, what: str, round_id: str | None) -> Note:
    """A device's fault the dealer's screen shows from now (:data:`DEVICE_FAULTS`)."""
    return Note("device.fault", {"fault": fault, "what": what, "rule": DEVICE_FAULTS[fault]}, round_id)


def config_in_force(payload: Mapping[str, Any]) -> Note:
    """The configuration a start runs with, as the table took it: its hash, where it came from and
    what changed since the last start."""
    return Note("config.in_force", {k: payload[k] for k in CONFIG_FIELDS if k in payload})


__all__ = ["award_paid", "awarded", "pool_answer", "shuffle_read", "shuffle_fault", "deck_judged",
           "device_fault", "config_in_force", "DEVICE_FAULTS"]

"""The hand-pay slip of one progressive award (9.5, 12.1 - 12.4): what a supervisor signs and the
cage files. Pure: made from the round's journal records, which the shell reads off the table's
loop (tabled/daemon/web.py); every figure is the journal's, beside the record that holds it.

On the slip: its number, unique at the table (the table's id and the award's place among every
progressive award its journal holds, so the journal keeps it and it never changes), the round,
the spot, its cards and hand (``round.settled``), the award and where it comes from: the pool and
the operator's top-up (12.1; ``progressive.awarded``), the pool before and after this award (the round's
awards are taken in one step in the order of payment, 12.2 and 12.4, so each award's "before" is
the round's "before" less the awards paid ahead of it), the pool after the round (with its reset
when the jackpot was won), and who confirmed the payment (9.5): the key and, with a staff list
(docs/staff.md), the person signed in to it, as the fold noted them (``progressive.award_paid``).
Every record read is a note (tabled/table/notes.py). The shell heads it with the property, the
table's name and the award's time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tabled.game.progressive import payment_order
from tabled.game.round_facts import RoundError
from tabled.game.settlement import money, settlement_from_dict

#: the journal records a slip is made from (all of the round's): notes only, the fold's conclusions
KINDS = ("round.settled", "progressive.awarded", "progressive.award_paid")


class SlipError(ValueError):
    """There is no slip to make: the round or the spot has no progressive award in the journal."""


def at(seq: int, time_ms: int, payload: Mapping[str, Any]) -> tuple[int, int]:
    """Where a note belongs: its own record, or for a note written late (when an older journal
    was first read by this version), the input it concludes from."""
    late = payload.get("late")
    if isinstance(late, Mapping) and isinstance(late.get("record"), int) and isinstance(late.get("time_us"), int):
        return late["record"], late["time_us"] // 1000
    return seq, time_ms


def _record(seq: int, time_ms: int) -> dict[str, int]:
    return {"record": seq, "time_ms": time_ms}


def awards_before(answers: Iterable[tuple[str | None, Mapping[str, Any]]]) -> int:
    """How many progressive awards the pool determined in ``answers`` (``progressive.awarded``
    notes as (round id, payload), of the rounds before): one note per round."""
    seen: set[str | None] = set()
    count = 0
    for round_id, payload in answers:
        if round_id not in seen:
            seen.add(round_id)
            count += len((payload.get("result") or {}).get("awards") or [])
    return count


def hand_pay_slip(table_id: str, round_id: str, spot: int, records: Iterable[tuple[int, int, str, Mapping[str, Any]]],
                  awarded_before: int = 0) -> dict[str, Any]:
    """The slip of ``spot``'s award in ``round_id``, from that round's journal records as
    (seq, time_ms, kind, payload), oldest first; ``awarded_before``: the awards of earlier rounds
    in the journal (:func:`awards_before`), which number the slip. Raises :class:`SlipError` when
    it has none."""
    settled = awards = None
    paid: tuple[int, int, Mapping[str, Any]] | None = None  # 9.5: the award confirmed paid, by whom
    for seq, time_ms, kind, payload in records:
        if kind == "round.settled":
            settled = (*at(seq, time_ms, payload), payload)
        elif kind == "progressive.awarded" and awards is None:
            awards = (*at(seq, time_ms, payload), payload)
        elif kind == "progressive.award_paid" and payload.get("spot") == spot:
            paid = (*at(seq, time_ms, payload), payload)
    if settled is None or awards is None:
        raise SlipError(f"round {round_id} has no progressive award in the journal")
    try:
        st = settlement_from_dict(settled[2])
    except RoundError as exc:
        raise SlipError(f"round {round_id}: the settlement cannot be read: {exc}") from exc
    order = list(payment_order(st.progressive.awards))
    mine = [i for i, a in enumerate(order) if a.spot == spot]
    if not mine:
        raise SlipError(f"round {round_id} spot {spot} has no progressive award")
    place = mine[0]
    award = order[place]
    result = awards[2].get("result") or {}
    before = int(result.get("pool_before_cents", st.progressive.pool_before_cents))
    before -= sum(a.from_pool_cents for a in order[:place])
    after = before - award.from_pool_cents
    line: Mapping[str, Any] = next((s for s in settled[2].get("spots", []) if s.get("spot") == spot), {})
    confirmed = None
    if paid is not None:
        seq, time_ms, p = paid
        key = str(p.get("key", ""))
        name, badge = p.get("name"), p.get("person")
        confirmed = {**_record(seq, time_ms), "key": key, "name": name, "badge": badge, "records": [seq],
                     "text": f"{key} key" + (f": {name}" + (f" (badge {badge})" if badge else "") if name else "")}
    return {
        "table_id": table_id, "round_id": round_id, "spot": spot,
        "number": f"{table_id}-{awarded_before + place + 1:06d}",
        "cards": list(line.get("cards") or []), "hand": line.get("hand") or award.category.label,
        "category": award.category.label, "rule": award.rule, "order": place + 1, "of": len(order),
        "amount_cents": award.amount_cents, "amount": money(award.amount_cents),
        "from_pool_cents": award.from_pool_cents, "from_pool": money(award.from_pool_cents),
        "operator_topup_cents": award.operator_topup_cents, "operator_topup": money(award.operator_topup_cents),
        "pool_before_cents": before, "pool_before": money(before),
        "pool_after_cents": after, "pool_after": money(after),
        "round_pool_after_cents": int(result.get("pool_after_cents", st.progressive.pool_after_cents)),
        "round_pool_after": money(int(result.get("pool_after_cents", st.progressive.pool_after_cents))),
        "reset": bool(result.get("reset")),
        "settled": _record(settled[0], settled[1]), "awards": _record(awards[0], awards[1]),
        "confirmed": confirmed,
    }


__all__ = ["hand_pay_slip", "awards_before", "at", "SlipError", "KINDS"]

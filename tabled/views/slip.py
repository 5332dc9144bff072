"""The hand-pay slip of one progressive award (9.5, 12.1 - 12.4): what a supervisor signs and the
cage files. Pure: made from the round's journal records, which the shell reads off the table's
loop (tabled/daemon/web.py); every figure is the journal's, beside the record that holds it.

On the slip: its number, unique at the table (the table's id and the award's place among every
progressive award its journal holds, so the journal keeps it and it never changes), the round,
the spot, its cards and hand (``round.settled``), the award and where it comes from: the pool and
the operator's top-up (12.1; ``pool.awards``), the pool before and after this award (the round's
awards are taken in one step in the order of payment, 12.2 and 12.4, so each award's "before" is
the round's "before" less the awards paid ahead of it), the pool after the round (with its reset
when the jackpot was won), and who confirmed the payment (9.5): the key and, with a staff list
(docs/staff.md), the person: the supervisor's from the ``panel.approved`` record, the dealer's
from ``round.started`` (the dealer who dealt the round). The shell heads it with the property, the
table's name and the award's time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tabled.game.progressive import payment_order
from tabled.game.round_facts import RoundError
from tabled.game.settlement import money, settlement_from_dict

#: the journal records a slip is made from (all of the round's)
KINDS = ("round.started", "round.settled", "pool.awards", "panel", "panel.button", "panel.approved")
PAYERS = ("dealer", "supervisor")  # the keys that may confirm a progressive payment (9.5)


class SlipError(ValueError):
    """There is no slip to make: the round or the spot has no progressive award in the journal."""


def _record(seq: int, time_ms: int) -> dict[str, int]:
    return {"record": seq, "time_ms": time_ms}


def _confirmation(confirmations: list[tuple[int, int, dict[str, Any]]],
                  order: list[int]) -> dict[int, tuple[int, int, dict[str, Any]]]:
    """Spot -> the record that confirmed its payment: an award_paid names its spot; a press pays
    the first award in the order of payment not yet paid (the panel refuses any other, 12.2)."""
    paid: dict[int, tuple[int, int, dict[str, Any]]] = {}
    for c in confirmations:
        waiting = [s for s in order if s not in paid]
        spot = c[2].get("spot")
        if spot is None and waiting:
            spot = waiting[0]
        if waiting and spot == waiting[0]:
            paid[int(spot)] = c
    return paid


def awards_before(answers: Iterable[tuple[str | None, Mapping[str, Any]]]) -> int:
    """How many progressive awards the pool's answers (``pool.awards`` records as (round id,
    payload), oldest first) paid: each round's first answer counts (a repeated one is the same)."""
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
    settled = awards = started = None
    # the panel's award_paid (with its spot) and SETTLE/DONE presses after the pool's answer (each
    # pays the next award waiting, in the order of payment: 9.5, 12.2), in journal order
    confirmations: list[tuple[int, int, dict[str, Any]]] = []
    approvals: list[tuple[int, int, Mapping[str, Any]]] = []
    for seq, time_ms, kind, payload in records:
        if kind == "round.started":
            started = payload
        elif kind == "round.settled":
            settled = (seq, time_ms, payload)
        elif kind == "pool.awards":
            awards = (seq, time_ms, payload)
        elif kind == "panel" and payload.get("action") == "award_paid" and payload.get("key") in PAYERS:
            confirmations.append((seq, time_ms, dict(payload)))
        elif kind == "panel.button" and payload.get("button") == "settle_done" and awards is not None \
                and payload.get("key") in PAYERS:
            confirmations.append((seq, time_ms, {**payload, "spot": None}))
        elif kind == "panel.approved" and payload.get("action") == "award_paid":
            approvals.append((seq, time_ms, payload))
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
    paid = _confirmation(confirmations, [a.spot for a in order]).get(spot)
    confirmed = None
    if paid is not None:
        seq, time_ms, p = paid
        records_of = [seq]
        # a supervisor's confirmation has its panel.approved note, naming the person, after it
        approved = next((a for a in approvals if a[0] > seq and a[2].get("spot") == spot), None) \
            if p.get("key") == "supervisor" else None
        if approved is not None:
            p = {**p, **approved[2]}
            records_of.append(approved[0])
        key = str(p.get("key", ""))
        name, badge = p.get("name"), p.get("person")
        if name is None and key == "dealer" and started:
            name, badge = started.get("dealt_by_name"), started.get("dealt_by")
        confirmed = {**_record(seq, time_ms), "key": key, "name": name, "badge": badge, "records": records_of,
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


__all__ = ["hand_pay_slip", "awards_before", "SlipError", "KINDS"]

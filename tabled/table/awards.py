"""Settlement and its progressive awards: the dealer settles (9.3, 9.4); the round's progressive hits
are taken from the pool in one step (9.6) and their hands stay face up until paid (9.5), paid in
the order of 12.2 and 12.4."""

from __future__ import annotations

from typing import Any

from tabled.game.progressive import ProgressiveHit
from tabled.game.settlement import settle as settle_round
from tabled.table.effects import Effect, PoolOp, Say
from tabled.table.facts import round_facts
from tabled.table.refused import Refused
from tabled.table.state import RoundState


def progressive_hits(r: RoundState) -> list[ProgressiveHit]:
    """11.7 hands on spots whose progressive wager was accepted and still stands (docs/settlement.md):
    taken from the game core's settlement, so the pool and the settlement always agree."""
    preview = settle_round(round_facts(r, 0), r.profile)
    return [ProgressiveHit(a.spot, a.category) for a in preview.progressive.awards]


def settle(r: RoundState) -> list[Effect]:
    """The dealer settles; a round with progressive hits asks the pool for them (9.5, 9.6)."""
    hits = progressive_hits(r)
    for h in hits:
        r.spots[h.spot].award_held = True
    if not hits:
        return []
    return [PoolOp("awards", r.round_id, hits=tuple((h.spot, h.category.name) for h in hits),
                   hands=tuple((h.spot, tuple(r.spots[h.spot].cards)) for h in hits if r.spots[h.spot].cards),
                   schedule=r.profile.progressive_schedule),
            Say(f"progressive hands on spots {[h.spot for h in hits]}: leave the cards face up until paid",
                rule="9.5")]


def awards_applied(r: RoundState, result: dict[str, Any]) -> list[Effect]:
    """The pool took this round's awards in one step; the settlement that follows at once tells
    the dealer to pay them, in the order of 12.2 and 12.4 (tabled/table/display.py), once."""
    r.awards = result
    return []


def award_paid(r: RoundState, spot: int) -> list[Effect]:
    """9.5: the dealer has paid the progressive award; the cards may now be collected (12.2, 12.4)."""
    s = r.spot(spot)
    if not s.award_held:
        raise Refused("9.5", f"spot {s.number} has no progressive award waiting", s.number)
    if r.awards is None:
        raise Refused("9.5", "the pool has not yet taken this round's awards: wait")
    order = [a["spot"] for a in r.awards.get("awards", []) if r.spots[a["spot"]].award_held]
    if order and order[0] != s.number:
        raise Refused("12.2", f"pay spot {order[0]} first (12.2, 12.4)", s.number)
    s.award_held = False
    return [Say(f"spot {s.number}: progressive paid; collect the cards", s.number, "9.5")]


__all__ = ["progressive_hits", "settle", "awards_applied", "award_paid"]

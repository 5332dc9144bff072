"""A round's facts as the game core's settlement reads them (tabled/game/round_facts.py)."""

from __future__ import annotations

from tabled.game.cards import HAND_SIZE
from tabled.game.round_facts import NO_WAGER, RoundFacts, RoundVoid, SpotFacts, SpotStatus
from tabled.table.phase import Phase
from tabled.table.state import RoundState


def round_facts(r: RoundState, pool_cents: int) -> RoundFacts:
    spots = []
    for s in r.spots.values():
        ante = s.locked_ante if r.phase not in (Phase.PREPARING, Phase.BETTING) else s.ante
        if not ante:
            spots.append(SpotFacts(s.number, SpotStatus.EMPTY))
            continue
        status, cards = s.status, tuple(s.cards)
        if s.status is SpotStatus.PLAYING:
            status = SpotStatus.ABSENT  # undecided: only in a void round, which settles every spot alike
        if s.forfeit:
            status = SpotStatus.FORFEITED  # 16.5: every wager to the house, in a void round too
        elif s.status is SpotStatus.VOID and len(cards) == HAND_SIZE:
            cards = ()  # 16.3.1: a supervisor voided the wagers of a full hand
        spots.append(SpotFacts(
            s.number, status, ante=ante,
            bet=s.locked_bet if s.status is SpotStatus.PLAYED else (s.bet if s.status is not SpotStatus.ABSENT
                                                                   else NO_WAGER),
            progressive=s.locked_progressive if s.progressive_accepted else NO_WAGER,
            cards=cards))
    void = RoundVoid(r.void_reason[0]) if r.void_reason else None
    return RoundFacts(r.spot_count, tuple(r.dealer_cards), tuple(spots), pool_cents, void)


__all__ = ["round_facts"]

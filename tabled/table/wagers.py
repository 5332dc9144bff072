"""Wagers on the board: taken while betting (5.2, 5.3, 5.8, 6.1, 11.1), locked at "no more bets"
(7.2.1), and any change after the lock is past posting (5.6) until restored or resolved."""

from __future__ import annotations

from tabled.game.limits import Breach, check_one_wager, dollars
from tabled.game.round_facts import SpotStatus, Wager
from tabled.table import decisions
from tabled.table.board import acceptance
from tabled.table.effects import Effect, Say
from tabled.table.phase import Phase
from tabled.table.refused import Refused
from tabled.table.names import AREAS
from tabled.table.spot import Spot, board_wager
from tabled.table.state import RoundState

#: spots out of play whose wagers the dealer collects (8.4, 9.7) or returns (14.9.2, 14.12, 14.7):
#: an area emptied there is not past posting
_CLEARED_BY_THE_DEALER = (SpotStatus.FOLDED, SpotStatus.CONCEDED, SpotStatus.ABSENT, SpotStatus.VOID)


def wager(r: RoundState, spot: int, area: str, cents: int = 0, token_cents: int = 0, stacks: int = 1) -> list[Effect]:
    """What the bet-spot board sees on one area; its meaning depends on the phase."""
    s = r.spot(spot)
    if area not in AREAS:
        raise Refused(None, f"no wagering area {area!r} (ante, progressive, bet)", spot)
    w = board_wager(cents, token_cents)
    phase = r.phase
    if phase in (Phase.PREPARING, Phase.BETTING):
        return _while_betting(r, s, area, w, stacks)
    if phase == Phase.DECIDING and area == "bet" and s.deciding():
        return decisions.bet(r, s, w, stacks)
    if phase in (Phase.SETTLING, Phase.COMPLETE, Phase.VOID):
        setattr(s, area, w)  # the dealer is paying and collecting (9.3, 9.4): chips move by design
        return []
    if phase == Phase.DECIDING and area == "bet" and not w:
        s.bet = w
        return []
    return _after_lock(r, s, area, w)


def _while_betting(r: RoundState, s: Spot, area: str, w: Wager, stacks: int) -> list[Effect]:
    effects: list[Effect] = []
    had_ante = bool(s.ante)
    setattr(s, area, w)
    s.stacks[area] = stacks if w else 0
    if area == "bet" and w:
        effects.append(Say(f"spot {s.number}: no bet before the cards are dealt (5.5, 8.1): remove it",
                           s.number, "5.6", "flag"))
    if bool(s.ante) != had_ante and not r.progressive_offline:
        # 11.1: progressive acceptance only on spots with an ante
        effects.append(acceptance(r, s.number))
    breach = wager_breach(r, s, area)
    if breach:
        effects.append(Say(f"spot {s.number}: {breach.message}", s.number, breach.rule, "flag"))
    return effects


def wager_breach(r: RoundState, s: Spot, area: str) -> Breach | None:
    """5.8: one wager an area; 6.1 limits of the ante; 5.3, 11.1 the progressive; 14.13 offline."""
    one = check_one_wager(s.stacks.get(area, 0))
    if one:
        return one
    if area == "ante" and s.ante:
        return r.limits.check_ante(s.ante.cents)
    if area == "progressive" and s.progressive:
        if r.progressive_offline:
            return Breach("14.13", "the progressive is offline: no progressive wagers")
        return r.limits.check_progressive(s.progressive.cents, s.ante.cents)
    return None


def check_before_lock(r: RoundState) -> None:
    """7.2: "no more bets" needs an ante, no bet before the deal (5.6), every wager in order (5.8, 6.1)."""
    if not any(s.ante for s in r.spots.values()):
        raise Refused("7.2", "no ante on any spot: nothing to deal")
    for s in r.spots.values():
        if s.bet:
            raise Refused("5.6", f"spot {s.number} has a bet before the deal: remove it first", s.number)
        for area in ("ante", "progressive"):
            b = wager_breach(r, s, area) if getattr(s, area) else None
            if b:
                raise Refused(b.rule, f"spot {s.number}: {b.message}: correct it before 'no more bets'", s.number)


def locked(r: RoundState, s: Spot, area: str) -> Wager:
    if area == "ante":
        return s.locked_ante
    if area == "progressive":
        return s.locked_progressive
    return s.locked_bet if r.phase == Phase.REVEALED else s.bet


def _after_lock(r: RoundState, s: Spot, area: str, w: Wager) -> list[Effect]:
    """5.6: a change after the lock is past posting, unless the dealer cleared an out-of-play spot."""
    was = locked(r, s, area)
    setattr(s, area, w)
    if not w and s.status in _CLEARED_BY_THE_DEALER:
        return []
    if w == was:
        if s.past_posting and all(getattr(s, a) == locked(r, s, a) for a in AREAS):
            s.past_posting = None  # the dealer put it back as it was
            return [Say(f"spot {s.number}: wager restored", s.number, "5.6")]
        return []
    s.past_posting = f"{area} changed from {dollars(was.cents)} to {dollars(w.cents)} after " \
                     + ("no more bets" if area != "bet" else "the deciding phase closed")
    return [Say(f"spot {s.number}: PAST POSTING: {s.past_posting}: settlement waits until it is "
                "resolved", s.number, "5.6", "flag")]


def resolve_past_posting(r: RoundState, spot: int) -> list[Effect]:
    """5.6: resolved by the dealer or a supervisor: the wagers stand as they were locked."""
    s = r.spot(spot)
    if not s.past_posting:
        raise Refused("5.6", f"spot {s.number} has no past posting to resolve", s.number)
    what, s.past_posting = s.past_posting, None
    return [Say(f"spot {s.number}: past posting resolved ({what}); settled on the wagers as locked",
                s.number, "5.6")]


__all__ = ["wager", "wager_breach", "check_before_lock", "locked", "resolve_past_posting"]

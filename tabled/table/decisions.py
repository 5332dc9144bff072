"""The players' decisions after the deal (5.4, 5.5, 8, 14.9, 14.11.1, 14.12) and after the reveal
(9.7, 9.8, NZ 14.1). The round's machine has already placed each input in its phase."""

from __future__ import annotations

from tabled.game.limits import check_one_wager, dollars
from tabled.game.round_facts import SpotStatus, Wager
from tabled.table.effects import Effect, Say
from tabled.table.refused import Refused
from tabled.table.spot import Spot
from tabled.table.state import RoundState


def deciding_spot(r: RoundState, spot: int) -> Spot:
    """A spot that may decide now (8.1, 14.11.1); its player has handled the cards (14.1)."""
    s = r.spot(spot)
    if not s.deciding():
        raise Refused("8.1", f"spot {s.number} is {s.status}: no decision to make", s.number)
    first = r.first_to_play
    if first is not None and s.number != first and r.spots[first].status is SpotStatus.PLAYING:
        raise Refused("14.11.1", f"spot {first} was directed to play first", s.number)
    r.player_handled = True
    return s


def bet(r: RoundState, s: Spot, w: Wager, stacks: int) -> list[Effect]:
    """8.5: a bet on the bet area; taken back before the reveal, the spot decides again (14.9.1)."""
    deciding_spot(r, s.number)
    s.bet = w
    if not w:
        s.status = SpotStatus.PLAYING
        return []
    s.status = SpotStatus.PLAYED
    breach = check_one_wager(stacks) or r.bet_breach(s)
    if breach:
        # 14.9: before the dealer's cards are exposed: correct the bet or fold
        return [Say(f"spot {s.number}: {breach.message}: correct the bet or fold (14.9)", s.number, breach.rule,
                    "flag")]
    return [Say(f"spot {s.number} bets {dollars(w.cents)}", s.number, "8.5")]


def fold(r: RoundState, spot: int) -> list[Effect]:
    """8.3, 8.4: the dealer collects the ante and the cards; 14.9.2: any bet made is returned."""
    s = deciding_spot(r, spot)
    s.status = SpotStatus.FOLDED
    returned = f", return the bet of {dollars(s.bet.cents)} (14.9.2)" if s.bet else ""
    return [Say(f"spot {s.number} folds: collect the ante {dollars(s.locked_ante.cents)}{returned}",
                s.number, "8.4")]


def absent(r: RoundState, spot: int) -> list[Effect]:
    """14.12: not present to decide: the hand is void; ante and progressive wager returned."""
    s = deciding_spot(r, spot)
    s.status = SpotStatus.ABSENT
    return [Say(f"spot {s.number}: player absent: hand void, return ante and progressive wager",
                s.number, "14.12", "flag")] + r.reverse(s, "14.12 absent player")


def dead_hand(r: RoundState, spot: int) -> list[Effect]:
    """NZ 14.1 (profiles with dead hands, Round.handle): ante, bet and progressive forfeited."""
    s = r.spot(spot)
    if not s.deciding():
        raise Refused("NZ 14.1", f"spot {s.number} is {s.status}", s.number)
    s.status = SpotStatus.DEAD
    return [Say(f"spot {s.number}: dead hand: ante, bet and progressive forfeited", s.number, "NZ 14.1", "flag")]


def play_first(r: RoundState, spot: int) -> list[Effect]:
    """14.11.1: a supervisor directs a spot to play before the others handle their cards."""
    s = r.spot(spot)
    if s.status is not SpotStatus.PLAYING:
        raise Refused("14.11.1", f"spot {s.number} has already decided", s.number)
    r.first_to_play = s.number
    return [Say(f"spot {s.number} plays first", s.number, "14.11.1")]


def concede(r: RoundState, spot: int) -> list[Effect]:
    """9.7: after the reveal a player may concede; 9.8: never returned to play."""
    s = r.spot(spot)
    if s.status is not SpotStatus.PLAYED:
        raise Refused("9.8" if s.status is SpotStatus.CONCEDED else "9.7",
                      f"spot {s.number} is {s.status}: it cannot concede", s.number)
    s.status = SpotStatus.CONCEDED
    return [Say(f"spot {s.number}: conceding hand: collect ante and bet", s.number, "9.7")]


__all__ = ["deciding_spot", "bet", "fold", "absent", "dead_hand", "play_first", "concede"]

"""Small builders for settlement tests (not a test module)."""

from __future__ import annotations

from tabled.game.cards import parse_cards
from tabled.profiles import load_profile
from tabled.game.round_facts import RoundFacts, RoundVoid, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import Settlement, settle

NSW = load_profile("nsw")
US = load_profile("us-standard")
NZ = load_profile("nz-irregularities")

QUALIFYING_DEALER = "As Kd 7h 4c 2s"   # ace and king (9.1)
NO_HAND_DEALER = "Qs Jd 7h 4c 2s"      # queen high: does not qualify (9.2)


def spot(n: int, cards: str = "", *, ante: int = 1000, bet: int | None = None, prog: int = 0,
         status: str = "played", ante_token: int = 0, bet_token: int = 0,
         prog_token: int = 0) -> SpotFacts:
    if bet is None:
        bet = 2 * ante if status == "played" else 0
    return SpotFacts(
        spot=n, status=SpotStatus(status),
        ante=Wager(ante, ante_token), bet=Wager(bet, bet_token), progressive=Wager(prog, prog_token),
        cards=parse_cards(cards) if cards else (),
    )


def round_(dealer: str, *spots: SpotFacts, pool: int = 0, spot_count: int = 7,
           void: str | None = None) -> RoundFacts:
    return RoundFacts(spot_count=spot_count, dealer_cards=parse_cards(dealer) if dealer else (),
                      spots=tuple(spots), pool_cents=pool,
                      void=RoundVoid(void) if void else None)


def settle_nsw(dealer: str, *spots: SpotFacts, pool: int = 0, void: str | None = None,
               profile=NSW) -> Settlement:
    return settle(round_(dealer, *spots, pool=pool, void=void), profile)

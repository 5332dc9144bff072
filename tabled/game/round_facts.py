"""The facts of one round, as the settlement reads them, and their checks.

Facts come from the daemon (sensors, shoe, panel) or from a round JSON file (``tabled settle``,
format in docs/round-format.md). Whatever their source, :func:`check_round` refuses facts that
cannot describe a real round with a :class:`RoundError` naming the spot and the problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from tabled.game import seats
from tabled.game.checks import MAX_CENTS, is_cents, is_whole_number, shown

from .cards import HAND_SIZE, CardError, card_text, parse_card


class RoundError(ValueError):
    """Facts that cannot describe one round of this table."""


class SpotStatus(StrEnum):
    PLAYING = "playing"    # dealt in, not yet decided (8.1): only while a round is in play, never settled
    PLAYED = "played"      # bet placed (8.5), settled against the dealer (9)
    FOLDED = "folded"      # 8.3, 8.4
    CONCEDED = "conceded"  # 9.7
    ABSENT = "absent"      # 14.12: not present to decide
    VOID = "void"          # 14.7: too few or too many cards
    DEAD = "dead"          # NZ 14.1: declared dead for passing information
    EMPTY = "empty"        # no ante: takes no part (7.3.1); cards dealt there are discarded (14.8)
    FORFEITED = "forfeited"  # 16.5: a supervisor directed the wagers forfeited (16.3.1, 16.4.2), void round or not


class RoundVoid(StrEnum):
    """Why a whole round is void: every wager returned, no result ("void", 1.1)."""

    MISDEAL = "misdeal"                    # 14.1 - 14.4
    SHUFFLER_FAILURE = "shuffler_failure"  # 15.2.1
    INVALIDATED = "invalidated"            # 16.4, 16.5 (refund)
    DECK_NOT_52 = "deck_not_52"            # NZ 14.9 (profiles that say so)


@dataclass(frozen=True)
class Wager:
    """One wager on the layout: chips and promotional token/voucher value (5.1, 1.1), in cents."""

    chips_cents: int = 0
    token_cents: int = 0

    @property
    def cents(self) -> int:
        return self.chips_cents + self.token_cents

    def __bool__(self) -> bool:
        return self.cents > 0


NO_WAGER = Wager()


@dataclass(frozen=True)
class SpotFacts:
    spot: int
    status: SpotStatus = SpotStatus.PLAYED
    ante: Wager = NO_WAGER
    bet: Wager = NO_WAGER
    progressive: Wager = NO_WAGER
    cards: tuple[int, ...] = ()


@dataclass(frozen=True)
class RoundFacts:
    spot_count: int                      # spot 1 at the dealer's far left .. N at the immediate right
    dealer_cards: tuple[int, ...]
    spots: tuple[SpotFacts, ...]
    pool_cents: int                      # the progressive pool before this round's awards
    void: RoundVoid | None = None


def _cents_problem(v: object) -> str:
    """Why ``v`` is not an amount, worded as the config's checks word it (tabled.game.checks)."""
    if is_whole_number(v) and v > MAX_CENTS:
        return f"must be at most {MAX_CENTS} cents (the most any amount may be), got {shown(v)}"
    return f"must be a whole number of cents >= 0, got {shown(v)}"


def check_round(facts: RoundFacts) -> None:
    """Raise :class:`RoundError` on facts no real round can have (profile-free checks)."""
    spots_problem = seats.spot_problem(facts.spot_count)  # 2.2.1
    if spots_problem:
        raise RoundError(f"spot_count: {spots_problem}")
    if not is_cents(facts.pool_cents):
        raise RoundError(f"the pool {_cents_problem(facts.pool_cents)}")
    seen_spots: set[int] = set()
    seen_cards: dict[int, str] = {}

    def note_cards(cards: Iterable[int], owner: str) -> None:
        for c in cards:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
                raise RoundError(f"{owner}: not a card: {c!r}")
            if c in seen_cards:
                raise RoundError(f"duplicate card {card_text(c)}: in {seen_cards[c]} and {owner} "
                                 "(one deck holds each card once, 3.1)")
            seen_cards[c] = owner

    if facts.void is None and len(facts.dealer_cards) != HAND_SIZE:
        raise RoundError(f"the dealer has {len(facts.dealer_cards)} cards, not five: that is a misdeal "
                         "(14.2); settle the round as void")
    note_cards(facts.dealer_cards, "the dealer's hand")

    for s in facts.spots:
        if not isinstance(s.spot, int) or isinstance(s.spot, bool) \
                or not 1 <= s.spot <= facts.spot_count:
            raise RoundError(f"unknown spot {s.spot!r}: this table has spots 1 to {facts.spot_count}")
        if s.spot in seen_spots:
            raise RoundError(f"spot {s.spot} is listed twice (5.7, 5.8: one hand, one wager a spot)")
        seen_spots.add(s.spot)
        where = f"spot {s.spot}"
        for name in ("ante", "bet", "progressive"):
            w = getattr(s, name)
            for part in ("chips_cents", "token_cents"):
                if not is_cents(getattr(w, part)):
                    raise RoundError(f"{where}: {name} {part} {_cents_problem(getattr(w, part))}")
        note_cards(s.cards, f"spot {s.spot}'s hand")
        if s.status is SpotStatus.EMPTY:
            if s.ante or s.bet or s.progressive:
                raise RoundError(f"{where} is empty but has a wager")
            continue
        if not s.ante:
            if s.progressive:
                raise RoundError(f"{where}: a progressive wager needs an ante first (11.1)")
            raise RoundError(f"{where} is {s.status} but has no ante (5.2.1): a spot without an ante "
                             "takes no part; mark it empty (its cards are discarded, 14.8)")
        if facts.void is not None:
            continue
        if s.status is SpotStatus.PLAYING:
            raise RoundError(f"{where} has not decided: fold or bet (8.1) before the round is settled")
        if s.status is SpotStatus.PLAYED:
            if len(s.cards) != HAND_SIZE:
                raise RoundError(f"{where} has {len(s.cards)} cards: a played hand is five cards; "
                                 "a hand with too few or too many is void (14.7)")
            if not s.bet:
                raise RoundError(f"{where} played with no bet: a player who does not bet folds (8.1)")
        elif s.status is SpotStatus.ABSENT and s.bet:
            raise RoundError(f"{where} is absent but has a bet: an absent player makes no decision (14.12)")
        elif s.status is SpotStatus.VOID and len(s.cards) == HAND_SIZE:
            raise RoundError(f"{where} is void but holds five cards: 14.7 voids a hand of too few "
                             "or too many cards")
        elif s.status in (SpotStatus.FOLDED, SpotStatus.CONCEDED, SpotStatus.DEAD) \
                and len(s.cards) not in (0, HAND_SIZE):
            raise RoundError(f"{where} ({s.status}) has {len(s.cards)} cards: give its five cards "
                             "or none")


# ---------------------------------------------------------------------------------------------
# round JSON (docs/round-format.md)

_ROUND_KEYS = {"profile", "spot_count", "pool_cents", "dealer", "spots", "void", "round_id", "note"}
_SPOT_KEYS = {"spot", "status", "cards", "ante_cents", "ante_token_cents", "bet_cents",
              "bet_token_cents", "progressive_cents", "progressive_token_cents", "note"}


def _cents_field(obj: Mapping[str, Any], key: str, where: str) -> int:
    v = obj.get(key, 0)
    if isinstance(v, bool) or not isinstance(v, int):
        kind = "fractional" if isinstance(v, float) else type(v).__name__
        raise RoundError(f"{where}: '{key}' must be a whole number of cents, got {shown(v)} ({kind})")
    if v < 0:
        raise RoundError(f"{where}: '{key}' must not be negative, got {shown(v)}")
    if v > MAX_CENTS:
        raise RoundError(f"{where}: '{key}' must be at most {MAX_CENTS} cents (the most any amount may be), "
                         f"got {shown(v)}")
    return v


def _cards_field(v: object, where: str) -> tuple[int, ...]:
    if isinstance(v, str):
        v = v.split()
    if not isinstance(v, list):
        raise RoundError(f"{where}: cards must be a list like [\"As\", \"Kd\"] or a string \"As Kd\", got {shown(v)}")
    try:
        return tuple(parse_card(t) for t in v)
    except CardError as exc:
        raise RoundError(f"{where}: {exc}") from None


def _check_keys(obj: object, allowed: set[str], where: str) -> None:
    if not isinstance(obj, Mapping):
        raise RoundError(f"{where} must be a JSON object, got {obj!r}")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise RoundError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})")


def round_from_json(data: Any) -> tuple[str | None, RoundFacts]:
    """Parse a decoded round JSON document into ``(profile name or None, facts)``."""
    _check_keys(data, _ROUND_KEYS, "the round")
    profile = data.get("profile")
    if profile is not None and (not isinstance(profile, str) or not profile):
        raise RoundError(f"'profile' must be a profile name or path, got {profile!r}")
    for key in ("spot_count", "dealer", "spots"):
        if key not in data:
            raise RoundError(f"the round has no '{key}'")
    spot_count = data["spot_count"]
    if isinstance(spot_count, bool) or not isinstance(spot_count, int):
        raise RoundError(f"'spot_count' must be a whole number, got {spot_count!r}")
    pool = _cents_field(data, "pool_cents", "the round")
    void_raw = data.get("void")
    void = None
    if void_raw is not None:
        try:
            void = RoundVoid(void_raw)
        except ValueError:
            allowed = ", ".join(repr(v.value) for v in RoundVoid)
            raise RoundError(f"'void' must be one of {allowed} or null, got {void_raw!r}") from None
    dealer = _cards_field(data["dealer"], "the dealer's hand")
    spots_raw = data["spots"]
    if not isinstance(spots_raw, list):
        raise RoundError(f"'spots' must be a list of spot objects, got {spots_raw!r}")
    spots = []
    for i, raw in enumerate(spots_raw, 1):
        _check_keys(raw, _SPOT_KEYS, f"spots entry {i}")
        if "spot" not in raw:
            raise RoundError(f"spots entry {i} has no 'spot' number")
        number = raw["spot"]
        if isinstance(number, bool) or not isinstance(number, int):
            raise RoundError(f"spots entry {i}: 'spot' must be a whole number, got {number!r}")
        where = f"spot {number}"
        status_raw = raw.get("status", "played")
        try:
            status = SpotStatus(status_raw)
        except ValueError:
            allowed = ", ".join(repr(s.value) for s in SpotStatus)
            raise RoundError(f"{where}: status must be one of {allowed}, got {status_raw!r}") from None
        spots.append(SpotFacts(
            spot=number,
            status=status,
            ante=Wager(_cents_field(raw, "ante_cents", where), _cents_field(raw, "ante_token_cents", where)),
            bet=Wager(_cents_field(raw, "bet_cents", where), _cents_field(raw, "bet_token_cents", where)),
            progressive=Wager(_cents_field(raw, "progressive_cents", where),
                              _cents_field(raw, "progressive_token_cents", where)),
            cards=_cards_field(raw.get("cards", []), where),
        ))
    facts = RoundFacts(spot_count=spot_count, dealer_cards=dealer, spots=tuple(spots),
                       pool_cents=pool, void=void)
    check_round(facts)
    return profile, facts


def round_as_json(facts: RoundFacts, profile: str | None = None, round_id: str | None = None) -> dict[str, Any]:
    """The round JSON document of ``facts``: :func:`round_from_json` reads it back as the same facts."""
    data: dict[str, Any] = {}
    if round_id is not None:
        data["round_id"] = round_id
    if profile is not None:
        data["profile"] = profile
    data.update(spot_count=facts.spot_count, pool_cents=facts.pool_cents,
                dealer=" ".join(card_text(c) for c in facts.dealer_cards),
                void=facts.void.value if facts.void else None)
    spots = []
    for s in facts.spots:
        spot: dict[str, Any] = {"spot": s.spot, "status": s.status.value,
                                "cards": " ".join(card_text(c) for c in s.cards)}
        for name in ("ante", "bet", "progressive"):
            w = getattr(s, name)
            if w.chips_cents:
                spot[f"{name}_cents"] = w.chips_cents
            if w.token_cents:
                spot[f"{name}_token_cents"] = w.token_cents
        spots.append(spot)
    data["spots"] = spots
    return data


__all__ = ["RoundError", "SpotStatus", "RoundVoid", "Wager", "NO_WAGER", "SpotFacts", "RoundFacts",
           "check_round", "round_from_json", "round_as_json"]

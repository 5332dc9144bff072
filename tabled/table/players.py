"""Who sits at which spot, and each player's session figures, for the casino's ratings.

Ratings are on at a table whose configuration says so (``player.tracking``: on, interval_minutes,
journaled at each start); a table without them folds exactly as before. A player identifies at a
spot with the casino's player card (``player.card``: spot, card), read by the spot's card reader
or keyed at the dealer's panel for a spot; the player leaves by taking the card out or by the
dealer (``player.leaves``: spot or card). The card number is the casino's identifier: no name is
held. Play at a spot with no card is rated as an anonymous seat session.

A session is rated from what the fold concluded of each round it sat through (``round.settled``):
a round at its spot with a wager settled is played; a round without is sat out; a void round
(1.1, 14.4, 15.2.1) or a void hand (14.7) is counted apart and never rated as played. The
session's ``player.rating`` note, when it ends, lists the rounds it played so the theoretical loss
is computed exactly from them (tabled/reports/ratings.py); a long session is also rated at the
configured interval (``interim``: the figures so far, the session going on).

A card presented at a spot another card holds takes the spot: the player it displaces keeps the
session open until the next round ends, so two players changing seats keep their sessions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from tabled.game.seats import spot_problem
from tabled.table.effects import Effect, Note, Say

INPUTS = ("player.tracking", "player.card", "player.leaves")
MINUTE_MS = 60_000
#: the spot statuses of a round where the player's wagers were settled (8.4, 9, 9.7, 14.12, NZ 14.1)
PLAYED = ("played", "folded", "conceded", "absent", "dead", "forfeited")
#: an anonymous seat session ends after this many rounds in a row without a wager at its spot
ANONYMOUS_GONE_ROUNDS = 3
CARD_LENGTH = (4, 32)


def card_problem(card: object) -> str | None:
    """What is wrong with ``card`` as a player card number, or None. The words never repeat the
    number: a card misread by one character is still a player's card."""
    low, high = CARD_LENGTH
    if not isinstance(card, str):
        return f"card: a player card number is letters and digits, not {type(card).__name__}"
    if not card.isascii() or not card.isalnum():
        return "card: a player card number is letters and digits only"
    if not low <= len(card) <= high:
        return f"card: a player card number has {low} to {high} characters, not {len(card)}"
    return None


def masked(card: str | None) -> str:
    """A card number as everything outside the journal shows it (log, pages, reports): its last
    four characters only."""
    if not card:
        return "anonymous"
    return "\u2022\u2022\u2022\u2022" + card[-4:]


def masked_setting(key: str, value: Any) -> Any:
    """A configuration setting as people's views show it: a player card (a simulated player's
    ``simulation.players.N.card``) masked, the rest as it is."""
    return masked(value) if key.endswith(".card") and isinstance(value, str) else value


def masked_fields(kind: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """A record's fields with every player card number in it masked (a ``player.*`` record's
    ``card``, its sessions' too): what the log and people's views show of it."""
    if not kind.startswith("player."):
        return dict(payload)

    def mask(value: Any, key: str = "") -> Any:
        if key == "card" and isinstance(value, str):
            return masked(value)
        if isinstance(value, Mapping):
            return {k: mask(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return value
    return {k: mask(v, k) for k, v in payload.items()}


@dataclass
class Session:
    session: str
    card: str | None
    spot: int | None
    start_ms: int
    spots: list[int] = field(default_factory=list)
    rounds: list[list[Any]] = field(default_factory=list)  # [round id, spot] of each round played
    rounds_sat_out: int = 0
    rounds_void: int = 0
    idle: int = 0                        # rounds in a row sat out
    ante_cents: int = 0
    bet_cents: int = 0
    progressive_cents: int = 0
    result_cents: int = 0                # the player's win (+) or loss (-), awards included
    displaced_ms: int | None = None      # the spot taken by another card at this time
    rated_ms: int | None = None          # its last interim rating

    def figures(self) -> dict[str, Any]:
        played = len(self.rounds)
        return {"session": self.session, "card": self.card, "anonymous": self.card is None,
                "spot": self.spot, "spots": list(self.spots), "start_ms": self.start_ms,
                "rounds_played": played, "rounds_sat_out": self.rounds_sat_out, "rounds_void": self.rounds_void,
                "ante_cents": self.ante_cents, "average_ante_cents": self.ante_cents // played if played else 0,
                "bet_cents": self.bet_cents, "progressive_cents": self.progressive_cents,
                "result_cents": self.result_cents}


class Players:
    def __init__(self, table_id: str = "", spot_count: int = 7) -> None:
        self.table_id = table_id
        self.spot_count = spot_count
        self.open: dict[str, Session] = {}
        self.started = 0
        self.on = False
        self.interval_ms = 0                 # an interim rating of a session this long since the last; 0: none

    def __bool__(self) -> bool:
        return self.on or bool(self.open) or self.started > 0

    def at(self, spot: int) -> Session | None:
        return next((s for s in self.open.values() if s.spot == spot), None)

    def with_card(self, card: str) -> Session | None:
        return next((s for s in self.open.values() if s.card == card), None)

    def seated(self) -> list[Session]:
        return sorted((s for s in self.open.values() if s.spot is not None), key=lambda s: s.spot or 0)

    # -- inputs ----------------------------------------------------------------------------------------

    def apply(self, kind: str, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        if kind == "player.tracking":
            return self._tracking(p.get("on"), p.get("interval_minutes", 0), now, round_id)
        if not self.on:
            return [Say(f"{kind}: refused: player ratings are not on at this table", level="refused")]
        if kind == "player.card":
            return self._card(p.get("spot"), p.get("card"), now, round_id)
        return self._leaves(p.get("spot"), p.get("card"), now, round_id)

    def _tracking(self, on: Any, minutes: Any, now: int, round_id: str | None) -> list[Effect]:
        if not isinstance(on, bool):
            return [Say(f"player.tracking: on={on!r}: true or false", level="refused")]
        if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes < 0:
            return [Say(f"player.tracking: interval_minutes={minutes!r}: a whole number of minutes, 0 for none",
                        level="refused")]
        self.on, self.interval_ms = on, minutes * MINUTE_MS
        effects: list[Effect] = []
        if not on:  # ratings turned off: every session ends now
            for session in list(self.open.values()):
                effects += self._end(session, now, "ratings turned off", round_id)
        return effects

    def _spot(self, spot: object) -> str | None:
        problem = spot_problem(spot)
        if problem is not None:
            return f"spot={spot!r}: {problem}"
        if isinstance(spot, int) and spot > self.spot_count:
            return f"spot={spot}: the table has {self.spot_count} spots"
        return None

    def _card(self, spot: Any, card: Any, now: int, round_id: str | None) -> list[Effect]:
        problem = self._spot(spot) or card_problem(card)
        if problem:
            return [Say(f"player card refused: {problem}", level="refused")]
        here = self.at(spot)
        if here is not None and here.card == card:
            return [Say(f"spot {spot}: {masked(card)} is seated already", spot)]
        effects: list[Effect] = []
        if here is not None and here.card is None:
            effects += self._end(here, now, "a card at the spot", round_id)
        elif here is not None:
            here.spot, here.displaced_ms = None, now  # kept open: the player may sit at another spot
        session = self.with_card(card)
        moved_from = session.spot if session else None
        if session is None:
            session = self._start(card, spot, now)
        session.spot, session.displaced_ms = spot, None
        if spot not in session.spots:
            session.spots.append(spot)
        effects.append(Note("player.seated", {"session": session.session, "card": card, "spot": spot,
                                              "moved_from": moved_from, "anonymous": False}, round_id))
        return effects + [Say(f"spot {spot}: player {masked(card)} seated", spot)]

    def _leaves(self, spot: Any, card: Any, now: int, round_id: str | None) -> list[Effect]:
        if card is not None:
            problem = card_problem(card)
            session = None if problem else self.with_card(card)
            if problem or session is None:
                return [Say(f"player leaves refused: {problem or f'{masked(card)} is not seated'}", level="refused")]
        else:
            problem = self._spot(spot)
            session = None if problem else self.at(spot)
            if problem or session is None:
                return [Say(f"player leaves refused: {problem or f'no player at spot {spot}'}", level="refused")]
        return self._end(session, now, "left", round_id)

    # -- sessions -----------------------------------------------------------------------------------

    def _start(self, card: str | None, spot: int, now: int) -> Session:
        self.started += 1
        session = Session(f"{self.table_id}-S{self.started:05d}", card, spot, now, [spot])
        self.open[session.session] = session
        return session

    def _end(self, session: Session, now: int, reason: str, round_id: str | None) -> list[Effect]:
        del self.open[session.session]
        end = session.displaced_ms if session.displaced_ms is not None else now
        rating = {**session.figures(), "spot": None, "end_ms": end, "reason": reason, "interim": False,
                  "rounds": [list(r) for r in session.rounds]}
        return [Note("player.rating", rating, round_id)]

    def after_round(self, round_id: str, settlement: dict[str, Any] | None, now: int) -> list[Effect]:
        """Each seated session's figures from the round's settlement; play without a card starts
        an anonymous seat session; a displaced player not seated again leaves. Every session still
        open is then noted with its running figures (``player.round``), so a report of a period
        shows the sessions open at its end as they stood."""
        effects: list[Effect] = []
        for s in [s for s in self.open.values() if s.spot is None]:
            effects += self._end(s, now, "spot taken by another card", round_id)
        if settlement is None or not self.on:
            return effects
        spots = {int(x["spot"]): x for x in settlement.get("spots", [])}
        void = settlement.get("void") is not None
        counted: dict[str, str] = {}
        for number in range(1, self.spot_count + 1):
            line = spots.get(number)
            status = line.get("status") if line else None
            session = self.at(number)
            if session is None and not void and status in PLAYED:
                session = self._start(None, number, now)
                effects.append(Note("player.seated", {"session": session.session, "card": None, "spot": number,
                                                      "moved_from": None, "anonymous": True}, round_id))
            if session is None:
                continue
            if void or status == "void":
                session.rounds_void += 1  # 1.1, 14.7: no result: not rated as played
                counted[session.session] = "void"
            elif status in PLAYED and line is not None:
                session.rounds.append([round_id, number])
                session.idle = 0
                session.ante_cents += line["ante"]["placed_cents"]
                session.bet_cents += line["bet"]["placed_cents"]
                session.progressive_cents += line["progressive"]["placed_cents"]
                session.result_cents += line["total_cents"]
                counted[session.session] = "played"
            else:
                session.rounds_sat_out += 1
                session.idle += 1
                counted[session.session] = "sat out"
                if session.card is None and session.idle >= ANONYMOUS_GONE_ROUNDS:
                    effects += self._end(session, now, "no wager for "
                                         f"{ANONYMOUS_GONE_ROUNDS} rounds", round_id)
        standing = [{**s.figures(), "round": counted[s.session]} for s in self.open.values() if s.session in counted]
        if standing:
            effects.append(Note("player.round", {"at_ms": now, "sessions": standing}, round_id))
        return effects + self._interim(now, round_id)

    def _interim(self, now: int, round_id: str | None) -> list[Effect]:
        """A long session's figures so far, every ``interval_ms`` from its start."""
        effects: list[Effect] = []
        for s in self.open.values() if self.interval_ms else ():
            if now - (s.rated_ms if s.rated_ms is not None else s.start_ms) >= self.interval_ms:
                s.rated_ms = now
                effects.append(Note("player.rating", {**s.figures(), "end_ms": now, "reason": "interim",
                                                      "interim": True, "rounds": [list(r) for r in s.rounds]},
                                    round_id))
        return effects

    # -- checkpoint ------------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"on": self.on, "interval_ms": self.interval_ms, "started": self.started,
                "open": [asdict(s) for s in self.open.values()]}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None, table_id: str, spot_count: int) -> Players:
        players = cls(table_id, spot_count)
        if snap:
            players.started, players.on, players.interval_ms = snap["started"], snap["on"], snap["interval_ms"]
            players.open = {s["session"]: Session(**s) for s in snap["open"]}
        return players

"""Player ratings from the journal: each session's figures and its exact theoretical loss.

The fold rates each session (``player.rating``, tabled/table/players.py): its rounds, wagers and
actual result, and the rounds it played as (round id, spot). Its theoretical loss is the house's
expected win of the wagers and decisions the player actually made, given what the player could see:

* a hand played or folded against the dealer's one up card: the exact expectation over the 163,185
  dealer hands of the decision made (:func:`tabled.reports.theory.theory_of_hands`: 8.4, 9.2,
  9.4.1, 10.1, 10.2, 14.10), so a raise with nothing costs its exact price;
* the progressive wager (11.3): the wager less the expected award at the meter as it stood when
  the round was settled (:mod:`tabled.math.progressive`, 12.1);
* a hand with no decision left to it (conceded 9.7, absent 14.12, dead) or dealt with two cards up
  (7.4.2, 14.5, where the counts are not for one card): its actual result.

Amounts are integer cents; the theoretical loss is an exact fraction, shown rounded to the cent.
A session's last rating is its figures: an interim one (a long session) is replaced by the next.
A session still open at the end of a report's period is rated as it stood then, from the fold's
``player.round`` notes (its running figures after each round), and marked open; one seated
(``player.seated``) with no round finished yet is open with no rounds, seated since its card was
read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tabled.game.profiles import Profile
from tabled.game.round_facts import SpotStatus
from tabled.math.progressive import progressive_math
from tabled.table.players import masked

from .rounds import Gathered, JournalRecord, SpotLine, gather, placed
from .theory import DEALER_HANDS, theory_of_hands

#: the fold's notes of the players' sessions
SESSION_KINDS = frozenset({"player.seated", "player.round", "player.rating"})
#: the notes of the rounds a session played, which its theoretical loss is computed from
ROUND_KINDS = frozenset({"round.started", "round.dealt", "round.settled", "round.void", "round.finished"})
#: what ratings read of a journal
RATING_KINDS = SESSION_KINDS | ROUND_KINDS
DECIDED = (SpotStatus.PLAYED, SpotStatus.FOLDED)


@dataclass(frozen=True)
class Rating:
    session: str
    card: str | None
    table: str
    spots: tuple[int, ...]
    start_ms: int
    end_ms: int
    reason: str
    open: bool                   # an interim rating: the session goes on
    rounds_played: int
    rounds_sat_out: int
    rounds_void: int
    ante_cents: int
    bet_cents: int
    progressive_cents: int
    result_cents: int            # the player's actual win (+) or loss (-)
    theoretical: Fraction        # the house's expected win of what the player did, in cents
    optimal: Fraction            # the same had each hand been decided the better way
    unrated_hands: int           # hands whose rounds the records read do not hold

    @property
    def average_ante_cents(self) -> int:
        return self.ante_cents // self.rounds_played if self.rounds_played else 0

    @property
    def seated_ms(self) -> int:
        """How long the player sat, start to end (an open session: so far, as its figures stand)."""
        return self.end_ms - self.start_ms

    @property
    def theoretical_cents(self) -> int:
        return round(self.theoretical)

    @property
    def decisions_cost(self) -> Fraction:
        """What the player's decisions cost over the better ones, in cents."""
        return self.theoretical - self.optimal


def table_of(session: str) -> str:
    return session.rsplit("-", 1)[0]


def latest(records: Iterable[JournalRecord], until_ms: int | None = None
           ) -> tuple[dict[str, Mapping[str, Any]], Gathered]:
    """Each session's figures as they stood at ``until_ms`` (None: the journal's end), and the
    rounds the records hold: a session that ended by then, its last ``player.rating``; one still
    open then, its running figures from the last ``player.round`` note (an ``open`` rating of the
    rounds it had played), or failing that its last interim rating, or failing both (seated, no
    round finished yet) no rounds since its ``player.seated`` note. An open session is seated until
    the last moment the records tell of (by ``until_ms``), as the floor counts it."""
    sessions: dict[str, Mapping[str, Any]] = {}
    running: dict[str, dict[str, Any]] = {}
    seated: dict[str, dict[str, Any]] = {}
    played: dict[str, list[list[Any]]] = {}
    rounds: list[JournalRecord] = []
    newest_ms = 0  # the last moment the journal tells of: an open session sits until then
    for r in records:
        if until_ms is None or r.time_us // 1000 <= until_ms:
            newest_ms = max(newest_ms, r.time_us // 1000)
        if r.kind == "player.seated" and isinstance(r.payload.get("session"), str):
            at = placed(r)[1] // 1000
            if until_ms is None or at <= until_ms:
                name = r.payload["session"]
                seated[name] = just_seated(r.payload, seated.get(name), at)
        elif r.kind == "player.rating" and isinstance(r.payload.get("session"), str):
            if until_ms is None or r.payload.get("end_ms", 0) <= until_ms:
                sessions[r.payload["session"]] = r.payload
        elif r.kind == "player.round":
            at = r.payload.get("at_ms", 0)
            for s in r.payload.get("sessions", []) if until_ms is None or at <= until_ms else ():
                name = s["session"]
                if s.get("round") == "played":
                    played.setdefault(name, []).append([r.round_id, s["spot"]])
                running[name] = {**s, "end_ms": at, "reason": "open", "interim": True,
                                 "rounds": list(played.get(name, []))}
        elif r.kind in RATING_KINDS:
            rounds.append(r)
    for name, standing in running.items():
        ended = sessions.get(name)
        if ended is None or (ended.get("interim") and ended.get("end_ms", 0) <= standing["end_ms"]):
            sessions[name] = {**standing, "end_ms": max(standing["end_ms"], newest_ms)}
    for name, sitting in seated.items():
        sessions.setdefault(name, {**sitting, "end_ms": max(sitting["end_ms"], newest_ms)})
    return sessions, gather(rounds)


def just_seated(p: Mapping[str, Any], before: Mapping[str, Any] | None, at_ms: int) -> dict[str, Any]:
    """A session seated (``player.seated``) and not yet through a round: open, no rounds, since
    its first seating (``before``: as the session stood, if it was seated already and moved)."""
    spot = p.get("spot")
    spots = list(before["spots"]) if before else []
    return {"session": p["session"], "card": p.get("card"), "anonymous": p.get("card") is None, "spot": spot,
            "spots": spots + ([spot] if spot not in spots else []),
            "start_ms": before["start_ms"] if before else at_ms, "end_ms": at_ms, "reason": "open", "interim": True,
            "rounds_played": 0, "rounds_sat_out": 0, "rounds_void": 0, "ante_cents": 0, "bet_cents": 0,
            "progressive_cents": 0, "result_cents": 0, "rounds": []}


def rate(records: Iterable[JournalRecord], profile_of: Callable[[str], Profile],
         until_ms: int | None = None) -> list[Rating]:
    """Every session's rating as it stood at ``until_ms`` (None: the journal's end), in the order
    the sessions started."""
    sessions, gathered = latest(records, until_ms)
    return sorted((rate_one(p, gathered, profile_of) for p in sessions.values()),
                  key=lambda r: (r.start_ms, r.session))


def rate_one(p: Mapping[str, Any], gathered: Gathered, profile_of: Callable[[str], Profile]) -> Rating:
    decided: list[tuple[SpotLine, int, Profile]] = []
    theoretical = optimal = Fraction(0)
    unrated = 0
    for round_id, spot in p.get("rounds", []):
        played = gathered.rounds.get(round_id)
        settled = played.settlement if played else None
        line = next((s for s in settled.spots if s.spot == spot), None) if settled else None
        if played is None or settled is None or line is None:
            unrated += 1
            continue
        profile = profile_of(settled.profile)
        if line.progressive.placed_cents:
            award = progressive_math(profile).expected_award_cents(settled.pool_before_cents)
            wagers = Fraction(line.progressive.placed_cents, profile.progressive_wager_cents)
            house = line.progressive.placed_cents - award * wagers
            theoretical += house
            optimal += house
        if line.status in DECIDED and played.up_card is not None and line.cards:
            decided.append((line, played.up_card, profile))
        else:  # no decision left to the player, or two cards up: the result as it fell
            actual = -(line.ante.net_cents + line.bet.net_cents)
            theoretical += actual
            optimal += actual
    for profile in {id(pr): pr for _, _, pr in decided}.values():
        hands = [(line, up) for line, up, pr in decided if pr is profile]
        for hand in theory_of_hands(hands, profile):
            theoretical += Fraction(hand.expected_n, DEALER_HANDS)
            optimal += Fraction(hand.optimal_n, DEALER_HANDS)
    return Rating(p["session"], p.get("card"), table_of(p["session"]), tuple(p.get("spots", [])), p["start_ms"],
                  p["end_ms"], str(p.get("reason", "")), bool(p.get("interim")), p["rounds_played"],
                  p["rounds_sat_out"], p["rounds_void"], p["ante_cents"], p["bet_cents"], p["progressive_cents"],
                  p["result_cents"], theoretical, optimal, unrated)


# -- output ------------------------------------------------------------------------------------------------

def dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def duration(ms: int) -> str:
    minutes = ms // 60_000
    return f"{minutes // 60}h{minutes % 60:02d}m"


FIELDS = ("session", "card", "table", "spots", "start_ms", "end_ms", "open", "reason", "rounds_played",
          "rounds_sat_out", "rounds_void", "ante_cents", "average_ante_cents", "bet_cents", "progressive_cents",
          "result_cents", "theoretical_cents", "optimal_theoretical_cents", "unrated_hands", "seated_ms")


def rating_data(r: Rating, cards: bool) -> dict[str, Any]:
    """One rating as plain data; the card number whole for a management system (``cards``), else masked."""
    return {"session": r.session, "card": (r.card if cards else masked(r.card)) if r.card else None,
            "table": r.table, "spots": list(r.spots), "start_ms": r.start_ms, "end_ms": r.end_ms, "open": r.open,
            "reason": r.reason, "rounds_played": r.rounds_played, "rounds_sat_out": r.rounds_sat_out,
            "rounds_void": r.rounds_void, "ante_cents": r.ante_cents, "average_ante_cents": r.average_ante_cents,
            "bet_cents": r.bet_cents, "progressive_cents": r.progressive_cents, "result_cents": r.result_cents,
            "theoretical_cents": r.theoretical_cents, "optimal_theoretical_cents": round(r.optimal),
            "unrated_hands": r.unrated_hands, "seated_ms": r.seated_ms}


def rating_line(r: Rating, when: Callable[[int], str]) -> str:
    state = "open" if r.open else "ended"
    spots = ",".join(str(s) for s in r.spots)
    return (f"{masked(r.card):>9}  {r.table} spot {spots:<5} {when(r.start_ms)}-{when(r.end_ms)} "
            f"{duration(r.seated_ms):>6} {state:<5}  "
            f"rounds {r.rounds_played:>3} played {r.rounds_sat_out:>3} out {r.rounds_void:>2} void  "
            f"avg ante {dollars(r.average_ante_cents):>9}  ante {dollars(r.ante_cents):>10}  "
            f"bets {dollars(r.bet_cents):>10}  prog {dollars(r.progressive_cents):>8}  "
            f"result {dollars(r.result_cents):>10}  theo loss {dollars(r.theoretical_cents):>9}  "
            f"(decisions {dollars(round(r.decisions_cost)):>8})")


__all__ = ["Rating", "rate", "rate_one", "latest", "just_seated", "rating_data", "rating_line", "duration", "FIELDS",
           "RATING_KINDS", "ROUND_KINDS", "SESSION_KINDS", "dollars"]

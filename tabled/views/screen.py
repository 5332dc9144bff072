"""What the dealer's screen shows: a JSON-ready dict made from the table's state after an input
was journaled and folded, and the effects that input caused. Pure: no clock, no I/O.

``screen_view(core, effects, previous)`` is called once per folded input; ``previous`` is the
view it replaces, which carries what the state itself no longer holds: the settlement of a round
that has just finished (shown until the next round's cards are dealt), the dealer's latest lines
and when each standing fault was raised (how long it has stood; after a restart, from its journal
record's time, see ``raised``). Every amount is integer cents beside the words the dealer reads.

What is shown when (the felt as the dealer sees it):

- the wagers the board senses on each area (5.8), and those locked at "no more bets" (7.2.1, 5.6);
- the dealer's up card once the deal is complete (7.3.3, 7.4.2), the whole hand from the reveal
  (8.6); a player's cards and hand once the dealer sees them, from the reveal, for the hands
  still in play (a folded hand is collected face down, 8.4);
- from the reveal, pay or collect per wager and per spot (spot N to spot 1), struck through when
  the panel confirms the settlement (SETTLE/DONE, 9.4); then the progressive payments in the
  order of 12.2 with the exception of 12.4 (:func:`tabled.game.progressive.payment_order`), each
  struck through as the panel confirms it (9.5); the next payment is highlighted;
- the banner "leave the cards face up" (9.5) while a progressive hand waits to be paid;
- while the board checks the payments, each area's verdict as the fold noted it (done, still to
  pay, over by, short by, not collected, chips removed before settlement ended; 9.3, 9.4);
- the faults as they stand (14.13, 15.2, 5.6, 7.3 and 14.1, and a device whose link is lost while
  the round needs it, tabled/table/links.py), with the rule, what the dealer
  does, the key that must act and since when (a shuffling device out of play: "inspector must
  clear it", the inspector's key); the progressive locked (14.13) and the meter, with a linked
  pool's "award pending" when another table's award moved it (``TableCore.award_pending``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tabled.game.cards import card_text
from tabled.game.keys import required
from tabled.game.progressive import payment_order
from tabled.game.ranking import HandValue, evaluate
from tabled.game.round_facts import RoundError
from tabled.game.settlement import Outcome, money, settle, settlement_from_dict
from tabled.game.settlement_text import wager_words
from tabled.table.equipment import fault_words, needing
from tabled.table.poolbook import AWARD_PENDING_MS
from tabled.table.display import TOLD_WHEN_IT_HAPPENED
from tabled.table.effects import Effect, Note, Say
from tabled.table.clock import REQUIREMENT as CLOCK_REQUIREMENT
from tabled.table.enclosure import DOORS as ENCLOSURE_DOORS
from tabled.table.enclosure import RULE as ENCLOSURE_RULE
from tabled.table.selfcheck import NAMES as INTEGRITY_NAMES
from tabled.table.selfcheck import RULE as INTEGRITY_RULE
from tabled.table.names import AREAS
from tabled.table.outofplay import CLEAR_ACTION, CLEAR_HOW

MESSAGES_KEPT = 6  # the dealer's latest lines on screen
#: phase -> the words on screen
PHASES = {
    "preparing": "preparing the cards", "betting": "place your bets", "dealing": "dealing",
    "deciding": "players decide", "revealed": "dealer's hand revealed", "settling": "settling",
    "complete": "round complete", "void": "round void",
}
DECISIONS = {
    "empty": "", "playing": "to decide", "played": "bet", "folded": "folded", "conceded": "conceded",
    "absent": "absent", "void": "void", "dead": "dead hand",
}
#: phases in which the dealer's and the players' cards may be seen (8.6)
REVEALED = ("revealed", "settling", "complete")
#: phases from which the dealer's up card is seen (7.3.3, 7.4.2)
UP_CARD_SEEN = ("deciding", *REVEALED)


def _keys(action: str) -> str:
    return " or ".join(sorted(required(action)[0]))


def _hand(cards: list[int]) -> str | None:
    return HandValue(evaluate(cards)).description if len(cards) == 5 else None


def _wager(cents: int, stacks: int | None = None) -> dict[str, Any]:
    return {"cents": cents, "text": money(cents) if cents else "", "stacks": stacks}


def _checked(core: Any, spot: int) -> dict[str, Any] | None:
    """While the board checks the payments (9.3, 9.4): each area's verdict as the fold noted it,
    in the dealer's words (tabled/table/payout_check.py)."""
    check = core.payments
    if not check.waiting(core.round_id):
        return None
    shown = {}
    for area in AREAS:
        state, off = check.states.get((spot, area), ("done", 0))
        due = check.due.get((spot, area))
        shown[area] = {"state": state, "off_cents": off, "due_cents": due.cents if due else 0,
                       "text": check_words(state, off)}
    return shown


def check_words(state: str, off: int) -> str:
    """An area's verdict as the screen says it: "done", "still to pay $5.00", "over by $5.00"."""
    amount = money(abs(off))
    return {"done": "done", "to pay": f"still to pay {amount}", "over": f"over by {amount}",
            "short": f"short by {amount}", "not collected": f"not collected {amount}",
            "removed early": "chips removed before settlement ended"}.get(state, state)


def _spot(s: Any, phase: str, settled: Mapping[int, Any], core: Any = None) -> dict[str, Any]:
    locked = phase not in ("preparing", "betting")
    seen = phase in REVEALED and s.status == "played" and len(s.cards) == 5  # a conceded hand is not shown (9.7)
    line = settled.get(s.number)
    pay = []
    if line is not None and line.status not in TOLD_WHEN_IT_HAPPENED:
        pay = [{"wager": w.wager, "words": wager_words(w), "net_cents": w.net_cents,
                "net": money(w.net_cents)} for w in line.wagers if w.outcome is not Outcome.NONE]
    decision = DECISIONS.get(s.status, s.status)
    if s.status == "played" and s.bet:
        decision = f"bet {money(s.bet.cents)}"
    return {
        "spot": s.number,
        "sensed": {a: _wager(getattr(s, a).cents, s.stacks.get(a)) for a in AREAS},
        "locked": {"ante": _wager(s.locked_ante.cents) if locked else None,
                   "progressive": _wager(s.locked_progressive.cents) if locked else None,
                   "bet": _wager(s.locked_bet.cents) if phase in REVEALED else None},
        "progressive_accepted": s.progressive_accepted,
        "status": s.status,
        "decision": decision,
        "cards": [card_text(c) for c in s.cards] if seen else [],
        "hand": _hand(s.cards) if seen else None,
        "past_posting": s.past_posting,
        "award_held": s.award_held,
        "settlement": pay,
        "net_cents": line.net_cents if line is not None else None,
        "net": _net_words(line.net_cents) if line is not None and pay else "",
        "check": _checked(core, s.number) if core is not None else None,
    }


def _net_words(net: int) -> str:
    return f"pay {money(net)}" if net > 0 else f"collect {money(-net)}" if net < 0 else "even"


#: how a spot settled when it happened is named on its line (8.4, 9.7, 14.12, NZ 14.1, 14.7)
TOLD_AS = {"folded": "folded", "conceded": "conceded", "absent": "player absent", "dead": "dead hand",
           "void": "hand void", "forfeited": "wagers forfeited"}


def _line(kind: str, spot: int, net: int, returned: int, words: str, rule: str, done: bool) -> dict[str, Any]:
    verb = "PAY" if net > 0 else "COLLECT" if net < 0 else "RETURN" if returned else "EVEN"
    cents = abs(net) or returned
    return {"kind": kind, "spot": spot, "verb": verb, "cents": cents,
            "text": f"spot {spot}: {verb} {money(cents)}", "detail": words, "rule": rule,
            "state": "done" if done else "todo"}


def _told(line: Any, done: bool) -> dict[str, Any]:
    """A spot settled when it happened (a fold, 8.4; a concession, 9.7; ...), from the settlement."""
    wagers = [w for w in line.wagers if w.outcome is not Outcome.NONE]
    returned = sum(w.returned_cents for w in wagers if w.outcome is Outcome.RETURNED)
    # the wager did not lose to the dealer's hand: it was given up ("collect the ante $5.00")
    said = [wager_words(w).replace(f"{w.wager} loses: collect", f"collect the {w.wager}") for w in wagers]
    words = f"{TOLD_AS.get(str(line.status), str(line.status))}: " + "; ".join(said)
    return _line(str(line.status), line.spot, line.net_cents, returned, words, line.ante.rule, done)


def _told_live(s: Any) -> dict[str, Any] | None:
    """A spot settled when it happened, before the round's settlement exists (the deciding phase):
    the wagers as locked at "no more bets" (8.4, 14.9.2, 14.12, NZ 14.1). Done once the board
    senses the spot's ante area cleared."""
    ante, bet, prog = s.locked_ante.cents, s.bet.cents, s.locked_progressive.cents
    done = not s.ante
    if s.status == "folded":
        words = f"folded: collect the ante {money(ante)}" + (f", return the bet {money(bet)} (14.9.2)" if bet else "")
        return _line("folded", s.number, -ante, 0, words, "8.4", done)
    if s.status == "absent":
        words = f"player absent: return the ante {money(ante)}" + \
                (f" and the progressive wager {money(prog)}" if prog else "")
        return _line("absent", s.number, prog, ante, words, "14.12", done)
    if s.status == "dead":
        words = f"dead hand: collect the ante {money(ante)}" + (f", the bet {money(bet)}" if bet else "")
        return _line("dead", s.number, -(ante + bet), 0, words, "NZ 14.1", done)
    return None


def _first_next(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The next payment the dealer makes: the first not yet done."""
    waiting = [p for p in lines if p["state"] == "todo"]
    if waiting:
        waiting[0]["state"] = "next"
    return lines


def _payments(st: Any, paid: Iterable[int] | None, settled: bool = True,
              cleared: Iterable[int] = ()) -> list[dict[str, Any]]:
    """Every pay and collect of the round: first the spots settled when it happened (a fold,
    8.4; one where nothing changes hands is left out), done once the board senses the ante
    cleared (``cleared``) or the settlement is confirmed; then pay or collect per spot (spot N
    to spot 1, 12.2); then the progressive payments in the order of 12.2 and 12.4.
    ``settled``: the panel confirmed the settlement (SETTLE/DONE, 9.4), which strikes through
    every spot's line; ``paid``: the spots whose progressive payment the panel confirmed (9.5),
    None when the round is over (every one was)."""
    told = [line for line in st.spots if any(w.outcome is not Outcome.NONE for w in line.wagers)
            and line.status in TOLD_WHEN_IT_HAPPENED]
    gone = set(cleared)
    lines = [p for p in (_told(line, settled or line.spot in gone) for line in told) if p["verb"] != "EVEN"]
    for line in st.spots:
        if line.status in TOLD_WHEN_IT_HAPPENED or not any(w.outcome is not Outcome.NONE for w in line.wagers):
            continue
        words = "; ".join(wager_words(w) for w in line.wagers if w.outcome is not Outcome.NONE)
        lines.append(dict(_line("spot", line.spot, line.net_cents, 0, words, line.ante.rule, settled)))
    done = set(paid) if paid is not None else None
    for i, a in enumerate(payment_order(st.progressive.awards), 1):
        confirmed = done is None or a.spot in done
        lines.append({"kind": "progressive", "spot": a.spot, "verb": "PAY", "cents": a.amount_cents,
                      "text": f"progressive {i}: spot {a.spot} {a.category.label} {money(a.amount_cents)}",
                      "detail": f"pool {money(a.from_pool_cents)}, operator {money(a.operator_topup_cents)}",
                      "rule": a.rule, "state": "done" if confirmed else "todo"})
    return _first_next(lines)


def _settlement(round_id: str, data: Mapping[str, Any], paid: Iterable[int] | None) -> dict[str, Any] | None:
    try:
        st = settlement_from_dict(data)
    except RoundError:
        return None
    return _shown(round_id, st, _payments(st, paid), finished=paid is None, preview=False)


def _shown(round_id: str, st: Any, payments: list[dict[str, Any]], *, finished: bool, preview: bool) -> dict[str, Any]:
    return {"round_id": round_id, "void": st.void.value if st.void else None,
            "payments": payments, "finished": finished, "preview": preview,
            "house_pays_cents": st.house_pays_cents, "house_collects_cents": st.house_collects_cents,
            "house_pays": money(st.house_pays_cents), "house_collects": money(st.house_collects_cents),
            "by_spot": {line.spot: line for line in st.spots}}


def _decided_so_far(r: Any) -> dict[str, Any] | None:
    """Before the round's settlement can be made (players still deciding, a past posting open):
    the spots settled when it happened, from their wagers as locked."""
    lines = [p for p in (_told_live(s) for s in sorted(r.spots.values(), key=lambda s: -s.number)) if p]
    if not lines:
        return None
    pays = sum(p["cents"] for p in lines if p["verb"] == "PAY")
    collects = sum(p["cents"] for p in lines if p["verb"] == "COLLECT")
    return {"round_id": r.round_id, "void": None, "payments": _first_next(lines), "finished": False,
            "preview": True, "house_pays_cents": pays, "house_collects_cents": collects,
            "house_pays": money(pays), "house_collects": money(collects), "by_spot": {}}


def _settlement_shown(core: Any, effects: list[Effect], previous: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The round in play's settlement; else one the effects just made (a round that settled and
    finished in one input); else the last one shown, until the next round's cards are dealt.
    Before the settlement can be made, the spots settled when it happened (a fold, 8.4)."""
    r = core.round
    if r is not None and r.settlement is not None:
        paid = [s.number for s in r.spots.values() if not s.award_held] if r.phase == "settling" else None
        return _settlement(r.round_id, r.settlement, paid)
    if r is not None and r.phase == "revealed" and not r.past_posting_open():
        # what SETTLE/DONE will confirm: ante and bet do not depend on the pool; the progressive
        # payments come with the pool's answer once the dealer has settled
        st = settle(r.facts(core.pool.cents or 0), core.profile)
        cleared = [s.number for s in r.spots.values() if not s.ante]
        lines = [p for p in _payments(st, (), settled=False, cleared=cleared) if p["kind"] != "progressive"]
        return _shown(r.round_id, st, lines, finished=False, preview=True)
    if r is not None and r.phase in ("deciding", "revealed"):
        return _decided_so_far(r)
    settled = [e for e in effects if isinstance(e, Note) and e.kind == "round.settled"]
    if settled:
        return _settlement(settled[-1].round_id or "", settled[-1].payload, None)
    if previous and (r is None or r.phase in ("preparing", "betting")):
        last = dict(previous)
        last["payments"] = [dict(p, state="done") for p in last["payments"]]  # the round is over
        last["finished"] = True
        return last
    return None


def _payment_now(p: Mapping[str, Any]) -> str:
    """The payment the dealer makes now, with its amount: "pay spot 7: $205.00"."""
    if p["kind"] == "progressive":
        return f"pay the progressive award on spot {p['spot']}: {money(p['cents'])}"
    return f"{p['verb'].lower()} spot {p['spot']}: {money(p['cents'])}"


def _next_step(core: Any, settlement: Mapping[str, Any] | None = None) -> str:
    """What the dealer does next, in the rules' words; at settlement, the next payment first, with
    its amount."""
    r = core.round
    now = None
    if settlement is not None and r is not None and settlement["round_id"] == r.round_id:
        now = next((p for p in settlement["payments"] if p["state"] == "next"), None)
    if r is None:
        if not core.hours.is_open:
            return "table closed: a supervisor opens it (16.8)"
        if core.equipment.faults and not core.equipment.approved:
            return "no new round: an inspector approves play (14.13)"
        if core.decks.shuffler_failed and core.decks.device_out is not None and core.decks.source == "shuffler":
            return (f"shuffling device out of play: inspector must clear it ({CLEAR_HOW}, 15.2), "
                    "or a supervisor continues with the card shoe (15.2.2)")
        if core.decks.shuffler_failed:
            return "shuffling device failed: a supervisor chooses another device or the shoe (15.2.2)"
        return "waiting for the next round"
    phase = r.phase
    if phase == "preparing":
        deck = core.decks.status.get(r.deck, {})
        if not deck.get("verified"):
            return f"verify deck {r.deck} (3.4)"
        if r.card_source == "shoe":
            return "shuffle and cut the cards, then confirm on the panel (4.2)"
        return f"waiting for the shuffling device to shuffle deck {r.deck} (4.1)"
    if phase == "betting":
        return "players place their antes and progressive wagers; then NO MORE BETS (7.2.1)"
    if phase == "dealing":
        if r.deal_stopped:
            return f"declare a misdeal (14.1): {r.deal_stopped}"
        if r.unread is not None:
            return f"key in card {r.unread} the shoe could not read, or declare a misdeal (7.3, 14.1)"
        return f"deal to {spots_words(n for n in r.dealt_to if n != 'dealer')} and the dealer (7.2.2)"
    if phase == "deciding":
        waiting = [str(s.number) for s in r.spots.values() if s.status == "playing"]
        pp = [str(s.number) for s in r.spots.values() if s.past_posting]
        first = (f"put the wagers on {spots_words(pp)} back as they were locked, or resolve the past "
                 "posting on the panel (5.6); then " if pp else "")
        if waiting:
            return f"{first}{spots_words(waiting)}: fold or bet (8.1)"
        return f"{first}every player has decided: REVEAL the dealer's hand (8.6)"
    if phase == "revealed":
        pp = [str(s.number) for s in r.spots.values() if s.past_posting]
        if pp:
            return f"resolve the past posting on {spots_words(pp)} (5.6)"
        if now is not None and now["kind"] != "spot":  # a fold's ante still on the felt
            return f"{_payment_now(now)} ({now['rule']}); then pay and collect from spot {r.spot_count} to spot 1, " \
                   "then SETTLE/DONE on the panel (9.4, 12.2)"
        if now is not None:
            return f"{_payment_now(now)}; from spot {r.spot_count} to spot 1, then SETTLE/DONE on the panel (9.4, 12.2)"
        return f"pay and collect from spot {r.spot_count} to spot 1, then SETTLE/DONE on the panel (9.4, 12.2)"
    if phase == "settling":
        held = [s for s in r.spots.values() if s.award_held]
        if held and r.awards is None:
            return "progressive hands: leave the cards face up; waiting for the pool (9.5)"
        if held:
            if now is not None and now["kind"] == "progressive":
                return f"{_payment_now(now)}, then confirm it on the panel (9.5, 12.2)"
            order = [a["spot"] for a in r.awards.get("awards", []) if r.spots[a["spot"]].award_held]
            first = order[0] if order else held[0].number
            return f"pay the progressive award on spot {first}, then confirm it on the panel (9.5, 12.2)"
        if core.payments.waiting(r.round_id):
            return _check_step(core)
        return "pay and collect (9.4)"
    if phase == "void" and core.payments.waiting(r.round_id):  # voided while it settled (16.4, 1.1)
        return f"round void: put every wager back as it was placed; {_check_step(core)}"
    return str(PHASES.get(phase, phase))


def _check_step(core: Any) -> str:
    """The first area the board does not yet show settled, or SETTLE/DONE (9.3, 9.4)."""
    check = core.payments
    open_ = [(k, s) for k, s in sorted(check.states.items()) if s[0] not in ("done", "removed early")]
    if not open_:
        return "every area paid and collected: SETTLE/DONE on the panel (9.4); players pick up after it"
    (spot, area), (state, off) = max(open_, key=lambda kv: (kv[1][0] in ("over", "short"), kv[0][0]))
    return f"spot {spot} {area}: {check_words(state, off)}; pay and collect every area as shown, " \
           "then SETTLE/DONE on the panel (9.3, 9.4)"


def spots_words(numbers: Iterable[Any]) -> str:
    """"spot 7", "spots 2 and 5", "spots 1, 2 and 3"."""
    shown = [str(n) for n in numbers]
    if len(shown) == 1:
        return f"spot {shown[0]}"
    return f"spots {', '.join(shown[:-1])} and {shown[-1]}" if shown else "no spot"


def rule_once(text: str, rule: str | None) -> str:
    """A line that names its rule itself is shown without the rule printed again beside it."""
    tail = f" ({rule})"
    return text[: -len(tail)] if rule and text.endswith(tail) else text


def _faults(core: Any, since: Mapping[str, int]) -> list[dict[str, Any]]:
    """The faults as they stand: what, the rule, what the dealer does, the key that acts, since
    when; ``detail``: the technical reason, for the pit."""
    out: list[dict[str, Any]] = []

    def add(key: str, what: str, rule: str, does: str, action: str | None, at: int | None = None,
            detail: str = "") -> None:
        out.append({"id": key, "what": rule_once(what, rule), "rule": rule, "dealer_does": does,
                    "key": _keys(action) if action else None, "detail": detail,
                    "since_ms": at if at is not None else since.get(key, core.now)})

    for equipment, reason in sorted(core.equipment.faults.items()):
        if core.equipment.approved:
            does = "play goes on with the progressive offline until the equipment works again"
        else:
            does = "notify an inspector; the round in play may finish, no new round until approved"
        add(f"equipment:{equipment}", fault_words(equipment, reason), "14.13", does,
            None if core.equipment.approved else "approve_play", detail=reason)
    for what, reason in sorted(core.integrity.faults.items()):  # tabled/table/selfcheck.py
        add(f"equipment:{what}", f"{INTEGRITY_NAMES[what]} failed verification: {reason}", INTEGRITY_RULE,
            "notify an inspector; the round in play may finish, no new round until the inspector clears it",
            "approve_play", detail=reason)
    for door, at in sorted(core.enclosures.open.items()):  # tabled/table/enclosure.py
        add(f"enclosure:{door}", f"{ENCLOSURE_DOORS[door]} door open", ENCLOSURE_RULE,
            "close it; no new round until the inspector approves", None, at)
    for door, at in sorted(core.enclosures.closed_unacknowledged.items()):
        add(f"enclosure:{door}", f"{ENCLOSURE_DOORS[door]} door was opened", ENCLOSURE_RULE,
            "the inspector approves before the next round", "approve_play", at)
    if core.clock_watch.fault is not None:  # tabled/table/clock.py: shown, play goes on
        add("clock", f"clock error: {core.clock_watch.fault}", CLOCK_REQUIREMENT,
            "notify the technician; play goes on", None, core.clock_watch.fault_since_ms)
    for lost in needing(core.equipment.links, core.round):  # the fold decides which lost link the round needs
        out.append({"id": f"link:{lost.device}", "what": rule_once(lost.what, lost.rule), "rule": lost.rule,
                    "dealer_does": lost.dealer_does, "key": " or ".join(sorted(lost.keys)), "detail": "",
                    "since_ms": since.get(f"link:{lost.device}", core.now)})
    out_of_play = core.decks.device_out
    if out_of_play is not None:  # the fold keeps when it was taken out (a restart shows the same)
        add("shuffler_out", f"shuffling device out of play: {out_of_play.reason}", out_of_play.rule,
            f"inspector must clear it ({CLEAR_HOW}); until then it is not used"
            + (": a supervisor may continue with the card shoe (15.2.2)" if core.decks.source == "shuffler" else ""),
            CLEAR_ACTION, out_of_play.since_ms)
    elif core.decks.shuffler_failed:
        add("shuffler", "shuffling device failed", "15.2.2",
            "continue with another shuffling device or the card shoe, with new cards", "use_card_source")
    if core.decks.door_open:
        add("door", "shuffling device door open", "15.2", "close the door", None)
    r = core.round
    if r is not None:
        for s in r.spots.values():
            if s.past_posting:
                add(f"past_posting:{s.number}", f"spot {s.number}: past posting: {s.past_posting}", "5.6",
                    "put the wagers back as they were locked, or resolve it on the panel", "resolve_past_posting")
        if r.deal_stopped:
            add("deal_stopped", f"deal stopped: {r.deal_stopped}", "14.1", "declare a misdeal", "misdeal")
        elif r.unread is not None:
            add("unread", f"card {r.unread} could not be read by the shoe", "7.3",
                "look at the card and key it in, or declare a misdeal", "misdeal")
        if r.shoe_off is not None:
            add("shoe_off", "the shoe is off its base", "7.3", "put the shoe back before drawing", None)
    return out


def _messages(effects: Iterable[Effect], previous: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dealer's latest lines, as the fold said them."""
    effects = list(effects)
    said = [{"text": rule_once(e.text, e.rule), "rule": e.rule, "level": e.level, "spot": e.spot}
            for e in effects if isinstance(e, Say)]
    return (previous + said)[-MESSAGES_KEPT:]


def _meter(core: Any) -> dict[str, Any]:
    offline = core.equipment.progressive_offline
    cents = core.pool.cents
    if offline:
        text = "PROGRESSIVE OFFLINE"
    elif "pool" in core.equipment.faults:
        text = "pool cannot be reached"
    elif cents is None:
        text = "no reading yet"
    else:
        text = money(cents)
    return {"cents": cents, "text": text, "offline": offline, "locked": offline or "pool" in core.equipment.faults,
            "meter_fault": core.equipment.faults.get("meter"), "award_pending": _award_pending(core)}


def _award_pending(core: Any) -> dict[str, Any] | None:
    """Another linked table's hit, as the pool's reading told it, until the fold ends it (that
    table contributes again) or :data:`AWARD_PENDING_MS` has passed (it may have closed)."""
    pending = core.pool.award_pending
    if pending is None or core.now - pending["since_ms"] >= AWARD_PENDING_MS:
        return None
    return {**pending, "text": f"progressive hit at table {pending['table_id']}, {money(pending['cents'])}: "
                              "award pending"}


def screen_view(core: Any, effects: Iterable[Effect] = (), previous: Mapping[str, Any] | None = None,
                raised: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The dealer's screen after ``effects`` (see the module docstring). ``core`` is read, never
    changed. ``raised``: fault id -> when its journal record raised it (ms), for the faults that
    stood before the first screen (a restart): they have stood since then, not since the start."""
    effects = list(effects)
    previous = previous or {}
    r = core.round
    phase = str(r.phase) if r is not None else ""
    settlement = _settlement_shown(core, effects, previous.get("settlement"))
    settled_lines = settlement.pop("by_spot", {}) if settlement else {}
    if r is None or settlement is None or settlement["round_id"] != r.round_id:
        settled_lines = {}
    faults_before = {**(raised or {}), **{f["id"]: f["since_ms"] for f in previous.get("faults", [])}}
    dealer: dict[str, Any] = {"cards": [], "up": [], "hand": None}
    if r is not None and phase in UP_CARD_SEEN:
        dealer["up"] = [card_text(c) for c in r.dealer_up]
    if r is not None and phase in REVEALED and len(r.dealer_cards) == 5:
        dealer["cards"] = [card_text(c) for c in r.dealer_cards]
        dealer["hand"] = _hand(r.dealer_cards)
    held = [s.number for s in r.spots.values() if s.award_held] if r is not None else []
    lim = core.hours.limits
    return {
        "table": {"id": core.table_id, "profile": core.profile.name, "spots": core.spot_count,
                  "card_source": core.decks.source, "open": core.hours.is_open, "closing_at_ms": core.hours.closing_at},
        "limits": {"minimum_cents": lim.minimum_cents, "maximum_cents": lim.maximum_cents,
                   "unit_cents": lim.unit_cents, "progressive_cents": lim.progressive_wager_cents,
                   "text": f"{money(lim.minimum_cents)} to {money(lim.maximum_cents)}, units of "
                           f"{money(lim.unit_cents)}; progressive {money(lim.progressive_wager_cents)}"},
        "round": {"id": r.round_id, "phase": phase, "phase_text": PHASES.get(phase, phase), "deck": r.deck,
                  "back": r.back} if r is not None else None,
        "next": _next_step(core, settlement),
        "dealer": dealer,
        "spots": [_spot(s, phase, settled_lines, core) for s in r.spots.values()] if r is not None else [],
        "settlement": settlement,
        "banner": {"text": "PROGRESSIVE HAND: leave the cards face up until the award is paid", "rule": "9.5",
                   "spots": held, "spots_text": spots_words(held)} if held else None,
        "faults": _faults(core, faults_before),
        "meter": _meter(core),
        "messages": _messages(effects, list(previous.get("messages", []))),
        "rounds_finished": core.rounds_finished,
        "now_ms": core.now,
    }


__all__ = ["screen_view", "PHASES"]

"""Payments checked by the bet-spot sensors: what the dealer left on each area against the settlement.

From a round's settlement (9.3, 9.4) the table knows what each betting area must hold when the
dealer has paid and collected, before SETTLE DONE (docs/settlement.md, "The dealer's procedure"):

* a paid wager: the wager and its winnings, paid in chips beside it (1.1: a token on a winning
  wager is taken, its winnings paid in chips);
* a collected wager, and the progressive wager taken at the lock (7.2.1): nothing;
* a stand off, a void or a returned wager: the wager as it lies (a token stays, our reading of 1.1);
* a progressive award is paid by hand-pay slip (9.5), never on the felt.

While the round settles, every board reading is judged against that: per area ``done``; still at
work between the wager and what is due, ``to pay`` or ``not collected``; an error beyond both,
``over`` or ``short`` (flagged as read); or ``removed early`` (chips taken off an area seen paid
before SETTLE DONE; an area left as it was wagered, a stand off say, is never "paid": emptied, it
is short, since the board cannot tell a player's early pick-up there from the dealer's mistaken
collection). SETTLE DONE is refused while an area is not done,
naming the spot, the area and the amount, unless a supervisor's key overrides it: the round is
then settled by what was left on the felt, and the override note keeps both amounts.

A round voided (14.4, 15.2.1, 16.4) is checked against its void settlement, every wager returned
as it lay (1.1); one voided while it settles waits, like a settlement, for SETTLE DONE until the
winnings already paid are taken back (:meth:`PaymentCheck.void`).

The verdicts are notes (``payments.due``, ``payments.area``, ``payments.removed_early``,
``payments.refused``, ``payments.override``, ``payments.checked``): the screen, the pit, the
reports and the floor read them. ``payments.area`` is written for an error (over, short, removed
early) and for how it ended; the dealer's work in progress is the screen's alone (it reads the
fold's state), so an honest pass of the dealer journals its reading and nothing more. The board
reads amounts, not who put them there: what it cannot tell apart is said in docs/settlement.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tabled.game.limits import dollars
from tabled.table.effects import Effect, Note, Say
from tabled.table.felt import Area, Felt
from tabled.table.names import AREAS

RULE = "9.3, 9.4"
#: verdicts that let SETTLE DONE through
SETTLED = ("done", "removed early")
#: verdicts that are an error, not work still to do: flagged as they are read
WRONG = ("over", "short")
#: verdicts noted as they are read (payments.area), and the next verdict of an area that had one
NOTED = (*WRONG, "removed early")

Key = tuple[int, str]


@dataclass(frozen=True)
class Due:
    """What one area held when the round settled, and what it must hold before SETTLE DONE."""

    placed: Area
    chips: int
    tokens: int

    @property
    def cents(self) -> int:
        return self.chips + self.tokens

    @property
    def paid(self) -> bool:
        """The dealer pays this area: it must end other than it was wagered. A stand off, a void or
        a returned wager is not paid: emptied before SETTLE DONE it is short, whoever took it."""
        return (self.chips, self.tokens) != (self.placed.chips, self.placed.tokens)


def due_from(line: dict[str, Any], placed: Area) -> Due:
    """One wager's settlement line -> what its area must hold: what stays with the player and the
    winnings (chips); the tokens not forfeited stay as tokens."""
    tokens = line["token_cents"] - line["tokens_forfeited_cents"]
    return Due(placed, line["returned_cents"] + line["winnings_cents"] - tokens, tokens)


def verdict(due: Due, read: Area, seen_done: bool) -> tuple[str, int]:
    """The state of one area and the amount it is off (read minus due, in cents). Between what was
    wagered and what is due the dealer is still at work: ``to pay`` (a payment not yet all there) or
    ``not collected`` (a wager not yet all taken). Beyond either end it is an error: ``over`` (more
    than is due and more than was wagered) or ``short`` (less than is due and less than was wagered)."""
    have = read.chips + read.tokens
    off = have - due.cents
    if off == 0 and read.tokens == due.tokens:
        return "done", 0
    if seen_done and read.empty and due.cents:
        return "removed early", off
    if off == 0:  # the right amount, a token where chips are due (or the other way round)
        return ("over" if read.tokens > due.tokens else "short"), read.tokens - due.tokens
    placed = due.placed.chips + due.placed.tokens
    if off > 0:
        return ("not collected" if have <= placed else "over"), off
    return ("to pay" if have >= placed else "short"), off


def words(spot: int, area: str, state: str, off: int) -> str:
    amount = dollars(abs(off))
    return {"to pay": f"spot {spot} {area}: still to pay {amount}",
            "over": f"spot {spot} {area}: over by {amount}",
            "short": f"spot {spot} {area}: short by {amount}",
            "not collected": f"spot {spot} {area}: not collected {amount}",
            "removed early": f"spot {spot} {area}: chips removed before settlement ended",
            }.get(state, f"spot {spot} {area}: done")


class PaymentCheck:
    """The round being settled: what every area must hold, and each area's verdict as last noted."""

    def __init__(self, enabled: bool = False) -> None:
        self.enabled = enabled
        self.round_id: str | None = None
        self.due: dict[Key, Due] = {}
        self.states: dict[Key, tuple[str, int]] = {}
        self.seen_done: set[Key] = set()
        self.passed = False
        self.voided = False  # the check is of a round voided while it settled: every wager back

    def __bool__(self) -> bool:
        return self.round_id is not None

    def waiting(self, round_id: str | None) -> bool:
        """The round's payments are being checked and SETTLE DONE has not passed yet."""
        return round_id is not None and self.round_id == round_id and not self.passed

    def lets_finish(self, round_id: str) -> bool:
        return not self.waiting(round_id)

    # -- the fold's hooks -------------------------------------------------------------------------

    def expect(self, round_id: str, settlement: dict[str, Any], felt: Felt, spot_count: int) -> list[Effect]:
        """The round settled: every area's due, judged at once against the felt as it lies. An area
        with no wager of the round must stay empty (a payment there is the wrong spot's)."""
        if not self.enabled:
            return []
        return self._expect(round_id, settlement, felt, _as_it_lies(felt, spot_count), void=False)

    def _expect(self, round_id: str, settlement: dict[str, Any], felt: Felt, placed: dict[Key, Area],
                void: bool) -> list[Effect]:
        """Every area's due from the settlement's lines and what the area held (``placed``); in a
        void round an area with no wager of the round keeps what it held (a bet not yet locked is
        the player's, returned as it lies)."""
        lines = {s["spot"]: s for s in settlement["spots"]}
        self.round_id, self.passed, self.voided = round_id, False, False
        self.due, self.states, self.seen_done = {}, {}, set()
        for (n, area), was in placed.items():
            line = lines.get(n, {}).get(area)
            if line is not None and line["outcome"] != "none":
                self.due[(n, area)] = due_from(line, was)
            else:
                self.due[(n, area)] = Due(was, was.chips, was.tokens) if void else Due(was, 0, 0)
        due_note: dict[str, Any] = {"areas": [self._row(k, felt) for k in self.due]}
        if void:
            due_note["void"] = True
        return [Note("payments.due", due_note, round_id), *self.reading(felt, initial=True)]

    def void(self, round_id: str, settlement: dict[str, Any], felt: Felt, spot_count: int,
             dealer: Any) -> list[Effect]:
        """A round voided whole (14.4, 15.2.1, 16.4): every wager returned (1.1), each area to hold
        its wager, a token too where the profile gives it back. An area that does not is flagged with
        the amount to give back (or take back), and noted.

        Voided before it settled, the round ends at once: the felt is judged as it lies at the void,
        and the players take their wagers back with the next round's betting. Voided while it settles
        (its payments being checked), each area must hold its wager as it lay when the round settled:
        the winnings the dealer has paid since are taken back, a wager collected is given back, and
        the round waits for SETTLE DONE as a settlement does (:meth:`settle_done`), so the house's
        chips never lie on the felt as the next round's wagers."""
        if not self.enabled:
            return []
        settling = self.round_id == round_id and bool(self.due)
        placed = {k: d.placed for k, d in self.due.items()} if settling else _as_it_lies(felt, spot_count)
        effects = self._expect(round_id, settlement, felt, placed, void=True)
        wrong = [(k, s) for k, s in self.states.items() if s[0] != "done"]
        for (n, area), (_, off) in wrong:
            effects.append(Note("payments.area", self._row((n, area), felt), round_id))
            effects.append(Say(f"void round: {words(n, area, 'to pay' if off < 0 else 'over', off)}: every wager "
                               "goes back as it was placed", n, "1.1, 16.4", "flag"))
        if not wrong:
            effects.append(Note("payments.checked", {"areas": sum(1 for d in self.due.values() if d.cents),
                                                     "dealer": dealer, "void": True}, round_id))
        self.passed, self.voided = not (wrong and settling), settling
        return effects

    def reading(self, felt: Felt, initial: bool = False) -> list[Effect]:
        """A board reading while the payments are checked: every area judged again; an area whose
        verdict becomes an error (over, short, removed early), or stops being one, is noted."""
        if not self.waiting(self.round_id):
            return []
        effects: list[Effect] = []
        for key, due in self.due.items():
            read = felt.at(*key)
            state = verdict(due, read, key in self.seen_done)
            if state[0] == "done" and due.cents and due.paid:
                self.seen_done.add(key)  # seen paid: emptied now, the player picked up early
            was = self.states.get(key)
            self.states[key] = state
            if state == was or (initial and state[0] == "done"):
                continue
            n, area = key
            if state[0] == "removed early" and (was is None or was[0] != "removed early"):
                effects.append(Note("payments.removed_early", {"spot": n, "area": area, "due_cents": due.cents,
                                                               "rule": "9.4"}, self.round_id))
                effects.append(Say(f"{words(n, area, *state)}: players pick up after SETTLE DONE", n, "9.4",
                                   "flag"))
            # a reader needs every error and how it ended; the dealer's work in progress (to pay, not
            # collected, done) is the screen's, from the fold's state, and payments.checked closes it
            if not initial and (state[0] in NOTED or (was is not None and was[0] in NOTED)):
                effects.append(Note("payments.area", self._row(key, felt), self.round_id))
            if state[0] in WRONG and not initial:
                effects.append(Say(words(n, area, *state), n, RULE, "flag"))
        return effects

    def settle_done(self, key: str | None, person: dict[str, Any], dealer: Any) -> list[Effect]:
        """SETTLE DONE: through when every area holds what it must; refused while one is wrong, unless
        a supervisor's key overrides it (the round then settled by what was left on the felt)."""
        wrong = [(k, s) for k, s in self.states.items() if s[0] not in SETTLED]
        void = {"void": True} if self.voided else {}
        if not wrong:
            self.passed = True
            return [Note("payments.checked", {"areas": sum(1 for d in self.due.values() if d.cents or d.placed.chips
                                                           or d.placed.tokens), "dealer": dealer, **void},
                         self.round_id)]
        rows: list[dict[str, Any]] = [{"spot": n, "area": a, "state": s, "due_cents": self.due[(n, a)].cents,
                 "left_cents": self.due[(n, a)].cents + off, "difference_cents": off} for (n, a), (s, off) in wrong]
        said = "; ".join(words(n, a, s, off) for (n, a), (s, off) in wrong)
        if self.voided:
            said = f"void round, every wager back as it was placed: {said}"
        if key != "supervisor":
            return [Say(f"SETTLE DONE refused: {said}: put it right, or a supervisor's key overrides", wrong[0][0][0],
                        RULE, "refused"),
                    Note("payments.refused", {"areas": rows, "key": key, "dealer": dealer, "rule": RULE},
                         self.round_id)]
        self.passed = True
        diff = sum(r["difference_cents"] for r in rows)
        return [Note("payments.override", {"areas": rows, "difference_cents": diff, "dealer": dealer, "rule": RULE,
                                           **person, **void}, self.round_id),
                Say(f"SETTLE DONE by the supervisor's key: settled as left on the felt ({said})", rule=RULE,
                    level="flag")]

    def _row(self, key: Key, felt: Felt) -> dict[str, Any]:
        n, area = key
        due, read = self.due[key], felt.at(*key)
        state, off = self.states.get(key) or verdict(due, read, False)
        return {"spot": n, "area": area, "state": state, "due_cents": due.cents, "due_tokens": due.tokens,
                "placed_cents": due.placed.chips + due.placed.tokens, "read_cents": read.chips + read.tokens,
                "read_tokens": read.tokens, "difference_cents": off}

    # -- checkpoint -----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "round_id": self.round_id, "passed": self.passed,
                **({"void": True} if self.voided else {}),
                "due": [[n, a, d.placed.chips, d.placed.tokens, d.placed.stacks, d.chips, d.tokens]
                        for (n, a), d in self.due.items()],
                "states": [[n, a, s, off] for (n, a), (s, off) in self.states.items()],
                "seen_done": sorted([n, a] for n, a in self.seen_done)}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> PaymentCheck:
        check = cls()
        if snap:
            check.enabled, check.round_id, check.passed = snap["enabled"], snap["round_id"], snap["passed"]
            check.due = {(n, a): Due(Area(pc, pt, ps), c, t) for n, a, pc, pt, ps, c, t in snap["due"]}
            check.states = {(n, a): (s, off) for n, a, s, off in snap["states"]}
            check.seen_done = {(n, a) for n, a in snap["seen_done"]}
            check.voided = snap.get("void", False)
        return check


def _as_it_lies(felt: Felt, spot_count: int) -> dict[Key, Area]:
    return {(n, area): felt.at(n, area) for n in range(1, spot_count + 1) for area in AREAS}


__all__ = ["PaymentCheck", "Due", "due_from", "verdict", "words", "SETTLED", "WRONG"]

"""The table's cards: where they come from, each deck shuffled and verified, and the shuffling
device's own troubles.

* 3.2: two decks of different backs alternate in the shuffling device (A red, B blue); the shoe
  holds one deck (S) whose back colour is learned (3.1).
* 3.4, 3.6: new cards are verified before use (52 distinct cards through the reader, or the
  dealer's check when the device does not read its cards); 3.7: a deck that fails is replaced.
* 4.1: a deck is shuffled before every round; 4.2, 4.3: with the shoe the dealer shuffles and cuts.
* 15.1: a shuffle that fails or does not intermix is done again; 15.2: a device that can no longer
  operate as intended has failed (play goes on with another device or the shoe and new cards,
  15.2.2), and one the shuffle watch takes out of play stays out until an inspector clears it
  (tabled/table/outofplay.py). Its door open during a round is shown.

What the device was asked and not yet heard back is :class:`~tabled.table.cardsource.CardSource`
(``requests``), rebuilt after a restore.

Checkpoint section ``decks`` (version :data:`VERSION`); :func:`upcast` reads a checkpoint written
before the section existed (the same fields at its top level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabled.table import notes
from tabled.table.cardsource import DECKS, CardSource, read_status
from tabled.table.checkpoint import SKIP, CheckpointError, load_fields, saved_fields
from tabled.table.effects import Effect, Note, Say, Shuffle, StartShoe
from tabled.table.outofplay import OutOfPlay
from tabled.table.round import Round, in_round
from tabled.game.shuffle_watch import Verdict
from tabled.table.shuffles import Shuffles

VERSION = 1
SHOE = "S"
SOURCES = ("shuffler", "shoe")
SHUFFLE_FAULTS = ("jam", "cycle_fail", "not_intermixing")  # 15.1: reshuffle


def fresh() -> dict[str, dict[str, Any]]:
    """Every deck neither shuffled nor verified (3.4, 4.1)."""
    return {d: {"shuffled": False, "verified": False} for d in (*DECKS, SHOE)}


def _id(r: Round | None) -> str | None:
    return r.round_id if r is not None else None


@dataclass
class Decks:
    source: str = "shuffler"                    # the card source: the shuffling device or the shoe
    status: dict[str, dict[str, Any]] = field(default_factory=fresh)  # deck -> shuffled, verified, back
    next_deck: str = "A"                        # 3.2: the decks alternate
    recognition: bool | None = None             # the shuffling device reads its cards (3.4); None: not said
    cut_done: bool = False                      # 4.2: the dealer's shuffle and cut (shoe)
    shuffler_failed: bool = False               # 15.2
    door_open: bool = False                     # the shuffling device's door (15.2)
    device_out: OutOfPlay | None = field(default=None, metadata=SKIP)  # 15.2: until an inspector clears it
    shuffles: Shuffles = field(default_factory=Shuffles, metadata=SKIP)  # each shuffle's order judged (15.1)
    requests: CardSource = field(default_factory=CardSource, metadata=SKIP)  # what the device was asked

    # -- a round's cards -----------------------------------------------------------------------------

    def back_of(self, deck: str) -> str | None:
        """3.2.2: the shuffling device's decks have fixed colours; the shoe's is learned (3.1)."""
        return DECKS.get(deck) or self.status.get(deck, {}).get("back")

    def for_round(self) -> str:
        """The deck the next round is dealt from (3.2: the shuffling device's decks alternate)."""
        if self.source != "shuffler":
            return SHOE
        deck, self.next_deck = self.next_deck, "B" if self.next_deck == "A" else "A"
        return deck

    def ready(self, deck: str) -> bool:
        """4.1: shuffled before every round; 3.4: verified cards; 4.2: cut with the shoe."""
        d = self.status[deck]
        if not d["verified"]:
            return False
        if self.source == "shuffler":
            return bool(d["shuffled"]) and not self.shuffler_failed
        return self.cut_done

    def into_play(self, r: Round) -> None:
        """The round's deck is in play: shuffled again after it (4.1), cut again for the next shoe
        (4.2); its back as verified, if the deck's colour came since the round opened (3.1)."""
        if self.source == "shuffler":
            self.status[str(r.deck)]["shuffled"] = False
        else:
            self.cut_done = False
        r.back = self.back_of(str(r.deck))

    # -- verification (3.4, 3.6, 3.7) ------------------------------------------------------------------

    def verified(self, deck: str, cards: list[int] | None, count: int | None, back: str | None,
                 round_id: str | None) -> list[Effect]:
        """3.4, 3.6: new cards are checked before use: 52 distinct cards through the reader."""
        if deck not in self.status:
            return [Say(f"no deck {deck!r}", level="refused")]
        if back is not None and not isinstance(back, str):
            raise ValueError(f"back={back!r}: not a colour")
        distinct = len(set(cards)) if cards is not None else count
        n = len(cards) if cards is not None else count
        ok = n == 52 and distinct == 52 and (cards is None or all(isinstance(c, int) and 0 <= c < 52 for c in cards))
        self.status[deck]["verified"] = ok
        if deck not in DECKS:  # 3.1: the shoe deck's colour, or the first back read after it is verified
            self.status[deck]["back"] = back
        judged = notes.deck_judged(deck, ok, n, distinct, round_id)
        if not ok:
            return [judged, Say(f"deck {deck} failed verification: {n} cards, {distinct} distinct: replace it",
                                rule="3.7", level="flag")]
        return [judged, Say(f"deck {deck} verified: 52 cards", rule="3.4")]

    def recognise(self, on: Any) -> list[Effect]:
        """Whether the shuffling device reads its cards says who verifies a new deck (3.4)."""
        if not isinstance(on, bool):
            raise ValueError(f"on={on!r}: true or false")
        if on == self.recognition:
            return []
        self.recognition = on
        return [Say("shuffling device: card recognition " + ("on: it verifies each new deck as it shuffles it"
                    if on else "off: the dealer or a supervisor checks each new deck on the panel"), rule="3.4")]

    def deck_to_check(self, r: Round | None) -> str | None:
        """The shuffling device's deck the dealer's check would verify (3.4), when the device does
        not read its cards: the round's deck if it waits for it, else the first unverified one."""
        if self.source != "shuffler" or self.recognition is not False:
            return None
        waiting = [d for d in DECKS if not self.status[d]["verified"]]
        if r is not None and r.deck in waiting:
            return r.deck
        return waiting[0] if waiting else None

    def deck_checked(self, key: str, deck: Any, person: dict[str, Any], round_id: str | None) -> list[Effect]:
        """3.4: "cards shall be checked by a dealer or a game supervisor" -- with a shuffling device
        that does not read its cards, their word on the panel is the deck's verification; a device
        that reads them verifies each deck itself, from the order it reports."""
        if self.source != "shuffler":
            return [Say("the dealer's count verifies the shoe's deck (VERIFY DECK)", rule="3.4", level="refused")]
        if deck not in DECKS:
            return [Say(f"no deck {deck!r} in the shuffling device (A red, B blue)", rule="3.4", level="refused")]
        if self.recognition is not False:
            why = ("reads the cards it shuffles: its order verifies the deck" if self.recognition
                   else "has not said whether it reads its cards: its order verifies the deck")
            return [Say(f"deck {deck}: the shuffling device {why}", rule="3.4", level="refused")]
        if self.status[deck]["verified"]:
            return [Say(f"deck {deck} is already verified", rule="3.4", level="refused")]
        self.status[deck]["verified"] = True
        return [Say(f"deck {deck} ({DECKS[deck]} backs) checked by the {key}: verified", rule="3.4"),
                Note("deck.checked", {"deck": deck, "key": key, **person, "rule": "3.4"}, round_id)]

    def learn_back(self, back: Any, r: Round | None) -> None:
        """3.1: the first back colour the reader reports for the shoe deck is its colour; every
        later card must match it (the input that taught it is in the journal)."""
        s = self.status[SHOE]
        if isinstance(back, str) and s.get("back") is None and self.source == "shoe":
            s["back"] = back
            if r is not None and r.deck == SHOE and r.back is None:
                r.back = back

    # -- the panel's actions on the cards ----------------------------------------------------------------

    def new_cards(self, deck: str) -> list[Effect]:
        """3.6: new cards; they must be verified (3.4) before use."""
        if deck not in self.status:
            return [Say(f"no deck {deck!r}", level="refused")]
        self.status[deck] = {"shuffled": False, "verified": False}  # the shoe deck's back is learned again
        self.requests.new_cards([deck])
        self.shuffles.new_cards(deck)
        return [Say(f"new cards for deck {deck}: verify them (3.4)", rule="3.6")]

    def use_source(self, source: str) -> list[Effect]:
        """15.2.2: play continues with another shuffling device or the card shoe, with new cards."""
        if source not in SOURCES:
            return [Say(f"no card source {source!r}", level="refused")]
        self.source = source
        self.shuffler_failed = False
        for d in self.status.values():  # 15.2.2, 3.6: new cards, never the failed device's other deck
            d.update(shuffled=False, verified=False)
            d.pop("back", None)
        self.cut_done = False
        self.requests.new_cards(tuple(DECKS))
        self.shuffles.device_replaced()
        return [Say(f"cards now dealt from the {source}: load and verify new cards", rule="15.2.2")]

    def shuffle_and_cut(self) -> list[Effect]:
        """4.2, 4.3: with the shoe, the dealer shuffles and cuts and confirms on the panel."""
        if self.source != "shoe":
            return [Say("no cut with the shuffling device", rule="4.4.2", level="refused")]
        self.cut_done = True
        # the cut deck is in the shoe: its reader counts from 1
        return [Say("shuffle and cut confirmed", rule="4.2"), StartShoe()]

    def clear_device(self, now: int, person: dict[str, Any], r: Round | None) -> list[Effect]:
        """15.2: the inspector returns the device out of play; a table waiting for it goes on with
        it and new cards (15.2.2, 3.6), one on the shoe keeps the shoe until a supervisor says."""
        out = self.device_out
        if out is None:
            return [Say("no shuffling device is out of play", rule="15.2", level="refused")]
        self.device_out = None
        effects = out.cleared(now, person, _id(r))
        if self.source == "shuffler" and self.shuffler_failed:
            return effects + self.use_source("shuffler")
        return effects

    # -- what the shuffling device reports (4.1, 15.1, 15.2) -----------------------------------------------

    def shuffled(self, deck: str, cards: list[int] | None, r: Round | None, now: int) -> list[Effect]:
        """The device has ``deck`` shuffled; the order it read (``cards``) verifies a deck not yet
        verified (3.4: read by the device)."""
        if deck not in DECKS:
            return [Say(f"shuffler reported deck {deck!r}", level="refused")]
        effects = self.verified(deck, cards, None, None, _id(r)) \
            if cards is not None and not self.status[deck]["verified"] else []
        verdict = self.shuffles.judge(deck, cards) if isinstance(cards, list) else None
        if isinstance(cards, list):
            effects.append(notes.shuffle_read(deck, cards, verdict, _id(r)))
        if verdict is not None and verdict.alarm:
            return effects + self._not_intermixing(deck, verdict, r, now)
        self.status[deck]["shuffled"] = True
        self.requests.shuffled(deck, r)
        return effects

    def _not_intermixing(self, deck: str, verdict: Verdict, r: Round | None, now: int) -> list[Effect]:
        """15.1: the shuffle left too much of the deck's previous order: the deck is reshuffled, or,
        with alarms repeated of late, the device is out of play (15.2; tabled/table/shuffles.py)."""
        failing = self.shuffles.failing()
        note = Note("shuffle.alarm", {"deck": deck, "rising_sequences": verdict.rising, "pairs_kept": verdict.kept,
                                      "window_pairs_kept": verdict.window_kept,
                                      "window_shuffles": verdict.shuffles_in_window, "why": verdict.why(),
                                      "rule": "15.2" if failing else "15.1"}, _id(r))
        told = Say(f"supervisor: the shuffling device is not intermixing deck {deck}: {verdict.why()}",
                   rule="15.1", level="flag")
        if failing:
            reason = "not intermixing: repeated shuffle alarms"
            effects = [note, told, *self.fault(reason, deck, r)]
            self.device_out = OutOfPlay(reason, now, deck)
            return effects + self.device_out.taken_out(_id(r))
        return [note, told, *self.fault("not_intermixing", deck, r)]

    def reported_fault(self, p: dict[str, Any], r: Round | None) -> list[Effect]:
        """``shuffler.fault``: journaled with its rule (15.1 reshuffle, else 15.2), then judged."""
        rule = "15.1" if p["fault"] in SHUFFLE_FAULTS else "15.2"
        return [notes.shuffle_fault(p["fault"], p.get("deck"), rule, _id(r)), *self.fault(p["fault"], p.get("deck"), r)]

    def fault(self, fault: str, deck: str | None, r: Round | None) -> list[Effect]:
        """15.1: a jam, a failed cycle or a shuffle that did not intermix is shuffled again; any
        other fault means the device can no longer operate as intended (15.2): the round dealing
        from it is void (15.2.1) and play waits for another device or the shoe (15.2.2)."""
        if fault in SHUFFLE_FAULTS:  # 15.1: the cards are reshuffled
            d = deck or self.next_deck
            if d in DECKS:
                self.status[d]["shuffled"] = False
                self.requests.shuffle_over(d)  # the reshuffle is a new request
            return [Say(f"shuffling device: {fault.replace('_', ' ')}: reshuffle", rule="15.1", level="flag"),
                    Shuffle(d)]
        # 15.2: the device can no longer operate as intended
        self.shuffler_failed = True
        effects: list[Effect] = [notes.device_fault("shuffler", fault, _id(r)),
                                 Say(f"shuffling device failed ({fault}): continue with another device "
                                     "or the card shoe and new cards", rule="15.2.2", level="flag")]
        if r is not None and not r.finished and r.card_source == "shuffler":
            effects += r.handle("shuffler_failed", {"reason": fault})
        return effects

    def status_report(self, p: dict[str, Any], r: Round | None) -> list[Effect]:
        """What the device says it holds: its decks judged (15.1, 15.2; tabled/table/cardsource.py)
        and its card recognition (3.4)."""
        ready, recognition = read_status(p)
        effects = self.recognise(recognition) if recognition is not None else []
        for fault, deck in self.requests.judge_status(self, r, ready):
            effects += self.fault(fault, deck, r)
            if self.shuffler_failed:
                break
        return effects

    def refused(self, p: dict[str, Any], r: Round | None) -> list[Effect]:
        """The device refused a command. DEVICE_FAULT while delivering a hand: it can no longer
        operate as intended (15.2); asking again would not help. Any other refusal is shown."""
        command, status, reason, deck = p["command"], p["status"], p.get("reason", ""), p.get("deck")
        if command == "deliver_hand" and status == "DEVICE_FAULT":
            return self.fault(f"device fault: {reason}", deck, r)  # 15.2
        if command == "shuffle" and deck in DECKS:
            self.requests.shuffle_refused(deck)
        return [Say(f"shuffling device refused {command.replace('_', ' ')} for deck {deck} ({status}: {reason})",
                    level="flag")]

    def door(self, opened: Any, r: Round | None) -> list[Effect]:
        """The shuffling device's door: shown during a round, and the panel's FAULT lamp flashes
        until it is closed; whether the device can still deliver (15.2) is its next answer."""
        if not isinstance(opened, bool):
            raise ValueError(f"open={opened!r}: true or false")
        was, self.door_open = self.door_open, opened
        if not opened:
            self.requests.door_closed()  # a shuffle it refused with the door open is asked again
        noted = [notes.device_fault("door", "door open", _id(r))] if opened and not was else []
        if opened and in_round(r):
            return [*noted, Say("shuffling device door open during the round: close it; if the device can no longer "
                        "deliver, the round is void (15.2.1)", rule="15.2", level="flag")]
        if opened:
            return [*noted, Say("shuffling device door open")]
        return [Say("shuffling device door closed")] if was else []

    # -- checkpoint ----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"v": VERSION, **saved_fields(self),
                **({"device_out": self.device_out.snapshot()} if self.device_out else {}),
                **({"shuffles": self.shuffles.snapshot()} if self.shuffles else {})}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> Decks:
        """The ``decks`` section, or the older flat checkpoint's fields (:func:`upcast`)."""
        section = snap["decks"] if snap.get("decks", {}).get("v") is not None else upcast(snap)
        if section.get("v") != VERSION:
            raise CheckpointError(f"decks section version {section.get('v')!r}: this table reads {VERSION}")
        decks = load_fields(cls(), section)
        decks.status = {d: dict(s) for d, s in decks.status.items()}  # the table's own, not the checkpoint's
        decks.device_out = OutOfPlay.from_snapshot(section.get("device_out"))
        decks.shuffles = Shuffles.from_snapshot(section.get("shuffles"))
        return decks


def upcast(flat: dict[str, Any]) -> dict[str, Any]:
    """The ``decks`` section of a checkpoint written with the table's fields at its top level
    (where ``decks`` was each deck's status)."""
    return {"v": VERSION, "source": flat["card_source"], "status": flat["decks"], "next_deck": flat["next_deck"],
            "recognition": flat.get("recognition"), "cut_done": flat["cut_done"],
            "shuffler_failed": flat["shuffler_failed"], "door_open": flat.get("door_open", False),
            **({"device_out": flat["device_out"]} if flat.get("device_out") else {}),
            **({"shuffles": flat["shuffles"]} if flat.get("shuffles") else {})}


__all__ = ["Decks", "VERSION", "SHOE", "SOURCES", "SHUFFLE_FAULTS", "upcast"]

"""Every kind of journal record, in one place: what it is, and whether replay makes it.

A record is one of three things:

- an **input**: something that happened at the table (a device's frame, a panel key, a pool's
  answer, a timer). The controller journals it, then folds it (``TableCore.apply``); replay folds
  it again.
- a **note**: what the fold concluded from inputs (a settlement, a void, a raised fault). The
  controller journals the notes an input produced right after folding it; replay produces the same
  notes again, so it never folds them, and writes only those a crash lost.
- a **journal record**: the checkpoint (``Journal.checkpoint``), a seal (the last record of each
  commit of a journal opened with the table's key) and a key change (tabled/journal/seals.py). They
  are about the journal, not the table: replay
  neither folds nor writes them.

A kind that is neither a registered note nor a journal record was journaled as an input (the
controller journals whatever is submitted, and the fold refuses what it does not know), so replay
folds it as the live table did. Notes are built only with registered kinds
(:class:`tabled.table.effects.Note` checks), so a new note cannot be mistaken for an input.
"""

from __future__ import annotations

from dataclasses import dataclass


#: the kind of the journal's sealed snapshot of the table's state
CHECKPOINT = "checkpoint"
#: the chain signed with the table's key, and a start with another key than the last seal's
SEAL = "journal.seal"
KEY = "journal.key"


@dataclass(frozen=True)
class Kind:
    name: str
    what: str
    replayed: bool  # replay produces it (a note): replay never folds it, and writes it only if lost


def _kinds(replayed: bool, what: dict[str, str]) -> dict[str, Kind]:
    return {name: Kind(name, text, replayed) for name, text in what.items()}


INPUTS: dict[str, Kind] = _kinds(False, {
    "wager": "chips on a betting area (ante, progressive or bet), read by the bet-spot board",
    "panel": "a key or button of the dealer's panel (an action, with the key turned)",
    "panel.button": "a button of the dealer's panel pressed, with the key turned and the spot, spots or number keyed",
    "board.reading": "every betting area as the bet-spot board read it (chips, tokens, stacks)",
    "device.link": "a device's link was lost or is back",
    "tick": "nothing happened: wakes the consumer (a stop, a timer)",
    "shuffler.shuffled": "the shuffling device has a deck shuffled and ready",
    "shuffler.hand": "the shuffling device delivered a hand",
    "shuffler.door": "the shuffling device's door opened or closed",
    "shuffler.recognition": "whether the shuffling device reads the cards it shuffles",
    "shuffler.fault": "the shuffling device jammed, failed a cycle or lost a deck",
    "shuffler.status": "the decks the shuffling device holds ready and whether it reads its cards",
    "shuffler.refused": "the shuffling device refused a command, with its answer",
    "shoe.card": "the card shoe read a card as it was dealt",
    "shoe.unreadable": "the card shoe could not read a card",
    "shoe.removed": "the card shoe was taken off the table",
    "shoe.replaced": "the card shoe was put back",
    "shoe.empty": "the card shoe ran out of cards",
    "deck.verified": "a deck's cards were verified by the device that reads them",
    "equipment.fault": "a device or pool cannot be used (link lost, refused)",
    "equipment.ok": "a device or pool can be used again",
    "equipment.back": "a device says it works again after its own fault",
    "pool.contributed": "the pool took a progressive contribution",
    "pool.reversed": "the pool gave a contribution back",
    "pool.awards": "the pool's answer to the round's progressive awards",
    "pool.balance": "the pool's balance, read at start",
    "pool.meter": "a reading of the pool for the meter",
    "software.checked": "the installed software checked against the signed release manifest (or, on a development "
                        "install, the files it started with): at start, at an interval and after significant events",
    "journal.checked": "the whole journal's chain and seals checked in the background: after each start and daily",
    "staff.pin_change": "a step of changing an expired PIN at the panel (first, differ, changed): never the PIN",
    "software.installed": "an install or upgrade of the table's software: start, end, versions, manifest digest, who",
    "table.stopped": "the daemon stopped cleanly (the mark a start looks for)",
    "table.restarted": "a start found no clean stop: power lost or a crash; the last record and how long down",
    "clock.measured": "the table's clock measured against the central database's (or NTP's): offset, bound, NTP state",
    "enclosure.door": "an enclosure's door switch (the table PC's, the pool server's) opened or closed",
    "software.answered": "an inspector's request on the pit page for the software's answer (SHA-1, HMAC): who, "
                         "the method, the seed, the answer or why it was refused",
    "config.started": "the configuration a start runs with: every setting, its hash, what changed since the last",
    "journal.loss_accepted": "an inspector recorded records the journal lost after they were committed, who and why",
    "staff.roster": "the staff list a start runs with: each person's badge, name and roles (no PIN), the lockout",
    "staff.sign_in": "a badge and PIN keyed at the panel to sign in to the key's role: whether the PIN was right",
    "staff.sign_out": "a person signed out of a role at the panel",
    "protection.evidence": "a spot's decisions weighed by game protection reached the alert level",
    "player.tracking": "player ratings on or off, and how often a long session is rated, as a start's config says",
    "player.card": "a player's card read at a spot, or keyed at the panel for a spot",
    "player.leaves": "a player left a spot: the card taken out, or the dealer said so",
})

NOTES: dict[str, Kind] = _kinds(True, {
    "round.started": "a round opened for wagers",
    "round.dealt": "the hands dealt in a round",
    "round.void": "a round or a spot was made void, and why",
    "round.settled": "a round's settlement, every spot in cents (voided while it settled: again, as void)",
    "round.finished": "a round ended (settled or void)",
    "panel.approved": "a panel action the table carried out, under any key, and by whom",
    "panel.refused": "a panel action the table refused, and the rule",
    "deck.checked": "a deck checked by the dealer and approved at the panel",
    "fault.raised": "a fault that stops play until it is cleared",
    "shuffle.alarm": "a shuffle's order left too much of the deck's previous order (15.1)",
    "fault.cleared": "a fault cleared",
    "software.install": "an install or upgrade, as recorded by the installer: start, end, versions, manifest, who",
    "power.restored": "the table started again after an unclean stop (power loss or crash): the last record, down",
    "clock.offset": "the table clock's offset as measured, against what, the bound and whether it is within it",
    "clock.fault": "the clock's error condition began (beyond its bound, or unmeasured 24 h) or ended",
    "enclosure.opened": "an enclosure's door opened, with the people signed in: no new round until the inspector",
    "enclosure.closed": "an enclosure's door closed, with how long it was open and the people signed in",
    "enclosure.acknowledged": "the inspector acknowledged an enclosure's door closed: play may go on",
    "device.out_of_play": "a shuffling device taken out of play (15.2) until an inspector clears it",
    "device.cleared": "an inspector cleared the shuffling device out of play: it may be used again (15.2)",
    "progressive.award_held": "progressive awards held while the pool cannot be reached",
    "progressive.award_released": "held progressive awards sent to the pool",
    "progressive.awarded": "a round's progressive awards as the pool determined them (9.6, 12.1 - 12.4)",
    "progressive.award_paid": "a progressive award confirmed paid: spot, amount, key and person (9.5)",
    "progressive.contributed": "a progressive contribution a pool took (11.5)",
    "progressive.reversed": "a progressive contribution a pool gave back",
    "shuffle.read": "a shuffle whose order the device read, and the table's verdict on it (15.1)",
    "shuffle.fault": "the shuffling device reported a fault: reshuffle (15.1) or failed (15.2)",
    "deck.judged": "a deck's cards judged: 52 distinct cards (3.4) or not (3.7)",
    "device.fault": "a device fault the dealer's screen shows: the shuffling device failed, its door open, "
                    "the shoe off its base or a card unread",
    "config.in_force": "the configuration a start runs with, as the table took it: hash, source, changes",
    "staff.signed_in": "a person signed in at the panel to a role (a dealer replacing the one before)",
    "staff.signed_out": "a person left a role at the panel, or the staff list no longer gives it",
    "staff.refused": "a sign-in refused: unknown badge, wrong PIN (counted), role not held or taken, locked",
    "staff.pin_expired": "a PIN past its maximum age signed in once more: it must be changed at the panel",
    "staff.pin_changed": "a PIN changed at the panel (the new one keyed twice): who, never the PIN or its hash",
    "staff.locked": "a badge locked after wrong PINs in a row, until when",
    "payments.due": "what every betting area must hold when the dealer has paid and collected, as read then",
    "payments.area": "an area's payment verdict became an error (over, short, removed early), or stopped being one",
    "payments.removed_early": "chips taken off an area seen paid before SETTLE DONE",
    "payments.refused": "SETTLE DONE refused while areas hold other than the settlement says, each with the amount",
    "payments.override": "a supervisor's SETTLE DONE over a mismatch: settled as left on the felt, due and left",
    "payments.checked": "SETTLE DONE with every area holding what the settlement says",
    "protection.alert": "a spot whose decisions follow cards it should not have seen: the evidence, for people",
    "player.seated": "a player card took a spot, or play without a card began an anonymous seat session",
    "player.rating": "a player's session ended: its rounds, wagers, result and the rounds it played",
    "player.round": "each open session's running figures after a round, and whether it played, sat out or was void",
})

JOURNAL_RECORDS: dict[str, Kind] = {
    CHECKPOINT: Kind(CHECKPOINT, "a sealed snapshot of the table's state", False),
    SEAL: Kind(SEAL, "the chain so far signed with the table's key", False),
    KEY: Kind(KEY, "the table signs its journal with another key from here", False),
}

KINDS: dict[str, Kind] = {**INPUTS, **NOTES, **JOURNAL_RECORDS}


def is_note(kind: str) -> bool:
    """A record the fold produces (replay makes it again)."""
    return kind in NOTES


def is_input(kind: str) -> bool:
    """A record replay folds: every kind that is not a note or a journal record."""
    return kind not in JOURNAL_RECORDS and kind not in NOTES

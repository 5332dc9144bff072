"""The phases of a round and the one machine (python-statemachine) that says which input each allows.

The machine is the only gate, so what each phase allows is written once and a refusal cannot
disagree with the diagram: an input it has no transition for in the current phase is refused with
the rule of :data:`OUT_OF_PHASE`, and the rules that hold a phase change back are its validators
(they raise :class:`~tabled.table.refused.Refused` with their own rule); no handler checks whether
its input is allowed now. An input that keeps the phase is a transition from the phase to itself.
The board's wagers, a past posting resolved and a deck counted are taken in every phase.

Phases::

    preparing --cards_ready--> betting --no_more_bets--> dealing --deal_complete--> deciding
        --reveal--> revealed --settle--> settling --finish--> complete
    (any phase but complete or void) --void_round--> void
"""

from __future__ import annotations

from enum import StrEnum

from statemachine import State, StateMachine
from statemachine.exceptions import TransitionNotAllowed

from tabled.table.refused import Refused


class Phase(StrEnum):
    PREPARING = "preparing"  # 4.1: the cards for this round are being shuffled (and cut, 4.2)
    BETTING = "betting"      # 5.2: antes and progressive wagers
    DEALING = "dealing"      # 7.2 - 7.4, after "no more bets"
    DECIDING = "deciding"    # 8.1 - 8.5: fold or bet
    REVEALED = "revealed"    # 8.6: dealer's hand exposed; 9.7 concessions
    SETTLING = "settling"    # 9, 10, 12: paying and collecting; 9.5 holds
    COMPLETE = "complete"
    VOID = "void"            # "void" (1.1): invalid with no result


FINISHED = (Phase.COMPLETE, Phase.VOID)


class RoundMachine(StateMachine):
    """Each event is a round input (or the fold's own step); a self-transition allows an input in a phase."""

    preparing = State(value=Phase.PREPARING.value, initial=True)
    betting = State(value=Phase.BETTING.value)
    dealing = State(value=Phase.DEALING.value)
    deciding = State(value=Phase.DECIDING.value)
    revealed = State(value=Phase.REVEALED.value)
    settling = State(value=Phase.SETTLING.value)
    complete = State(value=Phase.COMPLETE.value, final=True)
    void = State(value=Phase.VOID.value, final=True)

    cards_ready = preparing.to(betting)
    no_more_bets = betting.to(dealing, validators="bets_in_order")          # 7.2, 5.6, 5.8
    deal_complete = dealing.to(deciding, cond="deal_done")                  # 7.3.3 / 7.4.2
    reveal = deciding.to(revealed, validators="everyone_decided")           # 8.6, 14.9
    settle = revealed.to(settling, validators="no_past_posting")            # 5.6
    finish = settling.to(complete, cond="all_awards_paid")                  # 9.5
    void_round = (preparing.to(void) | betting.to(void) | dealing.to(void) | deciding.to(void)
                  | revealed.to(void) | settling.to(void))

    hand = dealing.to.itself(internal=True)
    card = dealing.to.itself(internal=True)
    shoe_unreadable = dealing.to.itself(internal=True)
    shoe_removed = dealing.to.itself(internal=True)
    shoe_replaced = dealing.to.itself(internal=True)
    shoe_empty = dealing.to.itself(internal=True)
    exposed_card = dealing.to.itself(internal=True)
    misdeal = dealing.to.itself(internal=True) | deciding.to.itself(internal=True)
    hand_without_ante = dealing.to.itself(internal=True) | deciding.to.itself(internal=True)
    fold = deciding.to.itself(internal=True)
    absent = deciding.to.itself(internal=True)
    play_first = deciding.to.itself(internal=True)
    dead_hand = deciding.to.itself(internal=True) | revealed.to.itself(internal=True)
    concede = revealed.to.itself(internal=True)
    awards_applied = settling.to.itself(internal=True)
    award_paid = settling.to.itself(internal=True)
    void_player = (preparing.to.itself(internal=True) | betting.to.itself(internal=True)
                   | dealing.to.itself(internal=True) | deciding.to.itself(internal=True)
                   | revealed.to.itself(internal=True))


#: event -> (the rule that places it, what it is): the refusal of an input out of its phase
OUT_OF_PHASE: dict[str, tuple[str, str]] = {
    "cards_ready": ("4.1", "opening the betting"),
    "no_more_bets": ("7.2.1", "'no more bets'"),
    "deal_complete": ("7.3.3", "completing the deal"),
    "reveal": ("8.6", "the reveal"),
    "settle": ("9.3", "settlement"),
    "finish": ("9.5", "finishing the round"),
    "void_round": ("16.4", "voiding the round"),
    "hand": ("7.4", "a hand from the shuffling device"),
    "card": ("7.3", "a card from the shoe"),
    "shoe_unreadable": ("7.3", "an unreadable card"),
    "shoe_removed": ("7.3", "the shoe lifted"),
    "shoe_replaced": ("7.3", "the shoe put back"),
    "shoe_empty": ("7.3", "the shoe running out"),
    "exposed_card": ("14.3", "an exposed card"),
    "misdeal": ("14.1", "a misdeal"),
    "hand_without_ante": ("14.8", "a hand without an ante"),
    "fold": ("8.1", "a decision"),
    "absent": ("14.12", "an absent player"),
    "play_first": ("14.11.1", "directing a spot to play first"),
    "dead_hand": ("NZ 14.1", "a dead hand"),
    "concede": ("9.7", "a concession"),
    "awards_applied": ("9.5", "progressive awards"),
    "award_paid": ("9.5", "confirming a progressive payment"),
    "void_player": ("16.3.1", "voiding a player's wagers"),
}


def _taken_in_place() -> dict[str, frozenset[str]]:
    """Read off the machine: each event whose every transition keeps the phase, with no condition and
    no validator, and the phases that take it. Sending such an event changes nothing but the
    answer, so :func:`step` answers from this table, which is the machine's own diagram."""
    phases: dict[str, set[str]] = {}
    moving: set[str] = set()
    for state in RoundMachine.states:
        for t in state.transitions:
            for event in t.events:
                name = str(event)
                if t.internal and t.is_self and not list(t.cond) and not list(t.validators):
                    phases.setdefault(name, set()).add(str(state.value))
                else:
                    moving.add(name)
    return {name: frozenset(p) for name, p in phases.items() if name not in moving}


#: event -> the phases that take it in place (the machine's self-transitions without conditions)
TAKEN_IN_PLACE = _taken_in_place()
#: event -> the names of the model's conditions on it (read off the machine)
CONDITIONS: dict[str, tuple[str, ...]] = {
    str(event): tuple(str(getattr(c, "attr_name", c)) for c in t.cond)
    for state in RoundMachine.states for t in state.transitions for event in t.events if list(t.cond)}
#: event -> the phases it may leave from (read off the machine): elsewhere it is not tried at all
SOURCES: dict[str, frozenset[str]] = {
    str(event): frozenset(str(s.value) for s in RoundMachine.states for t in s.transitions if event in t.events)
    for state in RoundMachine.states for t in state.transitions for event in t.events}


def step(machine: RoundMachine, event: str, round_id: str, rule: str | None = None) -> None:
    """Send ``event``; the machine's refusal becomes :class:`Refused` with the rule of :data:`OUT_OF_PHASE`
    (or ``rule``: a void refused under the rule that asked for it). An event the machine takes in
    place is answered from its diagram (:data:`TAKEN_IN_PLACE`) without running the machine."""
    in_place = TAKEN_IN_PLACE.get(event)
    if in_place is not None:
        if machine.current_state_value in in_place:
            return
    else:
        try:
            machine.send(event)
            return
        except TransitionNotAllowed:
            pass
    placed, what = OUT_OF_PHASE[event]
    raise Refused(rule or placed, f"{what} is not possible while round {round_id} is "
                                  f"{machine.current_state_value}")


__all__ = ["Phase", "FINISHED", "RoundMachine", "OUT_OF_PHASE", "TAKEN_IN_PLACE", "SOURCES", "CONDITIONS", "step"]

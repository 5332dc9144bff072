"""The panel's key switch: which position each action needs (the regulators' "privileged actions
need the right key"). A refusal and an approval are both logged by the controller."""

from __future__ import annotations

from enum import StrEnum


class Key(StrEnum):
    DEALER = "dealer"
    SUPERVISOR = "supervisor"
    INSPECTOR = "inspector"


D, S, I = Key.DEALER, Key.SUPERVISOR, Key.INSPECTOR  # noqa: E741 (the key positions' initials)

#: action -> the key positions that may perform it, and the rule that gives the power
ACTIONS: dict[str, tuple[frozenset[Key], str]] = {
    # the dealer runs the round; a supervisor standing in may do the same
    "no_more_bets": (frozenset({D, S}), "7.2.1"),
    "reveal": (frozenset({D, S}), "8.6"),
    "fold": (frozenset({D, S}), "8.4"),
    "concede": (frozenset({D, S}), "9.7"),
    "absent": (frozenset({D, S}), "14.12"),
    "exposed_card": (frozenset({D, S}), "14.5"),
    "misdeal": (frozenset({D, S}), "14.1"),
    "hand_without_ante": (frozenset({D, S}), "14.8"),
    "settle": (frozenset({D, S}), "9.4"),
    "award_paid": (frozenset({D, S}), "9.5"),
    "payments_done": (frozenset({D, S}), "9.4"),  # the supervisor's key overrides a mismatch
    "shuffle_and_cut": (frozenset({D}), "4.3"),  # no person other than the dealer cuts
    "deck_checked": (frozenset({D, S}), "3.4"),  # "a dealer or a game supervisor" checks new cards
    "resolve_past_posting": (frozenset({D, S}), "5.6"),
    # supervisor powers
    "open_table": (frozenset({S}), "16.8"),
    "announce_closure": (frozenset({S}), "16.8"),
    "announce_minimum": (frozenset({S}), "6.2"),
    "set_maximum": (frozenset({S}), "6.2"),
    "play_first": (frozenset({S}), "14.11.1"),
    "invalidate_round": (frozenset({S}), "16.4"),
    "void_player": (frozenset({S}), "16.3.1"),
    "dead_hand": (frozenset({S}), "NZ 14.1"),
    "new_cards": (frozenset({S}), "3.6"),
    "use_card_source": (frozenset({S}), "15.2.2"),
    "count_cards": (frozenset({D, S, I}), "3.7"),
    # inspector powers
    "approve_play": (frozenset({I}), "14.13"),
    "clear_device": (frozenset({I}), "15.2"),  # a shuffling device out of play (tabled/table/outofplay.py)
}


def required(action: str) -> tuple[frozenset[Key], str]:
    try:
        return ACTIONS[action]
    except KeyError:
        raise ValueError(f"no panel action {action!r}") from None


def allowed(action: str, key: str) -> bool:
    positions, _ = required(action)
    return key in positions

"""The panel's three vocabularies agree: every action a button may become is an action the keys
know (tabled/game/keys.py, with its rule), every key action is carried out by the round
(tabled/table/round.py) or by the table core, and the round takes every round action by its name;
and the fold handles every input kind the registry names (tabled/table/kinds.py)."""

from __future__ import annotations

import pytest

from tabled.game import keys
from tabled.table import buttons, kinds
from tabled.table.core import ROUND_ACTIONS, TableCore
from tabled.table.round import INPUTS as ROUND_INPUTS

from .harness import Harness

#: key actions the core carries out itself, beside its ``_action_`` methods
CORE_OWN = {"deck_checked", "clear_device", "award_paid", "payments_done"}


def test_every_buttons_action_is_a_key_action_with_a_rule():
    for b in buttons.BUTTONS.values():
        for action in b.actions:
            assert action in keys.ACTIONS, (b.name, action)
            assert keys.required(action)[1], action


def test_every_key_action_is_carried_out_by_the_round_or_the_core():
    for action in keys.ACTIONS:
        by_round = action in ROUND_ACTIONS and ROUND_ACTIONS[action] in ROUND_INPUTS
        by_core = hasattr(TableCore, "_action_" + action) or action in CORE_OWN
        assert by_round or by_core, action


@pytest.mark.parametrize("kind", sorted(kinds.INPUTS))
def test_the_fold_knows_every_input_kind_of_the_registry(kind):
    h = Harness()
    said = [e for e in h.core.apply(kind, {}, 1) if getattr(e, "level", "") == "refused"]
    assert not any(f"unknown input {kind!r}" in e.text for e in said), kind

"""The panel's three vocabularies agree: every action a button may become is an action the keys
know (tabled/game/keys.py, with its rule), every key action is carried out by one entry of the
fold's action table (tabled/table/handlers.py: the round's by its name, tabled/table/round.py, the
others by the part that judges them); the fold's handler table names exactly the input kinds the
registry names (tabled/table/kinds.py); and each device is named once (tabled/table/names.py)."""

from __future__ import annotations

import pytest

from tabled.game import keys
from tabled.table import buttons, kinds
from tabled.table.handlers import ACTIONS, HANDLERS, ROUND_ACTIONS
from tabled.table.links import DEVICES
from tabled.table.names import DEVICE_NAMES, NAMES, equipment_name, link_name
from tabled.table.round import INPUTS as ROUND_INPUTS

from .harness import Harness


def test_every_buttons_action_is_a_key_action_with_a_rule():
    for b in buttons.BUTTONS.values():
        for action in b.actions:
            assert action in keys.ACTIONS, (b.name, action)
            assert keys.required(action)[1], action


def test_the_action_table_carries_out_exactly_the_key_actions():
    assert set(ACTIONS) == set(keys.ACTIONS)
    assert {a for b in buttons.BUTTONS.values() for a in b.actions} <= set(ACTIONS)
    assert set(ROUND_ACTIONS) <= set(ACTIONS)
    for action, name in ROUND_ACTIONS.items():
        assert name in ROUND_INPUTS, action


def test_the_handler_table_names_exactly_the_registrys_input_kinds():
    assert set(HANDLERS) == set(kinds.INPUTS)
    assert not set(HANDLERS) & set(kinds.NOTES)


@pytest.mark.parametrize("kind", sorted(kinds.INPUTS))
def test_the_fold_knows_every_input_kind_of_the_registry(kind):
    h = Harness()
    said = [e for e in h.core.apply(kind, {}, 1) if getattr(e, "level", "") == "refused"]
    assert not any(f"unknown input {kind!r}" in e.text for e in said), kind


def test_an_input_kind_the_registry_does_not_name_is_refused_by_name():
    h = Harness()
    said = [e for e in h.core.apply("shuffler.teleported", {}, 1) if getattr(e, "level", "") == "refused"]
    assert [e.text for e in said] == ["unknown input 'shuffler.teleported'"]


def test_every_device_the_fold_watches_is_named_once_for_the_dealer_and_the_pit():
    assert set(NAMES) == set(DEVICES) == set(DEVICE_NAMES)
    assert link_name("shoe") == "card-reading shoe" and DEVICE_NAMES["shoe"] == "card shoe"
    assert equipment_name("betspots") == "bet-spot board" and equipment_name("pool:reserve") == "pool:reserve"

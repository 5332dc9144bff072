"""The device adapter translates the panel and the bet-spot board, never judges them: each press
is one ``panel.button`` input, each reading one ``board.reading`` input, and the fold knows every
name the adapter gives (tabled/table/buttons.py, tabled/table/felt.py)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from tabled_drivers.betspots import Reading, SpotWagers, Wager
from tabled_drivers.panel import (NUMBER_BUTTONS, SPOT_BUTTONS, SPOTS_BUTTONS, Button, ButtonPressed, KeyPosition,
                                  NumberEntered, SpotAction, SpotsAction)
from tabled.daemon.devices import BUTTON_NAMES, board_input, button_input
from tabled.table.buttons import BUTTONS
from tabled.table.felt import Area, parse_reading
from tabled.table.names import AREAS


def test_every_button_of_the_panel_has_a_name_the_fold_knows_taking_what_the_panel_sends():
    assert set(BUTTON_NAMES) == set(Button) and set(BUTTON_NAMES.values()) == set(BUTTONS)
    for button, name in BUTTON_NAMES.items():
        takes = "spot" if button in SPOT_BUTTONS else "value" if button in NUMBER_BUTTONS \
            else "spots" if button in SPOTS_BUTTONS else None
        assert BUTTONS[name].takes == takes, name


def test_a_press_becomes_one_panel_button_input_with_the_key_and_what_was_keyed():
    assert button_input(ButtonPressed(device="panel", button=Button.REVEAL, key=KeyPosition.DEALER)) == \
        ("panel.button", {"button": "reveal", "key": "dealer"})
    assert button_input(SpotAction(device="panel", button=Button.EXPOSED_CARD, key=KeyPosition.DEALER, spot=0)) == \
        ("panel.button", {"button": "exposed_card", "key": "dealer", "spot": 0})
    assert button_input(NumberEntered(device="panel", button=Button.ANNOUNCE_CLOSURE, key=KeyPosition.SUPERVISOR,
                                      value=20)) == \
        ("panel.button", {"button": "announce_closure", "key": "supervisor", "value": 20})
    assert button_input(SpotsAction(device="panel", button=Button.VOID_ROUND, key=KeyPosition.SUPERVISOR,
                                    spots=(2, 5))) == \
        ("panel.button", {"button": "void_round", "key": "supervisor", "spots": [2, 5]})
    assert button_input(ButtonPressed(device="panel", button=Button.APPROVE, key=KeyPosition.INSPECTOR)) == \
        ("panel.button", {"button": "approve", "key": "inspector"})


wager = st.builds(lambda c, t, s: Wager(c, t, s if c or t else 0), st.integers(0, 10**6), st.integers(0, 10**4),
                  st.integers(1, 3))


@given(st.lists(st.tuples(wager, wager, wager, st.booleans()), min_size=1, max_size=7))
def test_a_board_reading_becomes_one_input_the_felt_reads_as_the_board_read_it(spots):
    reading = Reading(False, tuple(SpotWagers(n, a, b, p, acc) for n, (a, b, p, acc) in enumerate(spots, 1)))
    kind, payload = board_input(reading)
    assert kind == "board.reading"
    read = parse_reading(payload["spots"], len(spots))
    assert read == {(sw.spot, area): Area(getattr(sw, area).chips, getattr(sw, area).tokens,
                                          getattr(sw, area).stacks)
                    for sw in reading.spots for area in AREAS}

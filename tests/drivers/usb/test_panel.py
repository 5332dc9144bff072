"""The dealer button panel end to end: PanelDriver -> USB transport (interrupt endpoints) ->
simulated backend -> PanelSimulator, through real usb.core."""

import pytest

from tabled_drivers.base import BadDeviceData, DeviceDataError, LinkFailed, LinkUp
from tabled_drivers.link.errors import CommandRejected, LinkDownError
from tabled_drivers.panel import (BUTTON_PRESSED, KEY_TURNED, NUMBER_ENTERED, SET_LAMP, SPOT_ACTION,
                           SPOTS_ACTION, Button, ButtonPressed, KeyPosition, KeyTurned, Lamp,
                           LampState, NumberEntered, PanelDriver, SpotAction, SpotsAction)
from tabled_drivers.sim.panel import PanelSimulator

from .support import FAST, Journal, plugged_in


def table(journal=None):
    # no address: the driver finds the first device with the panel's ids (UsbDriver's default)
    return plugged_in(PanelSimulator(timing=FAST), PanelDriver, journal)


async def test_buttons_arrive_with_the_key_position_at_the_press():
    async with table() as (sim, driver, journal):
        sim.press(Button.NO_MORE_BETS)
        sim.turn_key("supervisor")
        sim.press("void-round")
        await journal.until_count(ButtonPressed, 2)
        assert journal.device_events() == [
            ButtonPressed(device="panel", button=Button.NO_MORE_BETS, key=KeyPosition.DEALER),
            KeyTurned(device="panel", position=KeyPosition.SUPERVISOR),
            ButtonPressed(device="panel", button=Button.VOID_ROUND, key=KeyPosition.SUPERVISOR),
        ]
        assert str(journal.of(ButtonPressed)[1]) == "panel: VOID_ROUND pressed (key at SUPERVISOR)"


async def test_key_position_query_and_lamps():
    async with table() as (sim, driver, journal):
        assert await driver.key_position() is KeyPosition.DEALER
        sim.turn_key(KeyPosition.INSPECTOR)
        assert await driver.key_position() is KeyPosition.INSPECTOR
        await driver.set_lamp(Lamp.DEAL, LampState.ON)
        await driver.set_lamp(Lamp.FAULT, LampState.FLASHING)
        assert sim.lamps[Lamp.DEAL] is LampState.ON
        assert sim.lamps[Lamp.FAULT] is LampState.FLASHING
        assert sim.lamps[Lamp.REVEAL] is LampState.OFF
        await driver.set_lamp(Lamp.DEAL, LampState.OFF)
        assert sim.lamps[Lamp.DEAL] is LampState.OFF


async def test_bad_lamp_requests_are_clear_errors():
    async with table() as (sim, driver, journal):
        with pytest.raises(ValueError, match="set_lamp needs a Lamp and a LampState"):
            await driver.set_lamp(99, LampState.ON)
        with pytest.raises(CommandRejected, match="panel refused set_lamp: BAD_REQUEST"):
            await driver.call(SET_LAMP, lamp=0x7F, state=1)  # past the driver's own check
        assert all(state is LampState.OFF for state in sim.lamps.values())


def test_the_simulator_names_what_it_does_not_know():
    sim = PanelSimulator()
    with pytest.raises(ValueError, match="no Button 'shuffle-up'; one of: no-more-bets, deal"):
        sim.press("shuffle-up")
    with pytest.raises(ValueError, match="no KeyPosition 'owner'"):
        sim.turn_key("owner")


async def test_spot_keypad_and_spot_set_actions_carry_their_choice_and_key_in_one_frame():
    async with table() as (sim, driver, journal):
        sim.turn_key("supervisor")
        sim.press("void-player", spot=3)           # 16.3.1
        sim.press("announce-minimum", value=1000)  # 6.2: cents keyed
        sim.press("void-round", spots=[2, 5])      # 16.4.2, 16.5: forfeit spots 2 and 5
        sim.turn_key("dealer")
        sim.press("exposed-card", spot=0)          # 14.6: the dealer's hand
        sim.press("void-round")                    # the old frame still works
        await journal.until_count(ButtonPressed, 5)
        assert journal.of(ButtonPressed) == [
            SpotAction(device="panel", button=Button.VOID_PLAYER, key=KeyPosition.SUPERVISOR, spot=3),
            NumberEntered(device="panel", button=Button.ANNOUNCE_MINIMUM, key=KeyPosition.SUPERVISOR, value=1000),
            SpotsAction(device="panel", button=Button.VOID_ROUND, key=KeyPosition.SUPERVISOR, spots=(2, 5)),
            SpotAction(device="panel", button=Button.EXPOSED_CARD, key=KeyPosition.DEALER, spot=0),
            ButtonPressed(device="panel", button=Button.VOID_ROUND, key=KeyPosition.DEALER),
        ]
        assert str(journal.of(ButtonPressed)[0]) == "panel: VOID_PLAYER on spot 3 (key at SUPERVISOR)"
        await driver.set_lamp(Lamp.ENTER_CARD, LampState.FLASHING)  # every button has its lamp
        assert sim.lamps[Lamp.ENTER_CARD] is LampState.FLASHING


def test_the_simulator_will_not_send_a_spot_action_without_a_spot():
    with pytest.raises(ValueError, match="concede needs a spot first"):
        PanelSimulator().press("concede")
    with pytest.raises(ValueError, match="verify-count needs a number first"):
        PanelSimulator().press("verify-count")


@pytest.mark.parametrize("code, payload, reason", [
    (BUTTON_PRESSED.code, bytes([0x42, 0]), "button code 66 is not one this panel has"),
    (BUTTON_PRESSED.code, bytes([Button.CONCEDE, 0]), "CONCEDE does not come in a button_pressed frame"),
    (SPOT_ACTION.code, bytes([Button.NO_MORE_BETS, 0, 1]), "NO_MORE_BETS does not come in a spot_action"),
    (SPOT_ACTION.code, bytes([Button.ABSENT, 0, 9]), "ABSENT on spot 9: spots are 1 to 7"),
    (SPOT_ACTION.code, bytes([Button.ABSENT, 0, 0]), "only for EXPOSED_CARD"),
    (NUMBER_ENTERED.code, bytes([Button.ENTER_CARD, 0, 0, 0, 0, 60]), "card code 60 is not a card"),
    (NUMBER_ENTERED.code, bytes([Button.VERIFY_COUNT, 0, 0]), "payload too short"),
    (SPOTS_ACTION.code, bytes([Button.VOID_ROUND, 1, 0x80]), "names a spot above 7"),
    (SPOTS_ACTION.code, bytes([Button.CONCEDE, 1, 1]), "CONCEDE does not come in a spots_action"),
    (BUTTON_PRESSED.code, bytes([1, 7]), "key position code 7 is not one this panel has"),
    (KEY_TURNED.code, bytes([3]), "key position code 3"),
    (KEY_TURNED.code, b"", "payload too short"),
    (0x9F, b"", "unknown event type 0x9f"),
])
async def test_nonsense_from_the_panel_is_a_device_fault_event(code, payload, reason):
    async with table() as (sim, driver, journal):
        sim.send_raw_event(code, payload)
        sim.press(Button.DEAL)
        await journal.until_count(ButtonPressed, 1)
        bad, good = journal.device_events()
        assert isinstance(bad, BadDeviceData) and reason in bad.reason
        assert (bad.message_type, bad.payload) == (code, payload)
        assert good.button is Button.DEAL


async def test_unplug_and_replug_mid_conversation_delivers_every_press_exactly_once():
    journal = Journal(auto_ack=False)
    async with table(journal) as (sim, driver, journal):
        sim.press(Button.CONFIRM_SHUFFLE)
        first = (await journal.until_count(ButtonPressed, 1))[0]
        sim.unplug()
        await journal.until_count(LinkFailed, 1)
        with pytest.raises(LinkDownError):
            await driver.set_lamp(Lamp.DEAL, LampState.ON)
        journal.ack(first)  # durable, but the ACK is lost with the cable
        sim.press(Button.CONFIRM_CUT)  # pressed while the cable is out
        sim.turn_key(KeyPosition.SUPERVISOR)
        sim.replug()
        await journal.until_count(LinkUp, 2)
        journal.ack((await journal.until_count(ButtonPressed, 2))[1])
        journal.ack((await journal.until_count(KeyTurned, 1))[0])
        await sim.wait_delivered()
        assert [e.button for e in journal.of(ButtonPressed)] == [Button.CONFIRM_SHUFFLE,
                                                                  Button.CONFIRM_CUT]
        assert journal.of(KeyTurned) == [KeyTurned(device="panel", position=KeyPosition.SUPERVISOR)]
        assert await driver.key_position() is KeyPosition.SUPERVISOR
        await driver.set_lamp(Lamp.DEAL, LampState.ON)
        assert sim.lamps[Lamp.DEAL] is LampState.ON


async def test_an_impossible_key_position_answer_is_a_clear_error_not_a_crash():
    async with table() as (sim, driver, journal):
        sim.key = 9
        with pytest.raises(DeviceDataError, match="key position code 9 is not one this panel has"):
            await driver.key_position()
        sim.key = KeyPosition.DEALER
        assert await driver.key_position() is KeyPosition.DEALER

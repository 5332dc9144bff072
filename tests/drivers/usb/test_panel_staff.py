"""Signing in and out at the panel: the sign_in and sign_out frames end to end through real
usb.core and the simulated backend, their bytes as docs/protocols-usb.md gives them, and a PIN that
never shows in what the driver reports."""

from pathlib import Path

import pytest

from tabled_drivers.base import BadDeviceData
from tabled_drivers.link import codec, messages as m
from tabled_drivers.panel import (SIGN_IN, SIGN_OUT, Button, ButtonPressed, KeyPosition, PanelDriver, SignIn, SignOut,
                                  pin_digits)
from tabled_drivers.sim.panel import PanelSimulator

from .support import FAST, plugged_in

DOC = (Path(__file__).resolve().parents[3] / "docs" / "protocols-usb.md").read_text()


def table(journal=None):
    return plugged_in(PanelSimulator(timing=FAST), PanelDriver, journal)


async def test_a_sign_in_carries_the_key_the_badge_and_the_pin_and_a_sign_out_the_badge():
    async with table() as (sim, driver, journal):
        sim.sign_in(1001, "2468")
        sim.turn_key("supervisor")
        sim.sign_in(2001, "01357")         # a leading 0 is a digit of the PIN
        sim.sign_out(2001)
        await journal.until_count(SignOut, 1)
        ins = journal.of(SignIn)
        assert [(e.key, e.badge, e.pin) for e in ins] == [(KeyPosition.DEALER, 1001, "2468"),
                                                         (KeyPosition.SUPERVISOR, 2001, "01357")]
        assert journal.of(SignOut) == [SignOut(device="panel", key=KeyPosition.SUPERVISOR, badge=2001)]


async def test_the_pin_is_in_neither_the_events_repr_nor_its_text():
    async with table() as (sim, driver, journal):
        sim.sign_in(1001, "97531")
        (event,) = await journal.until_count(SignIn, 1)
        assert event.pin == "97531"
        assert "97531" not in repr(event) and "97531" not in str(event)
        assert str(event) == "panel: badge 1001 signs in (key at DEALER)"


def test_the_documented_frames_are_what_the_panel_sends():
    sign_in = codec.encode(7, SIGN_IN.code, m.pack(SIGN_IN.fields, {"key": 0, "badge": 1001, "pin": [2, 4, 6, 8]}))
    sign_out = codec.encode(8, SIGN_OUT.code, m.pack(SIGN_OUT.fields, {"key": 0, "badge": 1001}))
    assert sign_in.hex(" ") in DOC and sign_out.hex(" ") in DOC
    assert "| 0x85 | sign_in |" in DOC and "| 0x86 | sign_out |" in DOC


@pytest.mark.parametrize("pin", ["123", "123456789", "12a4", ""])
def test_the_simulator_keys_only_a_pin_of_4_to_8_digits(pin):
    with pytest.raises(ValueError, match="a PIN is 4 to 8 digits"):
        PanelSimulator().sign_in(1001, pin)
    with pytest.raises(ValueError, match="a PIN is 4 to 8 digits"):
        pin_digits(pin)


@pytest.mark.parametrize("code, payload, reason", [
    (SIGN_IN.code, bytes([0, 0, 0, 0, 0, 4, 1, 2, 3, 4]), "badge number 0: badges are 1 to 999999"),
    (SIGN_IN.code, bytes([0, 0, 0x0f, 0x42, 0x40, 4, 1, 2, 3, 4]), "badge number 1000000"),
    (SIGN_IN.code, bytes([0, 0, 0, 3, 0xe9, 3, 1, 2, 3]), "a PIN is 4 to 8 digits 0-9"),
    (SIGN_IN.code, bytes([0, 0, 0, 3, 0xe9, 4, 1, 2, 3, 17]), "a PIN is 4 to 8 digits 0-9"),
    (SIGN_IN.code, bytes([5, 0, 0, 3, 0xe9, 4, 1, 2, 3, 4]), "key position code 5"),
    (SIGN_OUT.code, bytes([0, 0, 0, 3]), "payload too short"),
])
async def test_a_malformed_sign_in_is_bad_data_that_never_shows_the_digits(code, payload, reason):
    async with table() as (sim, driver, journal):
        sim.send_raw_event(code, payload)
        sim.press(Button.DEAL)
        await journal.until_count(ButtonPressed, 1)
        bad, good = journal.device_events()
        assert isinstance(bad, BadDeviceData) and reason in bad.reason, bad
        assert "1 2 3 17" not in bad.reason and "12317" not in bad.reason
        assert good.button is Button.DEAL

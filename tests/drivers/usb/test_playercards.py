"""The player card reader end to end: PlayerCardDriver -> USB transport -> simulated backend ->
PlayerCardSimulator, through real usb.core."""

import pytest

from tabled_drivers.base import BadDeviceData
from tabled_drivers.playercards import CARD_INSERTED, CARD_REMOVED, CardInserted, CardRemoved, PlayerCardDriver
from tabled_drivers.sim.playercards import PlayerCardSimulator

from .support import FAST, plugged_in


def reader():
    return plugged_in(PlayerCardSimulator(timing=FAST), PlayerCardDriver)


async def test_cards_in_and_out_arrive_with_their_spot():
    async with reader() as (sim, driver, journal):
        sim.insert(3, "4000100010001001")
        sim.insert(5, "AB12")
        sim.remove(3)
        await journal.until_count(CardRemoved, 1)
        assert journal.device_events() == [
            CardInserted(device="cards", spot=3, card="4000100010001001"),
            CardInserted(device="cards", spot=5, card="AB12"),
            CardRemoved(device="cards", spot=3),
        ]
        assert await driver.slots() == (5,)
        assert "1001" in str(journal.of(CardInserted)[0]) and "40001000" not in str(journal.of(CardInserted)[0])


@pytest.mark.parametrize("spec, values, says", [
    (CARD_INSERTED, {"spot": 9, "card": list(b"1234")}, "spot 9: spots are 1 to 7"),
    (CARD_INSERTED, {"spot": 2, "card": list(b"12 4")}, "not 4 to 32 letters and digits"),
    (CARD_INSERTED, {"spot": 2, "card": [0xFF, 0x31, 0x32, 0x33]}, "not 4 to 32 letters and digits"),
    (CARD_REMOVED, {"spot": 0}, "spot 0: spots are 1 to 7"),
])
async def test_nonsense_from_the_reader_is_a_clear_device_fault(spec, values, says):
    async with reader() as (sim, driver, journal):
        sim.send_event(spec, **values)
        (bad,) = await journal.until_count(BadDeviceData, 1)
        assert says in bad.reason and "12 4" not in bad.reason


def test_the_simulator_refuses_what_a_reader_cannot_read():
    sim = PlayerCardSimulator(timing=FAST)
    with pytest.raises(ValueError, match="4 to 32 letters and digits"):
        sim.insert(1, "12")
    with pytest.raises(ValueError, match="no card in spot 2"):
        sim.remove(2)
    sim.close()

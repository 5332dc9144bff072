"""The shuffling device through its driver and its in-process simulator (rules 3.2, 7.4, 15)."""

from __future__ import annotations

import pytest

from tabled_drivers import shuffler as sh
from tabled_drivers.base import BadDeviceData
from tabled_drivers.link import messages as m
from tabled_drivers.link.errors import CommandRejected
from tabled_drivers.shuffler import DeckColour, HandDelivered, ShuffleComplete, ShufflerDriver
from tabled_drivers.sim.base import ScriptError
from tabled_drivers.sim.shuffler import ShufflerSim
from tabled.game.cards import parse_cards
from tests.drivers.helpers import FAST, connect


def sim(script=None, seed=5):
    return ShufflerSim(script, timing=FAST, seed=seed)


async def test_shuffle_then_deliver_five_cards_with_the_bottom_card_named():
    """7.4.1 five cards at a time; 7.4.2 the bottom card (turned up on the dealer's hand)."""
    device = sim()
    driver, rec = await connect(device, ShufflerDriver)
    await driver.shuffle(DeckColour.BLUE)
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    started, done = rec.events[1:3]
    assert started == sh.ShuffleStarted(device="shuffler", deck=DeckColour.BLUE)
    assert done.card_count == 52 and sorted(done.order) == list(range(52))  # card recognition
    await driver.deliver_hand(DeckColour.BLUE)
    await driver.deliver_hand(DeckColour.BLUE)
    await rec.wait_for(lambda r: len(r.of(HandDelivered)) == 2)
    first, second = rec.of(HandDelivered)
    assert first.cards == done.order[:5] and second.cards == done.order[5:10]
    assert (first.hand_number, second.hand_number) == (1, 2)
    assert first.bottom == 4 and first.bottom_card == done.order[4]
    status = await driver.status()
    assert status.ready == {DeckColour.BLUE: 42} and status.recognition and not status.door_open
    assert await driver.self_test() == sh.SelfTest.PASSED
    await driver.stop()


async def test_scripted_hands_are_delivered_in_order():
    hands = [["As", "Ks", "Qs", "Js", "Ts"], {"cards": ["2c", "2d", "2h", "2s", "3c"], "bottom": 0}]
    driver, rec = await connect(sim({"hands": hands, "recognition": False}), ShufflerDriver)
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    assert rec.of(ShuffleComplete)[0].order == ()  # recognition off: no order reported
    for _ in hands:
        await driver.deliver_hand(DeckColour.RED)
    await rec.wait_for(lambda r: len(r.of(HandDelivered)) == 2)
    got = rec.of(HandDelivered)
    assert got[0].cards == parse_cards("As Ks Qs Js Ts") and got[0].bottom == 4
    assert got[1].cards == parse_cards("2c 2d 2h 2s 3c") and got[1].bottom_card == parse_cards("2c")[0]
    assert sh.describe(got[1]) == "2c 2d 2h 2s 3c (bottom 2c)"
    await driver.stop()


@pytest.mark.parametrize("plan, fault, detail", [
    ({"jam_at": 23}, sh.ShufflerJam, "jammed at card 23"),
    ({"cycle_fails": True}, sh.ShuffleCycleFailed, "cycle not completed"),
    ({"not_intermixing": True}, sh.NotIntermixing, "stopped intermixing"),
    ({"card_count": 51}, sh.CardCountWrong, "51 cards, not 52"),
])
async def test_rule_15_1_faults_leave_the_deck_unshuffled(plan, fault, detail):
    """15.1: a jam, a failed cycle or no intermixing means the cards are reshuffled."""
    driver, rec = await connect(sim({"shuffles": [plan]}), ShufflerDriver)
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(fault))
    event = rec.of(fault)[0]
    assert event.deck is DeckColour.RED and detail in event.reason
    with pytest.raises(CommandRejected, match="REFUSED.*not shuffled"):
        await driver.deliver_hand(DeckColour.RED)
    await driver.shuffle(DeckColour.RED)  # the reshuffle works
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    await driver.stop()


async def test_door_open_is_a_fault_and_refuses_shuffles():
    device = sim({"door_open_after_hands": 1})
    driver, rec = await connect(device, ShufflerDriver)
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    await driver.deliver_hand(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(sh.DoorOpen))
    assert (await driver.status()).door_open
    with pytest.raises(CommandRejected, match="door open"):
        await driver.shuffle(DeckColour.BLUE)
    device.close_door()
    await rec.wait_for(lambda r: r.of(sh.DoorClosed))
    await driver.shuffle(DeckColour.BLUE)
    await driver.stop()


@pytest.mark.parametrize("spec, payload, words", [
    (sh.HAND_DELIVERED, dict(deck=1, hand_number=1, cards=[1, 2, 3, 4, 60], bottom=4), "60 is not a card"),
    (sh.HAND_DELIVERED, dict(deck=1, hand_number=1, cards=[1, 2, 3, 4], bottom=3), "4 cards, not five"),
    (sh.HAND_DELIVERED, dict(deck=1, hand_number=1, cards=[1, 2, 3, 4, 4], bottom=4), "the same card twice"),
    (sh.HAND_DELIVERED, dict(deck=1, hand_number=1, cards=[1, 2, 3, 4, 5], bottom=7), "bottom card index 7"),
    (sh.SHUFFLE_STARTED, dict(deck=9), "no deck with back colour code 9"),
    (sh.SHUFFLE_COMPLETE, dict(deck=2, card_count=52, order=[1, 2, 3]), "lists 3 cards"),
])
async def test_nonsense_from_the_device_is_a_typed_fault_and_the_next_event_gets_through(spec, payload, words):
    device = sim()
    driver, rec = await connect(device, ShufflerDriver)
    device.emit_raw(spec.code, m.pack(spec.fields, payload))
    device.emit("door_open")
    await rec.wait_for(lambda r: r.of(sh.DoorOpen))
    bad = rec.of(BadDeviceData)
    assert len(bad) == 1 and words in bad[0].reason and bad[0].message_type == spec.code
    await driver.stop()


async def test_a_short_complete_shuffle_is_reported_as_card_count_wrong():
    device = sim()
    driver, rec = await connect(device, ShufflerDriver)
    device.emit("shuffle_complete", deck=1, card_count=50, order=[])
    await rec.wait_for(lambda r: r.of(sh.CardCountWrong))
    assert rec.of(sh.CardCountWrong)[0].counted == 50
    await driver.stop()


async def test_deck_not_loaded_is_a_bad_request():
    driver, rec = await connect(sim({"decks": ["red", "blue"]}), ShufflerDriver)
    with pytest.raises(CommandRejected, match="BAD_REQUEST"):
        await driver.shuffle(DeckColour.GREEN)
    await driver.stop()


@pytest.mark.parametrize("script, words", [
    ({"decks": ["red", "red"]}, "different back colours"),
    ({"decks": ["purple"]}, "no back colour 'purple'"),
    ({"shuffles": [{"jam_at": 60}]}, "jam_at must be a card number"),
    ({"shuffles": [{"explode": True}]}, "shuffles[0]"),
    ({"hands": [["As", "As", "Ks", "Qs", "Js"]]}, "hands[0]"),
    ({"hands": [["As", "Ks"]]}, "five cards"),
    ({"colour": "red"}, "unknown script keys"),
])
def test_script_errors_name_the_key(script, words):
    with pytest.raises(ScriptError) as exc:
        ShufflerSim(script)
    assert words in str(exc.value)

"""The card-reading shoe end to end: ShoeDriver -> USB transport -> simulated backend ->
ShoeSimulator, through real usb.core (rules 3.5, 7.3, 3.2.2)."""

import asyncio

import pytest

from tabled_drivers.base import BadDeviceData, DeviceDataError, LinkFailed, LinkUp
from tabled_drivers.link.errors import CommandRejected, LinkDownError
from tabled_drivers.link.usb import UsbAddress
from tabled_drivers.shoe import (CARD_DRAWN, PRODUCT_ID, VENDOR_ID, BackColour, CardDrawn, CardUnreadable,
                          ShoeDriver, ShoeEmpty, ShoeRemoved, ShoeReplaced, ShoeState,
                          ShoeStatus)
from tabled_drivers.sim.shoe import ShoeSimulator
from tabled_drivers.sim.usb_backend import SimBackend
from tabled.game.cards import parse_card

from .support import FAST, Journal, plugged_in


def table(journal=None, serial="SHOE-0001", **sim_kw):
    return plugged_in(ShoeSimulator(serial_number=serial, timing=FAST, **sim_kw), ShoeDriver, journal,
                      address=UsbAddress(VENDOR_ID, PRODUCT_ID, serial))


async def test_cards_drawn_arrive_typed_in_order_with_reader_numbers_and_back_colour():
    # 3.5: every card is dealt from the shoe and read; 3.2.2: the back colour comes with it
    async with table() as (sim, driver, journal):
        sim.load("7h As Kd")
        sim.draw()
        sim.draw(back=BackColour.BLUE)
        sim.draw()
        await journal.until_count(ShoeEmpty, 1)
        await sim.wait_delivered()
        assert journal.device_events() == [
            CardDrawn(device="shoe", reader_seq=1, card=parse_card("7h"), back=BackColour.RED),
            CardDrawn(device="shoe", reader_seq=2, card=parse_card("As"), back=BackColour.BLUE),
            CardDrawn(device="shoe", reader_seq=3, card=parse_card("Kd"), back=BackColour.RED),
            ShoeEmpty(device="shoe", cards_read=3),
        ]
        assert str(journal.device_events()[0]) == "shoe: card 1 drawn: 7h"


async def test_the_shoe_reads_7h_then_an_unreadable_card():
    async with table(back=BackColour.NOT_SEEN) as (sim, driver, journal):
        sim.script("7h ?")
        await journal.until_count(CardUnreadable, 1)
        assert journal.device_events() == [
            CardDrawn(device="shoe", reader_seq=1, card=parse_card("7h"), back=BackColour.NOT_SEEN),
            CardUnreadable(device="shoe", reader_seq=2, back=BackColour.NOT_SEEN),
        ]


async def test_shoe_removed_and_replaced_and_status_follows():
    async with table() as (sim, driver, journal):
        sim.load("2c 3c")
        sim.draw()
        assert await driver.status() == ShoeStatus(ShoeState.READY, 1)
        sim.remove()
        await journal.until_count(ShoeRemoved, 1)
        assert (await driver.status()).state is ShoeState.REMOVED
        with pytest.raises(CommandRejected, match="shoe refused start_shoe: REFUSED"):
            await driver.start_shoe()
        sim.replace()
        await journal.until_count(ShoeReplaced, 1)
        await driver.start_shoe()
        assert await driver.status() == ShoeStatus(ShoeState.READY, 0)
        assert sim.commands_seen[-1] == "status"
        assert journal.of(ShoeRemoved) == [ShoeRemoved(device="shoe", cards_read=1)]


@pytest.mark.parametrize("payload, reason", [
    (bytes([0, 1, 52, 1]), "card code 52 is not a card"),
    (bytes([0, 1, 255, 1]), "card code 255 is not a card"),
    (bytes([0, 2, 5, 9]), "back colour code 9 is not a colour"),
    (bytes([0, 0, 5, 1]), "reader sequence number 0"),
    (bytes([0, 1, 5]), "payload too short"),
    (bytes([0, 1, 5, 1, 0]), "unexpected bytes"),
])
async def test_nonsense_from_the_shoe_is_a_device_fault_event_and_the_next_card_still_arrives(
        payload, reason):
    async with table() as (sim, driver, journal):
        sim.send_raw_event(CARD_DRAWN.code, payload)
        sim.draw("Qs")
        await journal.until_count(CardDrawn, 1)
        bad, good = journal.device_events()
        assert isinstance(bad, BadDeviceData) and reason in bad.reason
        assert bad.message_type == 0x80 and bad.payload == payload
        assert good.card == parse_card("Qs")


async def test_an_unknown_event_type_is_a_device_fault_event():
    async with table() as (sim, driver, journal):
        sim.send_raw_event(0xBE, b"\x01")
        await journal.until_count(BadDeviceData, 1)
        assert "unknown event type 0xbe" in journal.of(BadDeviceData)[0].reason


async def test_only_the_shoe_with_the_configured_serial_number_is_used():
    backend = SimBackend()
    other = ShoeSimulator(serial_number="SHOE-OTHER", timing=FAST)
    other.plug_into(backend)
    ours = ShoeSimulator(serial_number="SHOE-0002", timing=FAST)
    ours.plug_into(backend)
    journal = Journal()
    driver = ShoeDriver(consumer=journal, address=UsbAddress(VENDOR_ID, PRODUCT_ID, "SHOE-0002"),
                        backend=backend, timing=FAST)
    await driver.start()
    try:
        await driver.wait_up(5)
        other.draw("2d")
        ours.draw("3d")
        await journal.until_count(CardDrawn, 1)
        await ours.wait_delivered()
        assert [e.card for e in journal.of(CardDrawn)] == [parse_card("3d")]
        assert other.unacknowledged == 1  # nobody is listening to the other shoe
    finally:
        await driver.stop()
        other.close()
        ours.close()


async def test_unplug_and_replug_mid_deal_delivers_every_card_exactly_once():
    journal = Journal(auto_ack=False)
    async with table(journal) as (sim, driver, journal):
        sim.load("7h As Kd 2s")
        sim.draw()  # 7h reaches the daemon, which has not yet made it durable
        await journal.until_count(CardDrawn, 1)
        sim.unplug()  # ... when the cable is pulled
        await journal.until_count(LinkFailed, 1)
        with pytest.raises(LinkDownError):
            await driver.status()
        sim.draw()  # As is drawn while unplugged: the shoe keeps it
        journal.ack(journal.of(CardDrawn)[0])  # 7h is now durable, but the ACK has no cable to travel on
        assert sim.unacknowledged == 2
        sim.replug()
        await journal.until_count(LinkUp, 2)
        journal.ack((await journal.until_count(CardDrawn, 2))[1])
        sim.draw()
        journal.ack((await journal.until_count(CardDrawn, 3))[2])
        await sim.wait_delivered()
        cards = [e.card for e in journal.of(CardDrawn)]
        assert cards == [parse_card(c) for c in ("7h", "As", "Kd")]
        assert [e.reader_seq for e in journal.of(CardDrawn)] == [1, 2, 3]
        assert driver.stats.duplicates >= 1  # 7h came again after the replug, and was not redelivered
        assert await driver.status() == ShoeStatus(ShoeState.READY, 3)


async def test_a_card_held_unacknowledged_by_the_daemon_across_a_replug_is_delivered_once():
    journal = Journal(auto_ack=False)
    async with table(journal) as (sim, driver, journal):
        sim.draw("9c")
        await journal.until_count(CardDrawn, 1)
        sim.unplug()
        await journal.until_count(LinkFailed, 1)
        sim.replug()
        await journal.until_count(LinkUp, 2)
        sim.draw("Tc")  # queued behind 9c, which the shoe is still sending
        journal.ack(journal.of(CardDrawn)[0])
        journal.ack((await journal.until_count(CardDrawn, 2))[1])
        await sim.wait_delivered()
        assert [e.card for e in journal.of(CardDrawn)] == [parse_card("9c"), parse_card("Tc")]


async def test_a_status_with_an_impossible_state_is_a_clear_error_not_a_crash():
    async with table() as (sim, driver, journal):
        sim.state = 7  # a shoe firmware bug
        with pytest.raises(DeviceDataError, match="shoe reports unknown state 7"):
            await driver.status()
        sim.state = ShoeState.READY
        assert (await driver.status()).state is ShoeState.READY  # the link is still fine


async def test_a_whole_deck_through_repeated_unplugs_arrives_complete_in_order_once():
    async with table() as (sim, driver, journal):
        deck = "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac 2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"
        sim.load(deck)
        for i in range(len(deck.split())):
            sim.draw()
            if i % 7 == 3:
                sim.unplug()  # mid-stream: frames in the cable are lost with it
                await asyncio.sleep(0)
                sim.replug()
        await journal.until_count(ShoeEmpty, 1, timeout=20)
        await sim.wait_delivered(timeout=20)
        drawn = journal.of(CardDrawn)
        assert [e.reader_seq for e in drawn] == list(range(1, 27))
        assert [e.card for e in drawn] == [parse_card(c) for c in deck.split()]
        assert len(journal.of(LinkUp)) >= 2  # the host really did lose and find the shoe again

"""A command that fails in the device is answered DEVICE_FAULT once, and never run twice; the
shuffling device's hand counter wraps like the u16 the wire carries (docs/protocols.md)."""

from __future__ import annotations

import asyncio
import time

import pytest

from tabled_drivers.link import messages as m
from tabled_drivers.link.codec import Decoder, Frame, encode
from tabled_drivers.link.endpoint import DeviceLink
from tabled_drivers.link.errors import CommandRejected
from tabled_drivers.shuffler import DeckColour, HandDelivered, ShuffleComplete, ShufflerDriver
from tabled_drivers.sim.shuffler import ShufflerSim
from tests.drivers.helpers import FAST, ECHO, EchoDriver, Recorder, connect


class _Wire(asyncio.Transport):
    """Records what the device writes."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()

    def write(self, data) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return False


async def test_a_failing_handler_is_answered_device_fault_and_a_retransmission_does_not_run_it_again():
    runs = []

    async def handler(code: int, payload: bytes):
        runs.append(payload)
        raise OverflowError("counter out of range")  # after doing half of its work

    device = DeviceLink("dev", m.DeviceKind.METER, 1, handler, FAST)
    wire = _Wire()
    device.connection_made(wire)
    command = encode(7, ECHO.code, m.pack(ECHO.request, {"n": 3}))
    for _ in range(4):  # the first send and three retransmissions
        device.data_received(command)
        await asyncio.sleep(0)
    device.close()
    answers = [f for f in Decoder().decode(bytes(wire.written)) if isinstance(f, Frame)]
    assert len(runs) == 1
    assert len(answers) == 4 and len(set(answers)) == 1
    status, reason = answers[0].payload[0], answers[0].payload[1:]
    assert (answers[0].seq, answers[0].type, status) == (7, m.response_type(ECHO.code), m.Status.DEVICE_FAULT)
    assert reason == b"OverflowError: counter out of range"


async def test_the_host_hears_a_device_fault_as_a_refusal_naming_it():
    class Failing:
        def __init__(self) -> None:
            self.runs = 0
            self.link = DeviceLink("failing", m.DeviceKind.METER, 1, self.handle, FAST)

        async def handle(self, code, payload):
            self.runs += 1
            raise RuntimeError("motor stalled")

    device = Failing()
    driver, _ = await connect(device, EchoDriver)
    with pytest.raises(CommandRejected) as caught:
        await driver.echo(5)
    assert caught.value.status == m.Status.DEVICE_FAULT
    assert "DEVICE_FAULT (RuntimeError: motor stalled)" in str(caught.value)
    assert device.runs == 1
    await driver.stop()


async def test_hand_number_wraps_to_zero_after_65535_and_takes_five_cards_each():
    device = ShufflerSim(timing=FAST, seed=3)
    device.hands_delivered = device.hand_number = 65_534
    driver, rec = await connect(device, ShufflerDriver)
    await driver.shuffle(DeckColour.RED)
    await rec.wait_for(lambda r: r.of(ShuffleComplete))
    for _ in range(3):
        await driver.deliver_hand(DeckColour.RED)
    await rec.wait_for(lambda r: len(r.of(HandDelivered)) == 3)
    assert [h.hand_number for h in rec.of(HandDelivered)] == [65_535, 0, 1]
    assert (await driver.status()).ready == {DeckColour.RED: 52 - 15}
    assert device.hands_delivered == 65_537
    await driver.stop()


HANDS = 65_536 + 64  # past the wrap, as a table reaches it after about 8,200 rounds of seven spots


class _Dealt(Recorder):
    """Keeps counts, the hand numbers in order and the cards of the deck being dealt, not every event."""

    def __init__(self) -> None:
        super().__init__()
        self.shuffled = 0
        self.hands = 0
        self.numbers_in_order = True
        self.last_number = 0
        self.cards: list[int] = []

    async def __call__(self, event, ack) -> None:
        if isinstance(event, ShuffleComplete):
            self.shuffled += 1
            self.cards = []
        elif isinstance(event, HandDelivered):
            self.numbers_in_order &= event.hand_number == (self.last_number + 1) % 65_536
            self.last_number = event.hand_number
            self.hands += 1
            self.cards += event.cards
        ack()
        self._changed.set()


@pytest.mark.slow
async def test_soak_the_shuffler_past_hand_65536_at_full_speed():
    """Every hand a table would ask for, through the driver and the link: shuffle a deck, deal it
    out ten hands at a time, switch decks (3.2.1); nothing stalls, no card is dealt twice."""
    device = ShufflerSim(timing=FAST, seed=11)
    driver, rec = await connect(device, ShufflerDriver, _Dealt())
    started = time.perf_counter()
    decks = (DeckColour.RED, DeckColour.BLUE)
    while rec.hands < HANDS:
        deck = decks[rec.shuffled % 2]
        await driver.shuffle(deck)
        await rec.wait_for(lambda r, n=rec.shuffled + 1: r.shuffled == n)
        target = rec.hands + min(10, HANDS - rec.hands)  # 52 cards: ten hands of five
        for _ in range(target - rec.hands):
            await driver.deliver_hand(deck)
        await rec.wait_for(lambda r: r.hands == target)  # noqa: B023
        assert len(set(rec.cards)) == len(rec.cards)  # one deck: no card twice
    elapsed = time.perf_counter() - started
    assert rec.numbers_in_order and rec.last_number == HANDS % 65_536
    assert device.hands_delivered == HANDS
    print(f"{HANDS:,} hands and {rec.shuffled:,} shuffles in {elapsed:.1f} s")
    await driver.stop()

"""The device adapter (tabled/daemon/devices.py) translates: a driver's event becomes the input that
says what the device said, and a table command becomes the driver call it names. What either
means is the table's judgement (tests/table/test_cardsource.py, tests/table/test_links.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from tabled.daemon.devices import TableDevices
from tabled.table.effects import Command, Deal, Lock, MeterShow, ProgressiveAcceptance, Shuffle
from tabled_drivers.base import LinkFailed, LinkUp
from tabled_drivers.betspots import Lamp as SpotLamp
from tabled_drivers.link.errors import CommandRejected
from tabled_drivers.link.messages import Status
from tabled_drivers.meter import MeterFaultCleared, MeterFaultCode
from tabled_drivers.shuffler import DeckColour, ShuffleComplete, ShufflerStatus
from tests.table.harness import Harness


class FakeDriver:
    """Records the calls a command becomes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[tuple] = []
        self.client = SimpleNamespace(first_open=self._first_open)
        self.ready: dict[DeckColour, int] = {}
        self.recognition = True
        self.refuse_hand: CommandRejected | None = None

    async def _first_open(self):
        return None

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def __getattr__(self, call: str):
        async def record(*args):
            self.calls.append((call, *args))
        return record

    async def status(self) -> ShufflerStatus:
        self.calls.append(("status",))
        return ShufflerStatus(dict(self.ready), False, self.recognition)

    async def poll(self):
        self.calls.append(("poll",))
        return SimpleNamespace(spots=())  # a board with nothing on it

    async def deliver_hand(self, colour: DeckColour) -> None:
        self.calls.append(("deliver_hand", colour))
        if self.refuse_hand is not None:
            raise self.refuse_hand


class FakeTable:
    """The controller as the adapter sees it: submit journals, resume sends the standing effects."""

    def __init__(self, h: Harness) -> None:
        self.core = h.core
        self.listeners: list = []
        self.submitted: list[tuple[str, dict]] = []
        self.idle = asyncio.Event()
        self.idle.set()
        self.commands = None

    def submit(self, kind: str, payload: dict, ack=None) -> None:
        self.submitted.append((kind, payload))
        if ack is not None:
            ack()

    async def resume(self, missing_notes: list) -> None:
        for e in self.core.standing_effects():
            if isinstance(e, Command):
                await self.commands(e)


def fakes(h: Harness):
    """A fake table over ``h``, fake drivers of every device, and ``make`` that hands the drivers to
    TableDevices and keeps the consumer it gives each (by device)."""
    table = FakeTable(h)
    drivers = {name: FakeDriver(name) for name in ("shuffler", "betspots", "meter", "shoe", "panel")}
    consumers: dict = {}

    def make(consumer_for):
        consumers.update({name: consumer_for(name) for name in drivers})
        return drivers

    return table, drivers, consumers, make


async def adapter(h: Harness | None = None, resume: bool = True):
    if h is None:
        h = Harness()
        h.feed("shuffler.recognition", on=True)
    table, drivers, consumers, make = fakes(h)
    devices = TableDevices(table, make)
    table.commands = devices.command
    await devices.start()
    if resume:
        await devices.resume([])
        await settled(devices)
    for d in drivers.values():
        d.calls.clear()
    table.submitted.clear()

    async def event(device: str, e) -> None:
        await consumers[device](e, lambda: None)
        await settled(devices)

    return devices, table, drivers, event


async def settled(devices: TableDevices) -> None:
    """Let the per-device workers and spawned reads run until nothing is left to do (no clock)."""
    for _ in range(50):
        await asyncio.sleep(0)


async def test_a_lost_link_and_its_return_become_device_link_inputs():
    devices, table, _, event = await adapter()
    await event("meter", LinkUp(device="meter", boot_id=1))
    assert table.submitted == []  # the first link of a device the table holds up says nothing new
    await event("meter", LinkFailed(device="meter", reason="port closed"))
    await event("meter", LinkUp(device="meter", boot_id=2))
    assert table.submitted == [("device.link", {"device": "meter", "up": False, "reason": "port closed"}),
                               ("device.link", {"device": "meter", "up": True, "reason": ""})]
    await devices.stop()


async def test_a_first_link_the_table_holds_lost_is_journaled():
    h = Harness()
    h.feed("device.link", device="betspots", up=False, reason="unplugged")
    devices, table, _, event = await adapter(h)
    await event("betspots", LinkUp(device="betspots", boot_id=1))
    assert table.submitted == [("device.link", {"device": "betspots", "up": True, "reason": ""})]
    await devices.stop()


async def test_what_the_shuffler_holds_is_read_when_it_connects_and_journaled_when_it_is_news():
    devices, table, drivers, event = await adapter()
    drivers["shuffler"].ready = {DeckColour.RED: 52, DeckColour.BLUE: 52}
    drivers["shuffler"].recognition = False  # the table has not been told yet
    await event("shuffler", LinkUp(device="shuffler", boot_id=1))
    assert drivers["shuffler"].calls == [("status",)]
    assert table.submitted == [("shuffler.status", {"ready": {"A": 52, "B": 52}, "recognition": False})]
    await devices.stop()


async def test_a_shuffled_deck_is_translated_with_the_order_the_device_read():
    devices, table, _, event = await adapter()
    await event("shuffler", ShuffleComplete(device="shuffler", deck=DeckColour.BLUE, card_count=52,
                                            order=tuple(range(52))))
    await event("shuffler", ShuffleComplete(device="shuffler", deck=DeckColour.RED, card_count=52, order=()))
    assert table.submitted == [("shuffler.shuffled", {"deck": "B", "cards": list(range(52))}),
                               ("shuffler.shuffled", {"deck": "A"})]
    await devices.stop()


async def test_the_meter_saying_its_fault_is_over_becomes_equipment_back():
    devices, table, _, event = await adapter()
    await event("meter", MeterFaultCleared(device="meter", code=list(MeterFaultCode)[0]))
    assert table.submitted == [("equipment.back", {"equipment": "meter"})]
    await devices.stop()


async def test_a_deal_delivers_the_hands_the_device_has_not_given_yet():
    devices, table, drivers, _ = await adapter()
    shuffler = drivers["shuffler"]
    shuffler.ready = {DeckColour.RED: 52 - 5, DeckColour.BLUE: 52}  # one hand given from A already
    await devices.command(Deal("T01-000001", "A", 3))
    await settled(devices)
    assert shuffler.calls == [("status",), ("deliver_hand", DeckColour.RED), ("deliver_hand", DeckColour.RED)]
    assert table.submitted == []  # what it holds is what the table holds
    await devices.stop()


async def test_a_deal_from_a_deck_the_device_does_not_hold_reports_what_it_holds_and_delivers_nothing():
    h = Harness()
    h.feed("shuffler.recognition", on=True)
    h.ante(1, 500)
    h.panel("no_more_bets")
    devices, table, drivers, _ = await adapter(h)
    drivers["shuffler"].ready = {DeckColour.BLUE: 52}
    await devices.command(Deal(h.round.round_id, "A", 2))
    await settled(devices)
    assert drivers["shuffler"].calls == [("status",)]
    assert table.submitted == [("shuffler.status", {"ready": {"B": 52}, "recognition": True})]
    await devices.stop()


async def test_a_hand_the_device_refuses_is_journaled_with_its_answer():
    devices, table, drivers, _ = await adapter()
    shuffler = drivers["shuffler"]
    shuffler.ready = {DeckColour.RED: 52, DeckColour.BLUE: 52}
    shuffler.refuse_hand = CommandRejected("shuffler", "deliver_hand", Status.DEVICE_FAULT, "jammed")
    await devices.command(Deal("T01-000001", "A", 3))
    await settled(devices)
    assert [c[0] for c in shuffler.calls] == ["status", "deliver_hand"]  # asking again would not help
    assert table.submitted == [("shuffler.refused", {
        "command": "deliver_hand", "deck": "A", "status": "DEVICE_FAULT",
        "reason": "shuffler refused deliver_hand: DEVICE_FAULT (jammed)"})]
    await devices.stop()


async def test_board_and_meter_commands_become_the_calls_they_name():
    devices, _, drivers, _ = await adapter()
    for cmd in (ProgressiveAcceptance("r", 5, True, (2, 5)), Lock("r", (1, 3)), MeterShow(1234, offline=True),
                MeterShow(1234, offline=False), MeterShow(None, offline=False), Shuffle("B")):
        await devices.command(cmd)
    await settled(devices)
    assert drivers["betspots"].calls == [("enable_progressive", [2, 5]), ("lock",),
                                         ("set_lamps", {1: SpotLamp.ON, 3: SpotLamp.ON})]
    assert drivers["meter"].calls == [("show_offline",), ("show", 1234)]
    assert drivers["shuffler"].calls == [("shuffle", DeckColour.BLUE)]
    await devices.stop()


async def test_nothing_is_sent_before_the_table_has_resumed_then_its_standing_effects_are():
    h = Harness(ready=False)
    h.panel("open_table", key="supervisor")
    devices, _, drivers, _ = await adapter(h, resume=False)
    await devices.command(Shuffle("A"))
    await settled(devices)
    assert drivers["shuffler"].calls == []
    await devices.resume([])
    await settled(devices)
    assert drivers["shuffler"].calls == [("shuffle", DeckColour.RED), ("shuffle", DeckColour.BLUE)]
    await devices.stop()


async def test_a_device_that_keeps_failing_is_logged_as_it_starts_and_as_it_ends_not_each_time():
    from structlog.testing import capture_logs

    from tabled_drivers.link.errors import LinkError

    devices, _, drivers, _ = await adapter()
    down = True

    async def show(cents):
        if down:
            raise LinkError("meter is down\nno answer after 3 tries")
        drivers["meter"].calls.append(("show", cents))

    drivers["meter"].show = show
    with capture_logs() as logs:
        for cents in range(100, 110):
            await devices.command(MeterShow(cents, False))
            await settled(devices)
        down = False
        await devices.command(MeterShow(110, False))
        await settled(devices)
    failed = [(r["event"], r.get("failures"), r.get("error")) for r in logs if r["event"].startswith("device.command")]
    assert failed == [("device.command_failed", None, "meter is down | no answer after 3 tries"),
                      ("device.command_failed.ended", 10, None)]
    assert drivers["meter"].calls == [("show", 110)]
    await devices.stop()


class SlowStaff:
    """A staff list whose PIN check takes as long as the test says (scrypt takes some 50 ms)."""

    def __init__(self) -> None:
        self.release = __import__("threading").Event()
        self.checked: list[int] = []

    def check(self, badge: int, pin: str) -> bool:
        assert self.release.wait(30), "the check was never released"  # bounds a hang only
        self.checked.append(badge)
        return pin == "2468"

    def expired(self, badge: int, today) -> bool:  # its PINs are new
        return False


async def signed_in_adapter(clock):
    table, _, consumers, make = fakes(Harness())
    staff = SlowStaff()
    devices = TableDevices(table, make, staff=staff, clock=clock)  # type: ignore[arg-type]
    return devices, table, consumers["panel"], staff


async def test_the_pin_is_checked_in_a_worker_thread_while_the_loop_goes_on():
    from tabled_drivers.panel import KeyPosition, SignIn
    devices, table, panel, staff = await signed_in_adapter(lambda: 0.0)
    sign_in = asyncio.create_task(panel(SignIn(device="panel", key=KeyPosition.DEALER, badge=1001, pin="2468"),
                                        lambda: None))
    turns = 0
    while turns < 100:  # the loop turns while the check waits in its thread
        await asyncio.sleep(0)
        turns += 1
    assert not sign_in.done() and table.submitted == []
    staff.release.set()
    await asyncio.wait_for(sign_in, 30)
    assert table.submitted == [("staff.sign_in", {"badge": 1001, "role": "dealer", "pin_ok": True})]


async def test_a_panel_gets_three_sign_ins_a_second_checked_the_rest_are_journaled_unchecked():
    from tabled_drivers.panel import KeyPosition, SignIn
    now = [100.0]
    devices, table, panel, staff = await signed_in_adapter(lambda: now[0])
    staff.release.set()
    for badge in range(1, 41):  # forty sign-ins at once
        await panel(SignIn(device="panel", key=KeyPosition.DEALER, badge=badge, pin="0000"), lambda: None)
    assert staff.checked == [1, 2, 3]
    unchecked = [p for _, p in table.submitted if p.get("checked") is False]
    assert len(unchecked) == 37 and all("pin_ok" not in p for p in unchecked)
    now[0] += 1.0  # a second later the panel may be checked again
    await panel(SignIn(device="panel", key=KeyPosition.DEALER, badge=41, pin="2468"), lambda: None)
    assert staff.checked[-1] == 41 and table.submitted[-1][1] == {"badge": 41, "role": "dealer", "pin_ok": True}

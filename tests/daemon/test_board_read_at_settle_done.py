"""SETTLE DONE is judged against the felt as it lies when the dealer presses it (rules 9.3, 9.4): while
the fold checks the payments, the device adapter (tabled/daemon/devices.py) reads the bet-spot board
at the press and submits its reading before the press, so chips laid right a moment before are seen
although the board's own poll has not come round yet. Over the simulated board (drivers/sim)."""

from __future__ import annotations

import asyncio

from tabled.daemon.devices import TableDevices
from tabled_drivers.betspots import BetSpotsDriver
from tabled_drivers.link.memory import memory_opener
from tabled_drivers.panel import Button, ButtonPressed, KeyPosition
from tabled_drivers.sim.betspots import BetSpotsSim
from tests.daemon.test_device_adapter import FakeDriver, settled
from tests.drivers.helpers import FAST
from tests.table.harness import Harness, notes
from tests.table.test_payout_check import DEALER_QUALIFIES, FLUSH, LOSER

NEVER_S = 3600.0  # the board's own poll: not before the test is over


class FoldingTable:
    """The controller as the adapter sees it, folding each input it is given as the journal would."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.submitted: list[str] = []
        self.idle = asyncio.Event()
        self.idle.set()

    @property
    def core(self):
        return self.h.core

    def submit(self, kind: str, payload: dict, ack=None) -> None:
        self.submitted.append(kind)
        self.h.feed(kind, **payload)
        if ack is not None:
            ack()

    async def resume(self, missing_notes: list) -> None:
        pass


async def test_chips_laid_right_and_settle_done_pressed_at_once_before_a_poll_is_accepted_9_3_9_4():
    h = Harness(spots=3)
    h.core.payments.enabled = True
    table = FoldingTable(h)
    sim = BetSpotsSim({"spots": 3}, timing=FAST, seed=1)
    consumers = {}

    def make(consumer_for):
        consumers.update({name: consumer_for(name) for name in ("betspots", "panel")})
        return {"betspots": BetSpotsDriver(opener=memory_opener(sim.link), consumer=consumers["betspots"],
                                           timing=FAST, spots=3, poll_interval=NEVER_S),
                **{name: FakeDriver(name) for name in ("shuffler", "meter", "shoe", "panel")}}

    devices = TableDevices(table, make)
    board = devices.drivers["betspots"]
    assert isinstance(board, BetSpotsDriver)
    await devices.start()
    try:
        await board.wait_up(5)
        await devices.resume([])

        async def press_settle_done() -> None:
            await consumers["panel"](ButtonPressed(device="panel", button=Button.SETTLE_DONE,
                                                   key=KeyPosition.DEALER), lambda: None)
            await settled(devices)

        for spot in (1, 2):
            sim.place(spot, ante=500)
        await board.poll()                                   # the players' antes, read as they are laid
        h.panel("no_more_bets")
        h.deal({1: FLUSH, 2: LOSER, "dealer": DEALER_QUALIFIES})
        for spot in (1, 2):
            sim.place(spot, bet=1000)
        await board.poll()
        h.press("reveal")
        await press_settle_done()                            # the settlement: spot 1 paid, spot 2 collected
        rid = h.round.round_id
        assert h.round.phase == "settling" and h.core.payments.waiting(rid)
        table.submitted.clear()
        sim.place(1, ante=1000, bet=6000)                    # paid 1 to 1 and 5 to 1 (10.1), beside the wagers
        sim.place(2, ante=0, bet=0)                          # collected (9.4.1.2)
        await press_settle_done()                            # at once: the board has not polled since
        assert table.submitted == ["board.reading", "panel.button"]
        assert not [n for n in notes(h.log, "payments.refused") if n.round_id == rid]
        assert [n.round_id for n in notes(h.log, "payments.checked")] == [rid] and h.core.rounds_finished == 1
    finally:
        await devices.stop()

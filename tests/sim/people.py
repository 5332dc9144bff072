"""The simulated people at a table made of a pure core (tests/table/harness.py) and stand-in devices
that only record what is done to them: the panel's presses (with the key's position), the chips
put on the board, the cards drawn from the shoe. The people see the table through its dealer view."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from tabled_drivers.panel import KeyPosition

from tabled.sim.players import DeviceFloor, Player
from tabled.views.view import dealer_view
from tests.table.harness import Harness


class Panel:
    """The button panel: each press recorded as (key position, button, spot)."""

    def __init__(self) -> None:
        self.key = KeyPosition.DEALER
        self.presses: list[tuple[str, str, int | None]] = []

    def turn_key(self, key: str) -> None:
        self.key = KeyPosition[key.upper()]

    def press(self, button: str, *, spot: int | None = None, value: int | None = None,
              spots: list[int] | None = None) -> None:
        self.presses.append((self.key.name.lower(), button, spot))


class Board:
    """The bet-spot board's control socket: chips put down, spot -> {area: cents}, in order."""

    def __init__(self) -> None:
        self.laid: list[dict[int, dict[str, int]]] = []

    async def call(self, op: str, **args: Any) -> None:
        assert op == "set", op
        self.laid.append({int(k): v for k, v in args["spots"].items()})


class Shoe:
    def __init__(self) -> None:
        self.drawn: list[int] = []

    def draw(self, card: int) -> None:
        self.drawn.append(card)


class People:
    """A floor of simulated people at ``h``'s table, and what they did."""

    def __init__(self, h: Harness, players: list[Player], *, devices_up: tuple[str, ...] = ("betspots",)):
        self.h = h
        self.panel, self.board, self.shoe = Panel(), Board(), Shoe()
        idle = asyncio.Event()
        idle.set()
        self.table = SimpleNamespace(idle=idle, listeners=[])
        sims = SimpleNamespace(panel=self.panel, shoe=self.shoe, control=lambda device: self.board)

        async def poll() -> None:
            return None
        devices = SimpleNamespace(up=set(devices_up), drivers={"betspots": SimpleNamespace(poll=poll)})
        self.floor = DeviceFloor(self.table, sims, devices, players, seed=3, view=lambda: dealer_view(h.core))

    async def step(self) -> tuple[bool, list[tuple[str, str, int | None]]]:
        """One step of the people: whether they acted, and the panel presses it made."""
        before = len(self.panel.presses)
        acted = await self.floor.step()
        return acted, self.panel.presses[before:]

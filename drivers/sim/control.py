"""The control socket of a serial simulator: what people (and tests) do to the device, by name.

One JSON object a line in, one answer a line out: ``{"op": "place", "spot": 1, "ante": 500}`` ->
``{"ok": true, "result": null}``; a request the device refuses is answered ``{"ok": false,
"error": "..."}`` and never stops the device. The simulator runner serves it when given
``--control SOCKET`` (drivers/sim/runner.py); the simulated table's players act through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from typing import Any

#: the areas of a spot the bet-spot board senses, in cents
FELT_AREAS = ("ante", "ante_tokens", "bet", "bet_tokens", "progressive", "progressive_tokens")


def control_ops(device: str, sim: Any) -> dict[str, Any]:
    """What may be done to each simulated serial device, by name."""
    common = {"commands_seen": lambda: list(sim.commands_seen)}
    if device == "betspots":
        def place(spot: int, **amounts: int) -> None:
            sim.place(spot, **amounts)

        def clear(spot: int) -> None:
            sim.place(spot, **dict.fromkeys(FELT_AREAS, 0))

        def reading() -> dict:
            return {"locked": sim.locked, "accepting": list(sim.accepting), "amounts": sim.amounts,
                    "lamps": [int(x) for x in sim.lamps]}

        def set_spots(spots: dict) -> None:  # several spots at once, as the sensors see them next poll
            for spot, amounts in spots.items():
                sim.place(int(spot), **amounts)
        return {**common, "place": place, "clear": clear, "reading": reading, "set": set_spots}
    if device == "shuffler":
        def plan_shuffle(**plan: Any) -> None:  # "the next shuffle jams at card 23" (15.1)
            sim.shuffles.append(plan)

        def hands(hands: list) -> None:  # "deliver these hands"
            sim.hands.extend(sim._script_hand(h, i) for i, h in enumerate(hands))

        def door(open: bool) -> None:
            sim.open_door() if open else sim.close_door()

        def door_open_after(hands: int) -> None:  # "the door opens after the next N hands"
            sim.door_open_after_hands = sim.hands_delivered + hands

        def status() -> dict:
            return {"ready": {int(k): len(v) for k, v in sim.ready.items()}, "hand_number": sim.hand_number}

        def load_decks(decks: dict) -> None:  # "these decks sit shuffled in the device, these cards left"
            from tabled_drivers.shuffler import DeckColour
            for colour, cards in decks.items():
                sim.ready[DeckColour[colour.upper()]] = [int(c) for c in cards]
        return {**common, "plan_shuffle": plan_shuffle, "hands": hands, "door": door, "status": status,
                "door_open_after": door_open_after, "load_decks": load_decks}
    if device == "meter":
        from tabled_drivers.meter import MeterFaultCode

        def fault(code: str) -> None:
            sim.fault(MeterFaultCode[code.upper()])

        def clear_fault(code: str) -> None:
            sim.clear_fault(MeterFaultCode[code.upper()])

        def silent(on: bool) -> None:  # "the meter stops answering"
            sim.silent = on

        def showing() -> dict:
            return {"message": int(sim.message), "amounts": list(sim.amounts)}
        return {**common, "fault": fault, "clear_fault": clear_fault, "silent": silent, "showing": showing}
    raise ValueError(f"no control socket for the {device} simulator (only the serial ones have one)")


class ControlServer:
    """The control socket at ``path``, answering with ``ops``; ``close()`` ends every connection."""

    def __init__(self, path: str, ops: dict[str, Any]) -> None:
        self.path, self.ops = path, ops
        self.server: asyncio.AbstractServer | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> ControlServer:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
        self.server = await asyncio.start_unix_server(self._handle, path=self.path)
        return self

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.add(writer)
        try:
            while line := await reader.readline():
                writer.write(json.dumps(self.answer(line)).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    def answer(self, line: bytes) -> dict[str, Any]:
        """One request's answer; a bad request is answered, never fatal to the device."""
        try:
            req = json.loads(line)
            op = self.ops[req.pop("op")]
            return {"ok": True, "result": op(**req)}
        except Exception as exc:
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for w in list(self.writers):  # the handlers see the end of input and finish by themselves
            w.close()
        await asyncio.sleep(0.01)

"""A simulated progressive meter, speaking the protocol of :mod:`tabled_drivers.meter` in the device role.

Script keys (TOML or JSON)::

    self_test = "passed"            # or "display_segments", "memory"
    fault_after_commands = 3        # after answering its third command, report a fault...
    fault = "overheat"              # ...of this kind (display_segments, power, overheat, memory)
    silent_after_commands = 5       # "the meter stops answering" after its fifth command
"""

from __future__ import annotations

import asyncio

from tabled_drivers import meter as proto
from tabled_drivers.link.messages import DeviceKind
from tabled_drivers.meter import MeterFaultCode, MeterMessage, SelfTest
from tabled_drivers.sim.base import ScriptError, SimDevice


def _enum(enum, value, key):
    try:
        return enum[str(value).upper()]
    except KeyError:
        raise ScriptError(f"{key}: unknown value {value!r} "
                          f"(one of {', '.join(e.name.lower() for e in enum)})") from None


class MeterSim(SimDevice):
    KIND = DeviceKind.METER
    COMMANDS = proto.COMMANDS
    EVENTS = proto.EVENTS
    SCRIPT_KEYS = frozenset({"self_test", "fault_after_commands", "fault", "silent_after_commands"})

    def __init__(self, script=None, **kw) -> None:
        super().__init__(script, **kw)
        s = self.script
        self.self_test_result = _enum(SelfTest, s.get("self_test", "passed"), "self_test")
        self.fault_code = _enum(MeterFaultCode, s.get("fault", "display_segments"), "fault")
        self.fault_after = s.get("fault_after_commands")
        self.silent_after = s.get("silent_after_commands")
        for key in ("fault_after_commands", "silent_after_commands"):
            if key in s and not (isinstance(s[key], int) and s[key] >= 0):
                raise ScriptError(f"{key} must be a whole number of commands")
        self.message = MeterMessage.BLANK
        self.amounts: tuple[int, ...] = ()
        self.answered = 0

    def fault(self, code: MeterFaultCode) -> None:
        self.emit("fault", code=code)

    def clear_fault(self, code: MeterFaultCode) -> None:
        self.emit("fault_cleared", code=code)

    def _after_command(self) -> None:
        # Runs after the answer is built: the scripted trouble starts with the *next* command.
        self.answered += 1
        if self.fault_after is not None and self.answered == self.fault_after:
            self.fault(self.fault_code)
        if self.silent_after is not None and self.answered >= self.silent_after:
            # after this answer has gone out (it is written in the same loop iteration)
            asyncio.get_running_loop().call_soon(setattr, self, "silent", True)

    async def on_show(self, amounts) -> dict:
        self.message, self.amounts = MeterMessage.AMOUNTS, tuple(amounts)
        self._after_command()
        return {}

    async def on_show_message(self, message) -> dict:
        self.message, self.amounts = MeterMessage(message) if message in (1, 2) else MeterMessage.BLANK, ()
        self._after_command()
        return {}

    async def on_self_test(self) -> dict:
        self._after_command()
        return {"result": int(self.self_test_result)}

    async def on_showing(self) -> dict:
        self._after_command()
        return {"message": int(self.message), "amounts": list(self.amounts)}

"""A simulated bet-spot board, speaking the protocol of :mod:`tabled_drivers.betspots` in the device role.

Script keys (TOML or JSON); amounts are cents, each wager may mix chips and tokens (5.1)::

    spots = 7
    [[place]]                         # on the board from the start
    spot = 1
    ante = 500                        # chips; ante_tokens, bet, bet_tokens, progressive,
    progressive = 100                 # progressive_tokens likewise
    [[place]]                         # "spot 3 places two separate antes" (5.8)
    spot = 3
    ante = 1000
    ante_stacks = 2                   # bet_stacks, progressive_stacks likewise
    [[after_lock]]                    # happens right after "no more bets" is answered
    spot = 3                          # ... "spot 3 adds a progressive wager after the lock"
    progressive = 100
    [[after_unlock]]                  # happens right after an unlock
    spot = 1
    ante = 0

A later placement on a spot replaces only the amounts it names. An area whose amounts are named
without its ``<area>_stacks`` lies in one stack (none when empty).
"""

from __future__ import annotations

from tabled_drivers import betspots as proto
from tabled_drivers.betspots import AMOUNTS_PER_SPOT, MAX_SPOTS, Area, Lamp
from tabled_drivers.link.messages import DeviceKind, Status
from tabled_drivers.sim.base import Refused, ScriptError, SimDevice

_LAMP_VALUES = frozenset(int(v) for v in Lamp)
AMOUNT_KEYS = ("ante", "ante_tokens", "bet", "bet_tokens", "progressive", "progressive_tokens")
STACK_KEYS = tuple(f"{a}_stacks" for a in Area)  # separate stacks on each area (5.8)


class BetSpotsSim(SimDevice):
    KIND = DeviceKind.BETSPOTS
    COMMANDS = proto.COMMANDS
    EVENTS = proto.EVENTS
    SCRIPT_KEYS = frozenset({"spots", "place", "after_lock", "after_unlock"})

    def __init__(self, script=None, **kw) -> None:
        super().__init__(script, **kw)
        s = self.script
        self.spots = s.get("spots", 7)
        if not (isinstance(self.spots, int) and 1 <= self.spots <= MAX_SPOTS):
            raise ScriptError(f"spots must be 1-{MAX_SPOTS}")
        self.amounts = [[0] * AMOUNTS_PER_SPOT for _ in range(self.spots)]
        self.stacks = [[0] * len(Area) for _ in range(self.spots)]
        self.accepting = [False] * self.spots
        self.lamps = [Lamp.OFF] * self.spots
        self.locked = False
        for key in ("place", "after_lock", "after_unlock"):
            for i, p in enumerate(s.get(key, [])):
                self._check_placement(p, f"{key}[{i}]")
        for p in s.get("place", []):
            self.place(**p)
        self._after_lock = list(s.get("after_lock", []))
        self._after_unlock = list(s.get("after_unlock", []))

    def _check_placement(self, p, where: str) -> None:
        if not isinstance(p, dict) or "spot" not in p or set(p) - {"spot", *AMOUNT_KEYS, *STACK_KEYS}:
            raise ScriptError(f"{where}: a table with 'spot' and amounts among "
                              f"{', '.join(AMOUNT_KEYS + STACK_KEYS)}")
        if not (isinstance(p["spot"], int) and 1 <= p["spot"] <= self.spots):
            raise ScriptError(f"{where}.spot: no spot {p['spot']!r} (1-{self.spots})")
        for k in AMOUNT_KEYS:
            if k in p and not isinstance(p[k], int):
                raise ScriptError(f"{where}.{k}: whole cents, got {p[k]!r}")
        for k in STACK_KEYS:
            if k in p and not (isinstance(p[k], int) and 0 <= p[k] <= 255):
                raise ScriptError(f"{where}.{k}: a count of stacks 0-255, got {p[k]!r}")

    def place(self, spot: int, **amounts: int) -> None:
        """Chips (or tokens) put down or taken up on a spot, and in how many separate stacks (an
        area named without its stacks holds one, none when empty); the sensors see it at once.
        No check on the values: a test may make the board say something impossible."""
        row, stacks = self.amounts[spot - 1], self.stacks[spot - 1]
        for k, v in amounts.items():
            if k not in STACK_KEYS:
                row[AMOUNT_KEYS.index(k)] = v
        for j, area in enumerate(Area):
            if f"{area}_stacks" in amounts:
                stacks[j] = amounts[f"{area}_stacks"]
            elif f"{area}" in amounts or f"{area}_tokens" in amounts:
                stacks[j] = 1 if row[2 * j] + row[2 * j + 1] else 0

    def _reading(self) -> dict:
        return {"locked": int(self.locked), "accepting": [int(a) for a in self.accepting],
                "amounts": [v for row in self.amounts for v in row],
                "stacks": [n for row in self.stacks for n in row]}

    # -- commands
    async def on_poll(self) -> dict:
        return self._reading()

    async def on_enable_progressive(self, spots) -> dict:
        if self.locked:
            raise Refused(Status.REFUSED, "spots are locked")
        bad = [s for s in spots if not 1 <= s <= self.spots]
        if bad:
            raise Refused(Status.BAD_REQUEST, f"no spot {bad[0]}")
        no_ante = [s for s in spots if self.amounts[s - 1][0] + self.amounts[s - 1][1] == 0]
        if no_ante:
            raise Refused(Status.REFUSED, f"no ante on spot {no_ante[0]} (11.1)")
        self.accepting = [s in spots for s in range(1, self.spots + 1)]
        return {}

    async def on_lock(self) -> dict:
        self.locked = True
        reading = self._reading()
        for p in self._after_lock:
            self.place(**p)
        self._after_lock = []  # scripted once
        return reading

    async def on_unlock(self) -> dict:
        self.locked = False
        self.accepting = [False] * self.spots  # a new round: acceptance is enabled afresh (11.1)
        for p in self._after_unlock:
            self.place(**p)
        self._after_unlock = []
        return {}

    async def on_set_lamps(self, lamps) -> dict:
        if len(lamps) != self.spots or any(v not in _LAMP_VALUES for v in lamps):
            raise Refused(Status.BAD_REQUEST, f"{self.spots} lamp values 0-2 expected")
        self.lamps = [Lamp(v) for v in lamps]
        return {}

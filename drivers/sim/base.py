"""What every simulator shares: command dispatch from the same command table the driver uses
(:class:`CommandDispatch`, serial and USB alike), and for the serial ones (:class:`SimDevice`) the
device end of the link, events from the same event table, and a script.

A simulator subclass sets ``COMMANDS`` (the device module's table) and defines
``async def on_<command name>(self, **request_fields) -> dict | None`` for each command; it
raises :class:`Refused` to answer with a status other than OK. A serial simulator also sets
``KIND`` and ``EVENTS``; ``self.emit("event name", **fields)`` sends an event reliably.

``commands_seen`` keeps the names of the last :attr:`CommandDispatch.COMMANDS_KEPT` commands
executed (a simulator may run for days: a polled board answers twenty polls a second), and
``command_counts`` counts every command ever executed, by name.
"""

from __future__ import annotations

import collections
import json
import random
import tomllib
from pathlib import Path
from typing import Any, ClassVar

import structlog

from tabled_drivers.link import messages as m
from tabled_drivers.link.endpoint import DeviceLink, LinkTiming

log = structlog.get_logger("drivers.sim")

REASON_MAX = 200  # bytes of a refusal's reason sent back (a frame carries at most 240)
SCRIPT_MAX_BYTES = 1 << 20  # a script is a person's few settings: a megabyte is far beyond any


class Refused(Exception):
    """Answer the command with ``status`` (and a short reason in the body)."""

    def __init__(self, status: m.Status, reason: str = "") -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class ScriptError(ValueError):
    """A simulator script that does not make sense; the message names the key."""


def load_script(path: str | Path | None) -> dict[str, Any]:
    """A TOML or JSON script (by extension) as a dict; ``None`` gives an empty script."""
    if path is None:
        return {}
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read(SCRIPT_MAX_BYTES + 1)  # bounded: /dev/zero or a fifo never ends
    except OSError as exc:
        raise ScriptError(f"cannot read script {p}: {exc.strerror}") from None
    if len(raw) > SCRIPT_MAX_BYTES:
        raise ScriptError(f"script {p}: larger than {SCRIPT_MAX_BYTES} bytes: too large to be a script "
                          "(read no further)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScriptError(f"script {p}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScriptError(f"{p}: not valid {'JSON' if p.suffix == '.json' else 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise ScriptError(f"{p}: a script is a table of settings")
    return data


def _reason_bytes(text: str) -> bytes:
    """A refusal's reason as the host reads it (ASCII), short enough for any frame."""
    return text.encode("ascii", "replace")[:REASON_MAX]


class CommandDispatch:
    """The device side of a command table: look the command up, unpack its request, remember it,
    run its ``on_<name>`` handler, and answer with a status and the packed response.

    An unknown code or a request that does not unpack is answered with UNKNOWN_COMMAND or
    BAD_REQUEST and is not remembered: it was never executed.
    """

    COMMANDS: ClassVar[dict[int, m.Command]] = {}
    COMMANDS_KEPT: ClassVar[int] = 1000  # recent commands remembered; older ones only counted

    def __init__(self) -> None:
        self.commands_seen: collections.deque[str] = collections.deque(maxlen=self.COMMANDS_KEPT)
        self.command_counts: collections.Counter[str] = collections.Counter()  # one key per command

    async def handle(self, code: int, payload: bytes) -> tuple[int, bytes]:
        """One command frame's code and payload in, its status and response payload out (the
        device link calls this for each command it has not answered yet)."""
        command = self.COMMANDS.get(code)
        handler = getattr(self, f"on_{command.name}", None) if command else None
        if command is None or handler is None:
            return m.Status.UNKNOWN_COMMAND, b""
        try:
            request = m.unpack(command.request, payload)
        except m.PayloadError as exc:
            return m.Status.BAD_REQUEST, _reason_bytes(str(exc))
        self.commands_seen.append(command.name)
        self.command_counts[command.name] += 1
        try:
            response = await handler(**request)
        except Refused as exc:
            log.debug("sim.refused", device=type(self).__name__, command=command.name, reason=exc.reason)
            return exc.status, _reason_bytes(exc.reason)
        return m.Status.OK, m.pack(command.response, response or {})


class SimDevice(CommandDispatch):
    """A serial simulator: :class:`CommandDispatch` behind the device end of the link, and a script."""

    KIND: ClassVar[m.DeviceKind]
    EVENTS: ClassVar[dict[int, m.EventSpec]]
    SCRIPT_KEYS: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, script: dict[str, Any] | None = None, *, timing: LinkTiming = LinkTiming(),
                 seed: int | None = None) -> None:
        super().__init__()
        self.script = dict(script or {})
        unknown = set(self.script) - self.SCRIPT_KEYS - {"seed"}
        if unknown:
            raise ScriptError(f"unknown script keys for {type(self).__name__}: {', '.join(sorted(unknown))}")
        seed = self.script.get("seed", seed)
        self.rng = random.Random(seed)
        self.link = DeviceLink(type(self).__name__, int(self.KIND), self.rng.getrandbits(32),
                               self.handle, timing)
        self._events_by_name = {spec.name: spec for spec in self.EVENTS.values()}

    @property
    def silent(self) -> bool:
        return self.link.mute

    @silent.setter
    def silent(self, value: bool) -> None:
        self.link.mute = value

    def emit(self, name: str, **fields) -> int:
        spec = self._events_by_name[name]
        return self.link.send_event(spec.code, m.pack(spec.fields, fields))

    def emit_raw(self, code: int, payload: bytes) -> int:
        """Send any bytes as an event: for testing what a driver makes of nonsense."""
        return self.link.send_event(code, payload)

    def close(self) -> None:
        self.link.close()

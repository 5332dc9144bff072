"""The inspector's answers without a shell: on the pit page, an inspector signs with badge and PIN
and asks for the installed software's answer as a field tool does (GSA's GAT: SHA-1 without a seed,
HMAC-SHA1 with one, or the table's HMAC-SHA256; tabled/host/software.py:answer, the same files and
bytes as ``tabled verify software``).

``POST /pit/answer`` with JSON ``{"badge": N, "pin": "....", "method": "hmac-sha1", "seed": "..."}``,
behind the page's own guard (this PC, or a viewer's token). Only a person of the staff list with the
inspector's role, with their PIN, is answered; wrong PINs in a row lock the badge here as at the
panel (the staff list's ``attempts`` and ``lockout_minutes``). Every request, answered or refused,
is journaled (``software.answered``: badge, name, method, seed, the answer or why not, the peer), so
the answer the inspector took away is in the record.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tabled.daemon.staff import StaffConfig
from tabled.host import software

KIND = "software.answered"
MAX_BODY = 4096
MAX_SEED = 256


class InspectorAnswers:
    """``submit(kind, payload)`` journals on the table's own loop (called from the page server's
    thread through ``call``); ``clock``: seconds, for the lockout."""

    def __init__(self, staff: StaffConfig | None, journal: Callable[[str, dict[str, Any]], None],
                 clock: Callable[[], float] = time.monotonic,
                 files: Callable[[], list[software.InstalledFile]] = software.installed_files):
        self.staff = staff
        self.journal = journal
        self.clock = clock
        self.files = files
        self.wrong: dict[int, int] = {}
        self.locked_until: dict[int, float] = {}

    async def handle(self, request: web.Request) -> web.Response:
        try:
            raw = await request.content.read(MAX_BODY + 1)
            if len(raw) > MAX_BODY:
                raise ValueError(f"the request is longer than {MAX_BODY} bytes")
            asked = json.loads(raw or b"null")
            badge, pin, method, seed = _fields(asked)
        except ValueError as exc:
            return _answer(400, {"error": str(exc)})
        return await self.answer(badge, pin, method, seed, request.remote)

    async def answer(self, badge: int, pin: str, method: str, seed: str | None, peer: str | None) -> web.Response:
        record: dict[str, Any] = {"badge": badge, "method": method, "seed": seed, "peer": peer}
        refused = self._refusal(badge, pin)
        if refused is not None:
            status, why = refused
            self.journal(KIND, {**record, "result": "refused", "reason": why})
            return _answer(status, {"error": why})
        person = self.staff.person(badge) if self.staff is not None else None
        record["name"] = person.name if person is not None else None
        try:
            files = await asyncio.to_thread(self.files)
            answer = await asyncio.to_thread(software.answer, method, files, seed)
        except software.SoftwareError as exc:
            self.journal(KIND, {**record, "result": "refused", "reason": str(exc)})
            return _answer(400, {"error": str(exc)})
        self.journal(KIND, {**record, "result": "answered", "files": len(files), "answer": answer})
        return _answer(200, {"method": method, "seed": seed, "files": len(files), "answer": answer,
                             "name": record["name"]})

    def _refusal(self, badge: int, pin: str) -> tuple[int, str] | None:
        if self.staff is None:
            return 403, "this table has no staff list: the inspector's answers need an inspector's badge and PIN"
        now = self.clock()
        if self.locked_until.get(badge, 0.0) > now:
            return 403, f"badge {badge} is locked after {self.staff.attempts} wrong PINs"
        person = self.staff.person(badge)
        if not self.staff.check(badge, pin):
            self.wrong[badge] = self.wrong.get(badge, 0) + 1
            if self.wrong[badge] >= self.staff.attempts:
                self.wrong[badge] = 0
                self.locked_until[badge] = now + 60 * self.staff.lockout_minutes
            return 403, "wrong badge or PIN"
        self.wrong.pop(badge, None)
        if person is None or "inspector" not in person.roles:
            return 403, f"badge {badge} is not an inspector's"
        return None


def _fields(asked: Any) -> tuple[int, str, str, str | None]:
    if not isinstance(asked, dict):
        raise ValueError("the request must be a JSON object with badge, pin, method and seed")
    badge, pin, method, seed = asked.get("badge"), asked.get("pin"), asked.get("method"), asked.get("seed")
    if isinstance(badge, str) and badge.isdigit():
        badge = int(badge)
    if not isinstance(badge, int) or isinstance(badge, bool) or not 1 <= badge <= 999_999:
        raise ValueError("badge must be a badge number (1-999999)")
    if not isinstance(pin, str) or not pin.isdigit() or not 4 <= len(pin) <= 8:
        raise ValueError("pin must be 4 to 8 digits")
    if method not in software.METHODS:
        raise ValueError(f"method must be one of {', '.join(software.METHODS)}")
    if seed is not None and (not isinstance(seed, str) or len(seed) > MAX_SEED):
        raise ValueError(f"seed must be text of at most {MAX_SEED} characters")
    if seed == "":
        seed = None
    return badge, pin, method, seed


def _answer(status: int, body: dict[str, Any]) -> web.Response:
    return web.Response(status=status, text=json.dumps(body), content_type="application/json",
                        headers={"Cache-Control": "no-store"})


__all__ = ["InspectorAnswers", "KIND"]

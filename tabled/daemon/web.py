"""The dealer's screen and the pit's view, served by the daemon over HTTP: read-only, pushed,
never ahead of the journal.

aiohttp serves it because it is a well-kept asyncio HTTP server with streaming responses, so
Server-Sent Events need nothing more.

- ``/`` the page (``tabled/web_assets/``, shipped in the package: nothing from the internet),
  ``/events`` the stream of the screen (tabled/views/screen.py) as Server-Sent Events,
  ``/screen.json`` the latest screen once; ``/pit``, ``/pit/events`` and ``/pit.json`` the same
  for the pit's view (tabled/views/pit.py); ``/slip?round=ID&spot=N`` the printable hand-pay slip
  of a progressive award and ``/slip.json`` its content (tabled/views/slip.py), read from the
  journal on a connection of its own in a worker thread, never on the table's loop. Only GET
  and HEAD: no request changes the table.
- The screen is made by a listener of the controller, which runs after an input is journaled
  and folded, so the page never shows a state the journal does not hold.
- The pit's view is made from the same screen in a thread of its own, which reads the journal's
  new records on a connection of its own and checks their chain (tabled/daemon/pit.py): the
  journal's reads are never on the table's path. While one is being made the next waits as
  one (the latest): a slow read skips states, never queues them.
- The server runs in its own thread with its own event loop: a slow or stalled browser cannot
  hold up the table. Each client keeps only the latest screen (a slow one skips states, never
  queues them), and a heartbeat every :data:`HEARTBEAT_S` lets the page notice a dead connection.
  The heartbeat also says whether the table's own loop still runs (it stamps the time every
  :data:`HEARTBEAT_S`; :data:`TABLE_QUIET_S` without a stamp and the beat says it does not): a
  live server in front of a stalled table is not a live screen.
- What every request is checked for first (tabled/web/guard.py): a ``Host`` naming this server
  (403 otherwise), at most ``max_connections`` connections at once (503 beyond), a malformed
  request answered 400 with one line logged.
- Who may look (tabled/web/access.py): this PC always; another machine only with a configured
  viewer's token (``Authorization: Bearer``, or the HttpOnly cookie a link's ``?token=`` is
  exchanged for, with a redirect to the address without it), and only over TLS with the
  configured certificate: plain HTTP off the loopback address is refused at start. A refused
  request gets 401 or 403 and a one-line reason, nothing of the table.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import ssl
import threading
import time
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import structlog
from aiohttp import web

from tabled.daemon.config import ScreenConfig
from tabled.daemon.pit import PitReader, standing_since
from tabled.journal.store import Journal
from tabled.table.effects import Effect
from tabled.views.pit import pit_devices, pit_players, pit_view
from tabled.views.screen import screen_view
from tabled.views.slip import KINDS as SLIP_KINDS
from tabled.views.slip import SlipError, awards_before, hand_pay_slip
from tabled.views.slip import at as slip_at
from tabled.web.access import SECURITY_HEADERS
from tabled.web.assets import add_assets, page
from tabled.web.guard import Guard
from tabled.web.listen import HostNames, PageListener
from tabled.web.stream import LatestStream, data_of, event
from tabled.web.tls import serving_context

log = structlog.get_logger("tabled.daemon.web")

HEARTBEAT_S = 0.5      # the page calls the daemon lost after 1.2 s without a word
TABLE_QUIET_S = 1.0    # the table's loop silent this long (two stamps missed): the beat says it is not answering
RETRY_MS = 500         # how soon EventSource connects again
COOKIE = "tabled_screen"
ASSETS = {"live.js": "text/javascript", "screen.js": "text/javascript", "screen.css": "text/css",
          "pit.js": "text/javascript", "pit.css": "text/css", "slip.js": "text/javascript", "slip.css": "text/css"}
#: the dealer's screen, the pit's view, a progressive award's hand-pay slip
PAGES = {"/": "index.html", "/pit": "pit.html", "/slip": "slip.html"}
MAX_ROUND_ID = 64
SPOT = re.compile(r"[0-9]{1,2}")  # ASCII digits only: "²" is a digit to str.isdigit, not to int()
SCREEN, PIT = "screen", "pit"  # what a page follows


class ScreenServer:
    """The dealer's screen and the pit's view of one table. ``listener`` goes in the controller's
    listeners (it runs in the table's loop); :meth:`start` serves from a thread of its own and
    makes the pit's view in another (for a table with a journal)."""

    def __init__(self, table: Any, config: ScreenConfig):
        self.answers: Any = None  # the inspector's answers on the pit page (tabled/daemon/answers.py)
        self.table = table
        self.config = config
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.latest: bytes | None = None
        self.url: str | None = None
        self._guard = Guard("screen", HostNames(config.host, config.names), config.viewers, COOKIE, log)
        self._pages = LatestStream(HEARTBEAT_S, RETRY_MS, self._beat)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._done: asyncio.Event | None = None
        self._stop_asked = threading.Event()  # set by stop(), which may come before the loop is up
        self._effects: list[Effect] = []  # carried out since the screen was last made
        self._due = False                 # a remake is scheduled in the table's loop
        # the pit's view: made in its own thread from the latest screen and the devices' links
        self.pit: dict[str, Any] | None = None
        self.pit_seq = 0
        self.pit_latest: bytes | None = None
        # screen, devices, seq, players seated
        self._pit_job: tuple[dict[str, Any], list[dict[str, Any]], int, list[dict[str, Any]]] | None = None
        self._pit_wake = threading.Event()
        self._pit_thread: threading.Thread | None = None
        # the table's loop stamps this while it runs; the heartbeat reads it
        self._table_stamp = time.monotonic()
        self._stamping: asyncio.TimerHandle | None = None

    # -- the table's side (its loop) ---------------------------------------------------------------

    def listener(self, effects: list[Effect]) -> None:
        """After each journaled, folded input: the screen is made again once the table's loop has
        carried out this batch (off the path from a device's frame to its effects), from every
        effect since the last one made."""
        self._effects.extend(effects)
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self._remake)

    def _remake(self) -> None:
        """The screen as it now stands, to every page. A screen that cannot be made is logged and
        the pages keep the last one: the table never stops for it."""
        effects, self._effects, self._due = self._effects, [], False
        try:
            self.view = screen_view(self.table.core, effects, self.view)
            made = event(self.seq + 1, SCREEN, self.view)
        except Exception as exc:  # the table goes on; the log says what the screen missed
            log.error("screen.not_made", error=repr(exc), round_id=self.table.core.round_id)
            return
        self.seq, self.latest = self.seq + 1, made
        self._pit_job = (self.view, pit_devices(self.table.core), self.seq, pit_players(self.table.core))
        self._pit_wake.set()
        self._wake_pages()

    def _stamp(self) -> None:
        """In the table's loop, every :data:`HEARTBEAT_S` while it runs: the table answers."""
        self._table_stamp = time.monotonic()
        if not self._stop_asked.is_set():
            self._stamping = asyncio.get_running_loop().call_later(HEARTBEAT_S, self._stamp)

    def _beat(self) -> bytes:
        table = time.monotonic() - self._table_stamp <= TABLE_QUIET_S
        return b"event: beat\ndata: " + json.dumps({"table": table}).encode() + b"\n\n"

    def _wake_pages(self) -> None:
        loop = self._loop
        if self._pages.clients and loop is not None and not loop.is_closed():
            # only a page needs the server's thread woken (a page that opens later reads the latest)
            try:
                loop.call_soon_threadsafe(self._publish)
            except RuntimeError:  # the server's loop closed meanwhile (a stop)
                pass

    def _publish(self) -> None:
        # the newest made, whichever call this is: a page never steps back
        self._pages.publish({SCREEN: self.latest, PIT: self.pit_latest})

    # -- the pit's view (its own thread) -------------------------------------------------------------

    def _make_pits(self, reader: PitReader) -> None:
        """Each time the screen is made, the pit's view from it and the journal's new records. A
        view that cannot be made is logged and the pit's pages keep the last one."""
        try:
            while True:
                self._pit_wake.wait()
                self._pit_wake.clear()
                job = self._pit_job
                if self._stop_asked.is_set():
                    return
                if job is None:
                    continue
                try:
                    journal = {**reader.read(), "shipping_waits": getattr(self.table, "shipping_waits", None)}
                    view = pit_view(job[0], job[1], reader.log, journal, job[2], job[3])
                    made = event(self.pit_seq + 1, PIT, view)
                except Exception as exc:  # the table goes on; the log says what the pit missed
                    log.error("pit.not_made", error=repr(exc))
                    continue
                self.pit, self.pit_seq, self.pit_latest = view, self.pit_seq + 1, made
                self._wake_pages()
        finally:
            reader.close()

    # -- serving (the server's own loop) -------------------------------------------------------------

    async def start(self) -> str:
        """Serve from a thread of its own; returns the screen's address (``https://host:port/`` off
        this PC, ``http://`` on its loopback address). Plain HTTP off the loopback address is
        refused before anything listens (a ValueError saying what to configure)."""
        c = self.config
        tls = serving_context("dealer's screen", "screen", c.host, c.viewers, c.tls)
        core = self.table.core
        journal = getattr(self.table, "journal", None)  # a view of a bare core has no pit's view
        self.view = screen_view(core, (), None)
        if self.view.get("faults") and journal is not None:
            # faults that stood before this start have stood since their records (a restart)
            self.view = screen_view(core, (), None, standing_since(journal, self.view["faults"]))
        self.seq += 1
        self.latest = event(self.seq, SCREEN, self.view)
        started: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        caller = asyncio.get_running_loop()

        def report(result: str | BaseException) -> None:
            if not started.done():
                started.set_exception(result) if isinstance(result, BaseException) else started.set_result(result)

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            tell = lambda result: caller.call_soon_threadsafe(report, result)  # noqa: E731
            try:
                loop.run_until_complete(self._serve(tell, tls))
            except BaseException as exc:  # told to the daemon's loop, which decides
                log.error("screen.failed", error=repr(exc))
                tell(exc)  # ignored once the address was reported
            finally:
                self._loop = None
                loop.close()

        self._stamp()
        self._thread = threading.Thread(target=serve, name="tabled-screen", daemon=True)
        self._thread.start()
        try:
            self.url = await started
        except BaseException:  # a stop while starting: the server does not outlive it
            self._stop_asked.set()
            raise
        if journal is not None:
            self._pit_job = (self.view, pit_devices(core), self.seq, pit_players(core))
            self._pit_wake.set()
            self._pit_thread = threading.Thread(target=self._make_pits, args=(PitReader(journal.path),),
                                                name="tabled-pit", daemon=True)
            self._pit_thread.start()
        return self.url

    async def _serve(self, report, tls: ssl.SSLContext | None) -> None:
        self._done = asyncio.Event()
        try:
            app = self._app()
            self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
            await self._runner.setup()
            listener = PageListener(self._runner, "screen", self.config.max_connections)
            host, port = await listener.start(self.config.host, self.config.port, tls)
        except OSError as exc:
            refused = OSError(f"cannot serve the dealer's screen on {self.config.host}:{self.config.port}: "
                              f"{os.strerror(exc.errno) if exc.errno else exc}")
            refused.errno = exc.errno
            report(refused)
            if self._runner is not None:
                await self._runner.cleanup()
            return
        shown = f"[{host}]" if ":" in host else host
        report(f"{'https' if tls else 'http'}://{shown}:{port}/")
        if not self._stop_asked.is_set():
            await self._done.wait()
        self._pages.close()
        listener.close()
        await self._runner.cleanup()

    async def stop(self) -> None:
        """Close every page's stream and stop serving (the pages show NOT LIVE)."""
        self._stop_asked.set()
        self._pit_wake.set()
        if self._stamping is not None:
            self._stamping.cancel()
        loop, thread = self._loop, self._thread
        if loop is not None and self._done is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._done.set)
            except RuntimeError:
                pass
        if thread is not None:
            await asyncio.to_thread(thread.join, 5.0)
        if self._pit_thread is not None:
            await asyncio.to_thread(self._pit_thread.join, 5.0)
        self._thread = self._pit_thread = None

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard.middleware])
        for path in PAGES:
            app.router.add_get(path, self._page)
        app.router.add_get("/events", self._events)
        app.router.add_get("/pit/events", self._events)
        app.router.add_get("/screen.json", self._json)
        app.router.add_get("/pit.json", self._json)
        app.router.add_get("/slip.json", self._slip)
        app.router.add_post("/pit/answer", self._inspector_answer)  # tabled/daemon/answers.py
        add_assets(app, ASSETS)
        return app

    async def _inspector_answer(self, request: web.Request) -> web.Response:
        """The inspector's answer (tabled/daemon/answers.py): the one request that is not a GET."""
        if self.answers is None:
            return _problem(404, "this table gives no inspector's answers here")
        response = await self.answers.handle(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    async def _page(self, request: web.Request) -> web.Response:
        return page(PAGES[request.path])

    async def _json(self, request: web.Request) -> web.Response:
        latest = self.pit_latest if request.path == "/pit.json" else self.latest
        return web.Response(body=data_of(latest), content_type="application/json", headers=SECURITY_HEADERS)

    async def _slip(self, request: web.Request) -> web.Response:
        """A progressive award's hand-pay slip, from the journal's records of its round."""
        round_id, spot_text = request.query.get("round", ""), request.query.get("spot", "")
        journal = getattr(self.table, "journal", None)
        if not round_id or len(round_id) > MAX_ROUND_ID or not SPOT.fullmatch(spot_text):
            return _problem(400, "a slip needs ?round=ROUND_ID&spot=N (a spot number)")
        if journal is None:
            return _problem(404, "this table has no journal to make a slip from")
        try:
            slip = await asyncio.to_thread(_slip_of, journal.path, self.table.core.table_id, round_id,
                                           int(spot_text), self.config)
        except SlipError as exc:
            return _problem(404, str(exc))
        return web.Response(text=json.dumps(slip), content_type="application/json", headers=SECURITY_HEADERS)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        follows = PIT if request.path.startswith("/pit") else SCREEN
        return await self._pages.serve(request, follows, self.pit_latest if follows == PIT else self.latest)


async def start_screen(config: ScreenConfig, table: Any) -> ScreenServer | None:
    """Serve ``table``'s screen as ``config`` says (None when it is off); the screen follows every
    input the controller journals and folds from now on."""
    if not config.enabled:
        return None
    server = ScreenServer(table, config)
    await server.start()
    table.listeners.append(server.listener)
    return server


def _problem(status: int, reason: str) -> web.Response:
    return web.Response(status=status, text=json.dumps({"problem": reason}), content_type="application/json",
                        headers=SECURITY_HEADERS)


def _slip_of(path: Any, table_id: str, round_id: str, spot: int, heading: ScreenConfig) -> dict[str, Any]:
    """The slip from the round's records and the awards before them, on a read-only connection of
    its own (a worker thread), headed with the property, the table and the award's time (UTC and
    the property's, [reports] time_zone)."""
    journal = Journal.open(path, readonly=True, verify=False)
    try:
        records = [(r.seq, r.time_us // 1000, r.kind, r.payload) for r in journal.records_for_round(round_id)
                   if r.kind in SLIP_KINDS]
        answer = next((slip_at(seq, 0, p)[0] for seq, _, kind, p in records if kind == "progressive.awarded"), None)
        earlier = [] if answer is None else [
            (r.round_id, r.payload) for r in journal.records_between(1, journal.head[0], kinds=["progressive.awarded"])
            if slip_at(r.seq, 0, r.payload)[0] < answer]
    finally:
        journal.close()
    slip = hand_pay_slip(table_id, round_id, spot, records, awards_before(earlier))
    at = datetime.fromtimestamp(slip["awards"]["time_ms"] / 1000, UTC)
    local = at.astimezone(ZoneInfo(heading.time_zone))
    return {**slip, "property": heading.property_name, "table_name": heading.table_name or table_id,
            "time_utc": at.strftime("%Y-%m-%d %H:%M:%S UTC"),
            "time_local": local.strftime("%Y-%m-%d %H:%M:%S %Z") + f" ({heading.time_zone})"}


__all__ = ["ScreenServer", "start_screen", "HEARTBEAT_S"]

"""``tabled floor``: the pit's and the surveillance room's view of every table, served from the
central PostgreSQL (never from a table: a table that is down or rewritten is exactly what it shows).

- ``/floor`` the page (``tabled/web_assets/floor.*``, in the package), ``/floor/events`` the floor
  as Server-Sent Events (the whole view each poll, only the latest to a slow page), ``/floor.json``
  the view once, ``POST /floor/ack`` a named person acknowledges an alert (JSON
  ``{"alert": ID, "who": NAME}``): the only write, and only to the floor's own ``floor_acks``.
- Every :attr:`FloorConfig.poll_s` the records each table shipped since the last poll are read and
  folded (tabled/floor/watch.py); a table with nothing shipped for ``silent_after_s`` raises an alert.
  A table whose central copy has not been read for three polls (the central database unreachable,
  a poll that hangs) is shown stale, with when it was last read.
- Every request names this server in its ``Host``, an acknowledgement comes from this server's
  page (its ``Origin``), at most ``max_connections`` are open at once, and off this PC the page is
  served over TLS only (the page server's parts, tabled/web/, as the dealer's screen's).
- Who may look and acknowledge: this PC, or another machine with a viewer's token (its cookie once
  a link's token is exchanged). An acknowledgement names the person typed in and the viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog
from aiohttp import web

from tabled.floor.central import MAX_NAME
from tabled.floor.config import PASSWORD_CREDENTIAL, FloorConfig
from tabled.floor.watch import Alert, Row, TableWatch
from tabled.host.dsn import credential_password, server_said
from tabled.host.log import Trouble
from tabled.host.primary import StandbyOnly, for_the_primary, standby_only
from tabled.journal.seals import public_keys, read_key
from tabled.web.access import SECURITY_HEADERS
from tabled.web.assets import add_assets, page
from tabled.web.guard import VIEWER, Guard
from tabled.web.listen import HostNames, PageListener
from tabled.web.stream import LatestStream
from tabled.web.tls import serving_context

log = structlog.get_logger("tabled.floor")

#: the credential systemd passes with the floor role's password (LoadCredential=)
COOKIE = "tabled_floor"
ASSETS = {"floor.js": "text/javascript", "floor.css": "text/css"}
HEARTBEAT_S = 2.0
RETRY_MS = 1000
FLOOR = "floor"  # what the page follows
BATCH = 5000  # records read a table a query
STALE_POLLS, STALE_MIN_S = 3, 3.0  # a table's data is stale after three polls' time unread (3 s at least)
UNIQUE_VIOLATION = "23505"  # PostgreSQL's SQLSTATE for a second row where one is allowed


def floor_connector(dsn: str, environ: dict[str, str] | None = None) -> Callable[[], Any]:
    """Opens the floor's async connection (autocommit), with systemd's password credential if any."""
    import psycopg
    password = credential_password(PASSWORD_CREDENTIAL, environ)
    extra: dict[str, Any] = {"password": password} if password is not None else {}
    primary = for_the_primary(dsn)  # the floor writes its acknowledgements: the primary only

    async def connect() -> Any:
        try:
            return await psycopg.AsyncConnection.connect(primary, connect_timeout=10, autocommit=True, **extra)
        except psycopg.OperationalError as exc:
            if (said := standby_only(exc, dsn)) is not None:
                raise StandbyOnly(f"central: {said}") from None
            raise
    return connect


class AckRefused(ValueError):
    """An acknowledgement that cannot be taken; ``status`` is the HTTP answer."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class Floor:
    """The floor service: reads the central copy, folds it, serves the page."""

    def __init__(self, config: FloorConfig, connect: Callable[[], Any], *,
                 clock: Callable[[], float] = time.time) -> None:
        self.config, self.connect, self.clock = config, connect, clock
        self.keys = {table: public_keys((str(p), read_key(p, "the table's public key")) for p in paths)
                     for table, paths in config.keys.items()}
        self.tables: dict[str, TableWatch] = {}
        self.alerts: dict[str, Alert] = {}
        self.acks: dict[str, dict[str, Any]] = {}
        self.central_error: str | None = None
        self.trouble = Trouble(log, "floor.central_unreachable", clock)
        self.polls = 0
        self.url: str | None = None
        self.latest: bytes | None = None
        self._seq = 0
        self._conn: Any = None
        self._lock = asyncio.Lock()
        self._pages = LatestStream(HEARTBEAT_S, RETRY_MS, lambda: b"event: beat\ndata: \n\n")
        self._runner: web.AppRunner | None = None
        self._listener: PageListener | None = None
        self._guard = Guard("floor", HostNames(config.host, config.names), config.viewers, COOKIE, log)
        self._polled = asyncio.Event()
        self.started_s = clock()
        #: (a record's commit time at its table, seconds from then to the page that first showed it), for
        #: the records the server took since the floor started (the latest): the floor's own measure
        self.record_to_page: deque[tuple[float, float]] = deque(maxlen=1_000_000)
        self._shown: list[float] = []   # the times of the records folded since the last page

    # -- reading the central copy ---------------------------------------------------------------------

    async def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            self._conn = await self.connect()
        return self._conn

    async def poll(self) -> None:
        """Read what every table shipped since the last poll, and the acknowledgements."""
        async with self._lock:
            try:
                conn = await self._connection()
                ids = [r[0] for r in await (await conn.execute(
                    "SELECT table_id FROM journal_tables ORDER BY table_id")).fetchall()]
                for table_id in sorted(set(ids) | set(self.config.keys)):
                    if table_id not in self.tables:
                        self.tables[table_id] = TableWatch(table_id, self.keys.get(table_id, {}))
                await self._recheck_heads(conn)
                await self._read_all(conn)
                for table_id, local_head, at in await (await conn.execute(
                        "SELECT table_id, local_head, extract(epoch FROM reported_at)::float8 FROM journal_heads")
                        ).fetchall():
                    if table_id in self.tables:
                        self.tables[table_id].reported_head = (local_head, at)
                        self._raise(self.tables[table_id].unsealed_tail())
                read_s = self.clock()
                for watch in self.tables.values():
                    watch.read_s = read_s
                for alert, who, viewer, at in await (await conn.execute(
                        "SELECT alert, who, viewer, extract(epoch FROM acked_at)::float8 FROM floor_acks "
                        "ORDER BY id")).fetchall():
                    self.acks.setdefault(alert, {"who": who, "viewer": viewer, "at_s": at})
                self.central_error = None
                self.trouble.ended()
            except Exception as exc:  # a lost server is shown, and tried again next poll
                self.central_error = server_said(exc)[:200]
                self.trouble.failed(self.central_error)  # one line as it starts, a count while it lasts, one as it ends
                if self._conn is not None:
                    with contextlib.suppress(Exception):
                        await self._conn.close()
                self._conn = None
        self._silent()
        self.polls += 1
        self._publish()

    async def _recheck_heads(self, conn: Any) -> None:
        """The record each table was checked to last, read again (all tables in one query): still
        the one there, or a change re-hashed to the end shows."""
        watched = [w for w in self.tables.values() if w.head]
        if not watched:
            return
        rows = await (await conn.execute(
            "SELECT h.table_id, r.hash FROM unnest(%s::text[], %s::bigint[]) AS h(table_id, seq) "
            "LEFT JOIN journal_records r ON r.table_id = h.table_id AND r.seq = h.seq",
            ([w.table_id for w in watched], [w.head for w in watched]))).fetchall()
        for table_id, digest in rows:
            self._raise(self.tables[table_id].changed(digest))

    async def _read_all(self, conn: Any) -> None:
        """Fold every table's records after the last one folded: one query for all the tables (at
        most BATCH records each), again for those with more."""
        due = list(self.tables.values())
        while due:
            cur = await conn.execute(
                "SELECT r.table_id, r.seq, r.time_us, r.round_id, r.kind, r.payload, r.prev_hash, r.hash, "
                "extract(epoch FROM r.received_at)::float8 FROM unnest(%s::text[], %s::bigint[]) AS h(table_id, seq) "
                "CROSS JOIN LATERAL (SELECT * FROM journal_records j WHERE j.table_id = h.table_id AND j.seq > h.seq "
                "ORDER BY j.seq LIMIT %s) r ORDER BY r.table_id, r.seq",
                ([w.table_id for w in due], [w.head for w in due], BATCH))
            counts: dict[str, int] = {}
            for table_id, *r in await cur.fetchall():
                watch = self.tables[table_id]
                row = Row(*r)
                self._raise(watch.feed(row))
                counts[table_id] = counts.get(table_id, 0) + 1
                if row.received_s >= self.started_s:
                    self._shown.append(row.time_us / 1e6)
            due = [self.tables[t] for t, n in counts.items() if n == BATCH and self.tables[t].chain_broken_at is None]

    async def _read(self, conn: Any, watch: TableWatch) -> None:
        """Fold the table's records after the last one folded."""
        while True:
            cur = await conn.execute(
                "SELECT seq, time_us, round_id, kind, payload, prev_hash, hash, "
                "extract(epoch FROM received_at)::float8 FROM journal_records "
                "WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s", (watch.table_id, watch.head, BATCH))
            rows = await cur.fetchall()
            for r in rows:
                self._raise(watch.feed(Row(*r)))
            if len(rows) < BATCH or watch.chain_broken_at is not None:
                return

    def _raise(self, alerts: list[Alert]) -> None:
        for alert in alerts:
            self.alerts.setdefault(alert.id, alert)

    async def recheck(self) -> None:
        """Check every table's central copy again from its first record (a record changed after the
        floor checked it, even without re-hashing, is found), then carry on from there."""
        async with self._lock:
            try:
                conn = await self._connection()
                fresh = {}
                for table_id, old in self.tables.items():
                    watch = fresh[table_id] = TableWatch(table_id, self.keys.get(table_id, {}))
                    watch.reported_head, watch.read_s = old.reported_head, old.read_s
                    await self._read(conn, watch)
                    if watch.chain_broken_at is None and old.chain_broken_at is not None:
                        # a copy seen changed stays flagged, though it reads as whole now (re-hashed)
                        watch.chain_broken_at, watch.chain_reason = old.chain_broken_at, old.chain_reason
                self.tables = fresh
            except Exception as exc:  # as a poll: shown, and tried again
                self.central_error = server_said(exc)[:200]
                self._conn = None
        self._publish()

    def _silent(self) -> None:
        now = self.clock()
        for w in self.tables.values():
            if w.last_received_s is not None and now - w.last_received_s > self.config.silent_after_s:
                alert = Alert(f"{w.table_id}:silent:{w.head}", w.table_id, "silent",
                              f"nothing shipped for more than {self.config.silent_after_s} s "
                              f"(last record {w.head})", w.last_received_s + self.config.silent_after_s)
                self.alerts.setdefault(alert.id, alert)

    async def acknowledge(self, alert_id: object, who: object, viewer: str) -> dict[str, Any]:
        """Journal centrally that ``who`` acknowledged ``alert_id``."""
        if not isinstance(alert_id, str) or alert_id not in self.alerts:
            raise AckRefused(404, f"no such alert: {str(alert_id)[:100]!r}")
        if not isinstance(who, str) or not who.strip() or len(who.strip()) > MAX_NAME or not who.isprintable():
            raise AckRefused(400, f"who acknowledges must be a person's name (1 to {MAX_NAME} characters)")
        async with self._lock:  # one at a time: the second of two at once finds the first taken
            if alert_id in self.acks:
                raise AckRefused(409, f"already acknowledged by {self.acks[alert_id]['who']}")
            try:
                conn = await self._connection()
                cur = await conn.execute(
                    "INSERT INTO floor_acks (alert, table_id, who, viewer) VALUES (%s, %s, %s, %s) "
                    "RETURNING extract(epoch FROM acked_at)::float8",
                    (alert_id, self.alerts[alert_id].table_id, who.strip(), viewer))
                (at,) = await cur.fetchone()
            except Exception as exc:  # not taken: the person is told, nothing is shown acked
                if getattr(exc, "sqlstate", None) == UNIQUE_VIOLATION:  # another floor service took it first
                    first = await self._first_ack(alert_id)
                    raise AckRefused(409, f"already acknowledged by {first['who'] if first else 'someone'}") \
                        from None
                self._conn = None
                raise AckRefused(503, f"the central database did not take it: {server_said(exc)[:200]}") \
                    from None
            ack = self.acks[alert_id] = {"who": who.strip(), "viewer": viewer, "at_s": at}
        log.info("floor.acknowledged", alert=alert_id, who=who.strip(), viewer=viewer)
        self._publish()
        return ack

    async def _first_ack(self, alert_id: str) -> dict[str, Any] | None:
        """The acknowledgement the central database holds for ``alert_id`` (kept as the floor's)."""
        try:
            row = await (await (await self._connection()).execute(
                "SELECT who, viewer, extract(epoch FROM acked_at)::float8 FROM floor_acks WHERE alert = %s",
                (alert_id,))).fetchone()
        except Exception:  # the next poll reads it
            return None
        if row is None:
            return None
        ack = self.acks[alert_id] = {"who": row[0], "viewer": row[1], "at_s": row[2]}
        return ack

    # -- the view -----------------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        now = self.clock()
        alerts = []
        for a in sorted(self.alerts.values(), key=lambda a: (a.id in self.acks, -a.raised_s)):
            ack = self.acks.get(a.id)
            alerts.append({"id": a.id, "table": a.table_id, "kind": a.kind, "text": a.text,
                           "stood_s": max(0, int(now - a.raised_s)), "ack": ack})
        stale_after = self.stale_after_s
        tables = []
        for _, w in sorted(self.tables.items()):
            stale = w.read_s is None or now - w.read_s > stale_after
            tables.append({**w.view(now), "read_s": w.read_s, "stale": stale, "pit": self.config.pit_of(w.table_id)})
        return {"now_s": int(now), "central": self.central_error, "polls": self.polls, "stale_after_s": stale_after,
                "tables": tables, "alerts": alerts, "pits": list(self.config.pits)}

    @property
    def stale_after_s(self) -> float:
        """A table whose central copy the floor has not read for this long is shown stale."""
        return max(STALE_POLLS * self.config.poll_s, STALE_MIN_S)

    def _publish(self) -> None:
        data = json.dumps(self.view(), separators=(",", ":"), ensure_ascii=True)
        now = self.clock()
        self.record_to_page.extend((t, now - t) for t in self._shown)
        self._shown.clear()
        self._seq += 1
        self.latest = f"id: {self._seq}\nevent: {FLOOR}\ndata: {data}\n\n".encode()
        self._pages.publish({FLOOR: self.latest})
        self._polled.set()

    async def polled(self) -> None:
        """Wait for the next poll to be published (tests)."""
        self._polled.clear()
        await self._polled.wait()

    # -- serving ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Poll until cancelled; check every copy again from its start each ``recheck_s``."""
        due = self.clock() + self.config.recheck_s
        while True:
            await self.poll()
            if self.clock() >= due:
                await self.recheck()
                due = self.clock() + self.config.recheck_s
            await asyncio.sleep(self.config.poll_s)

    async def start(self) -> str:
        """Serve the page; returns its address (``https://host:port/floor`` off this PC). Plain
        HTTP off the loopback address is refused before anything listens (a ValueError)."""
        c = self.config
        tls = serving_context("floor", "floor", c.host, c.viewers, c.tls)
        self._runner = web.AppRunner(self._app(), access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        self._listener = PageListener(self._runner, "floor", self.config.max_connections)
        try:
            host, port = await self._listener.start(self.config.host, self.config.port, tls)
        except OSError as exc:
            await self._runner.cleanup()
            raise OSError(f"cannot serve the floor on {self.config.host}:{self.config.port}: "
                          f"{exc.strerror or exc}") from None
        self.url = f"{'https' if tls else 'http'}://{f'[{host}]' if ':' in host else host}:{port}/floor"
        return self.url

    async def stop(self) -> None:
        self._pages.close()
        if self._listener is not None:
            self._listener.close()
        if self._runner is not None:
            await self._runner.cleanup()
        if self._conn is not None:
            with contextlib.suppress(Exception):
                await self._conn.close()

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard.middleware], client_max_size=4096)
        app.router.add_get("/", self._home)
        app.router.add_get("/floor", self._page)
        app.router.add_get("/floor/events", self._events)
        app.router.add_get("/floor.json", self._json)
        app.router.add_post("/floor/ack", self._ack)
        add_assets(app, ASSETS)
        return app

    async def _home(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/floor")

    async def _page(self, request: web.Request) -> web.Response:
        return page("floor.html")

    async def _json(self, request: web.Request) -> web.Response:
        return web.Response(text=json.dumps(self.view()), content_type="application/json", headers=SECURITY_HEADERS)

    async def _ack(self, request: web.Request) -> web.Response:
        # JSON only: a page of another site cannot send it without the browser asking first
        if request.content_type != "application/json":
            return web.json_response({"error": "send JSON: {\"alert\": ..., \"who\": ...}"}, status=415,
                                     headers=SECURITY_HEADERS)
        try:
            body = await request.json()
        except ValueError:
            return web.json_response({"error": "the body is not JSON"}, status=400, headers=SECURITY_HEADERS)
        if not isinstance(body, dict):
            return web.json_response({"error": "send {\"alert\": ..., \"who\": ...}"}, status=400,
                                     headers=SECURITY_HEADERS)
        try:
            ack = await self.acknowledge(body.get("alert"), body.get("who"), request[VIEWER])
        except AckRefused as exc:
            return web.json_response({"error": str(exc)}, status=exc.status, headers=SECURITY_HEADERS)
        return web.json_response({"alert": body["alert"], **ack}, headers=SECURITY_HEADERS)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        return await self._pages.serve(request, FLOOR, self.latest)


__all__ = ["Floor", "AckRefused", "floor_connector", "PASSWORD_CREDENTIAL"]

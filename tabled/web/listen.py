"""What a page server (the dealer's screen, tabled/daemon/web.py; the floor, tabled/floor/service.py)
checks of a request's names before it reaches its handlers (tabled/web/guard.py applies them), and
how it listens: on TLS when it is given a context (tabled/web/tls.py).

- The names it answers to (:class:`HostNames`): a request's ``Host`` must name the listen address,
  ``localhost`` when it listens on this PC or on every address, any IP address when it listens on
  every address, or one of the ``names`` configured. A page of another site whose name a DNS
  server points at the table (DNS rebinding) carries its own name and is refused: the browser's
  same-origin rule then keeps the table's data from that page.
- A request that changes something (the floor's acknowledgement) must come from a page of this
  server: an ``Origin`` header, when a browser sends one, names this server (:func:`origin_refused`).
- At most ``max_connections`` open at once (:class:`PageListener`): one more is answered 503 and
  closed at once, so pages never take the file descriptors the table's journal, devices and pool
  need. A connection that sends no request for :data:`IDLE_S` is closed.
- A malformed request (a bad request line, a URL or header over aiohttp's limits) is answered 400
  with its one-line reason by aiohttp; the log gets one line for it (:class:`RequestLog`), never a
  traceback.
"""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
import json
import os
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import structlog
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

IDLE_S = 30.0          # a connection without a request for this long is closed
_CROWDED_TEXT = b"too many connections to this page server: try again shortly\n"
CROWDED = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
           b"Retry-After: 5\r\nContent-Length: %d\r\n\r\n%s" % (len(_CROWDED_TEXT), _CROWDED_TEXT))


@dataclass(frozen=True)
class HostNames:
    """The names a page server answers to (see the module's docstring)."""

    listen: str                       # the IP address it listens on
    names: tuple[str, ...] = ()       # other names configured (lower case), such as table7.casino.lan

    def refused(self, host: str | None) -> str | None:
        """Why a request with this ``Host`` header is refused; None when it is one of ours."""
        if not host:
            return "a request needs a Host header naming this page server"
        try:
            parts = urlsplit("//" + host)
            name, _ = parts.hostname, parts.port
        except ValueError:
            name = None
        if not name or parts.netloc != host or parts.username is not None:
            return f"Host {host[:80]!r} is not a host name and port"
        listen = ipaddress.ip_address(self.listen)
        try:
            ip = ipaddress.ip_address(name)
        except ValueError:
            ip = None
        if ip is not None and (listen.is_unspecified or ip == listen):
            return None
        this_pc = listen.is_loopback or listen.is_unspecified
        if ip is None and (name in self.names or (name == "localhost" and this_pc)):
            return None
        return f"this page server does not answer to {name[:80]!r}"


def origin_refused(origin: str | None, host: str | None) -> str | None:
    """Why a change is refused for its ``Origin`` (a page of another site); None for a page of
    this server, or a request without one (not a browser's)."""
    if origin is None:
        return None
    try:
        parts = urlsplit(origin)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host or parts.netloc.lower() != host.lower():
        return f"a page of another site ({origin[:80]!r}) may not change anything here"
    return None


def one_line(text: str, most: int = 160) -> str:
    """aiohttp's account of a malformed request (a parser's message over several lines, with a
    caret under the fault) as one line."""
    return " ".join(text.split()).removesuffix(" ^")[:most]


class RequestLog:
    """aiohttp's server log for one page server: one line for a request aiohttp could not take (a
    malformed one, or an error of a handler), never its traceback."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.log = structlog.get_logger("tabled.pages")

    def _line(self, message: str, *args: Any, exc_info: Any = None, **_: Any) -> None:
        peer = args[0] if args and isinstance(args[0], str) else None
        if isinstance(exc_info, HttpProcessingError):
            self.log.warning(self.event, peer=peer, status=exc_info.code, problem=one_line(str(exc_info.message)))
        elif isinstance(exc_info, BaseException):
            self.log.error(self.event, peer=peer, status=500, problem=one_line(repr(exc_info)))
        else:
            self.log.warning(self.event, peer=peer, problem=one_line(message % args if args else message))

    exception = error = warning = _line

    def debug(self, *args: Any, **kw: Any) -> None:
        """aiohttp's debugging notes (a client that went away): not logged."""

    info = debug


class _Handler(RequestHandler):
    """aiohttp's handler of one connection, whose answer to a request it could not take is one line."""

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)   # logs it (RequestLog); refuses if half sent
        if status == 500:
            text = "this request could not be answered: the log says why"
        else:
            text = one_line(message or "") or "malformed request"
        response = web.Response(status=status, text=f"bad request: {text}\n" if status == 400 else text + "\n")
        response.force_close()
        return response


class _Gate(asyncio.Protocol):
    """A new connection: handed to aiohttp while there is room, else answered 503 and closed."""

    def __init__(self, listener: PageListener) -> None:
        self.listener = listener

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        handler = self.listener.admit(transport)
        if handler is not None:
            transport.set_protocol(handler)
            handler.connection_made(transport)


class PageListener:
    """Serves ``runner``'s app (set up) on ``host:port`` with at most ``max_connections`` at once;
    :meth:`close` it before the runner's cleanup."""

    def __init__(self, runner: web.AppRunner, what: str, max_connections: int) -> None:
        self.runner, self.what, self.max_connections = runner, what, max_connections
        self.handler_kwargs: dict[str, Any] = {"access_log": None, "keepalive_timeout": IDLE_S,
                                               "logger": RequestLog(f"{what}.bad_request")}
        self.refused = 0      # connections refused since the server was last full
        self.server: asyncio.Server | None = None
        self.log = structlog.get_logger("tabled.pages")

    async def start(self, host: str, port: int, tls: ssl.SSLContext | None = None) -> tuple[str, int]:
        """Listen (over TLS with ``tls``); returns the address and port listened on (an OSError if it cannot)."""
        loop = asyncio.get_running_loop()
        self.server = await loop.create_server(lambda: _Gate(self), host, port, reuse_address=True, ssl=tls,
                                               ssl_handshake_timeout=IDLE_S if tls else None)
        address, listened = self.server.sockets[0].getsockname()[:2]
        return str(address), int(listened)

    def admit(self, transport: asyncio.BaseTransport) -> Any:
        pages = self.runner.server
        if pages is None or len(pages.connections) >= self.max_connections:
            if not self.refused:
                self.log.warning("pages.full", server=self.what, max_connections=self.max_connections)
            self.refused += 1
            assert isinstance(transport, asyncio.WriteTransport)
            transport.write(CROWDED)
            transport.close()
            return None
        if self.refused:
            self.log.info("pages.room_again", server=self.what, refused=self.refused)
            self.refused = 0
        return _Handler(pages, loop=asyncio.get_running_loop(), **self.handler_kwargs)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def holder_of(host: str, port: int) -> str:
    """Who listens on ``host:port`` already, for the error that says this table cannot: another
    tabled's screen names its table (it answers ``/screen.json`` to this PC), another program its
    process id and command when this user may see them (Linux's /proc)."""
    address = "127.0.0.1" if ipaddress.ip_address(host).is_unspecified else host
    shown = f"[{address}]" if ":" in address else address
    try:
        with urllib.request.urlopen(f"http://{shown}:{port}/screen.json", timeout=2) as answer:
            table = json.loads(answer.read(65536)).get("table", {}).get("id")
        if isinstance(table, str):
            return f"the dealer's screen of table {table[:40]!r} (another tabled)"
    except (OSError, ValueError, AttributeError):
        pass
    return _process_listening(port) or "another program"


def _process_listening(port: int) -> str | None:
    """The process with a listening TCP socket on ``port``, from /proc (None if not seen)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd) in inodes for fd in fd_dir.iterdir()):
                pid = fd_dir.parent.name
                command = (fd_dir.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                return f"process {pid} ({command.strip()[:80]})"
        except OSError:
            continue
    return None


__all__ = ["HostNames", "holder_of", "origin_refused", "PageListener", "RequestLog", "IDLE_S"]

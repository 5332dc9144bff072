"""A TCP proxy between a table and PostgreSQL whose link the tests cut, stall and restore: the
network failures of rule 14.13 without touching the shared server."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit


class LinkProxy:
    def __init__(self, dsn: str) -> None:
        parts = urlsplit(dsn)
        self._parts = parts
        self.target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self.down = False
        self.stalled = False
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> LinkProxy:
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    @property
    def dsn(self) -> str:
        user = self._parts.username or "postgres"
        password = f":{self._parts.password}" if self._parts.password else ""
        return urlunsplit(self._parts._replace(netloc=f"{user}{password}@127.0.0.1:{self.port}"))

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        link = (writer, up_writer)
        self._links.add(link)
        try:
            await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))
        finally:
            self._links.discard(link)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                await self._flowing.wait()  # a stalled link holds the bytes, as a dead route would
                writer.write(data)
                await writer.drain()
        writer.transport.abort()

    def cut(self) -> None:
        """The cable is pulled: every open connection dies and new ones are refused."""
        self.down = True
        for a, b in list(self._links):
            a.transport.abort()
            b.transport.abort()

    def stall(self) -> None:
        self._flowing.clear()

    def restore(self) -> None:
        self.down = False
        self._flowing.set()

    async def close(self) -> None:
        self.cut()
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

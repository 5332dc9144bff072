"""The latest-only stream of a page server: Server-Sent Events where each open page keeps only the
newest state it has not been sent (a slow page skips states, never queues them), with a heartbeat
when nothing new comes so the page notices a dead connection."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping

from aiohttp import web

from tabled.web.access import SECURITY_HEADERS


def event(seq: int, name: str, view: object) -> bytes:
    """One Server-Sent Event carrying ``view`` as JSON."""
    data = json.dumps(view, separators=(",", ":"), ensure_ascii=True)
    return f"id: {seq}\nevent: {name}\ndata: {data}\n\n".encode()


def data_of(latest: bytes | None) -> bytes:
    """The JSON an event carries (``null`` before the first)."""
    return latest.split(b"data: ", 1)[1].strip() if latest and b"data: " in latest else b"null"


class Client:
    """One open page: what it follows, the latest state it has not been sent yet, and a wake-up."""

    def __init__(self, follows: str) -> None:
        self.follows = follows
        self.latest: bytes | None = None
        self.sent: bytes | None = None  # the last one written
        self.wake = asyncio.Event()


class LatestStream:
    """The open pages of one server, in its loop. ``beat`` makes the heartbeat's event."""

    def __init__(self, heartbeat_s: float, retry_ms: int, beat: Callable[[], bytes]) -> None:
        self.heartbeat_s, self.retry_ms, self.beat = heartbeat_s, retry_ms, beat
        self.clients: set[Client] = set()
        self.stopping = False

    def publish(self, latest: Mapping[str, bytes | None]) -> None:
        """The newest state of each thing followed, to every page following it (in the server's loop)."""
        for c in self.clients:
            newest = latest.get(c.follows)
            if newest is not None and newest is not c.sent:
                c.latest = newest  # only the latest: a page that is behind skips to it
                c.wake.set()

    def close(self) -> None:
        """Every page's stream ends (the pages show NOT LIVE)."""
        self.stopping = True
        for c in list(self.clients):
            c.wake.set()

    async def serve(self, request: web.Request, follows: str, first: bytes | None) -> web.StreamResponse:
        """The stream of ``follows`` to one page, from ``first`` (the latest made) on."""
        response = web.StreamResponse(headers={**SECURITY_HEADERS, "Content-Type": "text/event-stream",
                                               "X-Accel-Buffering": "no"})
        await response.prepare(request)
        client = Client(follows)
        self.clients.add(client)
        client.latest = first  # after joining: one made meanwhile is published to it
        try:
            await response.write(f"retry: {self.retry_ms}\n\n".encode())
            while not self.stopping:
                newest, client.latest = client.latest, None
                client.wake.clear()
                if newest is not None and newest is not client.sent:
                    client.sent = newest
                    await response.write(newest)
                try:
                    async with asyncio.timeout(self.heartbeat_s):  # never swallows a cancellation (3.11)
                        await client.wake.wait()
                except TimeoutError:
                    await response.write(self.beat())  # a comment would not reach the page
        except ConnectionResetError:
            pass  # the page went away
        finally:
            self.clients.discard(client)
        return response


__all__ = ["Client", "LatestStream", "data_of", "event"]

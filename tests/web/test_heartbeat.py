"""A connection that dies without closing (a cable pulled, a stalled network) is noticed by the
heartbeat: the page shows NOT LIVE within 2 s and connects again by itself. A relay between
page and server stops passing bytes while keeping both sockets open. A table whose loop stops
while its server still beats is NOT LIVE too: the beat says the table is not answering."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

from tabled.daemon.config import ScreenConfig
from tabled.daemon.web import ScreenServer
from tests.table.harness import Harness
from tests.web.daemon import browser


class Relay:
    """TCP from the page to the server; while ``flowing`` is clear every byte is held and no
    socket is closed."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.tasks: list[asyncio.Task] = []

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._pair, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/"

    async def _pair(self, reader, writer) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.port)
        self.tasks += [asyncio.ensure_future(self._pipe(reader, up_writer)),
                       asyncio.ensure_future(self._pipe(up_reader, writer))]

    async def _pipe(self, reader, writer) -> None:
        while data := await reader.read(65536):
            await self.flowing.wait()  # held: the connection looks alive to both ends
            writer.write(data)
            await writer.drain()

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        self.server.close()


async def test_a_silent_connection_is_not_live_within_2_s_and_replaced():
    h = Harness()
    server = ScreenServer(SimpleNamespace(core=h.core), ScreenConfig(port=0))
    await server.start()
    relay = Relay(int(server.url.rsplit(":", 1)[1].strip("/")))
    loop = asyncio.get_running_loop()
    try:
        url = await relay.start()
        async with browser() as b:
            page = await b.new_page()
            await page.goto(url)
            await page.wait_for_selector("body[data-link=up]")
            relay.flowing.clear()
            t0 = loop.time()
            await page.wait_for_selector("#not-live", state="visible", timeout=5000)
            assert loop.time() - t0 <= 2.0
            relay.flowing.set()  # the page has given up the silent connection and opens a new one
            await page.wait_for_selector("body[data-link=up]", timeout=5000)
            assert await page.text_content("#link") == "live"
    finally:
        await relay.close()
        await server.stop()


async def test_a_table_whose_loop_stalls_is_not_live_within_2_s_though_its_server_still_beats():
    """The table's loop in a thread of its own, as in the daemon; it is made to stall (a callback
    that blocks it) while the screen's server, in its own thread, goes on beating."""
    h = Harness()
    server = ScreenServer(SimpleNamespace(core=h.core), ScreenConfig(port=0))
    table_loop = asyncio.new_event_loop()
    thread = threading.Thread(target=table_loop.run_forever, daemon=True)
    thread.start()
    released = threading.Event()
    loop = asyncio.get_running_loop()
    try:
        url = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server.start(), table_loop))
        async with browser() as b:
            page = await b.new_page()
            await page.goto(url)
            await page.wait_for_selector("body[data-link=up]")
            table_loop.call_soon_threadsafe(released.wait, 60)  # the table's loop stalls
            t0 = loop.time()
            await page.wait_for_selector("#not-live", state="visible", timeout=5000)
            assert loop.time() - t0 <= 2.0
            assert "the table is not answering" in await page.text_content("#not-live .why")
            released.set()  # the loop runs again: the page is live by itself
            await page.wait_for_selector("#not-live", state="hidden", timeout=5000)
            assert await page.text_content("#link") == "live"
    finally:
        released.set()
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(server.stop(), table_loop))
        table_loop.call_soon_threadsafe(table_loop.stop)
        thread.join(timeout=10)
        table_loop.close()

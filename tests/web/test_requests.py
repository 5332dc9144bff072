"""What every request to a page server is checked for before it reaches a page
(tabled/web/listen.py): a ``Host`` naming the server (a page of another site reached through DNS
rebinding gets nothing of the table), an ``Origin`` of this server on the floor's one write, at
most ``max_connections`` connections at once (so the table's own files never run short), and a
malformed request answered 400 with one line in the log, never a traceback."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import psycopg
import pytest

from tabled.daemon.config import ConfigError, ScreenConfig
from tabled.web.listen import HostNames, origin_refused
from tabled.daemon.web import ScreenServer
from tabled.floor.config import parse_floor_config
from tabled.floor.service import Floor, floor_connector
from tests.table.harness import Harness
from tests.web.crowded_table import FILES
from tests.web.test_access import screen_section


@pytest.mark.parametrize("listen, names, host, answered", [
    ("127.0.0.1", (), "127.0.0.1:8750", True),
    ("127.0.0.1", (), "localhost:8750", True),
    ("127.0.0.1", (), "LocalHost", True),
    ("127.0.0.1", (), "evil.example:8750", False),   # DNS rebinding: the attacker's name, our address
    ("127.0.0.1", (), "10.0.0.5:8750", False),
    ("127.0.0.1", (), "[::1]:8750", False),           # not the address listened on
    ("127.0.0.1", (), "", False),
    ("127.0.0.1", (), None, False),
    ("127.0.0.1", (), "127.0.0.1:87a0", False),
    ("127.0.0.1", (), "user@127.0.0.1", False),
    ("127.0.0.1", (), "127.0.0.1/x", False),
    ("::1", (), "[::1]:8750", True),
    ("::1", (), "localhost", True),
    ("0.0.0.0", (), "192.168.1.20:8750", True),      # every address: any of this machine's
    ("0.0.0.0", (), "localhost:8750", True),
    ("0.0.0.0", (), "table7.casino.lan:8750", False),
    ("0.0.0.0", ("table7.casino.lan",), "Table7.Casino.LAN:8750", True),
    ("0.0.0.0", ("table7.casino.lan",), "table7.casino.lan.evil.example", False),
    ("192.168.1.20", (), "192.168.1.20:8750", True),
    ("192.168.1.20", (), "192.168.1.21:8750", False),
    ("192.168.1.20", (), "localhost:8750", False),
])
def test_a_page_server_answers_to_its_own_names_only(listen, names, host, answered):
    refused = HostNames(listen, names).refused(host)
    assert (refused is None) is answered
    if refused is not None:
        assert "\n" not in refused and refused


@pytest.mark.parametrize("origin, host, taken", [
    (None, "127.0.0.1:8760", True),                    # not a browser's request
    ("http://127.0.0.1:8760", "127.0.0.1:8760", True),
    ("http://LOCALHOST:8760", "localhost:8760", True),
    ("http://evil.example", "127.0.0.1:8760", False),
    ("http://127.0.0.1:8761", "127.0.0.1:8760", False),
    ("null", "127.0.0.1:8760", False),                  # a sandboxed frame, a file
    ("ftp://127.0.0.1:8760", "127.0.0.1:8760", False),
])
def test_a_change_comes_only_from_a_page_of_this_server(origin, host, taken):
    assert (origin_refused(origin, host) is None) is taken


def test_the_names_and_the_connections_are_configured():
    cfg = screen_section({"names": ["Table7.casino.lan"], "max_connections": 16})
    assert cfg.names == ("table7.casino.lan",) and cfg.max_connections == 16
    assert screen_section({}).max_connections == 64
    for bad, words in [({"names": "table7"}, "screen.names: must be a list of host names"),
                       ({"names": ["evil example"]}, "screen.names: must be a list of host names"),
                       ({"names": ["-x.lan"]}, "screen.names"),
                       ({"max_connections": 0}, "screen.max_connections: must be an integer from 1 to 1000"),
                       ({"max_connections": 5000}, "screen.max_connections")]:
        with pytest.raises(ConfigError, match=words):
            screen_section(bad)
    floor = parse_floor_config({"floor": {"central": "postgresql://f@127.0.0.1/c", "names": ["floor.casino.lan"],
                                          "max_connections": 8}}, "floor.toml", None)
    assert floor.names == ("floor.casino.lan",) and floor.max_connections == 8


@contextlib.asynccontextmanager
async def screen(**config):
    server = ScreenServer(SimpleNamespace(core=Harness().core), ScreenConfig(port=0, **config))
    await server.start()
    try:
        yield server, int(server.url.rsplit(":", 1)[1].strip("/"))
    finally:
        await server.stop()


async def test_a_request_naming_another_host_gets_nothing_of_the_table():
    async with screen(names=("table7.casino.lan",)) as (server, port), aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        for path in ("/", "/screen.json", "/events", "/pit.json", "/slip.json?round=R&spot=1", "/screen.js"):
            async with http.get(base + path, headers={"Host": f"evil.example:{port}"}) as r:
                body = await r.text()
                assert r.status == 403 and body == "this page server does not answer to 'evil.example'\n"
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"table7.casino.lan:{port}"):
            async with http.get(base + "/screen.json", headers={"Host": host}) as r:
                assert r.status == 200 and (await r.json())["table"]["id"] == server.table.core.table_id


def raw_request(port: int, head: bytes) -> bytes:
    """Send ``head`` as a request and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head)
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer


async def test_malformed_requests_are_400_with_one_line_and_one_log_line(capfd):
    async with screen() as (server, port), aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        async with http.get(base + "/slip.json?round=T01-000001&spot=%C2%B2") as r:
            assert r.status == 400 and (await r.json())["problem"].startswith("a slip needs ?round=")
        capfd.readouterr()
        asked = {"a URL too long": b"GET /" + b"x" * 10_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                 "a header too long": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"y" * 10_000 + b"\r\n\r\n",
                 "not HTTP": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\0" * 40 + b"\r\n\r\n",
                 "a bad request line": b"GET / HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n"}
        for what, head in asked.items():
            answer = await asyncio.to_thread(raw_request, port, head)
            status_line, _, rest = answer.partition(b"\r\n")
            body = rest.partition(b"\r\n\r\n")[2]
            assert status_line.split(b" ")[1] == b"400", (what, answer[:200])
            assert body.strip() and b"\n" not in body.strip() and len(body) < 300, (what, body)
        out, err = capfd.readouterr()
        logged = [line for line in (out + err).splitlines() if line.strip()]
        assert len(logged) <= len(asked), logged
        assert not any("Traceback" in line or line.startswith(" ") for line in logged), logged


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


async def test_connections_beyond_the_cap_are_answered_503_and_hold_no_file():
    idle = 40
    async with screen(max_connections=8) as (server, port):
        before = open_files()
        flood = [await asyncio.open_connection("127.0.0.1", port) for _ in range(idle)]
        answers = await asyncio.gather(*(asyncio.wait_for(r.read(), 10) for r, _ in flood[8:]))
        # 8 held by the server, one file each; the others were answered at once and closed
        assert all(a.startswith(b"HTTP/1.1 503 ") and a.endswith(b"try again shortly\n") for a in answers)
        assert open_files() - before <= idle + 8 + 2   # the test's own 40 sockets, the server's 8
        for _, w in flood:
            w.close()
        async with aiohttp.ClientSession() as http:
            async with asyncio.timeout(10):
                while True:   # room again once the server has seen the 8 go
                    async with http.get(f"http://127.0.0.1:{port}/screen.json") as r:
                        if r.status == 200:
                            break


async def test_the_floors_acknowledgement_from_another_sites_page_is_refused(tmp_path):
    cfg = parse_floor_config({"floor": {"central": "postgresql://floor@127.0.0.1:1/casino", "listen": "127.0.0.1:0"}},
                             "floor.toml", tmp_path)
    floor = Floor(cfg, floor_connector(cfg.central, {}))
    url = await floor.start()
    ack = url + "/ack"
    try:
        async with aiohttp.ClientSession() as http:
            body = '{"alert": "T01:fault:1", "who": "Sam"}'
            json = {"Content-Type": "application/json"}
            own = url.removesuffix("/floor")
            async with http.post(ack, data=body, headers={**json, "Origin": "http://evil.example"}) as r:
                assert r.status == 403 and "another site" in await r.text()
            async with http.post(ack, data=body, headers={**json, "Host": "evil.example", "Origin": own}) as r:
                assert r.status == 403
            async with http.get(url.replace("/floor", "/floor.json"), headers={"Host": "evil.example"}) as r:
                assert r.status == 403
            async with http.post(ack, data=body, headers={**json, "Origin": own}) as r:
                assert r.status == 404   # past the checks: no such alert
    finally:
        await floor.stop()


def line_of(child: subprocess.Popen, start: str) -> str:
    """The child's next line that starts with ``start`` (its log's lines are passed over)."""
    for line in child.stdout:
        if line.startswith(start):
            return line
    raise AssertionError(f"the table's process ended without saying {start!r}")


@pytest.mark.postgres
@pytest.mark.slow
def test_the_pool_reconnects_and_the_journal_opens_while_idle_connections_fill_the_screen(tmp_path, pg_dsn):
    flood = FILES + 44   # more than the table's process may open files
    child = subprocess.Popen([sys.executable, "-m", "tests.web.crowded_table", pg_dsn, str(tmp_path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    sockets: list[socket.socket] = []
    try:
        port = int(line_of(child, "port ").split()[1])
        for _ in range(flood):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            sockets.append(s)
        # until the screen holds its 64 and has answered the rest 503 (or closed them as idle), or
        # (without a cap) holds every file the process may open (the deadline bounds a hang only)
        answered: set[socket.socket] = set()
        deadline = time.monotonic() + 60
        while len(answered) < flood - 64 and len(os.listdir(f"/proc/{child.pid}/fd")) < FILES - 1:
            assert time.monotonic() < deadline, f"only {len(answered)} connections beyond the cap were answered"
            readable, _, _ = select.select([s for s in sockets if s not in answered], [], [], 0.1)
            for s in readable:
                said = s.recv(4096)   # a 503, or nothing from one the server held and closed as idle
                assert said.startswith(b"HTTP/1.1 503 ") or said == b"", said[:100]
                answered.add(s)
        with psycopg.connect(pg_dsn, autocommit=True) as admin:   # the pool's link is cut
            cut = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE application_name = 'tabled T01 main'").fetchall()
        assert cut == [(True,)]
        child.stdin.write("go\n")
        child.stdin.flush()
        said = line_of(child, "pool calls ")
        assert child.wait(timeout=60) == 0
    finally:
        for s in sockets:
            s.close()
        child.kill()
    calls = int(said.split()[2])
    assert calls <= 2 and "journaled" in said and "not journaled" not in said, said

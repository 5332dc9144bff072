"""Who may see the dealer's screen (tabled/daemon/web.py): this PC always; another machine only
with a configured viewer's token, else 401/403 and nothing of the table; and no request changes
the table. The decision is a pure function, tested directly; one HTTP test asks a daemon
listening on every address from this machine's own non-loopback address."""

from __future__ import annotations

import asyncio
import contextlib
import io
import ipaddress
import socket
import tomllib
from pathlib import Path

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabled.cli import main as tabled_main
from tabled.daemon.config import ConfigError, ScreenConfig, Viewer, listen_address, parse_config
from tabled.web.access import is_loopback, may_view
from tabled.web.settings import Tls
from tabled.daemon.web import ScreenServer
from tests.web.certificates import make_authority
from tests.web.daemon import play, screen_of

PIT = Viewer("pit", "p" * 12 + "-secret-token-1")
BOSS = Viewer("boss", "b" * 12 + "-secret-token-2")
VIEWERS = (PIT, BOSS)


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.3.4.5", "::1", "::ffff:127.0.0.1"])
def test_this_pc_needs_no_token(peer):
    assert may_view(peer, None, VIEWERS).status == 200
    assert may_view(peer, None, ()).viewer == "local"


@pytest.mark.parametrize("peer", ["10.0.0.5", "192.168.1.20", "::ffff:10.0.0.1", "fe80::1%eth0", "2001:db8::1",
                                  "0.0.0.0", "", None, "not-an-address"])
def test_elsewhere_no_token_is_401_a_wrong_one_403_a_viewers_200(peer):
    assert may_view(peer, None, VIEWERS).status == 401
    assert may_view(peer, "", VIEWERS).status == 401
    assert may_view(peer, PIT.token + "x", VIEWERS).status == 403
    assert may_view(peer, PIT.token, ()).status == 403  # no viewer configured: nobody from elsewhere
    ok = may_view(peer, BOSS.token, VIEWERS)
    assert ok.status == 200 and ok.viewer == "boss"


@given(st.ip_addresses(v=4), st.text(max_size=40))
def test_from_another_machine_only_a_viewers_token_lets_in(address, token):
    decision = may_view(str(address), token, VIEWERS)
    if address.is_loopback:
        assert decision.status == 200
    elif token in (PIT.token, BOSS.token):
        assert decision.status == 200 and decision.viewer in ("pit", "boss")
    else:
        assert decision.status in (401, 403) and decision.viewer is None


def test_loopback_addresses():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("::ffff:127.9.9.9")
    assert not is_loopback("10.1.2.3") and not is_loopback("::ffff:10.1.2.3") and not is_loopback(None)


def screen_section(section: dict) -> ScreenConfig:
    return parse_config({"table": {"id": "T1", "spots": 7, "profile": "nsw", "minimum_cents": 500,
                                   "maximum_cents": 50_000, "unit_cents": 100}, "screen": section},
                        "t.toml", Path("/tmp")).screen


def test_the_config_listens_on_this_pc_by_default_and_elsewhere_only_with_viewers():
    assert screen_section({}) == ScreenConfig(True, "127.0.0.1", 8750, ())
    assert listen_address("[::1]:9000") == ("::1", 9000)
    with pytest.raises(ConfigError, match=r"t.toml: screen.listen: 0.0.0.0 is reachable from other machines"):
        screen_section({"listen": "0.0.0.0:8750"})
    # AGCO 6.1.7: off this PC the pages travel encrypted; plain HTTP there is refused at start
    with pytest.raises(ConfigError, match=r"t.toml: screen.listen: 0.0.0.0 is reachable from other machines: "
                                          r"plain HTTP is served on 127.0.0.1 only; configure screen.certificate"):
        screen_section({"listen": "0.0.0.0:8750", "viewers": [{"name": "pit", "token": PIT.token}]})
    cfg = screen_section({"listen": "0.0.0.0:8750", "viewers": [{"name": "pit", "token": PIT.token}],
                          "certificate": "tls/screen.pem", "key": "/etc/tabled/screen.key"})
    assert cfg.viewers == (PIT,) and not cfg.loopback
    assert cfg.tls == Tls(Path("/tmp/tls/screen.pem"), Path("/etc/tabled/screen.key"))
    for bad, words in [({"listen": "localhost:8750"}, "must be an IP address"),
                       ({"listen": "127.0.0.1"}, "ADDRESS:PORT"),
                       ({"listen": "127.0.0.1:70000"}, "ADDRESS:PORT"),
                       ({"viewers": [{"name": "pit", "token": "short"}]}, r"screen.viewers\[0\].token"),
                       ({"viewers": [{"name": "a", "token": PIT.token}, {"name": "b", "token": PIT.token}]},
                        "each viewer has its own"),
                       ({"listen": 8750}, "must be text"),
                       ({"certificate": "screen.pem"}, r"screen.key: TLS needs both a certificate and its key"),
                       ({"key": "screen.key"}, r"screen.certificate: TLS needs both"),
                       ({"certificate": 7, "key": "k"}, r"screen.certificate: must be the path of a PEM file"),
                       ({"port": 1}, "unknown key")]:
        with pytest.raises(ConfigError, match=words):
            screen_section(bad)


def own_address() -> str:
    """This machine's address on its network (no packet is sent: a UDP socket only picks a route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered
        except OSError:
            pytest.skip("this machine has no network address besides loopback")
        address = s.getsockname()[0]
    if ipaddress.ip_address(address).is_loopback:
        pytest.skip("this machine has no network address besides loopback")
    return address


async def test_a_request_from_another_address_needs_a_viewers_token_over_tls(tmp_path):
    address = own_address()
    ca = make_authority(tmp_path / "tls", addresses=(address, "127.0.0.1"))

    async def scenario(run):
        port = int(screen_of(run).url.rsplit(":", 1)[1].strip("/"))
        assert screen_of(run).url.startswith("https://")
        base = f"https://{address}:{port}"
        tls = aiohttp.TCPConnector(ssl=ca.client_context())
        async with aiohttp.ClientSession(connector=tls, cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            for path in ("/", "/events", "/screen.json", "/screen.js", "/pit", "/pit/events", "/pit.json", "/pit.js",
                         "/slip", "/slip.json?round=SIM01-000001&spot=1", "/slip.js"):
                async with http.get(base + path) as r:
                    body = await r.text()
                    assert r.status == 401 and "SIM01" not in body and "token" in body
                    assert r.headers["WWW-Authenticate"].startswith("Bearer")
            async with http.get(base + "/screen.json", headers={"Authorization": "Bearer " + "x" * 30}) as r:
                assert r.status == 403 and "SIM01" not in await r.text()
            async with http.get(base + "/screen.json", headers={"Authorization": "Bearer " + PIT.token}) as r:
                assert r.status == 200 and (await r.json())["table"]["id"] == "SIM01"
            assert not http.cookie_jar.filter_cookies(base)  # a token in a header is not a cookie
            # AGCO 12.1.3: a link's token is exchanged for an HttpOnly, Secure cookie and the clean address
            async with http.get(base + "/slip", params={"round": "SIM01-000001", "spot": "1", "token": BOSS.token},
                                allow_redirects=False) as r:
                assert r.status == 303 and r.headers["Location"] == "/slip?round=SIM01-000001&spot=1"
                cookie = r.cookies["tabled_screen"]
                assert cookie.value == BOSS.token and cookie["httponly"] and cookie["secure"]
                assert cookie["samesite"] == "Strict" and BOSS.token not in r.headers["Location"]
            async with http.get(base + "/", params={"token": BOSS.token}) as r:
                assert r.status == 200 and "tabled" in await r.text()
                assert str(r.url) == base + "/" and [str(h.url) for h in r.history] == [f"{base}/?token={BOSS.token}"]
            async with asyncio.timeout(5):
                while screen_of(run).pit is None:
                    await asyncio.sleep(0.02)
            async with http.get(base + "/pit.json", headers={"Authorization": "Bearer " + PIT.token}) as r:
                assert r.status == 200 and (await r.json())["screen"]["table"]["id"] == "SIM01"
            # the page's own requests carry the token as the cookie it was given
            async with http.get(base + "/screen.json") as r:
                assert r.status == 200
        # plain HTTP to the page's port is not answered with the table
        async with aiohttp.ClientSession() as http:
            with pytest.raises(aiohttp.ClientError):
                async with http.get(f"http://{address}:{port}/screen.json") as r:
                    await r.read()
        tls = aiohttp.TCPConnector(ssl=ca.client_context())
        async with aiohttp.ClientSession(connector=tls) as http:  # this PC: no token
            async with http.get(f"https://127.0.0.1:{port}/screen.json") as r:
                assert r.status == 200
            async with http.get(f"https://127.0.0.1:{port}/screen.json?token=x", allow_redirects=False) as r:
                assert r.status == 303 and r.headers["Location"] == "/screen.json" and not r.cookies
            # read-only: nothing but GET (and HEAD) is served
            for method in ("POST", "PUT", "DELETE", "PATCH"):
                for path in ("/screen.json", "/pit.json", "/pit", "/slip", "/slip.json"):
                    async with http.request(method, f"https://127.0.0.1:{port}{path}", data=b"{}") as r:
                        assert r.status == 405
        run.floor.paused = True

    await play(tmp_path, scenario, screen=ScreenConfig(True, "0.0.0.0", 0, VIEWERS, tls=ca.tls))


async def test_plain_http_off_this_pc_is_refused_before_anything_listens():
    """AGCO 6.1.7: built without the config's check, the server itself refuses it."""
    with pytest.raises(ValueError, match=r"^cannot serve the dealer's screen: 0.0.0.0 is reachable from other "
                                         r"machines: plain HTTP is served on 127.0.0.1 only"):
        await ScreenServer(None, ScreenConfig(True, "0.0.0.0", 0, VIEWERS)).start()


def test_config_check_prints_the_screen_and_never_a_viewers_token(tmp_path):
    path = tmp_path / "tabled.toml"
    path.write_text('[table]\nid = "T1"\nspots = 7\nminimum_cents = 500\nmaximum_cents = 5000\n'
                    f'[screen]\nlisten = "[::]:9000"\nviewers = [{{ name = "pit", token = "{PIT.token}" }}]\n'
                    'certificate = "screen.pem"\nkey = "screen.key"\n[software]\ndevelopment = true\n')
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert tabled_main(["config", "check", str(path)]) == 0
    doc = tomllib.loads(out.getvalue())
    assert doc["screen"] == {"enabled": True, "listen": "[::]:9000", "names": [], "max_connections": 64,
                             "certificate": str(tmp_path / "screen.pem"), "key": str(tmp_path / "screen.key"),
                             "viewers": [{"name": "pit", "token": "***"}]}
    assert PIT.token not in out.getvalue()

"""The pages off this PC travel encrypted (AGCO 6.1.7) and a viewer's credential stays out of URLs
(AGCO 12.1.3): the dealer's screen, the pit's view and the floor are served over TLS with the
configured certificate (a certificate authority of the test's own signs it), a link's token is
exchanged for an HttpOnly, Secure cookie and a redirect to the clean address, and plain HTTP off
the loopback address is refused at start, in one line."""

from __future__ import annotations

import re
import ssl

import aiohttp
import pytest

from tabled.daemon.config import ScreenConfig
from tabled.floor.config import FloorConfigError, parse_floor_config
from tabled.floor.service import Floor, floor_connector
from tabled.web.settings import Tls, Viewer
from tabled.web.tls import TlsError, server_context, serving_context
from tests.web.certificates import make_authority
from tests.web.daemon import CHROMIUM, CHROMIUM_ARGS, play, screen_of
from tests.web.test_access import own_address

PIT = Viewer("pit", "p" * 12 + "-secret-token-1")


def test_a_certificate_that_cannot_be_used_is_named_in_one_line(tmp_path):
    ca = make_authority(tmp_path / "tls")
    assert isinstance(server_context(ca.tls), ssl.SSLContext)
    missing = Tls(tmp_path / "none.pem", ca.tls.key)
    with pytest.raises(TlsError, match=rf"^{re.escape(str(missing.certificate))}: the TLS certificate cannot be read: "
                                       "No such file or directory$"):
        server_context(missing)
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    with pytest.raises(TlsError, match="not a PEM certificate and its private key"):
        server_context(Tls(tmp_path / "junk.pem", ca.tls.key))
    other = make_authority(tmp_path / "other")
    with pytest.raises(TlsError, match="not a PEM certificate and its private key"):
        server_context(Tls(ca.tls.certificate, other.tls.key))  # a key of another certificate
    with pytest.raises(TlsError, match=r"^cannot serve the floor: .*none.pem: the TLS certificate cannot be read"):
        serving_context("floor", "floor", "0.0.0.0", (PIT,), missing)
    assert serving_context("floor", "floor", "127.0.0.1", (), None) is None  # plain, on this PC only


def test_the_floor_off_this_pc_needs_viewers_and_a_certificate(tmp_path):
    floor = {"central": "postgresql://f@127.0.0.1/c", "listen": "0.0.0.0:8760",
             "viewers": [{"name": "pit", "token": PIT.token}]}
    with pytest.raises(FloorConfigError, match=r"^floor.toml: floor.listen: 0.0.0.0 is reachable from other machines: "
                                               r"plain HTTP is served on 127.0.0.1 only; configure floor.certificate "
                                               r"and floor.key to serve it over TLS$"):
        parse_floor_config({"floor": floor}, "floor.toml", tmp_path)
    cfg = parse_floor_config({"floor": {**floor, "certificate": "floor.pem", "key": "floor.key"}}, "floor.toml",
                             tmp_path)
    assert cfg.tls == Tls(tmp_path / "floor.pem", tmp_path / "floor.key")


async def test_the_floor_is_served_over_tls_and_a_links_token_becomes_a_cookie(tmp_path):
    address = own_address()
    ca = make_authority(tmp_path / "tls", addresses=(address,))
    cfg = parse_floor_config({"floor": {"central": "postgresql://floor@127.0.0.1:1/casino", "listen": "0.0.0.0:0",
                                        "viewers": [{"name": "pit", "token": PIT.token}],
                                        "certificate": str(ca.tls.certificate), "key": str(ca.tls.key)}},
                             "floor.toml", tmp_path)
    floor = Floor(cfg, floor_connector(cfg.central, {}))
    url = await floor.start()
    try:
        port = int(url.rsplit(":", 1)[1].removesuffix("/floor"))
        assert url.startswith("https://")
        base = f"https://{address}:{port}"
        tls = aiohttp.TCPConnector(ssl=ca.client_context())
        async with aiohttp.ClientSession(connector=tls, cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.get(base + "/floor.json") as r:
                assert r.status == 401 and "a token is needed to view this floor" in await r.text()
            async with http.get(base + "/floor", params={"token": PIT.token}, allow_redirects=False) as r:
                assert r.status == 303 and r.headers["Location"] == "/floor"
                cookie = r.cookies["tabled_floor"]
                assert cookie.value == PIT.token and cookie["httponly"] and cookie["secure"]
            async with http.get(base + "/floor", params={"token": PIT.token}) as r:
                assert r.status == 200 and str(r.url) == base + "/floor"
            async with http.get(base + "/floor.json") as r:  # the cookie alone
                assert r.status == 200 and (await r.json())["tables"] == []
        async with aiohttp.ClientSession() as http:  # a client that does not trust the authority
            with pytest.raises(aiohttp.ClientConnectorCertificateError):
                async with http.get(base + "/floor.json"):
                    pass
    finally:
        await floor.stop()


@pytest.mark.slow
async def test_chromium_opens_the_screen_over_tls_with_a_links_token_and_keeps_it_out_of_the_url(tmp_path):
    """Debian's chromium, pinned to the test certificate's key, follows a link with a viewer's
    token: the token is exchanged for the cookie, the address bar shows the clean URL, and the
    screen's own requests (script, style, events) are let in by the cookie, which the page's
    scripts cannot read (HttpOnly)."""
    from playwright.async_api import async_playwright
    address = own_address()
    ca = make_authority(tmp_path / "tls", addresses=(address,))

    async def scenario(run):
        port = int(screen_of(run).url.rsplit(":", 1)[1].strip("/"))
        async with async_playwright() as p:
            pin = f"--ignore-certificate-errors-spki-list={ca.spki_sha256}"
            b = await p.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, pin])
            try:
                context = await b.new_context(bypass_csp=True)
                page = await context.new_page()
                requested: list[str] = []
                page.on("request", lambda request: requested.append(request.url))
                answer = await page.goto(f"https://{address}:{port}/?token={PIT.token}")
                assert answer is not None and answer.ok
                assert page.url == f"https://{address}:{port}/"
                await page.wait_for_selector("body[data-link=up]", timeout=20_000)
                assert await page.evaluate("document.cookie") == ""  # HttpOnly: not the page's to read
                cookies = await context.cookies()
                assert [(c["name"], c["httpOnly"], c["secure"]) for c in cookies] == [("tabled_screen", True, True)]
                assert [u for u in requested if PIT.token in u] == [f"https://{address}:{port}/?token={PIT.token}"]
                assert len(requested) > 3  # the page, its script and style, its events: each without the token
            finally:
                await b.close()
        run.floor.paused = True

    await play(tmp_path, scenario, screen=ScreenConfig(True, "0.0.0.0", 0, (PIT,), tls=ca.tls))


def test_tabled_floor_with_a_certificate_it_cannot_read_stops_in_one_line(tmp_path, capsys):
    from tabled.cli import main
    config = tmp_path / "floor.toml"
    config.write_text('[floor]\ncentral = "postgresql://floor@127.0.0.1:1/casino"\nlisten = "0.0.0.0:0"\n'
                      'certificate = "floor.pem"\nkey = "floor.key"\n'
                      f'[[floor.viewers]]\nname = "pit"\ntoken = "{PIT.token}"\n')
    assert main(["floor", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(f"cannot serve the floor: {tmp_path / 'floor.pem'}: the TLS certificate "
                                             "cannot be read: No such file or directory"), err

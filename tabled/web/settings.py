"""What a page's section configures (``[screen]`` of the table, ``[floor]`` of the floor), read
the same way for both: where it listens, the names it answers to, how many connections it keeps,
who may look from elsewhere, and the certificate it is served with off this PC.

A page reachable from another machine needs viewers (each with a token) and TLS: plain HTTP is
only ever served on the loopback address (AGCO 6.1.7: what leaves the PC travels encrypted).
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tabled.game.checks import Section

MAX_CONNECTIONS = 64               # pages' connections open at once by default (each an open file)
MOST_CONNECTIONS = 1000            # a page server's connections: well below a process's 1024 files
MIN_TOKEN_CHARS = 24               # a viewer's token: long enough not to be guessed
HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*")


@dataclass(frozen=True)
class Viewer:
    name: str
    token: str


@dataclass(frozen=True)
class Tls:
    """The certificate (PEM, with its chain) and its private key a page is served with."""

    certificate: Path
    key: Path


def listen_address(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8750"`` or ``"[::1]:8750"`` -> (host, port); the host is an IP address (a name
    could resolve to another machine's address than the one checked here). ValueError says why."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"must be ADDRESS:PORT with a port from 0 to 65535, got {text!r}")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"the address must be an IP address (such as 127.0.0.1), got {host!r}") from None
    return host, int(port)


def listen_of(sec: Section, default: str) -> tuple[str, int]:
    """A page's ``listen``: an IP address and a port."""
    text = sec.get("listen", default)
    if not isinstance(text, str):
        raise sec.fail("listen", f"must be text such as {default!r}, got {text!r}")
    try:
        return listen_address(text)
    except ValueError as exc:
        raise sec.fail("listen", str(exc)) from None


def viewers_of(sec: Section) -> list[Viewer]:
    """A page's ``viewers``: each a name and a token of its own, long enough not to be guessed."""
    viewers: list[Viewer] = []
    raw = sec.get("viewers", [])
    if not isinstance(raw, list):
        raise sec.fail("viewers", "must be a list of { name = ..., token = ... }")
    for i, item in enumerate(raw):
        v = sec.entry(item, f"viewers[{i}]")
        name, token = v.text("name"), v.text("token")
        if len(token) < MIN_TOKEN_CHARS or not token.isascii() or not token.isprintable() or " " in token:
            raise v.fail("token", f"must be at least {MIN_TOKEN_CHARS} printable ASCII characters without spaces")
        if any(token == other.token or name == other.name for other in viewers):
            raise v.fail("name", "each viewer has its own name and token")
        v.finish()
        viewers.append(Viewer(name, token))
    return viewers


def names_of(sec: Section) -> tuple[str, ...]:
    """A page server's ``names``: the host names (DNS) it answers to besides its listen address."""
    raw = sec.get("names", [])
    if not isinstance(raw, list) or not all(isinstance(n, str) and HOST_NAME.fullmatch(n.lower()) for n in raw):
        raise sec.fail("names", f"must be a list of host names such as \"table7.casino.lan\", got {raw!r:.100}")
    return tuple(n.lower() for n in raw)


def max_connections_of(sec: Section) -> int:
    """A page server's ``max_connections``: how many connections it keeps open at once."""
    return sec.integer("max_connections", 1, MOST_CONNECTIONS, MAX_CONNECTIONS)


def tls_of(sec: Section, base: Path) -> Tls | None:
    """A page's ``certificate`` and ``key`` (PEM files; relative to ``base``), both or neither."""
    cert, key = sec.get("certificate", None), sec.get("key", None)
    if cert is None and key is None:
        return None
    for name, value in (("certificate", cert), ("key", key)):
        if value is None:
            raise sec.fail(name, "TLS needs both a certificate and its key (PEM files)")
        if not isinstance(value, str) or not value.strip() or "\0" in value:
            raise sec.fail(name, f"must be the path of a PEM file, got {value!r:.100}")
    assert isinstance(cert, str) and isinstance(key, str)
    return Tls(_path(base, cert), _path(base, key))


def _path(base: Path, text: str) -> Path:
    return Path(text) if Path(text).is_absolute() else Path(os.path.normpath(base / text))


def exposure_refused(host: str, viewers: tuple[Viewer, ...], tls: Tls | None, section: str) -> str | None:
    """Why a page listening on ``host`` cannot be served as configured; None when it can: off the
    loopback address it needs viewers with tokens and TLS."""
    if ipaddress.ip_address(host).is_loopback:
        return None
    if not viewers:
        return (f"{host} is reachable from other machines: configure [[{section}.viewers]] with a token for each, "
                "or listen on 127.0.0.1")
    if tls is None:
        return (f"{host} is reachable from other machines: plain HTTP is served on 127.0.0.1 only; configure "
                f"{section}.certificate and {section}.key to serve it over TLS")
    return None


__all__ = ["Tls", "Viewer", "exposure_refused", "listen_address", "listen_of", "max_connections_of", "names_of",
           "tls_of", "viewers_of", "MAX_CONNECTIONS", "MIN_TOKEN_CHARS"]

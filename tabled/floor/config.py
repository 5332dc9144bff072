"""The floor service's config: one ``[floor]`` section.

    [floor]
    listen = "127.0.0.1:8760"     # this PC only; another address needs [[floor.viewers]] and TLS
    central = "postgresql://tabled_floor@127.0.0.1:5432/casino"   # no password: systemd's credential
    poll_ms = 500                 # how often the central copy is read (three queries, whatever the tables)
    silent_after_s = 120          # a table with no record shipped for this long raises an alert
    recheck_s = 3600              # every table's copy checked again from its first record this often
    names = []                    # host names the page is opened by besides its address ("floor.casino.lan")
    max_connections = 64          # browsers' connections open at once (each an open file)
    certificate = "floor.pem"     # off this PC: served over TLS with this certificate (PEM, with its chain)
    key = "floor.key"             # and its private key; plain HTTP is served on 127.0.0.1 only

    [floor.pits]                  # the page's pit filter: each pit's tables (a table in one pit at most)
    A = ["T01", "T02"]

    [floor.keys]                  # each table's journal public keys (PEM), by table id
    T01 = "/etc/tabled/floor/T01.pub"
    T02 = ["/etc/tabled/floor/T02.pub", "/etc/tabled/floor/T02-old.pub"]

    [[floor.viewers]]
    name = "surveillance"
    token = "..."                 # at least 24 characters

Relative paths are resolved against the config file's folder.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabled.game.checks import Section
from tabled.host.documents import parse_toml, read_text
from tabled.host.dsn import dsn_problem
from tabled.web.settings import (MAX_CONNECTIONS, Tls, Viewer, exposure_refused, listen_of, max_connections_of,
                                 names_of, tls_of, viewers_of)

LISTEN = "127.0.0.1:8760"
#: the systemd credential with the floor role's password (LoadCredential=), never in the config
PASSWORD_CREDENTIAL = "floor-central-password"


class FloorConfigError(ValueError):
    """A floor config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class FloorConfig:
    central: str
    host: str = "127.0.0.1"
    port: int = 8760
    poll_s: float = 0.5
    silent_after_s: int = 120
    recheck_s: int = 3600    # every copy checked again from its first record this often
    keys: dict[str, tuple[Path, ...]] = field(default_factory=dict)   # table id -> public key files
    viewers: tuple[Viewer, ...] = ()
    names: tuple[str, ...] = ()   # host names it answers to besides its address (tabled/web/listen.py)
    max_connections: int = MAX_CONNECTIONS
    tls: Tls | None = None        # the certificate off this PC (tabled/web/tls.py); None: plain, loopback only
    pits: dict[str, tuple[str, ...]] = field(default_factory=dict)   # pit -> its tables, for the page's filter

    def pit_of(self, table_id: str) -> str | None:
        return next((pit for pit, tables in self.pits.items() if table_id in tables), None)

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.host).is_loopback


def parse_floor_config(data: dict[str, Any], where: str, base: Path) -> FloorConfig:
    """Check parsed TOML (``base``: the folder relative paths start from)."""
    def error(key: str, problem: str) -> FloorConfigError:
        return FloorConfigError(f"{where}: {key}: {problem}")

    top = Section(data, error)
    sec = top.section("floor")
    top.finish()
    host, port = listen_of(sec, LISTEN)
    central = sec.text("central")
    problem = dsn_problem(central, PASSWORD_CREDENTIAL)
    if problem:
        raise sec.fail("central", problem)
    poll_ms = sec.integer("poll_ms", 50, 60_000, 500)
    silent = sec.integer("silent_after_s", 1, 86_400, 120)
    recheck = sec.integer("recheck_s", 60, 7 * 86_400, 3600)
    keys: dict[str, tuple[Path, ...]] = {}
    raw = sec.section("keys", {})
    for table_id in list(raw.data):
        value = raw.get(table_id)
        paths = [value] if isinstance(value, str) else value
        if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p.strip() for p in paths):
            raise raw.fail(table_id, "must be a public key file (PEM) or a list of them")
        keys[table_id] = tuple((base / p).resolve() for p in paths)
    pits = _pits(sec.section("pits", {}))
    viewers = viewers_of(sec)
    names, most, tls = names_of(sec), max_connections_of(sec), tls_of(sec, base)
    sec.finish()
    refused = exposure_refused(host, tuple(viewers), tls, "floor")
    if refused:
        raise sec.fail("listen", refused)
    return FloorConfig(central, host, port, poll_ms / 1000, silent, recheck, keys, tuple(viewers), names, most,
                       tls, pits)


def _pits(raw: Section) -> dict[str, tuple[str, ...]]:
    """Each pit's tables; a table named in two pits is refused (the filter would show it twice)."""
    pits: dict[str, tuple[str, ...]] = {}
    seen: dict[str, str] = {}
    for pit in list(raw.data):
        tables = raw.get(pit)
        if not isinstance(tables, list) or not tables or not all(isinstance(t, str) and t.strip() for t in tables):
            raise raw.fail(pit, "must be a list of table ids (\"T01\")")
        for table_id in tables:
            if table_id in seen:
                raise raw.fail(pit, f"table {table_id} is already in pit {seen[table_id]}: a table is in one pit")
            seen[table_id] = pit
        pits[pit] = tuple(tables)
    return pits


def load_floor_config(path: str | Path) -> FloorConfig:
    path = Path(path)

    def problem(text: str) -> FloorConfigError:
        return FloorConfigError(f"{path}: {text}")

    data = parse_toml(read_text(path, problem, missing="no such config file"), problem)
    return parse_floor_config(data, str(path), path.resolve().parent)


__all__ = ["FloorConfig", "FloorConfigError", "parse_floor_config", "load_floor_config", "LISTEN",
           "PASSWORD_CREDENTIAL"]

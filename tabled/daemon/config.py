"""The daemon's configuration: one TOML file, checked completely before the table starts.

``load_config(path) -> Config`` reads the file, checks every key's type and range, refuses unknown
keys (a typo must not silently fall back to a default), resolves relative paths against the file's
directory and loads the jurisdiction profile. Any problem raises :class:`ConfigError` (a
``ValueError``) whose message names the file, the key and the problem, e.g.::

    config/sim.toml: table.spots: must be an integer from 1 to 7, got 9

Which file: :func:`find_config` gives the one documented answer every command uses: ``--config``,
else ``$TABLED_CONFIG``, else ``/etc/tabled/tabled.toml``; with none of them there is no config and
the command stops (a table PC never falls back to a simulated table). A simulated table runs only
when the file in use says ``[simulation] enabled = true``, and as a systemd service only when it
also says ``allow_service = true`` (:func:`check_may_start`).

``load_config(None)`` is the embedded simulated table (``DEFAULT_TOML``) for tests and benchmarks;
no command reads it. Its relative paths resolve against the current directory.

Files are read bounded (tabled.host.documents: size and nesting depth); money is bounded by
``tabled.game.checks.MAX_CENTS``; a pool's name, connection string and settings are checked by the
pool's own checks, so the config accepts exactly what the pool will open.

Sections and the dataclasses they become (see config/sim.toml and config/hardware.toml)::

    [table]          -> Config.table: TableConfig(id, spots, profile (tabled.game.profiles.Profile),
                        profile_name, minimum_cents, maximum_cents, unit_cents (6.1),
                        progressive_wager_cents (11.3; default from the profile), card_source,
                        name, property_name (the key ``property``): the heading of its slips,
                        check_payments: the board's readings checked against the settlement
                        (tabled/table/payout_check.py; default false)
    [journal]        -> Config.journal: JournalConfig(path, checkpoint_every_rounds)
    [[pools]]        -> Config.pools: tuple[PoolConfig(name, backend, path, dsn, contribution_bp,
                        reset_cents, primary)]; Config.primary_pool
    [devices.shuffler|betspots|meter] -> SerialDeviceConfig(port, baudrate)
    [devices.shoe|panel]              -> UsbDeviceConfig(vendor_id, product_id, serial, port)
    [simulation]     -> Config.simulation: SimulationConfig(enabled, seed, rounds, round_pause_ms,
                        players: tuple[PlayerConfig(spot, ante_cents, progressive, strategy)], dealer,
                        allow_service, pace_ms, inspector, mistakes: Mistakes (the simulated
                        dealer's errors per 1000 rounds, [simulation.mistakes]))
    [log]            -> Config.log: LogConfig(format, level)
    [reports]        -> Config.reports: ReportsConfig(time_zone, day_start, shifts, flag_sigmas): the
                        casino's gaming day and shifts for ``tabled report`` (docs/reports.md)
    [protection]     -> Config.protection: ProtectionConfig(live): game protection weighs each settled
                        round's decisions as the table plays and journals its alerts (default true)
    [staff]          -> Config.staff: StaffConfig(file, people: tuple[Person(badge, name, roles,
                        pin_hash)], attempts, lockout_minutes) or None: who signs in at the panel
                        (tabled/daemon/staff.py, docs/staff.md); without it the key alone acts
    [ratings]        -> Config.ratings: RatingsConfig(enabled, interval_minutes): player cards and
                        ratings (tabled/table/players.py, docs/ratings.md); journaled at each start
    [screen]         -> Config.screen: ScreenConfig(enabled, host, port, viewers: tuple[Viewer(name,
                        token)], names, max_connections, tls: Tls(certificate, key)): the dealer's
                        screen (tabled/daemon/web.py); loopback unless a token per viewer and a
                        certificate are configured (tabled/web/settings.py)

Defaults the schema leaves open are ours: a primary pool without ``contribution_bp`` or
``reset_cents`` takes the profile's (11.6, and the profile's reset value); every pool together may
take at most 10,000 bp of a progressive wager (the rest is the operator's retained share, 11.6).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tabled.game.checks import Section, Wording
from tabled.host.documents import parse_toml, read_text
from tabled.host.dsn import dsn_problem
from tabled.game.profiles import SHIPPED_PROFILES, Profile, ProfileError
from tabled.profiles import load_profile
from tabled.pool.base import PoolError
from tabled.pool.settings import PoolSettings, check_pool_name
from tabled.game.seats import MAX_SPOTS, MIN_SPOTS
from tabled.daemon.staff import CHANGED_PINS, MAX_PIN_AGE_DAYS, StaffConfig, StaffError, read_staff
from tabled.table.names import SERIAL_DEVICES, USB_DEVICES
from tabled.table.players import card_problem
from tabled.web.settings import (MAX_CONNECTIONS, Tls, Viewer, exposure_refused, listen_address, listen_of,
                                 max_connections_of, names_of, tls_of, viewers_of)

CARD_SOURCES = ("shuffler", "shoe")          # 2.4.1
POOL_BACKENDS = ("local", "postgresql")
LOG_FORMATS = ("auto", "json", "console")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
DEALERS = ("auto", "manual")                 # auto: the simulated dealer presses the panel
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}\Z")

# The simulated table for tests and benchmarks (load_config(None)); no command falls back to it.
# Kept equal to config/sim.toml, but for [table] check_payments: off here, a test or benchmark of
# the payment check turns it on.
DEFAULT_TOML = """
[table]
id = "SIM01"
spots = 7
profile = "nsw"
minimum_cents = 500
maximum_cents = 50_000
unit_cents = 100
card_source = "shuffler"

[journal]
path = "var/journal.db"
checkpoint_every_rounds = 100

[[pools]]
name = "main"
backend = "local"
path = "var/pool-main.db"
primary = true

[simulation]
enabled = true
seed = 1
rounds = 0
round_pause_ms = 500
pace_ms = 400
dealer = "auto"
players = [
    { spot = 1, ante_cents = 500, progressive = true, strategy = "optimal", card = "4000100010001001" },
    { spot = 2, ante_cents = 1000, progressive = false, strategy = "optimal", card = "4000100010002002" },
    { spot = 3, ante_cents = 500, progressive = true, strategy = "optimal", card = "4000100010003003" },
    { spot = 4, ante_cents = 2500, progressive = true, strategy = "optimal", card = "4000100010004004" },
    { spot = 5, ante_cents = 500, progressive = false, strategy = "optimal" },
    { spot = 6, ante_cents = 1500, progressive = true, strategy = "optimal" },
    { spot = 7, ante_cents = 500, progressive = true, strategy = "optimal" },
]

[log]
format = "auto"
level = "info"

[software]
development = true   # a simulated table from a checkout: no release manifest to check against

[screen]
listen = "127.0.0.1:0"

[protection]
live = false         # the tests' tables: game protection weighs the journal afterwards when asked
"""

SCREEN_LISTEN = "127.0.0.1:8750"  # the dealer's screen: this PC only, unless viewers are configured
MAX_SHOWN_NAME = 80               # a table's or the property's name, as printed on a slip

# Defaults for device sections left out (simulated devices ignore them).
_SERIAL_PORTS = {"shuffler": "/dev/tabled-shuffler", "betspots": "/dev/tabled-betspots",
                 "meter": "/dev/tabled-meter"}


# The drivers' own ids (pid.codes test range until the vendors' are known): one source of truth,
# shared with the simulators, docs/protocols-usb.md and systemd/99-tabled.rules.
def _usb_ids(name: str) -> tuple[int, int]:
    """A USB device's default (vendor id, product id), from its driver: imported only here, so
    reading a config (``tabled report``) does not load the drivers and their logging."""
    from tabled_drivers import panel, shoe  # the drivers' imports are heavy
    driver = {"shoe": shoe, "panel": panel}[name]
    return driver.VENDOR_ID, driver.PRODUCT_ID


class ConfigError(ValueError):
    """A configuration the daemon refuses to start with; the message names the key."""


@dataclass(frozen=True)
class TableConfig:
    id: str
    spots: int
    profile: Profile
    profile_name: str
    minimum_cents: int
    maximum_cents: int
    unit_cents: int
    progressive_wager_cents: int
    card_source: str
    profile_path: Path | None = None  # the profile file read, when profile names a file
    name: str = ""                    # the table's name on the floor and its slips ("Table 7"); "" : the id
    property_name: str = ""           # the casino's name on the table's slips ([table] property)
    check_payments: bool = False      # each area checked by the board before SETTLE DONE (9.3, 9.4)


@dataclass(frozen=True)
class JournalConfig:
    path: Path
    checkpoint_every_rounds: int
    #: the Ed25519 key that seals the journal (tabled/journal/seals.py); None: systemd's credential, if any
    signing_key: Path | None = None
    #: the central PostgreSQL the journal is shipped to (tabled/daemon/shipping.py); None: not shipped
    ship_to: str | None = None
    #: with ship_to, a start without the shipping's password plays on, unshipped, with a standing
    #: warning on the pit; False (the default): such a start is refused
    ship_may_wait: bool = False


@dataclass(frozen=True)
class PoolConfig:
    name: str
    backend: str
    path: Path | None      # local
    dsn: str | None        # postgresql
    contribution_bp: int   # 11.6: basis points of each progressive wager added to this pool
    reset_cents: int
    primary: bool


@dataclass(frozen=True)
class SerialDeviceConfig:
    port: str
    baudrate: int


@dataclass(frozen=True)
class UsbDeviceConfig:
    vendor_id: int
    product_id: int
    serial: str | None
    port: str | None = None  # reached through this serial port instead (``tabled sim shoe|panel``)


@dataclass(frozen=True)
class DevicesConfig:
    shuffler: SerialDeviceConfig
    betspots: SerialDeviceConfig
    meter: SerialDeviceConfig
    shoe: UsbDeviceConfig
    panel: UsbDeviceConfig


@dataclass(frozen=True)
class PlayerConfig:
    spot: int
    ante_cents: int
    progressive: bool
    strategy: str
    persona: str = "honest"   # a simulated cheat: hole-carder, flashed or colluder (tabled/sim/personas.py)
    sees: int = 0             # a hole-carder's hole cards seen: 1, 2 or 4
    group: str | None = None  # the colluders sharing hands
    card: str | None = None  # the player card the player presents at the spot (with [ratings] on)


#: the simulated dealer's mistakes, each in rounds per 1000 ([simulation.mistakes])
MISTAKES = ("overpay", "underpay", "forget_collect", "wrong_spot", "early_pickup")


@dataclass(frozen=True)
class Mistakes:
    """How often the simulated dealer errs at settlement, in rounds per 1000: pays too much, too
    little, leaves a losing wager uncollected, pays a win to the next spot; and how often a player
    picks up a paid area before SETTLE DONE. The dealer puts each right when the screen says so."""

    overpay: int = 0
    underpay: int = 0
    forget_collect: int = 0
    wrong_spot: int = 0
    early_pickup: int = 0

    def __bool__(self) -> bool:
        return any(getattr(self, k) for k in MISTAKES)


@dataclass(frozen=True)
class SimulationConfig:
    enabled: bool
    seed: int
    rounds: int            # 0 = run until stopped
    round_pause_ms: int
    players: tuple[PlayerConfig, ...]
    dealer: str
    allow_service: bool = False  # may run as a systemd service (a demo table): never by default
    pace_ms: int = 0       # the simulated people's pause after each action (0: full speed)
    inspector: bool = False  # a simulated inspector at hand: approves play after an equipment fault (14.13)
    mistakes: Mistakes = field(default_factory=Mistakes)


@dataclass(frozen=True)
class LogConfig:
    format: str
    level: str


@dataclass(frozen=True)
class SoftwareConfig:
    """The release manifest the installed files are checked against at start (docs/verification.md)."""

    manifest: Path | None = None      # the signed list of the release's files and their SHA-256
    signature: Path | None = None     # its Ed25519 signature (default: the manifest's path + .sig)
    release_key: Path | None = None   # the release's public key (PEM)
    development: bool = False         # a development install: a mismatch is journaled, not refused
    verify_every_s: int = 3600        # the installed files checked again this often while running (watchdog.py)


@dataclass(frozen=True)
class ClockConfig:
    """The table's clock measured against the central database's (tabled/daemon/clock.py)."""

    check_every_s: int = 3600         # measured at start and this often
    max_offset_ms: int = 1000         # an offset beyond it is an error condition (tabled/table/clock.py)
    dsn: str | None = None            # the central PostgreSQL; None: journal.ship_to, else the primary linked pool


@dataclass(frozen=True)
class ReportsConfig:
    time_zone: str = "UTC"
    day_start: str = "06:00"
    shifts: tuple[str, ...] = ()   # the shifts' starts; none: three of eight hours from the day's start
    flag_sigmas: float = 3.0


@dataclass(frozen=True)
class ProtectionConfig:
    live: bool = True   # weigh each settled round's decisions as the table plays (tabled/daemon/protection.py)


@dataclass(frozen=True)
class RatingsConfig:
    enabled: bool = False
    interval_minutes: int = 0      # a long session rated this often too; 0: when it ends only

    def tracking(self) -> dict[str, Any]:
        """The ``player.tracking`` input a start journals."""
        return {"on": self.enabled, "interval_minutes": self.interval_minutes}


@dataclass(frozen=True)
class ScreenConfig:
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = 8750       # 0: any free port (tests)
    viewers: tuple[Viewer, ...] = ()  # who may look from another machine, each with a token
    names: tuple[str, ...] = ()       # host names it answers to besides its address (tabled/web/listen.py)
    max_connections: int = MAX_CONNECTIONS  # pages' connections open at once (each an open file)
    # a hand-pay slip's heading, from [table] and [reports]: the property, the table, the local time
    property_name: str = ""
    table_name: str = ""
    time_zone: str = "UTC"
    tls: Tls | None = None            # the certificate off this PC (tabled/web/tls.py); None: plain, loopback only

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.host).is_loopback


@dataclass(frozen=True)
class Config:
    source: Path | None    # the file read; None for the embedded default
    table: TableConfig
    journal: JournalConfig
    pools: tuple[PoolConfig, ...]
    devices: DevicesConfig
    simulation: SimulationConfig
    log: LogConfig
    software: SoftwareConfig = SoftwareConfig()
    reports: ReportsConfig = ReportsConfig()
    screen: ScreenConfig = ScreenConfig()
    staff: StaffConfig | None = None
    protection: ProtectionConfig = ProtectionConfig()
    ratings: RatingsConfig = RatingsConfig()
    clock: ClockConfig = ClockConfig()

    @property
    def primary_pool(self) -> PoolConfig:
        return next(p for p in self.pools if p.primary)


# -- reading ------------------------------------------------------------------------------------

# Config's own words: a float amount gets its own message (5.0 is not 500 cents); see tabled.game.checks.
_WORDING = Wording(unknown_key="unknown key (a typo?)", cents="a whole number of cents, 0 or more",
                   cents_not_float="whole cents (an integer, no decimal point)")


def _file(data: Any, where: str) -> Section:
    """The whole file as a section; every error names the file and the full key."""
    return Section(data, lambda key, problem: ConfigError(f"{where}: {key}: {problem}"),
                   wording=_WORDING)


def _path(sec: Section, key: str, base: Path, default: Any = ...) -> Path:
    """A database file's path, resolved against ``base``; refused when it cannot be one (a
    directory, or under a file), naming the key rather than leaving it to SQLite's words."""
    text = sec.text(key, default)
    if "\0" in text:
        raise sec.fail(key, "must not contain a NUL character")
    p = Path(text)
    p = p if p.is_absolute() else Path(os.path.normpath(base / p))
    try:
        if p.is_dir():
            raise sec.fail(key, f"{p} is a directory: name the database file in it")
        for parent in p.parents:  # the nearest one that exists must be a directory
            if parent.exists():
                if not parent.is_dir():
                    raise sec.fail(key, f"{p}: {parent} is a file, not a directory")
                break
    except PermissionError:
        pass  # a directory this user may not look into: opening the file will say what it can
    return p


def _table(sec: Section, base: Path) -> TableConfig:
    table_id = sec.text("id")
    if not _NAME.match(table_id):
        raise sec.fail("id", f"must be 1-32 letters, digits, '_', '.', '-', got {table_id!r}")
    spots = sec.integer("spots", MIN_SPOTS, MAX_SPOTS)  # 2.2.1
    name = sec.text("profile", "nsw")
    looks_like_path = name not in SHIPPED_PROFILES and (name.endswith(".toml") or "/" in name)
    where = str(base / name) if looks_like_path else name  # base / an absolute path = that path
    try:
        profile = load_profile(where)
    except ProfileError as exc:
        raise sec.fail("profile", str(exc)) from None
    unit = sec.cents("unit_cents", 100)
    if unit == 0:
        raise sec.fail("unit_cents", "must be at least 1 cent (6.1: the minimum unit)")
    minimum = sec.cents("minimum_cents")
    maximum = sec.cents("maximum_cents")
    if minimum == 0:
        raise sec.fail("minimum_cents", "must be more than 0 (6.1)")
    if maximum < minimum:
        raise sec.fail("maximum_cents", f"must be at least minimum_cents ({minimum}), got {maximum}")
    for key, value in (("minimum_cents", minimum), ("maximum_cents", maximum)):
        if value % unit:
            raise sec.fail(key, f"must be a multiple of unit_cents ({unit}) (6.1), got {value}")
    wager = sec.cents("progressive_wager_cents", profile.progressive_wager_cents)
    if wager == 0:
        raise sec.fail("progressive_wager_cents", "must be more than 0 (11.3: the posted wager)")
    card_source = sec.choice("card_source", CARD_SOURCES, "shuffler")
    check_payments = sec.flag("check_payments", False)
    shown: dict[str, str] = {}
    for key in ("name", "property"):
        text = sec.get(key, "")
        if not isinstance(text, str) or len(text.strip()) > MAX_SHOWN_NAME or not text.isprintable():
            raise sec.fail(key, f"must be printable text of at most {MAX_SHOWN_NAME} characters")
        shown[key] = text.strip()
    sec.finish()
    return TableConfig(table_id, spots, profile, name, minimum, maximum, unit, wager, card_source,
                       Path(where) if looks_like_path else None, shown["name"], shown["property"], check_payments)


def _journal(sec: Section, base: Path) -> JournalConfig:
    path = _path(sec, "path", base, "var/journal.db")
    every = sec.integer("checkpoint_every_rounds", 1, 1_000_000, 100)
    key = sec.get("signing_key", None)
    if key is not None:
        text = sec.text("signing_key")
        if "\0" in text:
            raise sec.fail("signing_key", "must not contain a NUL character")
        key = Path(text) if Path(text).is_absolute() else Path(os.path.normpath(base / text))
    ship_to: str | None = None
    if sec.get("ship_to", None) is not None:
        from tabled.daemon.shipping import dsn_problem
        problem = dsn_problem(sec.get("ship_to"))
        if problem:
            raise sec.fail("ship_to", problem)
        ship_to = sec.text("ship_to")
    may_wait = sec.flag("ship_may_wait", False)
    if may_wait and ship_to is None:
        raise sec.fail("ship_may_wait", "goes with ship_to (the central server the journal is shipped to)")
    sec.finish()
    return JournalConfig(path, every, key, ship_to, may_wait)


def _pools(top: Section, base: Path, profile: Profile) -> tuple[PoolConfig, ...]:
    raw = top.get("pools", None)
    if raw is None:
        raw = [{"name": "main", "backend": "local", "primary": True}]
    if not isinstance(raw, list) or not raw:
        raise top.fail("pools", f"must be one or more [[pools]] tables, got {raw!r}")
    pools: list[PoolConfig] = []
    for i, item in enumerate(raw):
        sec = top.entry(item, f"pools[{i}]")
        name = sec.text("name")
        try:
            check_pool_name(name)  # the pool's own check: what it will open
        except PoolError as exc:
            raise sec.fail("name", str(exc).removeprefix("pool name ")) from None
        if any(p.name == name for p in pools):
            raise sec.fail("name", f"{name!r} is used by another pool")
        backend = sec.choice("backend", POOL_BACKENDS, "local")
        primary = sec.flag("primary", len(raw) == 1)
        path = dsn = None
        if backend == "local":
            path = _path(sec, "path", base, f"var/pool-{name}.db")
            if "dsn" in sec.data:
                raise sec.fail("dsn", "is for backend = 'postgresql' only (a local pool has a path)")
        else:
            dsn = _dsn(sec)
            if "path" in sec.data:
                raise sec.fail("path", "is for backend = 'local' only (a linked pool has a dsn)")
        default_bp = profile.contribution_basis_points if primary else ...
        default_reset = profile.progressive_schedule.reset_cents if primary else 0
        rate = sec.integer("contribution_bp", 0, 10_000, default_bp)
        reset = sec.cents("reset_cents", default_reset)
        try:
            PoolSettings(rate, reset)  # the pool's own check of the settings it will be opened with
        except PoolError as exc:
            raise sec.fail("reset_cents", str(exc)) from None
        sec.finish()
        pools.append(PoolConfig(name, backend, path, dsn, rate, reset, primary))
    primaries = [p.name for p in pools if p.primary]
    if len(primaries) != 1:
        raise top.fail("pools", "exactly one pool must have primary = true "
                                f"(the pool the jackpot awards come from), got {len(primaries)}")
    total = sum(p.contribution_bp for p in pools)
    if total > 10_000:
        raise top.fail("pools", f"contribution_bp adds up to {total}, more than 10000 "
                                "(11.6: at most the whole progressive wager)")
    return tuple(pools)


def _dsn(sec: Section) -> str:
    """A connection string libpq can read (never shown back), without a password (systemd's
    credential pool-password gives it) and, for a server off this machine, with its TLS
    certificate verified (tabled.host.dsn)."""
    dsn = sec.get("dsn")
    if not isinstance(dsn, str) or not dsn.strip():
        raise sec.fail("dsn", "must be a PostgreSQL connection string (text)")
    try:
        from tabled.pool.postgresql import PASSWORD_CREDENTIAL, parse_dsn  # psycopg: linked pools
    except ImportError:
        raise sec.fail("backend", "'postgresql' needs the psycopg package, which is not installed") from None
    try:
        parse_dsn(dsn)
    except PoolError as exc:
        raise sec.fail("dsn", str(exc)) from None
    problem = dsn_problem(dsn, PASSWORD_CREDENTIAL)
    if problem is not None:
        raise sec.fail("dsn", problem)
    return dsn


def _devices(sec: Section) -> DevicesConfig:
    found: dict[str, Any] = {}
    for name in SERIAL_DEVICES:
        dev = sec.section(name, {})
        port = dev.text("port", _SERIAL_PORTS[name])
        baud = dev.integer("baudrate", 1200, 4_000_000, 115_200)
        dev.finish()
        found[name] = SerialDeviceConfig(port, baud)
    for name in USB_DEVICES:
        dev = sec.section(name, {})
        default_vid, default_pid = _usb_ids(name)
        vid = dev.integer("vendor_id", 0, 0xFFFF, default_vid)
        pid = dev.integer("product_id", 0, 0xFFFF, default_pid)
        serial = dev.get("serial", None)
        if serial is not None and (not isinstance(serial, str) or not serial):
            raise dev.fail("serial", f"must be the device's serial number as text, got {serial!r}")
        tty = dev.get("port", None)
        if tty is not None and (not isinstance(tty, str) or not tty):
            raise dev.fail("port", f"must be a serial port's path as text, got {tty!r}")
        dev.finish()
        found[name] = UsbDeviceConfig(vid, pid, serial, tty)
    sec.finish()
    return DevicesConfig(**found)


def _known_strategies() -> frozenset[str] | None:
    """The strategy names of tabled.math.strategy; None without NumPy (the sim and math extras),
    which that module needs: a table that simulates nobody reads its config without it."""
    try:
        from tabled.math import strategy  # NumPy: an optional extra
    except ImportError:
        return None
    names = getattr(strategy, "STRATEGIES", None)
    return frozenset(names) if names else None


#: the simulated players' personas (tabled/sim/personas.py): honest, or a cheat for game protection
PERSONAS = ("honest", "hole-carder", "flashed", "colluder")


def _simulation(sec: Section, table: TableConfig) -> SimulationConfig:
    enabled = sec.flag("enabled", False)
    allow_service = sec.flag("allow_service", False)
    seed = sec.integer("seed", 0, 2**63 - 1, 1)
    rounds = sec.integer("rounds", 0, 2**63 - 1, 0)
    pause = sec.integer("round_pause_ms", 0, 3_600_000, 500)
    dealer = sec.choice("dealer", DEALERS, "auto")
    pace = sec.integer("pace_ms", 0, 60_000, 0)
    inspector = sec.flag("inspector", False)
    errs = sec.section("mistakes", {})
    mistakes = Mistakes(**{k: errs.integer(k, 0, 1000, 0) for k in MISTAKES})
    errs.finish()
    if mistakes and not table.check_payments:
        raise errs.fail("overpay", "needs [table] check_payments = true: the mistakes are put right when the "
                                   "board's check shows them")
    raw_players = sec.get("players", [])
    if not isinstance(raw_players, list):
        raise sec.fail("players", f"must be a list of {{spot, ante_cents, progressive, strategy}}, got {raw_players!r}")
    strategies = _known_strategies()
    players: list[PlayerConfig] = []
    for i, item in enumerate(raw_players):
        p = sec.entry(item, f"players[{i}]")
        spot = p.integer("spot", 1, table.spots)
        if any(q.spot == spot for q in players):
            raise p.fail("spot", f"spot {spot} has another player already (5.8: one wager per area)")
        ante = p.cents("ante_cents")
        if not table.minimum_cents <= ante <= table.maximum_cents or ante % table.unit_cents:
            raise p.fail("ante_cents", f"must be from {table.minimum_cents} to {table.maximum_cents} "
                                       f"in units of {table.unit_cents} (6.1), got {ante}")
        progressive = p.flag("progressive", False)
        strategy = p.text("strategy", "optimal")
        if strategies is not None and strategy not in strategies:
            raise p.fail("strategy", f"must be one of {', '.join(sorted(strategies))}, got {strategy!r}")
        persona = p.choice("persona", PERSONAS, "honest")
        sees = p.integer("sees", 0, 4, 1 if persona == "hole-carder" else 0)
        if persona == "hole-carder" and sees not in (1, 2, 4):
            raise p.fail("sees", f"a hole-carder sees 1, 2 or 4 of the dealer's hole cards, got {sees}")
        if persona != "hole-carder" and sees:
            raise p.fail("sees", f"only a hole-carder sees hole cards (persona = \"hole-carder\"), got {sees}")
        group = p.get("group", None)
        if persona == "colluder" and group is None:
            raise p.fail("group", "is missing: a colluder names the group it shares hands with (group = \"A\")")
        if group is not None:
            if persona != "colluder":
                raise p.fail("group", "only a colluder shares hands with a group (persona = \"colluder\")")
            group = p.text("group")
        card = p.get("card", None)
        problem = None if card is None else card_problem(card)
        if problem is not None:  # in the fold's words, which never repeat the number
            raise p.fail("card", problem.removeprefix("card: "))
        p.finish()
        players.append(PlayerConfig(spot, ante, progressive, strategy, persona, sees, group,
                                    None if card is None else str(card)))  # text: card_problem said so
    sec.finish()
    return SimulationConfig(enabled, seed, rounds, pause, tuple(players), dealer, allow_service, pace, inspector,
                            mistakes)


def _log(sec: Section) -> LogConfig:
    fmt = sec.choice("format", LOG_FORMATS, "auto")
    level = sec.choice("level", LOG_LEVELS, "info")
    sec.finish()
    return LogConfig(fmt, level)


def _software(sec: Section, base: Path) -> SoftwareConfig:
    def file(key: str) -> Path | None:
        text = sec.get(key, None)
        if text is None:
            return None
        text = sec.text(key)
        if "\0" in text:
            raise sec.fail(key, "must not contain a NUL character")
        p = Path(text)
        return p if p.is_absolute() else Path(os.path.normpath(base / p))
    manifest, signature, key = file("manifest"), file("signature"), file("release_key")
    development = sec.flag("development", False)
    every = sec.integer("verify_every_s", 5, 86_400, 3600)
    sec.finish()
    if (manifest is None) != (key is None):
        raise sec.fail("manifest" if manifest is None else "release_key",
                       "is missing: a release manifest is checked with the release key (both or neither)")
    if signature is None and manifest is not None:
        signature = manifest.with_name(manifest.name + ".sig")
    return SoftwareConfig(manifest, signature, key, development, every)


def _clock(sec: Section) -> ClockConfig:
    every = sec.integer("check_every_s", 10, 86_400, 3600)
    bound = sec.integer("max_offset_ms", 1, 3_600_000, 1000)
    dsn: str | None = None
    if sec.get("dsn", None) is not None:  # read with the central journal's password (tabled/daemon/clock.py)
        from tabled.daemon.shipping import dsn_problem as central_dsn_problem
        problem = central_dsn_problem(sec.get("dsn"))
        if problem is not None:
            raise sec.fail("dsn", problem)
        dsn = sec.text("dsn")
    sec.finish()
    return ClockConfig(every, bound, dsn)


def _reports(sec: Section) -> ReportsConfig:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from tabled.reports.periods import Calendar, CalendarError, parse_clock

    zone = sec.text("time_zone", "UTC")
    day_start = sec.text("day_start", "06:00")
    shifts = sec.get("shifts", [])
    if not isinstance(shifts, list) or not all(isinstance(t, str) for t in shifts):
        raise sec.fail("shifts", f"must be a list of times of day like [\"06:00\", \"14:00\"], got {shifts!r}")
    sigmas = sec.get("flag_sigmas", 3)
    if not isinstance(sigmas, (int, float)) or isinstance(sigmas, bool) or not 0 < sigmas <= 100:
        raise sec.fail("flag_sigmas", f"must be a number of standard deviations above 0, got {sigmas!r}")
    sec.finish()
    try:
        tz = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise sec.fail("time_zone", f"no time zone {zone!r} (a name like Australia/Sydney or UTC)") from None
    try:
        Calendar.of(tz, parse_clock(day_start, "day_start"), tuple(parse_clock(t, "shifts") for t in shifts))
    except CalendarError as exc:
        raise sec.fail(str(exc).split(":")[0] if str(exc).startswith(("day_start", "shifts")) else "shifts",
                       str(exc).split(": ", 1)[-1]) from None
    return ReportsConfig(zone, day_start, tuple(shifts), float(sigmas))
def _screen(sec: Section, base: Path) -> ScreenConfig:
    enabled = sec.flag("enabled", True)
    host, port = listen_of(sec, SCREEN_LISTEN)
    viewers = viewers_of(sec)
    names, most, tls = names_of(sec), max_connections_of(sec), tls_of(sec, base)
    sec.finish()
    refused = exposure_refused(host, tuple(viewers), tls, "screen")
    if enabled and refused:
        raise sec.fail("listen", refused)
    return ScreenConfig(enabled, host, port, tuple(viewers), names, most, tls=tls)


def _ratings(sec: Section) -> RatingsConfig:
    enabled = sec.flag("enabled", False)
    minutes = sec.integer("interval_minutes", 0, 24 * 60, 0)
    sec.finish()
    return RatingsConfig(enabled, minutes)


def _staff(sec: Section, base: Path, journal: Path) -> StaffConfig:
    text = sec.text("file")
    if "\0" in text:
        raise sec.fail("file", "must not contain a NUL character")
    attempts = sec.integer("attempts", 1, 20, 5)
    minutes = sec.integer("lockout_minutes", 1, 24 * 60, 15)
    max_age = sec.integer("max_pin_age_days", 1, 3660, MAX_PIN_AGE_DAYS)
    sec.finish()
    path = Path(text) if Path(text).is_absolute() else Path(os.path.normpath(base / text))
    try:
        return read_staff(path, attempts, minutes, max_age, journal.parent / CHANGED_PINS)
    except StaffError as exc:
        raise sec.fail("file", str(exc)) from None


def parse_config(data: Mapping[str, Any], where: str, base: Path) -> Config:
    """Check already-parsed TOML; ``base`` is the directory relative paths are resolved against."""
    top = _file(data, where)
    if "table" not in data:
        staff_list = ("; this file is a staff list, not a table's config: a config names it as [staff] file "
                      "(docs/staff.md)") if "person" in data else ""
        raise top.fail("table", "is missing (the [table] section with id and spots)" + staff_list)
    table = _table(top.section("table"), base)
    journal = _journal(top.section("journal", {}), base)
    pools = _pools(top, base, table.profile)
    devices = _devices(top.section("devices", {}))
    simulation = _simulation(top.section("simulation", {}), table)
    log = _log(top.section("log", {}))
    software = _software(top.section("software", {}), base)
    reports = _reports(top.section("reports", {}))
    screen = replace(_screen(top.section("screen", {}), base), property_name=table.property_name, table_name=table.name,
                     time_zone=reports.time_zone)
    staff = _staff(top.section("staff"), base, journal.path) if "staff" in data else None
    protection_sec = top.section("protection", {})
    protection = ProtectionConfig(protection_sec.flag("live", True))
    protection_sec.finish()
    ratings = _ratings(top.section("ratings", {}))
    clock = _clock(top.section("clock", {}))
    top.finish()
    return Config(None, table, journal, pools, devices, simulation, log, software, reports, screen, staff,
                  protection, ratings, clock)


SYSTEM_CONFIG = Path("/etc/tabled/tabled.toml")
#: set by systemd for the processes of a service (sd_notify's socket; the invocation's id)
SERVICE_VARIABLES = ("NOTIFY_SOCKET", "INVOCATION_ID")


def find_config(explicit: str | Path | None = None, *, environ: Mapping[str, str] | None = None,
                system: Path = SYSTEM_CONFIG) -> Path:
    """The config a command reads: the one named (``--config``), else ``$TABLED_CONFIG``, else
    ``system`` (/etc/tabled/tabled.toml) when it exists. With none of them: a ConfigError saying
    so, never a fallback (a table PC must not start a simulated table by accident)."""
    environ = os.environ if environ is None else environ
    if explicit:
        return Path(explicit)
    if environ.get("TABLED_CONFIG"):
        return Path(environ["TABLED_CONFIG"])
    if system.exists():
        return system
    raise ConfigError(f"no config: pass --config FILE, or set $TABLED_CONFIG, or install {system} "
                      "(config/hardware.toml for a real table, config/sim.toml for the simulated one)")


def started_by_systemd(environ: Mapping[str, str] | None = None) -> bool:
    """True in a process systemd started as (part of) a service."""
    environ = os.environ if environ is None else environ
    return any(environ.get(name) for name in SERVICE_VARIABLES)


def check_may_start(cfg: Config, environ: Mapping[str, str] | None = None) -> None:
    """Refuse a simulated table under systemd unless its config allows it: a table PC's service
    plays real money, and a config left over from a demo must not replace it unnoticed."""
    if cfg.simulation.enabled and not cfg.simulation.allow_service and started_by_systemd(environ):
        raise ConfigError(f"{cfg.source or '<default config>'}: simulation.enabled: a simulated table does not "
                          "run as a systemd service ($NOTIFY_SOCKET or $INVOCATION_ID is set) unless "
                          "[simulation] allow_service = true")


def load_config(path: str | Path | None) -> Config:
    """Read and check a config file (None: the embedded simulated table, for tests)."""
    if path is None:
        data = parse_toml(DEFAULT_TOML, lambda problem: ConfigError(f"<default config>: {problem}"))
        return parse_config(data, "<default config>", Path.cwd())
    path = Path(path)
    problem = lambda text: ConfigError(f"{path}: {text}")  # noqa: E731
    data = parse_toml(read_text(path, problem, missing="no such config file"), problem)
    config = parse_config(data, str(path), path.resolve().parent)
    return replace(config, source=path)


__all__ = [
    "Config", "ConfigError", "TableConfig", "JournalConfig", "PoolConfig", "SerialDeviceConfig",
    "UsbDeviceConfig", "DevicesConfig", "PlayerConfig", "SimulationConfig", "LogConfig", "SoftwareConfig",
    "ReportsConfig", "ScreenConfig", "Viewer", "Tls", "listen_address", "StaffConfig",
    "load_config", "parse_config", "find_config", "check_may_start", "started_by_systemd", "DEFAULT_TOML",
]

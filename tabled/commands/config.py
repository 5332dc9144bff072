"""``tabled config check [FILE]``: check a config as ``tabled run`` would, and show what it means.

The file is FILE, else the one ``tabled run`` would read ($TABLED_CONFIG, else
/etc/tabled/tabled.toml). Every check a start makes before it opens the journal is made: the
config's own, the start's conditions, and the installed software against the release manifest
the config names. A valid config is printed back as the effective configuration: every
default filled in, every path resolved, a connection string's password hidden, a simulated
player's card number masked to its last four as everywhere outside the journal (the file is the
operator's; what the check prints goes to terminals and logs); it reads back as the same
configuration, those aside. Exit status 0: valid; 2: any error, on one line naming the key (the unit
runs this as ``ExecStartPre=`` and does not restart on status 2).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from tabled.commands._arguments import UserError

if TYPE_CHECKING:
    from tabled.daemon.config import Config

NAME = "config"
HELP = "the configuration: `tabled config check [FILE]` validates it and prints the effective one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="validate a config (exit 2 on any error) and print the effective one")
    check.add_argument("file", nargs="?", metavar="FILE",
                       help="the config (default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def _player(p: Any) -> dict[str, Any]:
    """A simulated player's keys, its card number masked; its persona's only when it is a simulated cheat."""
    from tabled.table.players import masked
    return {k: masked(v) if k == "card" else v for k, v in vars(p).items()
            if v is not None and (k not in ("persona", "sees", "group") or v not in (0, "honest"))}


def _table(header: str, values: dict[str, Any]) -> list[str]:
    return [header, *(f"{key} = {_value(v)}" for key, v in values.items() if v is not None), ""]


def effective_toml(cfg: Config) -> str:
    """The configuration as TOML, with what the file left out filled in and paths made absolute."""
    from tabled.host.log import scrub_secrets
    t, j, d, s = cfg.table, cfg.journal, cfg.devices, cfg.simulation
    profile = t.profile_path or t.profile_name
    out = _table("[table]", {
        "id": t.id, "name": t.name, "property": t.property_name, "spots": t.spots, "profile": profile,
        "minimum_cents": t.minimum_cents, "maximum_cents": t.maximum_cents, "unit_cents": t.unit_cents,
        "progressive_wager_cents": t.progressive_wager_cents, "card_source": t.card_source,
        "check_payments": t.check_payments})
    out += _table("[journal]", {"path": j.path, "checkpoint_every_rounds": j.checkpoint_every_rounds,
                                "signing_key": j.signing_key, "ship_to": j.ship_to})
    for p in cfg.pools:
        out += _table("[[pools]]", {
            "name": p.name, "backend": p.backend, "path": p.path,
            "dsn": None if p.dsn is None else scrub_secrets(p.dsn),
            "contribution_bp": p.contribution_bp, "reset_cents": p.reset_cents, "primary": p.primary})
    for name in ("shuffler", "betspots", "meter"):
        dev = getattr(d, name)
        out += _table(f"[devices.{name}]", {"port": dev.port, "baudrate": dev.baudrate})
    for name in ("shoe", "panel"):
        dev = getattr(d, name)
        out += [f"[devices.{name}]", f"vendor_id = 0x{dev.vendor_id:04x}", f"product_id = 0x{dev.product_id:04x}"]
        out += [f"serial = {_value(dev.serial)}"] if dev.serial is not None else []
        out += [f"port = {_value(dev.port)}"] if dev.port is not None else []
        out.append("")
    out += _table("[simulation]", {
        "enabled": s.enabled, "allow_service": s.allow_service, "seed": s.seed, "rounds": s.rounds,
        "round_pause_ms": s.round_pause_ms, "pace_ms": s.pace_ms, "dealer": s.dealer,
        "inspector": s.inspector})
    out.insert(len(out) - 1, "players = [" + "".join(
        f"\n    {_value(_player(p))}," for p in s.players)
        + ("\n]" if s.players else "]"))
    out += _table("[ratings]", {"enabled": cfg.ratings.enabled, "interval_minutes": cfg.ratings.interval_minutes})
    out += _table("[log]", {"format": cfg.log.format, "level": cfg.log.level})
    sw = cfg.software
    out += _table("[software]", {"manifest": sw.manifest, "signature": sw.signature, "release_key": sw.release_key,
                                 "development": sw.development, "verify_every_s": sw.verify_every_s})
    r = cfg.reports
    out += ["[reports]", f"time_zone = {_value(r.time_zone)}", f"day_start = {_value(r.day_start)}",
            "shifts = [" + ", ".join(_value(t) for t in r.shifts) + "]", f"flag_sigmas = {r.flag_sigmas!r}", ""]
    sc = cfg.screen
    host = f"[{sc.host}]" if ":" in sc.host else sc.host
    tls = {} if sc.tls is None else {"certificate": sc.tls.certificate, "key": sc.tls.key}
    out += _table("[screen]", {"enabled": sc.enabled, "listen": f"{host}:{sc.port}", "names": list(sc.names),
                               "max_connections": sc.max_connections, **tls})
    # a viewer's token is a password: never printed
    out.insert(len(out) - 1, "viewers = [" + "".join(
        f"\n    {_value({'name': v.name, 'token': '***'})}," for v in sc.viewers) + ("\n]" if sc.viewers else "]"))
    out += _table("[protection]", {"live": cfg.protection.live})
    out += _table("[clock]", {"check_every_s": cfg.clock.check_every_s, "max_offset_ms": cfg.clock.max_offset_ms,
                              "dsn": cfg.clock.dsn})
    if cfg.staff is not None:  # the people are in the staff file (their PINs' hashes stay there)
        out += _table("[staff]", {"file": cfg.staff.file, "attempts": cfg.staff.attempts,
                                  "lockout_minutes": cfg.staff.lockout_minutes,
                                  "max_pin_age_days": cfg.staff.max_pin_age_days})
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from tabled.daemon.config import ConfigError, check_may_start, find_config, load_config
    from tabled.daemon.provenance import check_software, refusal
    try:
        path = find_config(args.file)
        cfg = load_config(path)
        check_may_start(cfg)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    # the installed software against the release manifest, as every start checks it (provenance.py)
    why = refusal(check_software(cfg.software), cfg.software.development)
    if why is not None:
        raise UserError(why)  # in the words of the start's refusal
    print(f"# {path.resolve()}: valid. The effective configuration (defaults filled in, paths resolved):")
    print(effective_toml(cfg), end="")
    return 0

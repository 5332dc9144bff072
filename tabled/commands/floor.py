"""``tabled floor --config FILE``: serve the floor's view of every table (``/floor``) from the
central PostgreSQL, until stopped. Prints the page's address, then logs. docs/floor.md.

``tabled floor --config FILE --card NUMBER [--json]``: a player's rated sessions at every table,
each with its exact theoretical loss, from the central copy (docs/ratings.md); then exits."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from tabled.commands._arguments import UserError

NAME = "floor"
HELP = "serve the floor's view of every table (/floor) from the central PostgreSQL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", required=True, help="the floor's config (a [floor] section)")
    parser.add_argument("--card", metavar="NUMBER",
                        help="print this player card's rated sessions at every table, then exit")
    parser.add_argument("--json", action="store_true", help="with --card: one JSON object per session per line")
    parser.add_argument("--whole-cards", action="store_true",
                        help="with --card --json: the card number whole (default: masked to its last four)")


async def serve(args: argparse.Namespace) -> int:
    from tabled.floor.config import load_floor_config
    from tabled.floor.service import Floor, floor_connector
    from tabled.journal.seals import SealError
    cfg = load_floor_config(args.config)
    try:
        floor = Floor(cfg, floor_connector(cfg.central))
    except (SealError, OSError) as exc:
        raise UserError(f"{args.config}: floor.keys: {exc}") from None
    await floor.poll()  # the page has the tables from its first look
    try:
        url = await floor.start()
    except (OSError, ValueError) as exc:  # its port, or its TLS certificate and key
        raise UserError(str(exc)) from None
    print(f"the floor: {url}", flush=True)
    try:
        await floor.run()
    finally:
        await floor.stop()
    return 0


def player(args: argparse.Namespace) -> int:
    """A player's sessions across the tables (the floor's connection: it reads the journals)."""
    import json
    from datetime import UTC, datetime

    import psycopg

    from tabled.floor.config import PASSWORD_CREDENTIAL, load_floor_config
    from tabled.floor.ratings import lookup
    from tabled.host.dsn import credential_password
    from tabled.profiles import load_profile
    from tabled.reports.ratings import rating_data, rating_line
    from tabled.table.players import masked
    if args.whole_cards and not args.json:
        raise UserError("--whole-cards goes with --json: the text shows the card number masked")
    cfg = load_floor_config(args.config)
    password = credential_password(PASSWORD_CREDENTIAL)
    extra: dict[str, Any] = {"password": password} if password is not None else {}
    try:
        with psycopg.connect(cfg.central, connect_timeout=10, **extra) as conn:
            ratings = lookup(conn, args.card, load_profile)
    except psycopg.Error as exc:
        raise UserError(f"{args.config}: floor.central: {str(exc).strip().splitlines()[0]}") from None
    if args.json:
        for r in ratings:
            print(json.dumps(rating_data(r, cards=args.whole_cards)))
        return 0
    when = lambda ms: datetime.fromtimestamp(ms / 1000, UTC).strftime("%m-%d %H:%M")  # noqa: E731
    tables = sorted({r.table for r in ratings})
    print(f"player card {masked(args.card)}: {len(ratings)} sessions at {len(tables)} tables"
          + (f" ({', '.join(tables)})" if tables else ""))
    for r in ratings:
        print(rating_line(r, when))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.card is not None:
        return player(args)
    if args.json or args.whole_cards:
        raise UserError("--json and --whole-cards go with --card")
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130

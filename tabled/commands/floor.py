"""``tabled floor --config FILE``: serve the floor's view of every table (``/floor``) from the
central PostgreSQL, until stopped. Prints the page's address, then logs. docs/floor.md."""

from __future__ import annotations

import argparse
import asyncio
import sys

from tabled.commands._arguments import UserError

NAME = "floor"
HELP = "serve the floor's view of every table (/floor) from the central PostgreSQL"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", required=True, help="the floor's config (a [floor] section)")


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


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130

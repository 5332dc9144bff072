"""``tabled floor --config FILE``: serve the floor's view of every table (``/floor``) from the
central PostgreSQL, until stopped. Prints the page's address, then logs. docs/floor.md.

``tabled floor --config FILE --card NUMBER [--json]``: a player's sessions at every table, each
that ended and each open as the table's shipped journal stands (rounds, time seated and wagers so
far), each with its exact theoretical loss, from the central copy (docs/ratings.md); then exits.

``tabled floor --config FILE --rate``: the exact theoretical loss of every rating shipped and not
yet rated, into the central ``player_ratings_v2`` (docs/ratings.md); then exits. The serving floor
does the same every minute, off its loop."""

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
                        help="print this player card's sessions at every table, ended and open, then exit")
    parser.add_argument("--json", action="store_true", help="with --card: one JSON object per session per line")
    parser.add_argument("--whole-cards", action="store_true",
                        help="with --card --json: the card number whole (default: masked to its last four)")
    parser.add_argument("--rate", action="store_true",
                        help="rate every rating shipped and not yet rated into player_ratings_v2, then exit")


#: seconds between the serving floor's passes over the ratings shipped since
RATE_EVERY_S = 60.0


def _central(cfg: Any) -> Any:
    """A connection to the central copy with the floor's rights (its password: systemd's credential)."""
    import psycopg

    from tabled.floor.config import PASSWORD_CREDENTIAL
    from tabled.host.dsn import credential_password
    password = credential_password(PASSWORD_CREDENTIAL)
    extra: dict[str, Any] = {"password": password} if password is not None else {}
    return psycopg.connect(cfg.central, connect_timeout=10, **extra)


def rate_all(cfg: Any) -> int:
    """Every rating shipped and not yet rated, rated (tabled.floor.ratings.rate_pending): how many."""
    from tabled.floor.ratings import rate_pending
    from tabled.profiles import load_profile
    rated = 0
    with _central(cfg) as conn:
        while (n := rate_pending(conn, load_profile)):
            rated += n
    return rated


async def rate_while_serving(cfg: Any) -> None:
    """The serving floor's ratings: a pass a minute, in a thread (the exact count takes a while)."""
    import psycopg
    import structlog

    log = structlog.get_logger("tabled.floor.ratings")
    while True:
        try:
            rated = await asyncio.to_thread(rate_all, cfg)
            if rated:
                log.info("floor.ratings_rated", ratings=rated)
        except psycopg.Error as exc:  # the central copy is down: the floor's page says so already
            log.warning("floor.ratings_not_rated", error=str(exc).strip().splitlines()[0])
        except ImportError as exc:    # the exact count is the math extra's (NumPy)
            log.error("floor.ratings_not_rated", error=f"{exc}: install tabled[math] on the floor's PC")
            return
        except Exception:  # one bad record must not stop the floor's page: said, and tried again later
            log.exception("floor.ratings_not_rated")
        await asyncio.sleep(RATE_EVERY_S)


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
    rating = asyncio.get_running_loop().create_task(rate_while_serving(cfg), name="floor-ratings")
    try:
        await floor.run()
    finally:
        rating.cancel()
        await floor.stop()
    return 0


def player(args: argparse.Namespace) -> int:
    """A player's sessions across the tables (the floor's connection: it reads the journals)."""
    import json
    from datetime import UTC, datetime

    import psycopg

    from tabled.floor.config import load_floor_config
    from tabled.floor.ratings import lookup
    from tabled.profiles import load_profile
    from tabled.reports.ratings import rating_data, rating_line
    from tabled.table.players import masked
    if args.whole_cards and not args.json:
        raise UserError("--whole-cards goes with --json: the text shows the card number masked")
    cfg = load_floor_config(args.config)
    try:
        with _central(cfg) as conn:
            ratings = lookup(conn, args.card, load_profile)
    except psycopg.Error as exc:
        raise UserError(f"{args.config}: floor.central: {str(exc).strip().splitlines()[0]}") from None
    if args.json:
        for r in ratings:
            print(json.dumps(rating_data(r, cards=args.whole_cards)))
        return 0
    when = lambda ms: datetime.fromtimestamp(ms / 1000, UTC).strftime("%m-%d %H:%M")  # noqa: E731
    tables = sorted({r.table for r in ratings})
    still = sum(1 for r in ratings if r.open)
    print(f"player card {masked(args.card)}: {len(ratings)} sessions at {len(tables)} tables"
          + (f" ({', '.join(tables)})" if tables else "")
          + (f", {still} open now (figures so far, to each table's last shipped record)" if still else ""))
    for r in ratings:
        print(rating_line(r, when))
    return 0


def rate(args: argparse.Namespace) -> int:
    """``--rate``: one pass over the ratings shipped and not yet rated."""
    import psycopg

    from tabled.floor.config import load_floor_config
    cfg = load_floor_config(args.config)
    try:
        rated = rate_all(cfg)
    except psycopg.Error as exc:
        raise UserError(f"{args.config}: floor.central: {str(exc).strip().splitlines()[0]}") from None
    print(f"player ratings: {rated} rated into player_ratings_v2")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.rate:
        if args.card is not None or args.json or args.whole_cards:
            raise UserError("--rate goes alone: it rates every rating not yet rated")
        return rate(args)
    if args.card is not None:
        return player(args)
    if args.json or args.whole_cards:
        raise UserError("--json and --whole-cards go with --card")
    try:
        return asyncio.run(serve(args))
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 130

"""``tabled recall``: the last 10 rounds (or any round by id) in full, from the journal.

Everything the journal holds for a round is shown in order -- inputs, cards, wagers, decisions,
settlement, progressive awards and the pool before and after -- whatever the record kinds, so a
new kind of record is recalled without changing this command. For people, amounts (``*_cents``)
are shown in dollars and card indexes (``card``, ``cards``, ``hand``...) as card text; ``--json``
gives the records exactly as journalled, one round per line.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tabled.cli import UserError, whole_number
from tabled.commands.audit import add_journal_arguments, journal_path
from tabled.game.cards import card_text
from tabled.game.settlement import money
from tabled.journal import Journal, Record

NAME = "recall"
HELP = "show the last rounds (default 10), or one round by id, in full from the journal"

CARD_KEYS = {"card", "cards", "hand", "player_cards", "dealer_cards", "dealer_hand", "up_card", "exposed"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_journal_arguments(parser)
    parser.add_argument("--round", metavar="ID", action="append", help="a round id (may be repeated)")
    parser.add_argument("--last", metavar="N", type=whole_number(1), default=10, help="the last N rounds (default 10)")
    parser.add_argument("--json", action="store_true", help="one JSON object per round per line")


def _is_card(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52


def show_value(key: str, value: Any) -> str:
    """A payload value for people: cents as dollars, card indexes as cards, the rest as JSON."""
    if key.endswith("_cents") and isinstance(value, int) and not isinstance(value, bool):
        return money(value)
    if key in CARD_KEYS:
        if _is_card(value):
            return card_text(value)
        if isinstance(value, list) and value and all(_is_card(v) for v in value):
            return " ".join(card_text(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={show_value(k, v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "[" + "; ".join(show_value(key, v) for v in value) + "]"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def show_record(record: Record) -> str:
    when = record.time.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    fields = "  ".join(f"{k}={show_value(k, v)}" for k, v in record.payload.items())
    return f"  #{record.seq:<8} {when}  {record.kind:<24} {fields}".rstrip()


def run(args: argparse.Namespace) -> int:
    path = journal_path(args)
    with Journal.open(path, readonly=True, verify=False) as journal:
        if args.round:
            round_ids = args.round
        else:
            round_ids = list(reversed(journal.recent_round_ids(args.last)))  # oldest first
        rounds = [(rid, journal.records_for_round(rid)) for rid in round_ids]
    missing = [rid for rid, records in rounds if not records]
    if missing and args.round:
        raise UserError(f"no round {missing[0]!r} in {path}")
    if args.json:
        for rid, records in rounds:
            print(json.dumps({"round_id": rid, "records": [r.as_dict() for r in records]}, ensure_ascii=False))
        return 0
    if not rounds:
        print(f"journal {path}: no rounds yet")
        return 0
    for rid, records in rounds:
        first, last = records[0], records[-1]
        print(f"round {rid}: {len(records)} records, {first.time:%Y-%m-%d %H:%M:%S} to "
              f"{last.time:%H:%M:%S} UTC, last: {last.kind}")
        for record in records:
            print(show_record(record))
        print()
    return 0

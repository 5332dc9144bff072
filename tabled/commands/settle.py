"""``tabled settle ROUND.json``: recompute a round's settlement (a supervisor's tool, rule 16.11).

Reads a round JSON file (docs/round-format.md) or ``-`` for stdin and prints what happens to every
wager on every spot, with the rule behind it, in payment order; ``--json`` for programs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tabled.host.documents import parse_json, read_text
from tabled.profiles import load_profile
from tabled.game.round_facts import RoundError, round_from_json
from tabled.game.settlement import settle, settlement_as_dict
from tabled.game.settlement_text import render

NAME = "settle"
HELP = "settle one round from a round JSON file (or - for stdin): what to pay or collect, and why"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("round", metavar="ROUND.json", help="round file (docs/round-format.md), or - for stdin")
    parser.add_argument("--profile", help="profile name or .toml path (overrides the round's \"profile\")")
    parser.add_argument("--json", action="store_true", help="machine-readable output, amounts in cents")


def read_round(source: str) -> Any:
    """The decoded JSON document (bounded in size and depth, every key once); any problem becomes
    one line (a RoundError)."""
    where = "standard input" if source == "-" else source
    problem = lambda text: RoundError(f"{where}: {text}")  # noqa: E731
    return parse_json(read_text(source, problem), problem)


def run(args: argparse.Namespace) -> int:
    data = read_round(args.round)
    named, facts = round_from_json(data)
    profile_name = args.profile or named
    if not profile_name:
        raise RoundError("the round names no profile: add \"profile\": \"nsw\" or pass --profile")
    st = settle(facts, load_profile(profile_name))
    if args.json:
        print(json.dumps(settlement_as_dict(st), indent=2))
    else:
        print(render(st))
    return 0

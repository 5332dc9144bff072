"""``tabled rank As Ks Qs Js Ts``: the poker value of five cards (rule 13)."""

from __future__ import annotations

import argparse
import json

from tabled.game.cards import hand_text, parse_hand
from tabled.game.ranking import dealer_qualifies, hand_value

NAME = "rank"
HELP = "print the poker value of five cards (rule 13), e.g. tabled rank As Ks Qs Js Ts"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cards", nargs="+", help="five cards such as As Td 7h (10h is accepted)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    hand = parse_hand(" ".join(args.cards))
    hv = hand_value(hand)
    if args.json:
        print(json.dumps({
            "cards": hand_text(hand).split(),
            "value": hv.value,
            "category": hv.category.label,
            "description": hv.description,
            "dealer_qualifies": dealer_qualifies(hv.value),
        }))
    else:
        qualifies = "qualifies" if dealer_qualifies(hv.value) else "does not qualify"
        print(f"{hand_text(hand)}: {hv.description} (value {hv.value} of 7462; "
              f"as the dealer's hand it {qualifies}, rule 9.1)")
    return 0

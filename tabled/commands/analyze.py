"""``tabled analyze --profile NAME``: the exact par sheet of a profile's paytable."""

from __future__ import annotations

import argparse
import json
import sys

from tabled.profiles import load_profile
from tabled.math import analysis, report
from tabled.math.paytable import Paytable
from tabled.math.strategy import STRATEGIES

NAME = "analyze"
HELP = ("exact game mathematics of a profile: par sheet of every strategy over all "
        "19,933,230,517,200 deals, and the progressive's return by meter")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True,
                        help="shipped profile name (nsw, us-standard, nz-irregularities) or a TOML file")
    parser.add_argument("--strategy", default="optimal", choices=list(STRATEGIES),
                        help="whose full par sheet to print (all strategies are summarised)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    result = analysis.analyze(Paytable.from_profile(profile),
                              progress=not args.no_progress and sys.stderr.isatty())
    qualifying = analysis.dealer_qualifying_hands()
    if args.json:
        print(json.dumps(report.analysis_data(profile, result, qualifying), indent=2))
    else:
        print(report.analysis_text(profile, result, args.strategy, qualifying))
    return 0

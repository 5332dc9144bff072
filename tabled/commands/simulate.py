"""``tabled simulate``: deal and settle many rounds, compare with the exact mathematics."""

from __future__ import annotations

import argparse
import json
import sys

from tabled.game.profiles import load_profile
from tabled.math import analysis, report, simulator
from tabled.math.paytable import Paytable
from tabled.math.strategy import STRATEGIES

NAME = "simulate"
HELP = "simulate rounds through the game's settlement; return with a 95% CI beside the exact value"


def _whole(low: int, unit: str = ""):
    """An argparse type: a whole number of ``unit`` (e.g. " cents"), ``low`` or more."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number{' of' + unit if unit else ''}: {text!r}") from None
        if n < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more{unit}, got {n}")
        return n
    return parse


_positive = _whole(1)
_cents = _whole(0, " cents")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", required=True,
                        help="shipped profile name (nsw, us-standard, nz-irregularities) or a TOML file")
    parser.add_argument("--rounds", type=_positive, required=True, help="rounds to deal")
    parser.add_argument("--spots", type=_positive, default=7,
                        help=f"playing spots per round, 1 to {simulator.MAX_SPOTS} (default 7)")
    parser.add_argument("--seed", type=int, default=0, help="random seed: the same seed, the same result")
    parser.add_argument("--strategy", default="optimal", choices=list(STRATEGIES),
                        help="how every spot decides to bet or fold (default optimal)")
    parser.add_argument("--ante-cents", type=_positive, default=100, help="each spot's ante (default 100)")
    parser.add_argument("--meter-cents", type=_cents, default=None,
                        help="progressive meter held for the run (default: the profile's reset value)")
    parser.add_argument("--no-progressive", action="store_true", help="no progressive wagers")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the running return (needs matplotlib)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plot needs matplotlib: pip install 'tabled[plot]'") from None
    sim = simulator.simulate(profile, args.rounds, args.spots, args.seed, args.strategy,
                             ante_cents=args.ante_cents, progressive=not args.no_progressive,
                             pool_cents=args.meter_cents,
                             progress=not args.no_progress and sys.stderr.isatty())
    exact = analysis.par_sheet(Paytable.from_profile(profile), args.strategy)
    if args.plot:
        report.plot_running(sim, exact, args.plot)
    if args.json:
        print(json.dumps(report.simulation_data(profile, sim, exact), indent=2))
    else:
        print(report.simulation_text(profile, sim, exact))
        if args.plot:
            print(f"plot written to {args.plot}")
    return 0
